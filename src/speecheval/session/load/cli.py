"""``speecheval session load``: the scenario at each concurrency level against a live agent.

Exit codes: 0 every session ran, 2 a scenario or usage error, 3 the agent failed in some
session (the reports are still written, with the reasons per level).
"""

from __future__ import annotations

from pathlib import Path

import click

from ...agents import registry
from ...agents.base import AgentTransport
from ...cli_force import force_option
from ...core.errors import InputError, SystemUnderTestError
from ...core.option_pairs import parse_option_pairs
from ...core.output import check_new_output_dir, replacing
from ..cli_options import session_options, with_url
from ..run.plan import agent_name, transport_options
from ..scenario.load import load_scenario
from ..scenario.model import MOCK
from .levels import parse_levels, run_load
from .report import LOAD_JSON, LOAD_MD, write_load


@click.command("load")
@session_options(agent_help="Transport agent (default: the scenario's adapter type).",
                 option_help="Agent option (repeatable).",
                 out_help="New report directory (refused if it exists, unless --force).")
@click.option("--concurrency", "levels_text", default="1,2,4,8,16", show_default=True,
              metavar="K1,K2,...", help="Concurrency levels, rising.")
@click.option("--duration", "duration_s", default=0.0, show_default=True,
              type=click.FloatRange(min=0.0), metavar="S",
              help="Seconds each level keeps starting sessions (0: one session a worker).")
@force_option
def load(scenario_path: Path, agent: str | None, option_pairs: tuple[str, ...], url: str | None,
         levels_text: str, duration_s: float, out: Path, force: bool) -> None:
    """Run SCENARIO at each concurrency level over real sockets; write load.json, load.md
    and load.html (latency, faults and send lateness per level) to --out."""
    with replacing(out, force=force, shape=LOAD_JSON):
        check_new_output_dir(out)
        levels = parse_levels(levels_text)
        scenario = load_scenario(scenario_path)
        name = agent_name(scenario, agent)
        if name == MOCK or not issubclass(registry.agent_class(name), AgentTransport):
            raise InputError(f"session load needs a transport agent (real sockets); {name} "
                             f"runs on the virtual clock; use one such as pcm-websocket")
        options = transport_options(scenario, name, parse_option_pairs(with_url(option_pairs, url)))
        results = run_load(scenario, name, options, levels, duration_s)
        command = ["speecheval", "session", "load", str(scenario_path),
                   *(["--agent", agent] if agent else []), "--concurrency", levels_text,
                   "--duration", f"{duration_s:g}"]
        report = write_load(results, out, command)
        click.echo((out / LOAD_MD).read_text(encoding="utf-8"), nl=False)
        faulted = [row for row in report["levels"] if row["fault_reasons"]]
        if faulted:
            levels_failed = ", ".join(str(row["concurrency"]) for row in faulted)
            raise SystemUnderTestError(f"agent {name} failed at concurrency {levels_failed} "
                                       f"(report in {out})")
