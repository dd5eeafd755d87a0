"""Where a turn's response latency goes, from the server's own events.

A transport that reports the server's turn-taking (OpenAI Realtime and native-realtime:
``input_audio_buffer.speech_stopped``, ``response.created``; logged as ``server``
events) lets the response latency of a turn be split, on the client's clock, into:

* ``endpointing_ms``: the user's offset (clean user track) to ``speech_stopped``, the
  moment the server's endpointer said the user was done, as it reached the client;
* ``decision_ms``: ``speech_stopped`` to ``response_created``;
* ``generation_ms``: ``response_created`` (else ``speech_stopped``) to the arrival of
  the reply's first audio (the packet time to first audio counts to);
* ``delivery_ms``: that arrival to the reply's onset in the played track (the playout
  buffer's queue and any quiet lead-in): response latency minus time to first audio.

When every part is there they add up to the response latency. The server events of a
turn are the last ``speech_stopped`` between the user's onset and the first audio, and
the last ``response_created`` between that (or the onset) and the first audio; a part
whose event did not come is ``null``. Sessions with no server event at all (pcm-websocket,
the mock) have no split.
"""

from __future__ import annotations

from dataclasses import replace

from ...core.timebase import to_us
from ..record import events as ev
from .results import LatencySplit, TurnMetrics

PARTS = ("endpointing_ms", "decision_ms", "generation_ms", "delivery_ms")


def with_latency_split(turns: tuple[TurnMetrics, ...],
                       events: list[ev.Event]) -> tuple[TurnMetrics, ...]:
    """``turns`` with ``latency_split`` set, when the log holds server events."""
    marks = [event for event in events if isinstance(event, ev.ServerEvent)]
    if not marks:
        return turns
    return tuple(replace(turn, latency_split=_split(turn, marks)) for turn in turns)


def _last(marks: list[ev.ServerEvent], name: str, lo: int, hi: int) -> int | None:
    times = [to_us(mark.t_s) for mark in marks if mark.name == name]
    inside = [t for t in times if lo <= t <= hi]
    return inside[-1] if inside else None


def _split(turn: TurnMetrics, marks: list[ev.ServerEvent]) -> LatencySplit:
    split: dict[str, float | None] = dict.fromkeys(PARTS)
    if turn.response_latency_ms is not None and turn.ttfa_ms is not None:
        split["delivery_ms"] = (round(turn.response_latency_ms * 1000)
                                - round(turn.ttfa_ms * 1000)) / 1000
    if turn.user_onset_s is None or turn.user_offset_s is None or turn.ttfa_ms is None:
        return LatencySplit(**split)
    onset, offset = to_us(turn.user_onset_s), to_us(turn.user_offset_s)
    first_audio = offset + round(turn.ttfa_ms * 1000)
    stopped = _last(marks, "speech_stopped", onset, first_audio)
    created = _last(marks, "response_created", onset if stopped is None else stopped,
                    first_audio)
    if stopped is not None:
        split["endpointing_ms"] = (stopped - offset) / 1000
    if stopped is not None and created is not None:
        split["decision_ms"] = (created - stopped) / 1000
    began = created if created is not None else stopped
    if began is not None:
        split["generation_ms"] = (first_audio - began) / 1000
    return LatencySplit(**split)
