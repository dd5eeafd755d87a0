"""``speecheval fdb15 demo``: the whole v1.5 pipeline offline on the mini set (one pair per
scenario), its argument handling, and why the recording recipe's agent reply is long."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from speecheval.agents.local.options import LocalAgentOptions
from speecheval.agents.local.voice import espeak_available, espeak_speech
from speecheval.cli import main
from speecheval.fdb.v15.builder.dataset import GAP_S
from speecheval.fdb.v15.capture.recipe import REPLY_TEXT

SCENARIOS = ("user_interruption", "user_backchannel", "talking_to_other", "background_speech")
ANSWER_AFTER_S = 0.5  # the local agent answers 300 ms (endpoint) + 200 ms (delay) after a turn

needs_espeak = pytest.mark.skipif(not espeak_available(),
                                  reason="espeak-ng is not installed (apt-get install espeak-ng)")


@needs_espeak
def test_recipe_reply_covers_every_onset_and_the_default_covers_none() -> None:
    # the overlap starts GAP_S (3.5-4.5 s) after the context turn, the reply 0.5 s after
    # it: the reply is still running at the onset only if it is longer than 3.0-4.0 s
    latest_onset = GAP_S[1] - ANSWER_AFTER_S  # 4.0 s into the reply
    earliest_onset = GAP_S[0] - ANSWER_AFTER_S  # 3.0 s into the reply
    assert espeak_speech(REPLY_TEXT, 16000).size / 16000 > latest_onset + 2.0
    default = LocalAgentOptions().reply_text[0]
    assert espeak_speech(default, 16000).size / 16000 < earliest_onset


@needs_espeak
def test_demo_runs_the_whole_pipeline_and_the_agent_is_interrupted(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    # its own process, as a user runs it (and clean: CTranslate2 must not be forked)
    done = subprocess.run([sys.executable, "-m", "speecheval", "fdb15", "demo", "--out",
                           str(out), "--max-per-scenario", "1"],
                          capture_output=True, text=True, timeout=400)
    printed = done.stdout
    assert done.returncode == 0, (printed[-3000:], done.stderr[-3000:])
    steps = [line.split()[3] for line in printed.splitlines() if line.startswith("$ ")]
    assert steps == ["build-dataset", "mock-server", "record", "export", "asr", "score",
                     "report"]
    assert json.loads((out / "run" / "run.json").read_text())["status"] == "complete"
    manifest = json.loads((out / "tree" / "manifest.json").read_text())
    assert sorted(e["sample_id"] for e in manifest["samples"]) == sorted(
        f"{scenario}/1" for scenario in SCENARIOS)
    scored = out / "tree" / "fdb15-timing"
    trials = [json.loads(line)
              for line in (scored / "timing-samples.jsonl").read_text().splitlines()]
    statuses = {t["sample_id"]: t["stop_status"] for t in trials}
    assert len(statuses) == 4
    # the reply runs at every onset: nothing is not_speaking_at_onset, and the agent
    # (interruptible, 100 ms barge-in) stops for the user's own interruption
    assert "not_speaking_at_onset" not in statuses.values(), statuses
    assert statuses["user_interruption/1"] == "stopped", statuses
    assert (scored / "behaviour.json").is_file() and (scored / "prosody.json").is_file()
    assert (out / "report.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert printed.rstrip().endswith(f"open {(out / 'report.html').resolve().as_uri()}")


def test_bad_arguments_exit_2_and_write_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["fdb15", "demo", "--out", str(out), "-o", "interruptible=maybe"]) == 2
    assert "option interruptible" in capsys.readouterr().err
    assert main(["fdb15", "demo", "--out", str(out), "-o", "reply"]) == 2
    assert main(["fdb15", "demo", "--out", str(out), "--max-per-scenario", "0"]) == 2
    assert not out.exists()
    out.mkdir()
    assert main(["fdb15", "demo", "--out", str(out)]) == 2
    assert "output already exists" in capsys.readouterr().err
    assert list(out.iterdir()) == []
