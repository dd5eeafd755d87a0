# Two entry points do all setup on a fresh machine: `make demo` and `make test`, with no
# apt step (speech comes from the espeakng-loader wheel where Debian's espeak-ng is absent).
# `make demo` installs what the demo runs on (the fdb and asr extras: Silero, Whisper,
# speech); `make test` adds every extra the tests use, the test tools and the independent
# tools the tests compare against, to the same .venv (so `make test` after `make demo`
# upgrades it rather than starting again). The extras are listed in docs/install.md.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.runtime-installed
TEST_STAMP := $(VENV)/.test-installed
PIPECAT_VENV := .venv-pipecat

.PHONY: setup setup-test demo test lint bench mutate docs

# The demo's extras only: no torch, no test tools.
$(RUNTIME_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[fdb,asr]'
	touch $@

# On top of the demo's: every user extra (`all`: fdb15's prosody and offline-judge
# packages, PyAV, aiortc for the webrtc transport, Ray for the executor tests' local
# cluster, the official evaluator's imports), pytest, ruff, mypy, jiwer, meeteval,
# pyannote.metrics, voicebench, and silero-vad with the CPU torch build for the Silero
# parity tests. The pipecat transport's tests run a real Pipecat bot from its own
# environment: Pipecat pins soxr, soundfile and protobuf below the versions this one uses
# (no torch, no CUDA); the transport itself needs no Pipecat.
$(TEST_STAMP): $(RUNTIME_STAMP)
	$(BIN)/pip install --quiet -e '.[all,dev,test,parity]'
	$(PYTHON) -m venv $(PIPECAT_VENV)
	$(PIPECAT_VENV)/bin/pip install --quiet 'pipecat-ai[websocket]==1.14.0'
	touch $@

setup: $(RUNTIME_STAMP)

setup-test: $(TEST_STAMP)

# The whole Full-Duplex-Bench v1.0 pipeline, offline: build the mini dataset, serve the
# cascade agent on a free local port, record it over a real socket, export, transcribe
# with the bundled Whisper, score, and write runs/demo/report.html (speecheval fdb10 demo).
# Speech from Debian's espeak-ng where installed, else the speech extra's library.
# DEMO_ARGS narrows or widens it, e.g.
# DEMO_ARGS="--max-per-subset 8 --concurrency 8".
DEMO_ARGS ?=
demo: setup
	rm -rf runs/demo
	$(BIN)/speecheval fdb10 demo --out runs/demo $(DEMO_ARGS)

# A few tests compare against apt programs and skip, naming them, without: chromium,
# perl (md-eval), fonts-noto-cjk, and Debian's espeak-ng 1.51 for the bytes pinned from
# its audio (docs/install.md, "What make test takes from apt").
test: setup-test
	$(BIN)/python -m pytest -q

lint: setup-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# The API reference, built from the public modules' docstrings by pdoc (the dev extra),
# offline, into docs/api/ (not committed): open docs/api/index.html.
docs: setup-test
	rm -rf docs/api
	$(BIN)/python scripts/build_api_docs.py --out docs/api

bench: setup
	$(BIN)/python benchmarks/fdb10_unified_speed.py

# Mutation testing of the metric modules (docs/testing.md): mutmut runs, for each mutant,
# only the tests that reach the mutated function; then the per-module score is printed.
# Niced so that it leaves the machine usable; MUTATE_JOBS sets the parallel workers.
MUTATE_JOBS ?= 2
mutate: setup-test
	rm -rf mutants
	SPEECHEVAL_SHARED=$(abspath ../shared) nice -n 10 $(BIN)/mutmut run --max-children $(MUTATE_JOBS) > .mutmut.log 2>&1 || (tail -20 .mutmut.log; exit 1)
	$(BIN)/python benchmarks/mutation_report.py
