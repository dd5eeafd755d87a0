"""``speecheval transcripts score --manifest FILE --out DIR`` or ``--run RUN [--track T]``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ...cli_executor import executor_options
from ...cli_force import force_option
from ...core.log import get_logger
from ..id_match import PARTIAL_PREFIX, partial_option

if TYPE_CHECKING:
    from ...core.executor import Executor

_log = get_logger(__name__)


@click.command("score")
@click.option("--manifest", "manifest_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Manifest of samples (JSON or YAML; schema in docs/transcripts-score.md).")
@click.option("--out", "out_dir", default=None, type=click.Path(path_type=Path),
              help="New output directory (never overwritten without --force); with "
                   "--manifest.")
@click.option("--run", "run_dir", default=None, type=click.Path(path_type=Path),
              help="Score a `transcripts run` directory against its run manifest's "
                   "references, no score manifest needed; into RUN/derived/score/.")
@click.option("--track", "tracks", multiple=True,
              help="With --run: score only this track (repeatable; default: every track "
                   "of the run but gold_diagnostic_window).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Samples scored at once (worker processes); the output does not "
                   "depend on it.")
@executor_options
@partial_option
@force_option
def score(manifest_path: Path | None, out_dir: Path | None, run_dir: Path | None,
          tracks: tuple[str, ...], jobs: int, executor: str, ray_address: str | None,
          partial: bool, force: bool) -> None:
    """Score every sample of a manifest: per-sample rows, scenario tables, HTML report.

    Every file that names its session must name its reference's; with --partial a sample
    whose files do not is left out and listed instead. With --run, a run directory's
    transcripts are scored per track and system, each row a lineage artefact of the run.
    """
    from ...core.executor import make_executor

    chosen = make_executor(executor, jobs=jobs, ray_address=ray_address)
    if run_dir is not None:
        _score_run(run_dir, tracks, manifest_path, out_dir, partial, force, chosen)
        return
    if manifest_path is None or out_dir is None:
        raise click.UsageError("give --manifest FILE and --out DIR, or --run RUN")
    if tracks:
        raise click.UsageError("--track is for --run: a score manifest names its files")
    from ...core.output import replacing
    from .run import write_run  # here: the manifest schema imports pydantic

    command = ("speecheval", "transcripts", "score", "--manifest", str(manifest_path),
               "--out", str(out_dir), *(("--partial",) if partial else ()))
    # --jobs and --executor change where the samples are scored, not what: not recorded
    with replacing(out_dir, force=force, shape="run.json"):
        lines = write_run(manifest_path, out_dir, command, chosen, partial=partial)
    for line in lines:
        if line.startswith(PARTIAL_PREFIX):  # a sample left out: said on stderr too
            _log.warning("warning: %s", line)
        click.echo(line)


def _score_run(run_dir: Path, tracks: tuple[str, ...], manifest_path: Path | None,
               out_dir: Path | None, partial: bool, force: bool, executor: Executor) -> None:
    """``score --run RUN``: the run's scores into RUN/derived/score/ (see
    :mod:`.from_run`); options that belong to a score manifest are refused."""
    from .from_run import score_run_dir

    given = [name for name, value in (("--manifest", manifest_path), ("--out", out_dir),
                                      ("--partial", partial), ("--force", force)) if value]
    if given:
        raise click.UsageError(f"{', '.join(given)}: not with --run (the run manifest names "
                               "the references; the scores go under RUN/derived/score/)")
    command = ("speecheval", "transcripts", "score", "--run", str(run_dir),
               *(part for track in tracks for part in ("--track", track)))
    done = score_run_dir(run_dir, tracks, command, executor)
    for line in done.lines:
        click.echo(line)
    state = "written" if done.created else "already there (same inputs), left as it is"
    click.echo(f"scores: {done.folder} ({state}; {done.appended} score records appended "
               "to lineage.jsonl)")
