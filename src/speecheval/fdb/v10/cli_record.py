"""``speecheval fdb10 record``: capture a system's sessions on a v1.0 dataset.

Exit codes: 0 every selected sample recorded (or skipped for a dataset problem), 2 bad
input (nothing written), 3 some sample failed because of the system under test (the
run directory is complete and says which and why).
"""

from __future__ import annotations

from pathlib import Path

import click

from ...core.errors import EXIT_SYSTEM_FAILED
from ...core.option_pairs import parse_option_pairs


@click.command("record")
@click.option("--dataset-root", "root", type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the v1.0 subset folders (official layout).")
@click.option("--agent", default=None, metavar="NAME|module:Class",
              help="pcm-websocket, openai-realtime, native-realtime or module:Class.")
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Transport option (repeatable); {sample_id} in url is substituted.")
@click.option("--out", "out", type=click.Path(path_type=Path),
              help="New run directory.")
@click.option("--resume", "resume", type=click.Path(path_type=Path, file_okay=False),
              help="Finish the pending samples of this run directory instead.")
@click.option("--subset", "subsets", multiple=True, help="Only this subset (repeatable).")
@click.option("--sample-id", "sample_ids", multiple=True, metavar="SUBSET/ID",
              help="Only this sample (repeatable).")
@click.option("--max-per-subset", type=click.IntRange(min=1), default=None)
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Sessions at once, on one event loop.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=10.0,
              show_default=True, help="Seconds a connect, send, end or close may block.")
@click.option("--grace", "grace_s", type=click.FloatRange(min=0.0), default=1.0,
              show_default=True, help="Seconds of receiving after T.")
@click.option("--server-revision", default=None, help="The server's revision (recorded).")
@click.option("--model", default=None, help="The model served (recorded).")
@click.option("--dataset-label", default=None, help="An operator label for the dataset.")
def record_command(root: Path | None, agent: str | None, option_pairs: tuple[str, ...],
                   out: Path | None, resume: Path | None, subsets: tuple[str, ...],
                   sample_ids: tuple[str, ...], max_per_subset: int | None, concurrency: int,
                   timeout_s: float, grace_s: float, server_revision: str | None,
                   model: str | None, dataset_label: str | None) -> None:
    """Record an agent's sessions on a v1.0 dataset into a run directory."""
    from .capture import CaptureSettings
    from .dataset import load_dataset
    from .record import RecordRequest, resume_run, start_run

    options = parse_option_pairs(option_pairs)
    if resume is not None:
        if out is not None or root is not None or agent is not None:
            raise click.UsageError("--resume takes the run's own settings; give only -o "
                                   "for options that run.json redacted")
        counts = resume_run(resume, options)
        destination = resume
    else:
        if root is None or agent is None or out is None:
            raise click.UsageError("record needs --dataset-root, --agent and --out "
                                   "(or --resume RUN)")
        dataset = load_dataset(root)
        selected = dataset.select(subsets=subsets, sample_ids=sample_ids,
                                  max_per_subset=max_per_subset)
        request = RecordRequest(
            dataset_root=root, agent=agent, options=options,
            sample_ids=tuple(s.sample_id for s in selected),
            settings=CaptureSettings(grace_s=grace_s, timeout_s=timeout_s),
            concurrency=concurrency, server_revision=server_revision, model=model,
            dataset_label=dataset_label)
        counts = start_run(out, request, dataset)
        destination = out
    click.echo(f"recorded {destination}: {counts['complete']} complete, "
               f"{counts['error']} error, {counts['skipped']} skipped")
    if counts["error"]:
        raise click.exceptions.Exit(EXIT_SYSTEM_FAILED)


@click.command("reference-export")
@click.option("--run", "runs", required=True, multiple=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="A record run directory (repeatable: shards merge).")
@click.option("--dataset-root", "root", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="The dataset the runs recorded (its file hashes are checked).")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the reference tree.")
def reference_export_command(runs: tuple[Path, ...], root: Path, out: Path) -> None:
    """Play out record runs into the reference tree that unified-score reads."""
    from .export import export_tree

    counts = export_tree(list(runs), root, out)
    click.echo(f"wrote {out}: {counts['samples']} samples, {counts['eligible']} eligible, "
               f"{counts['ineligible']} ineligible"
               + (f", {counts['unlisted']} unlisted (not usable in the dataset)"
                  if counts["unlisted"] else ""))
