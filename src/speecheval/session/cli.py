"""``speecheval session``: run and validate live voice-agent sessions.

Exit codes: 0 every assertion passed, 1 an assertion failed, 2 a scenario or usage
error, 3 the agent failed (the run directory is still written, with the reason).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from ..agents.local.server import KINDS, PROTOCOLS, serve_until_cancelled
from ..agents.receive_limits import MAX_EVENTS_PER_S, MAX_RECEIVED_RATIO, ReceiveLimits
from ..cli_executor import executor_options
from ..cli_force import force_option
from ..core.errors import EXIT_CHECKS_FAILED, SpeechEvalError, SystemUnderTestError
from ..core.executor import make_executor
from ..core.log import get_logger
from ..core.option_pairs import parse_option_pairs
from ..core.output import check_new_output_dir, replacing
from . import run_scenario
from .cli_options import session_options, with_url
from .load.cli import load
from .report.run_output import REPORT_JSON, write_run
from .run.plan import agent_name, check_scenario_agent, mock_factory
from .run.synth import render_turns
from .scenario.load import load_scenario
from .scenario.model import MOCK

_log = get_logger(__name__)


class AssertionsFailed(SpeechEvalError):
    """The run completed and was reported, but an assertion failed (exit 1)."""

    exit_code = EXIT_CHECKS_FAILED


@click.group()
def session() -> None:
    """Play a scripted user track into a voice agent and measure the conversation."""


session.add_command(load)


@session.command("validate")
@click.argument("scenarios", nargs=-1, required=True,
                type=click.Path(path_type=Path, dir_okay=False))
def validate(scenarios: tuple[Path, ...]) -> None:
    """Check scenario files without running them (audio is rendered, options checked)."""
    for path in scenarios:
        scenario = load_scenario(path)
        check_scenario_agent(scenario)  # what run cannot build, validate refuses
        if agent_name(scenario, None) == MOCK:
            mock_factory(scenario, dict(scenario.agent.options), set())
        render_turns(scenario)
        click.echo(f"ok {path}: {scenario.name}, {len(scenario.turns)} turns")


@session.command("run")
@session_options(agent_help="Agent to run (default: the scenario's adapter type, usually "
                            "mock).",
                 option_help="Agent option (repeatable); values are parsed as YAML for the "
                             "mock.",
                 out_help="New run directory (refused if it exists, unless --force).")
@click.option("-n", "--repeat", default=1, show_default=True,
              type=click.IntRange(min=1), help="Number of sessions.")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(min=1),
              help="Real clock: run up to this many of the -n sessions at once.")
@click.option("--realtime", is_flag=True,
              help="Use the real clock (the agent must be a transport).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Virtual clock: worker processes running the -n sessions (default 1; "
                   "with --executor ray, the CPUs of its private cluster, default all); "
                   "the output does not depend on it.")
@click.option("--max-received-ratio", type=click.FloatRange(min=0, min_open=True),
              default=MAX_RECEIVED_RATIO, show_default=True,
              help="Real clock: most agent audio a session keeps, as a multiple of the "
                   "scenario's scripted length; an agent that sends more is a fault.")
@click.option("--max-events-per-second", "max_events_per_s",
              type=click.FloatRange(min=0, min_open=True), default=MAX_EVENTS_PER_S,
              show_default=True,
              help="Real clock: most agent events (messages) a session keeps, per second "
                   "of the scripted length; an agent that sends more is a fault.")
@executor_options
@force_option
def run(scenario_path: Path, agent: str | None, option_pairs: tuple[str, ...], repeat: int,
        url: str | None, concurrency: int, realtime: bool, jobs: int | None,
        max_received_ratio: float, max_events_per_s: float, executor: str,
        ray_address: str | None, out: Path, force: bool) -> None:
    """Run SCENARIO against an agent and write recordings and reports to --out."""
    with replacing(out, force=force, shape=REPORT_JSON):
        check_new_output_dir(out)  # before the session: a live run cannot be repeated
        # locally one process unless --jobs says more; on Ray, None lets a private cluster
        # have every core (1 would start it with a single CPU)
        if jobs is None and executor != "ray":
            jobs = 1
        chosen = make_executor(executor, jobs=jobs, ray_address=ray_address)
        result = run_scenario(scenario_path, agent, with_url(option_pairs, url), repeat=repeat,
                              concurrency=concurrency, realtime=realtime, executor=chosen,
                              limits=ReceiveLimits(max_received_ratio, max_events_per_s))
        name = result.agent
        click.echo(write_run(result, out, _command(scenario_path, agent, repeat, realtime)))
        if result.faulted:
            reasons = "; ".join(sorted({r.fault for r in result.recordings if r.fault}))
            raise SystemUnderTestError(f"agent {name} failed: {reasons} (report in {out})")
        if not result.passed:
            failed = [a.key for a in result.assertions if not a.passed]
            raise AssertionsFailed(f"assertion(s) failed: {', '.join(failed)} (report in {out})")


@session.command("mock-server")
@click.option("--kind", type=click.Choice(KINDS), default="turn", show_default=True,
              help="turn: answers after the user falls silent and can be interrupted; "
                   "duplex: a continuous full-duplex agent.")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="pcm-websocket",
              show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="0 picks a free port.")
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Local agent option (repeatable): reply timing, voice, fault mode; "
                   "see docs/agents.md.")
def mock_server(kind: str, protocol: str, host: str, port: int,
                option_pairs: tuple[str, ...]) -> None:
    """Serve a local reference agent until Ctrl-C, printing its URL."""
    options = parse_option_pairs(option_pairs)
    try:
        asyncio.run(serve_until_cancelled(kind, protocol, options, host=host, port=port))
    except KeyboardInterrupt:
        _log.info("stopped")


def _command(scenario: Path, agent: str | None, repeat: int, realtime: bool) -> list[str]:
    """The command line for the provenance record. ``-o`` and ``--url`` are left out (they
    may hold credentials; their redacted values are in the record's settings), and so are
    ``--out``, ``--concurrency``, ``--jobs`` and ``--executor``, which change where and when,
    not what is measured."""
    return ["speecheval", "session", "run", str(scenario), *(["--agent", agent] if agent else []),
            "-n", str(repeat), *(["--realtime"] if realtime else [])]
