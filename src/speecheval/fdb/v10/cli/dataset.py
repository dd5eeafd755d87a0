"""``speecheval fdb10 build-dataset`` and ``check-dataset``: the input side of a capture."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....cli_force import force_option
from ...common.cli_dataset import build_options, echo_built, echo_check, root_option


@click.command("build-dataset")
@build_options("mini: 8 samples per subset; full: the declared 137/216/119/200/55.")
@force_option
def build_dataset_command(out: Path, size: str, force: bool) -> None:
    """Write a v1.0 input dataset in the official layout from espeak-ng speech."""
    from ....core.output import replacing
    from ...common.dataset import load_dataset
    from ..builder.dataset import BUILD_FILE, build_dataset

    started = time.perf_counter()
    with replacing(out, force=force, shape=BUILD_FILE):
        specs = build_dataset(out, size)
    echo_built(out, len(specs), started, load_dataset(out).revision)


@click.command("check-dataset")
@root_option("v1.0 subset folders")
def check_dataset_command(root: Path) -> None:
    """Read a v1.0 dataset: sizes, input rates, problems and the computed revision."""
    from ...common.dataset import load_dataset

    echo_check(root, load_dataset(root), width=30)
