"""``speecheval fdb10 build-dataset`` and ``check-dataset``: the input side of a capture."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ...common.cli_dataset import build_options, echo_built, echo_check, root_option


@click.command("build-dataset")
@build_options("mini: 8 samples per subset; full: the declared 137/216/119/200/55.")
def build_dataset_command(out: Path, size: str) -> None:
    """Write a v1.0 input dataset in the official layout from espeak-ng speech."""
    from ...common.dataset import load_dataset
    from ..builder.dataset import build_dataset

    started = time.perf_counter()
    specs = build_dataset(out, size)
    echo_built(out, len(specs), started, load_dataset(out).revision)


@click.command("check-dataset")
@root_option("v1.0 subset folders")
def check_dataset_command(root: Path) -> None:
    """Read a v1.0 dataset: sizes, input rates, problems and the computed revision."""
    from ...common.dataset import load_dataset

    echo_check(root, load_dataset(root), width=30)
