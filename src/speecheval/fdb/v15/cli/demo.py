"""``speecheval fdb15 demo``: the whole v1.5 pipeline on this machine, offline.

Build the mini dataset, serve the local duplex agent with the recording recipe's long
reply (:mod:`..capture.recipe`: long enough to be interrupted) on a free local port,
record both members of every selected pair over a real socket, export the v1.5 tree,
transcribe it with the bundled Whisper, score it (timing, the offline judge, prosody) and
write the HTML report. Each step is the public command a user would type, run in order
and echoed, so the demo is also the pipeline's script; the agent runs in its own process
and is stopped when the demo ends, whatever happens.

Exit codes: 0 the report was written; 3 it was written, but some session failed because
of the system under test (the run says which and why); 2 bad input, nothing recorded.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....core.errors import EXIT_OK, EXIT_SYSTEM_FAILED
from ....core.output import refuse_existing
from ...common.cli_demo import run_step


@click.command("demo")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("runs/demo15"),
              show_default=True, help="New directory for everything the demo writes.")
@click.option("--max-per-scenario", type=click.IntRange(min=1), default=3, show_default=True,
              help="Pairs recorded per scenario (the mini dataset has 6).")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="Sessions recorded at once (two per pair).")
@click.option("--judge/--no-judge", default=True, show_default=True,
              help="Score with the offline judge and the prosody (extra fdb15), or timing "
                   "only.")
@click.option("-o", "--agent-option", "agent_pairs", multiple=True, metavar="KEY=VALUE",
              help="Local agent option (repeatable), e.g. interruptible=false.")
def demo_command(out: Path, max_per_scenario: int, concurrency: int, judge: bool,
                 agent_pairs: tuple[str, ...]) -> None:
    """Build, serve, record, export, transcribe, score and report, then print the page."""
    from ....agents.local.options import parse_options
    from ....agents.local.process import local_agent_process
    from ....core.option_pairs import parse_option_pairs
    from ..capture.recipe import KIND, PROTOCOL, agent_options

    options = agent_options(parse_option_pairs(agent_pairs))
    parse_options(f"local agent ({KIND}, {PROTOCOL})", options)  # exit 2, nothing written
    refuse_existing(out)
    started = time.perf_counter()
    dataset, run, tree = out / "dataset", out / "run", out / "tree"
    scored, page = tree / "fdb15-timing", out / "report.html"
    run_step(["fdb15", "build-dataset", "--out", str(dataset), "--size", "mini"])
    click.echo(f"$ speecheval session mock-server --kind {KIND} --protocol {PROTOCOL} "
               "--port 0 " + " ".join(f"-o '{key}={value}'" for key, value in options.items())
               + "  (in the background)")
    with local_agent_process(KIND, PROTOCOL, options) as url:
        click.echo(f"local duplex agent listening on {url}")
        recorded = run_step(["fdb15", "record", "--dataset-root", str(dataset), "--agent",
                             PROTOCOL, "-o", f"url={url}", "--out", str(run),
                             "--max-per-scenario", str(max_per_scenario),
                             "--concurrency", str(concurrency)],
                            allowed=(EXIT_SYSTEM_FAILED,))
    run_step(["fdb15", "export", str(run), "--out", str(tree)])
    run_step(["fdb15", "asr", "--tree", str(tree)])
    run_step(["fdb15", "score", "--tree", str(tree), "--out", str(scored),
              *(["--judge", "offline", "--prosody"] if judge else [])])
    run_step(["fdb15", "report", "--scored", str(scored), "--tree", str(tree),
              "--out", str(page)])
    click.echo(f"demo done in {time.perf_counter() - started:.0f} s; open "
               f"{page.resolve().as_uri()}")
    if recorded != EXIT_OK:
        raise click.exceptions.Exit(recorded)
