"""``speecheval fdb10 build-dataset`` and ``check-dataset``: the input side of a capture."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....cli_force import force_option


@click.command("build-dataset")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the dataset (must not exist).")
@click.option("--size", type=click.Choice(["mini", "full"]), default="mini", show_default=True,
              help="mini: 8 samples per subset; full: the declared 137/216/119/200/55.")
@force_option
def build_dataset_command(out: Path, size: str, force: bool) -> None:
    """Write a v1.0 input dataset in the official layout from espeak-ng speech."""
    from ....core.output import replacing
    from ...common.dataset import load_dataset
    from ..builder.dataset import BUILD_FILE, build_dataset

    started = time.perf_counter()
    with replacing(out, force=force, shape=BUILD_FILE):
        specs = build_dataset(out, size)
    revision = load_dataset(out).revision
    click.echo(f"wrote {len(specs)} samples to {out} in {time.perf_counter() - started:.1f} s "
               f"(revision {revision[:16]})")


@click.command("check-dataset")
@click.option("--dataset-root", "root", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the v1.0 subset folders.")
def check_dataset_command(root: Path) -> None:
    """Read a v1.0 dataset: sizes, input rates, problems and the computed revision."""
    from ...common.dataset import load_dataset

    dataset = load_dataset(root)
    info = dataset.describe()
    click.echo(f"dataset {root}  revision {dataset.revision}")
    for subset, counts in info["counts"].items():
        rates = ", ".join(str(r) for r in info["input_rates"].get(subset, [])) or "-"
        click.echo(f"  {subset:30s} usable {counts['usable']:3d} of {counts['declared']:3d}"
                   f"  problems {counts['with_problems']:3d}"
                   f"  absent {counts['absent']:3d}  rates {rates}")
    present_problems = [s for s in dataset.samples if s.problems and not s.absent]
    for sample in present_problems:
        click.echo(f"  {sample.sample_id}: {'; '.join(sample.problems)}")
