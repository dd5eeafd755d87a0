"""``speecheval fdb15``: Full-Duplex-Bench v1.5 commands.

Only click is imported here; each command imports its modules (numpy, scipy, pydantic)
when it runs, so ``speecheval --help`` stays fast.
"""

from __future__ import annotations

import time
from pathlib import Path

import click


@click.group()
def fdb15() -> None:
    """Full-Duplex-Bench v1.5: overlap scenarios (dataset and timing)."""


@fdb15.command("build-dataset")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the dataset (must not exist).")
@click.option("--size", type=click.Choice(["mini", "full"]), default="mini", show_default=True,
              help="mini: 6 samples per scenario; full: the declared 200/99/100/100.")
def build_dataset_command(out: Path, size: str) -> None:
    """Write a v1.5 dataset in the official layout from espeak-ng speech."""
    from ...core.output import refuse_existing
    from .dataset import load_dataset
    from .dataset_build import build_dataset

    refuse_existing(out)
    started = time.perf_counter()
    samples = build_dataset(out, size)
    revision = load_dataset(out).revision
    click.echo(f"wrote {len(samples)} samples to {out} in {time.perf_counter() - started:.1f} s "
               f"(revision {revision[:16]})")


@fdb15.command("check-dataset")
@click.option("--dataset-root", "root", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the v1.5 scenario folders.")
def check_dataset_command(root: Path) -> None:
    """Read a v1.5 dataset: sizes, problems per sample and the computed revision."""
    from .dataset import load_dataset

    dataset = load_dataset(root)
    click.echo(f"dataset {root}  revision {dataset.revision}")
    rates = dataset.rates()
    for scenario, counts in dataset.counts().items():
        seen = ", ".join(str(rate) for rate in rates.get(scenario, [])) or "-"
        click.echo(f"  {scenario:20s} usable {counts['usable']:3d} of {counts['declared']:3d}"
                   f"  problems {counts['with_problems']:3d}  absent {counts['absent']:3d}"
                   f"  rates {seen}")
    for sample in dataset.samples:
        if sample.problems and not sample.absent:
            click.echo(f"  {sample.sample_id}: {'; '.join(sample.problems)}")
    for scenario, ranges in dataset.absent_ranges().items():
        click.echo(f"  absent {scenario}: {ranges}")


@fdb15.command("score")
@click.option("--tree", "tree", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Tree of sample folders with metadata.json, input.wav and output.wav.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="New directory for timing.json and timing-samples.jsonl "
                   "[default: TREE/fdb15-timing].")
def score_command(tree: Path, out: Path | None) -> None:
    """Score the timing of every trial: stop and response latency, statuses, official column."""
    from ...core.output import refuse_existing
    from ...core.progress import progress
    from ...core.provenance import collect_provenance
    from ...core.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
    from ...vad.silero import SileroVad
    from .official_timing import MODEL_MERGE_GAP_S, USER_MERGE_GAP_S
    from .score_output import render, write_timing
    from .scoring import TREE_FILES, find_trials, score_trial, summarize

    destination = refuse_existing(out if out is not None else tree / "fdb15-timing")
    started = time.perf_counter()
    trials = find_trials(tree)
    vad = SileroVad()
    scored = []
    with progress(len(trials), "fdb15 score") as advance:
        for trial in trials:
            scored.append(score_trial(trial, vad))
            advance()
    summary = summarize(scored)
    provenance = collect_provenance(
        command=["speecheval", "fdb15", "score", "--tree", str(tree), "--out",
                 str(destination)],
        settings={"vad": vad.identity(),
                  "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED},
                  "official_merge_gaps_s": {"user": USER_MERGE_GAP_S,
                                            "model": MODEL_MERGE_GAP_S}},
        inputs={f"{trial.sample_id}/{name}": trial.folder / name
                for trial in trials for name in TREE_FILES},
        packages=["onnxruntime", "silero-vad"])
    write_timing(destination, provenance, summary, scored)
    click.echo(render(summary), nl=False)
    click.echo(f"wrote {destination} in {time.perf_counter() - started:.1f} s")
