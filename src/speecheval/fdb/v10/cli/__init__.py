"""``speecheval fdb10``: Full-Duplex-Bench v1.0 commands.

Each subcommand's module, and what the command itself needs, is imported when it runs
(:mod:`speecheval.cli_lazy`): ``unified-score`` on a warm VAD cache must not pay for the
tree builder, the recorder or the reference evaluator. The group is this package's
``__init__`` so that its name (``speecheval.fdb.v10.cli:fdb10``) stayed when the
commands' modules moved in beside it (``build``, ``dataset``, ``demo``, ``record``,
``reference``; ``console`` prints ``unified-score``'s table).
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....cli_executor import executor_options
from ....cli_force import force_option
from ....cli_lazy import Lazy, LazyGroup

COMMANDS = {
    "build-tree": Lazy("speecheval.fdb.v10.cli.build:build_tree"),
    "reference-asr": Lazy("speecheval.fdb.v10.cli.reference:reference_asr_command"),
    "reference-evaluate": Lazy("speecheval.fdb.v10.cli.reference:reference_evaluate_command"),
    "report": Lazy("speecheval.fdb.v10.cli.reference:report_command"),
    "build-dataset": Lazy("speecheval.fdb.v10.cli.dataset:build_dataset_command"),
    "check-dataset": Lazy("speecheval.fdb.v10.cli.dataset:check_dataset_command"),
    "record": Lazy("speecheval.fdb.v10.cli.record:record_command"),
    "reference-export": Lazy("speecheval.fdb.v10.cli.record:reference_export_command"),
    "demo": Lazy("speecheval.fdb.v10.cli.demo:demo_command"),
}


@click.group(cls=LazyGroup, lazy=COMMANDS)
def fdb10() -> None:
    """Full-Duplex-Bench v1.0: reference trees and unified turn-taking scores."""


@fdb10.command("unified-score")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Reference tree with manifest.json and asr.json.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="New directory for unified.json and unified-samples.jsonl "
                   "[default: TREE/unified].")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for Silero VAD [default: one per core].")
@click.option("--vad-cache", "vad_cache", metavar="DIR|off", default=None,
              help="Folder of cached VAD results, or off [default: $SPEECHEVAL_VAD_CACHE, "
                   "else $XDG_CACHE_HOME/speecheval/vad, else ~/.cache/speecheval/vad].")
@executor_options
@force_option
def unified_score(tree: Path, out: Path | None, jobs: int | None,
                  vad_cache: str | None, executor: str, ray_address: str | None,
                  force: bool) -> None:
    """Score a reference tree with the unified turn-taking metrics (fdb-v1.0-unified-4)."""
    from ....core.output import refuse_existing, replacing
    from ..report.unified_files import UNIFIED_JSON

    with replacing(out if out is not None else tree / "unified", force=force,
                   shape=UNIFIED_JSON) as target:
        _unified_score(tree, refuse_existing(target), jobs, vad_cache, executor, ray_address)


def _unified_score(tree: Path, destination: Path, jobs: int | None, vad_cache: str | None,
                   executor: str, ray_address: str | None) -> None:
    from ....core.executor import make_executor
    from ....fdb10 import score_tree
    from ....vad.cache import resolve_cache_dir
    from ..reference.column import load_reference_column
    from ..report.unified_files import write_unified
    from .console import render

    started = time.perf_counter()
    # the cache folder is left out of the recorded command: it changes no number
    command = ["speecheval", "fdb10", "unified-score", "--tree", str(tree), "--out",
               str(destination)] + ([] if jobs is None else ["--jobs", str(jobs)])
    result = score_tree(tree, jobs=jobs, command=command, vad_cache=resolve_cache_dir(vad_cache),
                        executor=None if executor == "local" and ray_address is None
                        else make_executor(executor, jobs=jobs, ray_address=ray_address))
    reference, note = load_reference_column(tree, result.manifest.sha256, result.asr.sha256)
    write_unified(result, destination)
    click.echo(render(result.summary, reference, note), nl=False)
    click.echo(result.vad_cache.describe())
    click.echo(f"wrote {destination} in {time.perf_counter() - started:.1f} s")


@fdb10.command("show")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Reference tree with manifest.json and asr.json.")
@click.argument("sample_id")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="Picture to write: FILE.png or FILE.svg.")
@force_option
def show(tree: Path, sample_id: str, out: Path, force: bool) -> None:
    """Draw one sample's timeline: speech, words, annotation and the outcome."""
    from ....core.output import replacing
    from ..report.show import render_timeline

    with replacing(out, force=force, shape=(".png", ".svg")):
        click.echo(f"wrote {render_timeline(tree, sample_id, out)}")
