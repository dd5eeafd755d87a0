"""The typed event log: each event's ``events.jsonl`` line, read back, and bad lines refused."""

from __future__ import annotations

import json

import pytest

from speecheval.core import results
from speecheval.core.canonical_json import dumps_line
from speecheval.core.errors import InputError
from speecheval.session.record.events import (
    AgentClear,
    Fault,
    TurnStart,
    event_from_dict,
    events_from_dicts,
    parse_log,
)


def test_lines_are_written_as_before_and_read_back() -> None:
    # the line format of events.jsonl before the events were typed: type, t_ms, fields;
    # a virtual-clock clear has no played_ms key at all, a real-clock one has it
    turn = TurnStart(t_ms=500.0, turn="ask", index=0, trigger="session_start",
                     anchor_ms=0.0, end_ms=1500.0)
    assert dumps_line(turn.report_dict()) == (
        '{"anchor_ms":0.0,"end_ms":1500.0,"index":0,"t_ms":500.0,"trigger":"session_start",'
        '"turn":"ask","type":"turn"}\n')
    assert AgentClear(t_ms=1.0, dropped_ms=20.0).report_dict() == {
        "type": "clear", "t_ms": 1.0, "dropped_ms": 20.0}
    real = AgentClear(t_ms=1.0, dropped_ms=20.0, played_ms=340)
    assert real.report_dict()["played_ms"] == 340
    for event in (turn, AgentClear(t_ms=1.0, dropped_ms=20.0), real, Fault(2.0, "gone")):
        assert event_from_dict(json.loads(dumps_line(event.report_dict()))) == event
        assert results.from_dict(results.to_dict(event)) == event


def test_a_malformed_line_is_refused_with_its_number() -> None:
    good = {"type": "fault", "t_ms": 3.0, "reason": "gone"}
    with pytest.raises(InputError, match=r"event 1 \('turn'\): .*turn: expected str"):
        events_from_dicts([good, {"type": "turn", "t_ms": 1.0, "turn": 7, "index": 0,
                                  "trigger": "x", "anchor_ms": None, "end_ms": 2.0}])
    with pytest.raises(InputError, match=r"event 0: unknown type 'bogus'"):
        event_from_dict({"type": "bogus", "t_ms": 0.0})
    with pytest.raises(InputError, match="not finite"):
        event_from_dict({"type": "fault", "t_ms": float("nan"), "reason": "x"})


def test_scrubbing_touches_every_text_and_nothing_else() -> None:
    fault = Fault(t_ms=1.0, reason="token abc")
    assert fault.scrubbed(lambda text: text.replace("abc", "***")) == Fault(1.0, "token ***")
    clear = AgentClear(t_ms=1.0, dropped_ms=2.0)
    assert clear.scrubbed(str.upper) is clear


def test_the_log_keeps_the_first_fault_time() -> None:
    log = parse_log([Fault(t_ms=1500.0, reason="a"), Fault(t_ms=2500.0, reason="b")])
    assert log.fault_s == 1.5 and not log.truncated and log.windows == ()
