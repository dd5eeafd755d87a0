"""The Markdown report: the summary, the assertions and every turn, for people.

It reads the typed run (:class:`~speecheval.session.metrics.evaluate.RunResult`), as the
other writers do; the HTML report and the terminal summary share its rows and cells.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.share import Share
from ...report.numbers import fixed, percent
from ...report.table import Table, to_markdown
from ..metrics.evaluate import RunResult
from ..metrics.results import SessionMetrics, TurnMetrics
from ..metrics.summary import AssertionResult, Distribution, RunSummary
from .recording_io import session_dir

_NONE = "-"
VERDICT_TONES = {"pass": "pass", "FAIL": "fail"}
"""How the HTML report colours a verdict cell."""


def fmt(value: Any, unit: str = "") -> str:
    """A cell: ``-`` for a missing value, yes/no for flags, ms values to 0.1.

    >>> fmt(None), fmt(True), fmt(712.04, " ms"), fmt(0.25)
    ('-', 'yes', '712.0 ms', '0.25')
    """
    if value is None:
        return _NONE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fixed(value, 1, unit=unit) if unit else f"{value:.4g}"
    return f"{value}{unit}"


def _share(share: Share) -> str:
    if share.value is None or share.interval is None:
        return f"{share.count}/{share.n}"
    low, high = share.interval
    return (f"{share.count}/{share.n} ({percent(share.value, 0)}, 95% CI "
            f"{fixed(100 * low, 0)}-{percent(high, 0)})")


def _dist(d: Distribution) -> str:
    return (f"n={d.count}, min {fmt(d.min)}, p50 {fmt(d.p50)}, p90 {fmt(d.p90)}, "
            f"max {fmt(d.max)}, mean {fmt(d.mean)}")


def summary_rows(summary: RunSummary) -> list[tuple[str, str]]:
    """(label, value) rows shared by the Markdown and HTML reports and the terminal."""
    rows = [("Sessions", str(summary.sessions))]
    if summary.session_pass is not None:
        rows.append(("Sessions passed", _share(summary.session_pass)))
    rows += [
        ("Turns passed", _share(summary.turns)),
        ("Turns not played", str(summary.not_played_turns)),
        ("Response latency (ms)", _dist(summary.response_latency_ms)),
        ("Time to first audio (ms)", _dist(summary.ttfa_ms)),
        ("Missed responses", str(summary.missed_responses)),
        ("Talk-over replies", str(summary.talk_overs)),
        ("Barge-in success", _share(summary.barge_in)),
        ("Barge-in stop time, VAD (ms)", _dist(summary.barge_in_stop_ms)),
        ("Barge-in stop time, clear (ms)", _dist(summary.clear_stop_ms)),
        ("False barge-ins", f"{summary.false_barge_ins} of {summary.noise_turns}"),
        ("Spurious responses", f"{summary.spurious_responses} of {summary.noise_turns}"),
        ("Mean WER", f"{fmt(summary.wer.mean)} (n={summary.wer.count})"),
        ("Overlap / talk-over (ms)",
         f"{fmt(summary.overlap_ms)} / {fmt(summary.talk_over_ms)}"),
        ("Truncated / faulted sessions",
         f"{summary.truncated_sessions} / {summary.faulted_sessions}"),
    ]
    if summary.task_success is not None:  # the scenario has a task judge
        rows.append(("Task success (judge)", f"{_share(summary.task_success.share)}, "
                                             f"{summary.task_success.invalid} invalid"))
    if summary.reply_checks is not None:  # the scenario checks what the agent said
        rows.append(("Replies that passed their checks", _share(summary.reply_checks)))
    if summary.latency_split_ms is not None:  # the transport reported server events
        rows += [(f"Latency split: {part} (ms)", _dist(values))
                 for part, values in summary.latency_split_ms.items()]
    if summary.conditions is not None:  # the scenario declared echo, noise, codec or network
        rows += [("Self-interruptions", str(summary.conditions.self_interruptions)),
                 ("Turns hit by packet loss", str(summary.conditions.network_affected_turns))]
    return rows


TURN_HEADER = ["Turn", "Expect", "Trigger", "Response", "TTFA", "Stop (VAD)", "Stop (clear)",
               "WER", "Result", "Notes"]


def turn_cells(turn: TurnMetrics) -> list[str]:
    return [turn.id, turn.expect, turn.trigger,
            fmt(turn.response_latency_ms, " ms"), fmt(turn.ttfa_ms, " ms"),
            fmt(turn.stop_ms, " ms"), fmt(turn.clear_stop_ms, " ms"), fmt(turn.wer),
            "pass" if turn.passed else "FAIL", "; ".join(turn.notes)]


ASSERTION_HEADER = ["Assertion", "Limit", "Actual", "Result"]


def assertion_cells(assertion: AssertionResult) -> list[str]:
    return [assertion.key, fmt(assertion.limit), fmt(assertion.actual),
            "pass" if assertion.passed else "FAIL"]


def _inline(text: str) -> str:
    """Text from the agent or the judge on one line of the report: its line breaks (and
    runs of spaces) become one space, so it cannot end the paragraph or start a heading,
    a list or a table row of its own.

    >>> _inline("booked.\\n\\n# Done |  ok")
    'booked. # Done | ok'
    """
    return " ".join(text.split())


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return to_markdown(Table.of(header, rows)).splitlines()


def verdict_text(result: RunResult) -> str:
    """The run's result as the exit code tells it: an agent fault (3) before assertions."""
    if result.summary.faulted_sessions:
        return "AGENT FAULT"
    return "PASS" if result.passed else "FAIL"


