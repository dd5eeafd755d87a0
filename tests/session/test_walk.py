"""A walk of one ``session run`` goes down through the rooms of ``session`` and never comes
back (docs/architecture.md, ADR 0011).

A real mock-agent ``session run`` of a bundled scenario runs under ``sys.setprofile``; every
call into a module of ``speecheval.session`` is recorded with the session modules on the
stack under it. A module's room is its first part under ``speecheval.session``
(``run``, ``metrics``, ``report``, ...; ``cli`` is the command itself). Three rules:

- each room is entered once: a call into a room from another one happens once in the whole
  run (the command hands its work down a room at a time, and a room that has returned is
  not asked again; the command itself is entered from outside, by click). Two kinds of
  calls are not steps of the walk: calls made while a module is being imported
  (decorators), and methods of dataclass values (a property such as ``RunResult.passed``,
  a generated ``__init__``, a ``report_dict``), which read or build the values the walk
  carries;
- the rooms that hold what the walk carries, the scenario and the recording
  (:data:`CARRIED`), are read by every step as often as it needs, and call no other room;
- no module calls back up: on any one stack, a module that called down into another one
  is not entered again above it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from speecheval.cli import main

PACKAGE = "speecheval.session"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "booking.yaml"
CARRIED = frozenset({"scenario", "record"})
"""The rooms of the values a session run carries down: the scenario, what was recorded."""


@dataclass(frozen=True)
class Entry:
    """A call into ``module`` from ``caller`` (None: from outside ``session``); ``stack``
    holds the session modules under it, innermost first, repeats merged."""

    module: str
    caller: str | None
    stack: tuple[str, ...]


def room(module: str) -> str:
    """``run`` for ``speecheval.session.run.plan``; the module itself for a top module."""
    return module.removeprefix(PACKAGE + ".").split(".")[0]


def _session_module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if isinstance(name, str) and name.startswith(PACKAGE + ".") else None


def _reads_a_value(frame: FrameType) -> bool:
    """Whether the call is a method of a dataclass (on an instance or the class)."""
    code = frame.f_code
    if not code.co_argcount or code.co_varnames[0] not in ("self", "cls"):
        return False
    return dataclasses.is_dataclass(frame.f_locals.get(code.co_varnames[0]))


def _below(frame: FrameType, root: FrameType) -> Iterator[FrameType]:
    """The frames under ``frame`` down to (not including) ``root``."""
    caller = frame.f_back
    while caller is not None and caller is not root:
        yield caller
        caller = caller.f_back


def walk(argv: list[str]) -> tuple[int, list[Entry]]:
    """Run ``speecheval argv``; its exit code and every entry into a session module."""
    entries: list[Entry] = []
    root = sys._getframe()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        module = _session_module(frame)
        if module is None or frame.f_code.co_name == "<module>" or _reads_a_value(frame):
            return
        under = list(_below(frame, root))
        if any(f.f_code.co_name == "<module>" for f in under):
            return  # an import running
        stack: list[str] = []
        for caller in under:
            name = _session_module(caller)
            if name is not None and (not stack or stack[-1] != name):
                stack.append(name)
        caller_module = stack[0] if stack else None
        if caller_module != module:
            entries.append(Entry(module, caller_module, tuple(stack)))

    sys.setprofile(profile)
    try:
        code = main(argv)
    finally:
        sys.setprofile(None)
    return code, entries


def violations(entries: list[Entry]) -> list[str]:
    """What breaks the three rules of the module docstring, in words."""
    found = []
    # the command is entered by click (once per group and command), from outside
    steps = Counter(room(e.module) for e in entries
                    if e.caller is not None and room(e.caller) != room(e.module))
    for name, count in sorted(steps.items()):
        if count > 1 and name not in CARRIED:
            found.append(f"room {name} entered {count} times")
    for entry in entries:
        if entry.caller is not None and room(entry.caller) in CARRIED and room(
                entry.module) not in CARRIED:
            found.append(f"{entry.caller} (a carried value) calls {entry.module}")
        if entry.module in entry.stack:
            found.append(f"{entry.module} is entered again above itself: "
                         f"{' <- '.join(entry.stack)}")
    return sorted(set(found))


def test_a_session_run_enters_each_room_once(tmp_path: Path) -> None:
    code, entries = walk(["session", "run", str(SCENARIO), "-n", "2",
                          "--out", str(tmp_path / "run")])
    assert code == 0
    # the walk is there to be judged: the command reached every step
    rooms = {room(e.module) for e in entries}
    assert {"cli", "scenario", "run", "record", "metrics", "report"} <= rooms
    assert violations(entries) == []


def test_the_rules_catch_a_bounce_a_callback_and_a_value_that_calls_up() -> None:
    bounce = [Entry(f"{PACKAGE}.cli", None, ()), Entry(f"{PACKAGE}.cli", None, ()),
              Entry(f"{PACKAGE}.run.launch", f"{PACKAGE}.cli", (f"{PACKAGE}.cli",)),
              Entry(f"{PACKAGE}.bench", f"{PACKAGE}.run.launch",
                    (f"{PACKAGE}.run.launch", f"{PACKAGE}.cli")),
              Entry(f"{PACKAGE}.bench", f"{PACKAGE}.run.launch",
                    (f"{PACKAGE}.run.launch", f"{PACKAGE}.cli"))]
    assert violations(bounce) == ["room bench entered 2 times"]
    callback = [Entry(f"{PACKAGE}.run.plan", f"{PACKAGE}.metrics.analyze",
                      (f"{PACKAGE}.metrics.analyze", f"{PACKAGE}.run.plan"))]
    assert violations(callback) == [
        f"{PACKAGE}.run.plan is entered again above itself: {PACKAGE}.metrics.analyze <- "
        f"{PACKAGE}.run.plan"]
    calls_up = [Entry(f"{PACKAGE}.report.report_md", f"{PACKAGE}.record.events",
                      (f"{PACKAGE}.record.events",))]
    assert violations(calls_up) == [
        f"{PACKAGE}.record.events (a carried value) calls {PACKAGE}.report.report_md"]
