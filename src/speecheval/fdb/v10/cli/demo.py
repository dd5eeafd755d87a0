"""``speecheval fdb10 demo``: the whole v1.0 pipeline on this machine, offline.

Build the mini dataset, serve the cascade agent (a real turn-based system: Silero end of
turn, Whisper tiny.en, a templated reply, espeak-ng) on a free local port, record it over
a real socket, export the reference tree, transcribe it with the bundled Whisper, score
it and write the HTML report. Each step is the public command a user would type, run in
order and echoed, so the demo is also the pipeline's script; the agent runs in its own
process and is stopped when the demo ends, whatever happens.

Exit codes: 0 the report was written; 3 it was written, but some sample failed because of
the system under test (the run says which and why); 2 bad input, nothing recorded.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from ....core.errors import EXIT_OK, EXIT_SYSTEM_FAILED
from ....core.output import refuse_existing
from ...common.cli_demo import run_step

PROTOCOL = "native-realtime"


@click.command("demo")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("runs/demo"),
              show_default=True, help="New directory for everything the demo writes.")
@click.option("--max-per-subset", type=click.IntRange(min=1), default=4, show_default=True,
              help="Samples recorded per subset (the mini dataset has 8).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Sessions recorded at once.")
@click.option("-o", "--agent-option", "agent_pairs", multiple=True, metavar="KEY=VALUE",
              help="Cascade agent option (repeatable), e.g. silence_ms=800.")
def demo_command(out: Path, max_per_subset: int, concurrency: int,
                 agent_pairs: tuple[str, ...]) -> None:
    """Build, serve, record, export, transcribe, score and report, then print the page."""
    from ....agents.cascade import CascadeSettings
    from ....agents.cascade.process import cascade_agent_process
    from ....core.option_pairs import parse_option_pairs

    agent_options = parse_option_pairs(agent_pairs)
    CascadeSettings.parse(PROTOCOL, agent_options)  # bad options: exit 2, nothing written
    refuse_existing(out)
    started = time.perf_counter()
    dataset, run, tree = out / "dataset", out / "run", out / "tree"
    page = out / "report.html"
    run_step(["fdb10", "build-dataset", "--out", str(dataset), "--size", "mini"])
    click.echo(f"$ speecheval agents serve cascade --protocol {PROTOCOL} --port 0 "
               + " ".join(f"-o {pair}" for pair in agent_pairs) + "  (in the background)")
    with cascade_agent_process(PROTOCOL, agent_options) as url:
        click.echo(f"cascade agent listening on {url}")
        recorded = run_step(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                          PROTOCOL, "-o", f"url={url}", "--out", str(run),
                          "--max-per-subset", str(max_per_subset),
                          "--concurrency", str(concurrency)], allowed=(EXIT_SYSTEM_FAILED,))
    run_step(["fdb10", "reference-export", "--run", str(run), "--dataset-root", str(dataset),
           "--out", str(tree)])
    run_step(["fdb10", "reference-asr", "--tree", str(tree)])
    run_step(["fdb10", "unified-score", "--tree", str(tree)])
    run_step(["fdb10", "report", "--tree", str(tree), "--out", str(page)])
    click.echo(f"demo done in {time.perf_counter() - started:.0f} s; open "
               f"{page.resolve().as_uri()}")
    if recorded != EXIT_OK:
        raise click.exceptions.Exit(recorded)
