"""The reference-column commands of ``speecheval fdb10``: transcribe, evaluate."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....cli_executor import executor_options
from ....cli_force import force_option
from ....core.errors import InputError
from ....core.executor import default_jobs
from ...common.cli_recogniser import recogniser_choice, recogniser_options


@click.command("reference-asr")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Reference tree with manifest.json and each sample's output.wav.")
@recogniser_options
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
    from ....core.executor import make_executor
    from ...common.reference_asr import reference_asr

    factory, workers = recogniser_choice(backend, jobs, nemo, nemo_sha256, nemo_device,
                                         base_url, model, api_key_env, max_attempts,
                                         executor)
    started = time.perf_counter()
    chosen = make_executor(executor, jobs=workers, ray_address=ray_address)
    run = reference_asr(tree, executor=chosen, factory=factory)
    words = sum(len(t["chunks"]) for t in run.transcripts.values())
    retried = f", {run.retries} requests retried" if backend == "openai-compatible" else ""
    click.echo(f"transcribed {len(run.transcripts)} samples ({words} words) with "
               f"{backend}{retried}")
    click.echo(f"wrote {run.asr_path} in {time.perf_counter() - started:.1f} s")


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
    from ....core.errors import SystemUnderTestError
    from ..reference.evaluate import OFFICIAL_JUDGE_MODEL, reference_evaluate
    from ..reference.runs import FAILED, Judge

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
@click.option("--tree", "trees", required=True, multiple=True, metavar="[NAME=]PATH",
              help="Transcribed reference tree, optionally named (NAME=PATH; else the "
                   "name manifest.json records); repeat for systems side by side.")
@click.option("--baseline", default=None, metavar="NAME",
              help="Compare every other system with this one [default: every pair].")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New HTML file to write (never overwritten without --force).")
@click.option("--dataset", "dataset", default=None,
              type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="The dataset the trees were captured from, if it moved since export "
                   "[default: the folder each tree records].")
@click.option("--audio-budget", "audio_budget", type=click.FloatRange(min=0), default=40.0,
              show_default=True, metavar="MB",
              help="Embed the audio while it fits this many MiB; past it, link a folder "
                   "<page name>-audio/ written beside the page.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for Silero VAD and for encoding the audio clips "
                   "(the page is the same bytes for any number) [default: one per core].")
@force_option
def report_command(trees: tuple[str, ...], baseline: str | None, out: Path,
                   dataset: Path | None, audio_budget: float, jobs: int | None,
                   force: bool) -> None:
    """Write one self-contained HTML page: a leaderboard of the headline metrics, every
    metric with its interval and the reference column (systems as columns), latency
    curves, outcome bars, the paired comparisons, and every sample with its timeline and
    audio."""
    from ....core.output import atomic_write_text, refuse_existing, replacing
    from ....report.page import render_page
    from ..report.audio_files import CHECKSUMS, AudioFiles, audio_folder_name
    from ..report.page import build_page, load_systems
    from ..report.systems import TreeSpec, system_names

    specs = [TreeSpec.parse(text) for text in trees]
    names = system_names(specs)
    if baseline is not None and baseline not in names:
        raise InputError(f"--baseline {baseline!r} is none of the systems: "
                         + ", ".join(names))
    folder = out.parent / audio_folder_name(out)
    with replacing(out, force=force, shape=(".html",)), \
            replacing(folder, force=force, shape=CHECKSUMS):
        refuse_existing(out)
        refuse_existing(folder)
        systems = load_systems(specs, jobs or default_jobs(), dataset)
        files = AudioFiles(folder.name)
        page = build_page(systems, files, baseline=baseline, audio_budget_mb=audio_budget,
                          workers=jobs or default_jobs())
        document = render_page(page)
        if page.embed_limit_bytes == 0 and files.files:
            files.write(folder)
            click.echo(f"wrote {folder} ({len(files.files)} clips, linked from the page)")
        atomic_write_text(out, document)
    click.echo(f"wrote {out}")