def options_text(result: RunResult) -> str:
    """The agent options (credentials removed) on one line, as the reports show them."""
    return json.dumps(result.options, sort_keys=True)


def session_facts(session: SessionMetrics) -> str:
    """Duration, speech totals and truncation of a session, in words."""
    return (f"Duration {session.duration_s:.2f} s; user speech "
            f"{fmt(session.user_speech_ms)} ms, agent speech "
            f"{fmt(session.agent_speech_ms)} ms, overlap {fmt(session.overlap_ms)} ms, "
            f"talk-over {fmt(session.talk_over_ms)} ms; truncated: "
            f"{fmt(session.truncated)}")


def render_markdown(result: RunResult) -> str:
    """The whole report as Markdown."""
    summary = result.summary
    lines = [f"# Session report: {result.scenario.name}", "",
             f"Agent `{result.agent}`, {result.clock} clock, "
             f"{summary.sessions} session(s). Result: "
             f"**{verdict_text(result)}**.", "",
             f"Agent options (credentials removed): `{options_text(result)}`", ""]
    if summary.faulted_sessions:
        lines += [f"**The agent failed in {summary.faulted_sessions} of "
                  f"{summary.sessions} session(s)**; the reason is under each "
                  "session.", ""]
    lines += ["## Summary", ""]
    lines += _table(["Metric", "Value"], [list(r) for r in summary_rows(summary)])
    lines += ["", "## Assertions", ""]
    if result.assertions:
        lines += _table(ASSERTION_HEADER, [assertion_cells(a) for a in result.assertions])
    else:
        lines.append("The scenario has no assertions.")
    for index, session in enumerate(result.sessions):
        lines += ["", f"## Session {index + 1} ({session_dir(index)})", "",
                  f"{session_facts(session)}; fault: "
                  f"{_inline(session.fault or 'none')}.", ""]
        lines += _table(TURN_HEADER, [turn_cells(t) for t in session.turns])
        lines += _extras(session)
    return "\n".join(lines) + "\n"


SPLIT_HEADER = ["Turn", "Endpointing", "Decision", "Generation", "Delivery"]


def _extras(session: SessionMetrics) -> list[str]:
    """The latency split and the conditions' findings, for sessions that have them."""
    lines: list[str] = []
    split = [t for t in session.turns if t.latency_split is not None]
    if split:
        lines += ["", "Where the response latency went (server events):", ""]
        lines += _table(SPLIT_HEADER, [
            [t.id, *(fmt(part, " ms") for part in (parts.endpointing_ms, parts.decision_ms,
                                                   parts.generation_ms, parts.delivery_ms))]
            for t in split if (parts := t.latency_split) is not None])
    replies = [(t.id, t.reply) for t in session.turns if t.reply is not None]
    if replies:
        lines += ["", "What the agent said (Whisper tiny.en on the agent track):", ""]
        lines += _table(["Turn", "Agent said", "WER", "Checks"], [
            [turn_id, reply.transcript or "-", fmt(reply.wer),
             ", ".join(f"{name} {'pass' if ok else 'FAIL'}"
                       for name, ok in reply.checks.items())]
            for turn_id, reply in replies])
    task = session.task
    if task is not None:
        verdict = {True: "success", False: "failure", None: "no valid verdict"}[task.success]
        lines += ["", f"Task judge ({task.model}): {verdict}; "
                      f"{_inline(task.reason or task.problem or '')}".rstrip("; ")]
    conditions = session.conditions
    if conditions is not None:
        found = conditions.self_interruptions
        times = ", ".join(f"{f.t_s:.2f} s ({f.turn})" for f in found) or "none"
        lines += ["", f"Self-interruptions: {times}."]
        network = conditions.network
        if network is not None:
            lines.append(f"Network: {network.packets} packets, {network.lost} lost, "
                         f"{network.late} late, {network.reordered} reordered; turns "
                         f"affected: {', '.join(network.affected_turns) or 'none'}.")
    return lines
