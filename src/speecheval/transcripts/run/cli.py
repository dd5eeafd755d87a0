"""``speecheval transcripts run``, ``transcripts lineage`` and ``transcripts import``."""

from __future__ import annotations

from pathlib import Path

import click

from ...cli_executor import executor_options
from ...core.errors import InputError
from ...core.output import FORCE_HELP, replacing
from .tracks import COMPLETE, TRACKS


@click.command("run")
@click.option("--manifest", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Run manifest (samples, systems); see docs/transcripts-run.md.")
@click.option("--system", "systems", multiple=True,
              help="A system of the manifest, or the built-in whisper-local; repeatable.")
@click.option("--track", "tracks", multiple=True, type=click.Choice(TRACKS),
              help="Track to run; repeatable [default: production_complete_file].")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs of every system on every sample and track, with seeds 0, 1, ...")
@click.option("--chunk-window-s", type=click.FloatRange(min=1.0), default=30.0,
              show_default=True,
              help="Longest chunk of the chunked track (the chunker's max_window_s).")
@click.option("--chunk-overlap-s", type=click.FloatRange(min=0.0), default=0.0,
              show_default=True,
              help="Seconds each chunk after the first is decoded before its cut, so "
                   "adjacent chunks share audio and their speaker labels are reconciled "
                   "on it (overlap-match/1); 0: no overlap, labels kept (same-label/1).")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="New run directory (never overwritten).")
@click.option("--resume", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Finish a run directory: only what is missing is run or derived.")
@click.option("--force", is_flag=True, default=False, help=f"{FORCE_HELP} Not with --resume.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="System calls at a time (worker processes) [default: 1; with "
                   "--executor ray, the CPUs of a private cluster].")
@executor_options
def run(manifest: Path | None, systems: tuple[str, ...], tracks: tuple[str, ...],
        repeats: int, chunk_window_s: float, chunk_overlap_s: float, out: Path | None,
        resume: Path | None,
        jobs: int | None, executor: str, ray_address: str | None, force: bool) -> None:
    """Run transcription systems on the manifest's samples and keep every raw answer.

    Exit 0 when every job ran, 3 when a system failed on some (each recorded with its
    reason), 2 for bad input.
    """
    from ...core.errors import SystemUnderTestError
    from ...core.executor import make_executor
    from .chunker import ChunkerSettings
    from .runner import RUN_FILE, Request, start
    from .runner import resume as resume_run

    chosen = make_executor(executor, jobs=jobs if jobs is not None or executor == "ray" else 1,
                           ray_address=ray_address)
    if resume is not None:
        given = [name for name, value in (("--manifest", manifest), ("--system", systems),
                                          ("--track", tracks), ("--out", out),
                                          ("--chunk-overlap-s", chunk_overlap_s),
                                          ("--force", force)) if value]
        if given:
            raise InputError(f"--resume takes everything from the run's run.json; leave out "
                             f"{', '.join(given)}")
        outcome = resume_run(resume, chosen)
    else:
        if manifest is None or out is None or not systems:
            raise InputError("give --manifest, at least one --system and --out "
                             "(or --resume RUN)")
        request = Request(manifest, systems, tracks or (COMPLETE,),
                          repeats, ChunkerSettings(max_window_s=chunk_window_s,
                                                   overlap_s=chunk_overlap_s))
        with replacing(out, force=force, shape=RUN_FILE):
            outcome = start(request, out, chosen)
    counts = ", ".join(f"{outcome.statuses[s]} {s}"
                       for s in ("succeeded", "failed", "unsupported"))
    click.echo(f"{outcome.called} jobs run now; in the run: {counts}; "
               f"{outcome.derived} transcripts derived now")
    for failure in outcome.failed:
        click.echo(f"failed: {failure}")
    click.echo(f"run directory: {outcome.run_dir}")
    if outcome.failed:
        raise SystemUnderTestError(f"{len(outcome.failed)} jobs failed (reasons above and "
                                   f"in their meta.json)")


@click.command("lineage")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--artefact", default=None,
              help="Print this artefact's chain back to the input audio.")
def lineage(run_dir: Path, artefact: str | None) -> None:
    """List a run's artefacts, or print the chain behind one."""
    from ..lineage import LINEAGE_FILE, chain, describe, read_records

    if not (run_dir / LINEAGE_FILE).is_file():
        raise InputError(f"not a run directory: it has no {LINEAGE_FILE}", path=run_dir)
    records = read_records(run_dir)
    if artefact is None:
        for record in records:
            click.echo(f"{record['id']}  <- {record['parent'] or '(source audio)'}")
        return
    for record in chain(records, artefact, path=run_dir / LINEAGE_FILE):
        click.echo(describe(record))


@click.command("import")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.argument("older_run", type=click.Path(path_type=Path, file_okay=False))
def import_older(run_dir: Path, older_run: Path) -> None:
    """Copy an older run's raw answers into RUN_DIR with how far they match it.

    Each is recorded in RUN_DIR's lineage with exact_input_match, protocol_compatibility and
    identity_confidence; an incompatible one is for the diagnostic track only.
    """
    from .importing import import_run

    for record in import_run(run_dir, older_run):
        why = "; ".join(record["incompatibilities"])
        click.echo(f"{record['id']}: {record['protocol_compatibility']}"
                   + (f" ({why})" if why else "")
                   + f", identity {record['identity_confidence']}, use {record['track_use']}")
