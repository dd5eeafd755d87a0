"""The Markdown report: the summary, the assertions and every turn, for people."""

from __future__ import annotations

import json
from typing import Any

from ..report.numbers import fixed, percent
from ..report.table import Table, to_markdown

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


def _share(share: dict[str, Any]) -> str:
    if share["rate"] is None:
        return f"{share['count']}/{share['n']}"
    low, high = share["ci95"]
    return (f"{share['count']}/{share['n']} ({percent(share['rate'], 0)}, 95% CI "
            f"{fixed(100 * low, 0)}-{percent(high, 0)})")


def _dist(d: dict[str, Any]) -> str:
    return (f"n={d['count']}, min {fmt(d['min'])}, p50 {fmt(d['p50'])}, p90 {fmt(d['p90'])}, "
            f"max {fmt(d['max'])}, mean {fmt(d['mean'])}")


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows shared by the Markdown and HTML reports."""
    rows = [("Sessions", str(summary["sessions"]))]
    if "session_pass" in summary:
        rows.append(("Sessions passed", _share(summary["session_pass"])))
    rows += [
        ("Turns passed", _share(summary["turns"])),
        ("Turns not played", str(summary["not_played_turns"])),
        ("Response latency (ms)", _dist(summary["response_latency_ms"])),
        ("Time to first audio (ms)", _dist(summary["ttfa_ms"])),
        ("Missed responses", str(summary["missed_responses"])),
        ("Talk-over replies", str(summary["talk_overs"])),
        ("Barge-in success", _share(summary["barge_in"])),
        ("Barge-in stop time, VAD (ms)", _dist(summary["barge_in_stop_ms"])),
        ("Barge-in stop time, clear (ms)", _dist(summary["clear_stop_ms"])),
        ("False barge-ins", f"{summary['false_barge_ins']} of {summary['noise_turns']}"),
        ("Spurious responses", f"{summary['spurious_responses']} of {summary['noise_turns']}"),
        ("Mean WER", f"{fmt(summary['wer']['mean'])} (n={summary['wer']['count']})"),
        ("Overlap / talk-over (ms)",
         f"{fmt(summary['overlap_ms'])} / {fmt(summary['talk_over_ms'])}"),
        ("Truncated / faulted sessions",
         f"{summary['truncated_sessions']} / {summary['faulted_sessions']}"),
    ]
    if "task_success" in summary:  # the scenario has a task judge
        rows.append(("Task success (judge)", f"{_share(summary['task_success'])}, "
                                             f"{summary['task_success']['invalid']} invalid"))
    if "reply_checks" in summary:  # the scenario checks what the agent said
        rows.append(("Replies that passed their checks", _share(summary["reply_checks"])))
    if "latency_split_ms" in summary:  # the transport reported server events
        rows += [(f"Latency split: {part} (ms)", _dist(values))
                 for part, values in summary["latency_split_ms"].items()]
    if "conditions" in summary:  # the scenario declared echo, noise, codec or network
        rows += [("Self-interruptions", str(summary["conditions"]["self_interruptions"])),
                 ("Turns hit by packet loss",
                  str(summary["conditions"]["network_affected_turns"]))]
    return rows


TURN_HEADER = ["Turn", "Expect", "Trigger", "Response", "TTFA", "Stop (VAD)", "Stop (clear)",
               "WER", "Result", "Notes"]


def turn_cells(turn: dict[str, Any]) -> list[str]:
    return [turn["id"], turn["expect"], turn["trigger"],
            fmt(turn["response_latency_ms"], " ms"), fmt(turn["ttfa_ms"], " ms"),
            fmt(turn["stop_ms"], " ms"), fmt(turn["clear_stop_ms"], " ms"), fmt(turn["wer"]),
            "pass" if turn["passed"] else "FAIL", "; ".join(turn["notes"])]


ASSERTION_HEADER = ["Assertion", "Limit", "Actual", "Result"]


def assertion_cells(assertion: dict[str, Any]) -> list[str]:
    return [assertion["key"], fmt(assertion["limit"]), fmt(assertion["actual"]),
            "pass" if assertion["passed"] else "FAIL"]


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


def verdict_text(report: dict[str, Any]) -> str:
    """The run's result as the exit code tells it: an agent fault (3) before assertions."""
    if report["summary"]["faulted_sessions"]:
        return "AGENT FAULT"
    return "PASS" if report["passed"] else "FAIL"


