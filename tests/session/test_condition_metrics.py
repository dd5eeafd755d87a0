"""The network part of a session's ``conditions`` entry, on hand-made event logs."""

from __future__ import annotations

from speecheval.core.timeline import Spans
from speecheval.session.metrics.condition_metrics import condition_metrics
from speecheval.session.record import events as ev

NONE = Spans([], [])


def test_a_lost_frame_at_a_turns_first_instant_affects_that_turn() -> None:
    """The turn's audio starts at 8.06 s, where frame 403 of 20 ms is sent (403 * 20 =
    8060 ms): that frame carries the turn's first 20 ms, and it was lost. In floats
    8.06 * 1000 is 8060.000000000001, above 8060, so a comparison in float ms left the
    frame out of the turn and the turn looked undamaged."""
    assert 8.06 * 1000 > 8060
    window = ev.TurnWindow(turn_id="ask", index=0, start_s=8.06, end_s=8.5, trigger="anchor")
    packets: list[ev.Event] = [
        ev.NetworkPacket(t_ms=403 * 20.0, seq=403, state="bad", delay_ms=0.0,
                         reordered=False, outcome="lost"),
        ev.NetworkPacket(t_ms=404 * 20.0, seq=404, state="good", delay_ms=0.0,
                         reordered=False, outcome="ok"),
    ]
    network = condition_metrics(packets, (window,), NONE, NONE, True).report_dict()["network"]
    assert network["turns"] == [{"id": "ask", "lost": 1, "late": 0}]
    assert network["affected_turns"] == ["ask"]


def test_a_frame_sent_at_a_turns_end_belongs_to_the_next_stretch() -> None:
    """A window is [start, end): the frame sent at its end, 8.14 s, carries audio after
    it. In floats 8.14 * 1000 is 8140.000000000001, so the frame sent at 8140 ms was
    counted in the turn that had already ended."""
    assert 8.14 * 1000 > 8140
    window = ev.TurnWindow(turn_id="ask", index=0, start_s=8.06, end_s=8.14, trigger="anchor")
    packets: list[ev.Event] = [ev.NetworkPacket(t_ms=407 * 20.0, seq=407, state="bad",
                                                delay_ms=0.0, reordered=False,
                                                outcome="lost")]
    network = condition_metrics(packets, (window,), NONE, NONE, True).report_dict()["network"]
    assert network["affected_turns"] == []
