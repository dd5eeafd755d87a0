"""``speecheval fdb10 record`` and ``fdb10 reference-export``: capture a system's sessions
on a v1.0 dataset, and play record runs out into a reference tree.

Exit codes: 0 every selected sample recorded (or skipped for a dataset problem), 2 bad
input (nothing written), 3 some sample failed because of the system under test (the
run directory is complete and says which and why).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ....cli_force import force_option
from ...common.cli_record import record_or_resume, session_options


@click.command("record")
@click.option("--dataset-root", "root", type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the v1.0 subset folders (official layout).")
@click.option("--subset", "subsets", multiple=True, help="Only this subset (repeatable).")
@click.option("--sample-id", "sample_ids", multiple=True, metavar="SUBSET/ID",
              help="Only this sample (repeatable).")
@click.option("--max-per-subset", type=click.IntRange(min=1), default=None)
@session_options
def record_command(root: Path | None, subsets: tuple[str, ...], sample_ids: tuple[str, ...],
                   max_per_subset: int | None, **shared: Any) -> None:
    """Record an agent's sessions on a v1.0 dataset into a run directory."""
    from ...common.dataset import Dataset, load_dataset
    from ...common.record import resume_run, start_run

    def select() -> tuple[Dataset, tuple[str, ...]]:
        assert root is not None
        dataset = load_dataset(root)
        selected = dataset.select(subsets=subsets, sample_ids=sample_ids,
                                  max_per_subset=max_per_subset)
        return dataset, tuple(s.sample_id for s in selected)

    record_or_resume(root, shared, select=select, start=start_run, resume_run=resume_run)


@click.command("reference-export")
@click.option("--run", "runs", required=True, multiple=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="A record run directory (repeatable: shards merge).")
@click.option("--dataset-root", "root", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="The dataset the runs recorded (its file hashes are checked).")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the reference tree.")
@force_option
def reference_export_command(runs: tuple[Path, ...], root: Path, out: Path,
                             force: bool) -> None:
    """Play out record runs into the reference tree that unified-score reads."""
    from ....core.output import replacing
    from ...common.export import export_tree

    with replacing(out, force=force, shape="manifest.json"):
        counts = export_tree(list(runs), root, out)
    click.echo(f"wrote {out}: {counts['samples']} samples, {counts['eligible']} eligible, "
               f"{counts['ineligible']} ineligible"
               + (f", {counts['unlisted']} unlisted (not usable in the dataset)"
                  if counts["unlisted"] else ""))
