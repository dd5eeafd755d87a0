"""``speecheval fdb10 build-tree``: write a generated reference tree.

The mini tree is the bundled demonstration and test input; the full-size tree feeds the
speed benchmark. Both are made from the committed espeak-ng clips, so no network or model
is needed.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....cli_force import force_option
from ....core.output import replacing
from ..builder.trees import build_mini_tree, build_scale_tree


@click.command("build-tree")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the tree (refused if it exists, unless --force).")
@click.option("--scale", type=click.Choice(["mini", "full"]), default="mini", show_default=True,
              help="mini: ~50 samples covering every outcome class; full: 727 samples.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the full-size tree (the mini tree is fixed).")
@force_option
def build_tree(out: Path, scale: str, seed: int, force: bool) -> None:
    """Build a Full-Duplex-Bench v1.0 reference tree from generated speech."""
    started = time.perf_counter()
    if scale == "mini" and seed != 0:
        raise click.UsageError("--seed applies only to --scale full")
    with replacing(out, force=force, shape="manifest.json"):
        samples = build_mini_tree(out) if scale == "mini" else build_scale_tree(out, seed=seed)
    eligible = sum(sample.eligible for sample in samples)
    click.echo(f"wrote {len(samples)} samples ({eligible} eligible) to {out} "
               f"in {time.perf_counter() - started:.1f} s")