def render_markdown(report: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    sc = report["scenario"]
    options = json.dumps(report["agent"]["options"], sort_keys=True)
    lines = [f"# Session report: {sc['name']}", "",
             f"Agent `{report['agent']['name']}`, {report['clock']} clock, "
             f"{report['summary']['sessions']} session(s). Result: "
             f"**{verdict_text(report)}**.", "",
             f"Agent options (credentials removed): `{options}`", ""]
    if report["summary"]["faulted_sessions"]:
        lines += [f"**The agent failed in {report['summary']['faulted_sessions']} of "
                  f"{report['summary']['sessions']} session(s)**; the reason is under each "
                  "session.", ""]
    lines += ["## Summary", ""]
    lines += _table(["Metric", "Value"], [list(r) for r in summary_rows(report["summary"])])
    lines += ["", "## Assertions", ""]
    if report["assertions"]:
        lines += _table(ASSERTION_HEADER, [assertion_cells(a) for a in report["assertions"]])
    else:
        lines.append("The scenario has no assertions.")
    for session in report["sessions"]:
        lines += ["", f"## Session {session['index']} ({session['dir']})", "",
                  f"Duration {session['duration_s']:.2f} s; user speech "
                  f"{fmt(session['user_speech_ms'])} ms, agent speech "
                  f"{fmt(session['agent_speech_ms'])} ms, overlap {fmt(session['overlap_ms'])} "
                  f"ms, talk-over {fmt(session['talk_over_ms'])} ms; truncated: "
                  f"{fmt(session['truncated'])}; fault: {_inline(session['fault'] or 'none')}.", ""]
        lines += _table(TURN_HEADER, [turn_cells(t) for t in session["turns"]])
        lines += _extras(session)
    return "\n".join(lines) + "\n"


SPLIT_HEADER = ["Turn", "Endpointing", "Decision", "Generation", "Delivery"]


def _extras(session: dict[str, Any]) -> list[str]:
    """The latency split and the conditions' findings, for sessions that have them."""
    lines: list[str] = []
    split = [t for t in session["turns"] if "latency_split" in t]
    if split:
        lines += ["", "Where the response latency went (server events):", ""]
        lines += _table(SPLIT_HEADER, [
            [t["id"], *(fmt(t["latency_split"][part], " ms") for part in
                        ("endpointing_ms", "decision_ms", "generation_ms", "delivery_ms"))]
            for t in split])
    replies = [t for t in session["turns"] if "reply" in t]
    if replies:
        lines += ["", "What the agent said (Whisper tiny.en on the agent track):", ""]
        lines += _table(["Turn", "Agent said", "WER", "Checks"], [
            [t["id"], t["reply"]["transcript"] or "-", fmt(t["reply"]["wer"]),
             ", ".join(f"{name} {'pass' if ok else 'FAIL'}"
                       for name, ok in t["reply"]["checks"].items())]
            for t in replies])
    task = session.get("task")
    if task is not None:
        verdict = {True: "success", False: "failure", None: "no valid verdict"}[task["success"]]
        lines += ["", f"Task judge ({task['model']}): {verdict}; "
                      f"{_inline(task['reason'] or task['problem'] or '')}".rstrip("; ")]
    conditions = session.get("conditions")
    if conditions is not None:
        found = conditions["self_interruptions"]
        times = ", ".join(f"{f['t_s']:.2f} s ({f['turn']})" for f in found) or "none"
        lines += ["", f"Self-interruptions: {times}."]
        network = conditions.get("network")
        if network is not None:
            lines.append(f"Network: {network['packets']} packets, {network['lost']} lost, "
                         f"{network['late']} late, {network['reordered']} reordered; turns "
                         f"affected: {', '.join(network['affected_turns']) or 'none'}.")
    return lines
