"""The official v1.5 timing (``get_timing.py``), reproduced as a reference column.

The official script runs Silero on the whole input and the whole output, merges each
side's segments across short gaps, and writes two lists of intervals per sample:

* ``latency_stop_list``: every stretch where a merged user segment and a merged model
  segment overlap (a two-pointer sweep), one per end time rounded to the millisecond,
  the shortest kept;
* ``latency_resp_list``: for each merged user segment, ``[user end, start of the first
  model segment starting strictly after it]``, one per model start rounded to the
  millisecond, the one with the later user end kept.

The script calls Silero's ``get_speech_timestamps`` with its defaults, so its segments are
padded by 30 ms (:data:`OFFICIAL_SPEECH_PAD_MS`); speecheval's own timing follows the
v1.0 spec's 0 ms. ``fdb15 score`` therefore finds the official column's segments with a
second Silero whose only difference is that padding: on the same files the column equals
the script's ``latency_intervals.json`` (``tests/fdb15/test_official_scripts.py`` runs it).

The merge gaps are 0.6 s for the user and 0.5 s for the model. The script's comments say
300 ms and 50 ms; the code uses 0.6 and 0.5, and so does this module. Times are float
seconds rounded to 3 decimals with Python's ``round`` (half to even on the binary value),
as the script writes them. Unlike the event-anchored timing (:mod:`.trial`) these
intervals are not tied to the overlap window of metadata.json: a context turn that the
system talks over counts as well.

The script reads Silero's segments in samples at 16 kHz and divides by 16000; speecheval
segments are whole microseconds, so an interval end that falls within a microsecond of a
half millisecond can round the other way. ``tests/fdb15/test_official_timing.py`` runs
the script's own functions on the same segments and compares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ....core.timeline import SecondsPair, Span

OFFICIAL_SPEECH_PAD_MS = 30
"""Silero's default padding, which get_timing.py keeps."""
USER_MERGE_GAP_S = 0.6
MODEL_MERGE_GAP_S = 0.5

def seconds(segments: Sequence[Span]) -> list[SecondsPair]:
    """Spans as the (start, end) float seconds the official functions take (their float
    view: the script's arithmetic is reproduced on it bit for bit)."""
    return [s.seconds for s in segments]


def merge_close(segments: Sequence[SecondsPair], gap_s: float) -> list[SecondsPair]:
    """Sort, then join each segment to the previous one when the gap is at most ``gap_s``."""
    merged: list[SecondsPair] = []
    for start, end in sorted(segments):
        if merged and start - merged[-1][1] <= gap_s:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def stop_intervals(user: Sequence[SecondsPair],
                   model: Sequence[SecondsPair]) -> list[list[float]]:
    """The official ``latency_stop_list`` of merged user and model segments."""
    shortest: dict[int, SecondsPair] = {}
    u = m = 0
    while u < len(user) and m < len(model):
        start, end = max(user[u][0], model[m][0]), min(user[u][1], model[m][1])
        if end > start:
            key = int(round(end * 1000))
            kept = shortest.get(key)
            if kept is None or end - start < kept[1] - kept[0]:
                shortest[key] = (start, end)
        if user[u][1] < model[m][1]:
            u += 1
        else:
            m += 1
    ordered = sorted(shortest.values(), key=lambda interval: interval[1])
    return [[round(start, 3), round(end, 3)] for start, end in ordered]


def response_intervals(user: Sequence[SecondsPair],
                       model: Sequence[SecondsPair]) -> list[list[float]]:
    """The official ``latency_resp_list`` of merged user and model segments."""
    by_start: dict[int, list[float]] = {}
    for _, user_end in user:
        start = next((s for s, _ in model if s > user_end), None)
        if start is None:
            continue
        key = int(round(start * 1000))
        candidate = [round(user_end, 3), round(start, 3)]
        if key not in by_start or candidate[0] > by_start[key][0]:
            by_start[key] = candidate
    return sorted(by_start.values(), key=lambda interval: interval[1])


@dataclass(frozen=True)
class OfficialTiming:
    """The two official lists of one sample (the content of ``latency_intervals.json``)."""

    latency_stop_list: list[list[float]]
    latency_resp_list: list[list[float]]

    def response_gaps_s(self) -> list[float]:
        """Each response interval's length in seconds (next system start minus the user
        segment's end, the context turn's included), to the millisecond: the per-file
        figures the paper averages."""
        return [round(start - end_of_user, 3)
                for end_of_user, start in self.latency_resp_list]

    def report_dict(self) -> dict[str, Any]:
        return {"latency_stop_list": self.latency_stop_list,
                "latency_resp_list": self.latency_resp_list}


def official_timing(user_segments: Sequence[Span],
                    model_segments: Sequence[Span]) -> OfficialTiming:
    """The official intervals from the Silero segments of input.wav and output.wav."""
    user = merge_close(seconds(user_segments), USER_MERGE_GAP_S)
    model = merge_close(seconds(model_segments), MODEL_MERGE_GAP_S)
    return OfficialTiming(stop_intervals(user, model), response_intervals(user, model))
