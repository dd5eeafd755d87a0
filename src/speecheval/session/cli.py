"""``speecheval session``: run and validate live voice-agent sessions.

Exit codes: 0 every assertion passed, 1 an assertion failed, 2 a scenario or usage
error, 3 the agent failed (the run directory is still written, with the reason).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import click
import yaml

from ..agents import registry
from ..agents.local.server import KINDS, PROTOCOLS, serve_until_cancelled
from ..core.errors import EXIT_CHECKS_FAILED, InputError, SpeechEvalError, SystemUnderTestError
from ..core.output import check_new_output_dir
from ..core.pcm import to_int16
from .bench import (
    MOCK,
    RunResult,
    agent_name,
    evaluate,
    merged_options,
    mock_factory,
    plugin_factory,
    run_virtual_sessions,
)
from .realtime import run_realtime
from .recording import SessionRecording
from .report_md import summary_rows
from .run_output import write_run
from .scenario import Scenario, load_scenario
from .synth import render_turns
from .turn_schedule import ScriptFeed


class AssertionsFailed(SpeechEvalError):
    """The run completed and was reported, but an assertion failed (exit 1)."""

    exit_code = EXIT_CHECKS_FAILED


@click.group()
def session() -> None:
    """Play a scripted user track into a voice agent and measure the conversation."""


def parse_options(pairs: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, str]]:
    """``-o key=value`` pairs: values parsed as YAML (for the mock), and as raw strings."""
    parsed: dict[str, Any] = {}
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"-o expects key=value, got {pair!r}")
        key = key.strip()
        raw[key] = value
        try:
            parsed[key] = yaml.safe_load(value) if value else ""
        except yaml.YAMLError as exc:
            raise InputError(f"-o {key}: value {value!r} is not valid YAML: {exc}") from exc
    return parsed, raw


@session.command("validate")
@click.argument("scenarios", nargs=-1, required=True,
                type=click.Path(path_type=Path, dir_okay=False))
def validate(scenarios: tuple[Path, ...]) -> None:
    """Check scenario files without running them (audio is rendered, options checked)."""
    for path in scenarios:
        scenario = load_scenario(path)
        if agent_name(scenario, None) == MOCK:
            mock_factory(scenario, dict(scenario.agent.options), set())
        render_turns(scenario)
        click.echo(f"ok {path}: {scenario.name}, {len(scenario.turns)} turns")


@session.command("run")
@click.argument("scenario_path", metavar="SCENARIO",
                type=click.Path(path_type=Path, dir_okay=False))
@click.option("--agent", "agent", default=None, metavar="NAME|module:Class",
              help="Agent to run (default: the scenario's adapter type, usually mock).")
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Agent option (repeatable); values are parsed as YAML for the mock.")
@click.option("-n", "--repeat", default=1, show_default=True,
              type=click.IntRange(min=1), help="Number of sessions.")
@click.option("--url", default=None, metavar="URL",
              help="Agent URL: short for -o url=URL, and it wins over it (as in voicebench).")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(min=1),
              help="Real clock: run up to this many of the -n sessions at once.")
@click.option("--realtime", is_flag=True,
              help="Use the real clock (a module:Class agent is then a transport).")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New run directory (must not exist).")
def run(scenario_path: Path, agent: str | None, option_pairs: tuple[str, ...], repeat: int,
        url: str | None, concurrency: int, realtime: bool, out: Path) -> None:
    """Run SCENARIO against an agent and write recordings and reports to --out."""
    check_new_output_dir(out)  # before the session: a live run cannot be repeated
    scenario = load_scenario(scenario_path)
    name = agent_name(scenario, agent)
    if url is not None:
        option_pairs = (*option_pairs, f"url={url}")
    parsed, raw = parse_options(option_pairs)
    options = merged_options(scenario, name, parsed)
    if name == MOCK and not realtime:
        make = mock_factory(scenario, options, set(parsed))
        result = evaluate(scenario, name, options, "virtual",
                          run_virtual_sessions(scenario, make, repeat))
    elif ":" in name and not realtime and _is_virtual(plugin_factory(name, options)(0)):
        result = evaluate(scenario, name, options, "virtual",
                          run_virtual_sessions(scenario, plugin_factory(name, options), repeat))
    elif name == MOCK:
        raise InputError("the mock agent runs on the virtual clock only; --realtime needs a "
                         "transport agent such as pcm-websocket")
    else:
        transport_options = {**{k: _option_text(v)
                                for k, v in merged_options(scenario, name, {}).items()}, **raw}
        result = evaluate(scenario, name, transport_options, "real",
                          _run_real_clock(scenario, name, transport_options, repeat,
                                          concurrency))
    write_run(result, out)
    _print_summary(result, out)
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
    _, raw = parse_options(option_pairs)
    try:
        asyncio.run(serve_until_cancelled(kind, protocol, raw, host=host, port=port))
    except KeyboardInterrupt:
        click.echo("stopped", err=True)


def _is_virtual(agent: object) -> bool:
    return callable(getattr(agent, "process", None)) and callable(getattr(agent, "start", None))


def _option_text(value: Any) -> str:
    """A scenario option as the transports take it: maps and lists as JSON, else text."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)


def _run_real_clock(scenario: Scenario, name: str, options: dict[str, str], repeat: int,
                    concurrency: int) -> list[SessionRecording]:
    """Sessions over a transport on the real clock; turns start live, as on the virtual one.

    Up to ``concurrency`` sessions run at once, on one event loop (each has its own
    transport, script and clock origin; they only share the CPU). Recordings come back
    in session order whatever order they finish in.
    """
    first = registry.open_transport(name, options)  # checks name and options first
    clips = [to_int16(clip) for clip in render_turns(scenario)]
    frame_ms = int(scenario.frame_ms)  # whole milliseconds and samples (validated)
    frame = scenario.sample_rate * frame_ms // 1000
    # made before any session starts: a detector that loads a model must not stall the
    # event loop while other sessions are sending
    feeds = [ScriptFeed(scenario, clips, frame) for _ in range(repeat)]
    slots = asyncio.Semaphore(concurrency)

    async def one(index: int) -> SessionRecording:
        async with slots:
            transport = first if index == 0 else registry.open_transport(name, options)
            recording = await run_realtime(
                transport, feeds[index], scenario.sample_rate, frame_ms=frame_ms,
                tail_ms=round(scenario.tail_ms), max_duration_ms=round(scenario.max_duration_ms),
                agent_vad=scenario.agent_vad.settings)
            return feeds[index].attach(recording)

    async def all_sessions() -> list[SessionRecording]:
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(index)) for index in range(repeat)]
        except ExceptionGroup as failed:  # a usage error in one session stops them all
            raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    return asyncio.run(all_sessions())


def _print_summary(result: RunResult, out: Path) -> None:
    click.echo(f"scenario {result.scenario.name}: agent {result.agent}, {result.clock} clock, "
               f"{len(result.sessions)} session(s)")
    for label, value in summary_rows(result.summary):
        click.echo(f"  {label:<32} {value}")
    for assertion in result.assertions:
        verdict = "PASS" if assertion.passed else "FAIL"
        actual = "missing" if assertion.actual is None else f"{assertion.actual:g}"
        click.echo(f"  {verdict} {assertion.key} limit {assertion.limit:g} (actual {actual})")
    verdict = "AGENT FAULT" if result.faulted else "PASS" if result.passed else "FAIL"
    click.echo(f"{verdict}; reports in {out}")
