"""``speecheval transcripts score --manifest FILE --out DIR``."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("score")
@click.option("--manifest", "manifest_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Manifest of samples (JSON or YAML; schema in docs/transcripts-score.md).")
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="New output directory (must not exist; never overwritten).")
def score(manifest_path: Path, out_dir: Path) -> None:
    """Score every sample of a manifest: per-sample rows, scenario tables, HTML report."""
    from .run import write_run  # here: the manifest schema imports pydantic

    command = ("speecheval", "transcripts", "score", "--manifest", str(manifest_path),
               "--out", str(out_dir))
    for line in write_run(manifest_path, out_dir, command):
        click.echo(line)
