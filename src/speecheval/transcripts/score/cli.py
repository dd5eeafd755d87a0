"""``speecheval transcripts score --manifest FILE --out DIR``."""

from __future__ import annotations

from pathlib import Path

import click

from ...cli_executor import executor_options
from ...cli_force import force_option
from ...core.log import get_logger
from ..id_match import PARTIAL_PREFIX, partial_option

_log = get_logger(__name__)


@click.command("score")
@click.option("--manifest", "manifest_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Manifest of samples (JSON or YAML; schema in docs/transcripts-score.md).")
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="New output directory (never overwritten without --force).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Samples scored at once (worker processes); the output does not "
                   "depend on it.")
@executor_options
@partial_option
@force_option
def score(manifest_path: Path, out_dir: Path, jobs: int, executor: str,
          ray_address: str | None, partial: bool, force: bool) -> None:
    """Score every sample of a manifest: per-sample rows, scenario tables, HTML report.

    Every file that names its session must name its reference's; with --partial a sample
    whose files do not is left out and listed instead.
    """
    from ...core.executor import make_executor
    from ...core.output import replacing
    from .run import write_run  # here: the manifest schema imports pydantic

    command = ("speecheval", "transcripts", "score", "--manifest", str(manifest_path),
               "--out", str(out_dir), *(("--partial",) if partial else ()))
    # --jobs and --executor change where the samples are scored, not what: not recorded
    chosen = make_executor(executor, jobs=jobs, ray_address=ray_address)
    with replacing(out_dir, force=force, shape="run.json"):
        lines = write_run(manifest_path, out_dir, command, chosen, partial=partial)
    for line in lines:
        if line.startswith(PARTIAL_PREFIX):  # a sample left out: said on stderr too
            _log.warning("warning: %s", line)
        click.echo(line)
