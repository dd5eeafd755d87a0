"""What ``fdb10 show`` draws for one scored sample, decided apart from how it is drawn.

A picture is checked by eye, so everything that decides an outcome must be visible on it:
the reference times (E, S, R, the first pause) with readable labels, the stop time, the
latency and the speech that carries over R (``speech_at_end``) as spans, and, because a
160 ms pause at S can decide an interruption sample, zoomed panels around the reference
times. The title carries the outcome and the numbers
exactly as ``unified-samples.jsonl`` has them, including ``speech_at_end`` for a sample
that is not exercised (the spec keeps it visible there).

The decision is a :class:`speecheval.report.timeline.Timeline` (four lanes: output
waveform, Silero speech, words, annotation; a fifth above them, the user's speech, when
the page has the sample's input); the shared renderer draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.timebase import from_us, to_us
from ....core.timeline import Spans
from ....report.timeline import Bar, Marker, Stretch, Timeline, Track, Wave, Word, Zoom
from ...common.tree import PAUSE_HANDLING, SMOOTH_TURN_TAKING
from ..scoring.pause import owned_intervals
from ..scoring.samples import LoadedSample

ZOOM_MARGIN_S = 0.75
"""Seconds shown on each side of a reference time in a zoom panel: at about 650 px for
1.5 s, a 160 ms pause is some 70 px wide."""

OUTPUT, SPEECH, WORDS, ANNOTATION = "output", "speech (Silero)", "words", "annotation"
USER_SPEECH = "user speech (Silero on the input)"
REFERENCE_COLOR = "#c62828"
STOP_COLOR = "#6a3d9a"
RESTART_COLOR = "#1b5e20"


def _reference(label: str, time_s: float, side: str) -> Marker:
    """A reference time (E, S, R, the first pause): a dashed line through every lane,
    labelled above the panel on ``side`` of the line (S to the left, R to the right, so
    the two never collide)."""
    return Marker(time_s, label, REFERENCE_COLOR, dashed=True,
                  side="left" if side == "left" else "right")


def _s(value: float) -> str:
    return f"{value:.3f}"


def _zoom(title: str, start_s: float, end_s: float, duration_s: float) -> Zoom:
    """A zoom window widened by the margin on both sides and kept inside ``[0, T]``."""
    low, high = max(0.0, start_s - ZOOM_MARGIN_S), min(duration_s, end_s + ZOOM_MARGIN_S)
    return Zoom(f"{title}: {_s(low)}-{_s(high)} s", low, high)


def _zooms(duration_s: float, *points: tuple[str, float]) -> tuple[Zoom, ...]:
    """Panels around ``(name, time)`` points given in time order: points within two
    margins of the previous one share its panel, so every panel keeps the zoomed scale.

    >>> [z.title for z in _zooms(20.0, ("S", 4.0), ("R", 5.0))]
    ['zoom around S and R: 3.250-5.750 s']
    >>> [z.title for z in _zooms(20.0, ("S", 4.0), ("R", 7.0), ("the first word", 7.8))]
    ['zoom around S: 3.250-4.750 s', 'zoom around R and the first word: 6.250-8.550 s']
    """
    groups: list[list[tuple[str, float]]] = []
    for name, time in points:
        if groups and time - groups[-1][-1][1] <= 2 * ZOOM_MARGIN_S:
            groups[-1].append((name, time))
        else:
            groups.append([(name, time)])
    return tuple(_zoom("zoom around " + " and ".join(name for name, _time in group),
                       group[0][1], group[-1][1], duration_s) for group in groups)


@dataclass(frozen=True)
class _Plan:
    """What one task adds to the common lanes."""

    numbers: str
    markers: tuple[Marker, ...]
    zooms: tuple[Zoom, ...]
    bars: tuple[Bar, ...] = ()
    intervals: tuple[Stretch, ...] = ()


def plan_timeline(sample: LoadedSample, segments: Spans, row: dict[str, Any],
                  samples: NDArray[np.float32], rate: int, *,
                  user_speech: Spans | None = None) -> Timeline:
    """The timeline of one eligible, scored sample (``row`` is its jsonl row,
    ``segments`` its speech, ``samples`` the output track); ``user_speech``, the speech
    found in the sample's input, is drawn as a lane above the output when given."""
    duration = from_us(sample.duration_us)
    words = tuple(Word(w.text, (from_us(w.start_us), from_us(w.end_us))) for w in sample.words)
    if sample.entry.task == PAUSE_HANDLING:
        plan = _pause_plan(sample, row, duration, words)
    elif sample.entry.task == SMOOTH_TURN_TAKING:
        plan = _turn_plan(row, duration)
    else:
        plan = _interruption_plan(row, duration, segments)
    user = () if user_speech is None else (Track(USER_SPEECH, color="#8d6e63", spans=tuple(
        Bar((a, b), tooltip=f"user {a:.3f}-{b:.3f} s") for a, b in _seconds(user_speech))),)
    tracks = (*user, Track(OUTPUT, color="#4a6fa5", wave=Wave(samples, rate)),
              Track(SPEECH, color="#2e8b57", spans=tuple(
                  Bar((a, b), tooltip=f"{a:.3f}-{b:.3f} s") for a, b in _seconds(segments))),
              Track(WORDS, color="#c77d1f", words=words),
              Track(ANNOTATION, spans=plan.bars, intervals=plan.intervals))
    return Timeline(duration, tracks, markers=plan.markers, zooms=plan.zooms,
                    title=f"{sample.entry.sample_id}   {sample.entry.task}",
                    subtitle=plan.numbers, axis_label="time on the input window (s)")


# Rows of the measured stretches in the annotation lane: the stop (or why there is none)
# above, the latency and the owned pause stretches below.
UPPER, LOWER = 0, 1


def _pause_plan(sample: LoadedSample, row: dict[str, Any], duration: float,
                words: tuple[Word, ...]) -> _Plan:
    flags = [k for k in ("pause_intrusion", "inside_pause_onset", "pre_pause_speech",
                         "carry_in") if row[k]]
    numbers = (f"flags: {', '.join(flags) if flags else 'none'}   "
               f"intrusion_words {row['intrusion_words']}   "
               f"intruded_pauses {row['intruded_pauses']} of {row['pauses']}   "
               f"intrusion_s {_s(row['intrusion_s'])} of pause_s {_s(row['pause_s'])}")
    pauses = sample.pauses
    bars = tuple(Bar(p.seconds, f"pause {i + 1}", "#9a9a9a") for i, p in enumerate(pauses))
    owned = tuple(Stretch(p.seconds, f"pause {i + 1} owns", LOWER)
                  for i, p in enumerate(owned_intervals(pauses, sample.duration_us)))
    first = pauses[0]
    start, end = from_us(first.start_us), from_us(first.end_us)
    # The first onset at or after the first pause start decides pause_intrusion: show it
    # in the zoom too when it follows the pause closely.
    onset = min((w.seconds[0] for w in words if w.seconds[0] >= start), default=None)
    title = "zoom around the first pause"
    if onset is not None and end < onset <= end + 2 * ZOOM_MARGIN_S:
        end, title = onset, title + " and the first onset after it"
    return _Plan(numbers, (_reference("first pause", start, "right"),),
                 (_zoom(title, start, end, duration),), bars, owned)


def _turn_plan(row: dict[str, Any], duration: float) -> _Plan:
    e, first = row["E"], row["first_word_s"]
    numbers = f"outcome: {row['outcome']}   E {_s(e)} s"
    points = sorted([("E", e)] + ([] if first is None else [("the first word", first)]),
                    key=lambda point: point[1])
    intervals: tuple[Stretch, ...] = ()
    if row["latency_s"] is not None:
        numbers += f"   first_word_s {_s(first)}   latency_s {_s(row['latency_s'])}"
        intervals = (Stretch((e, first), f"latency_s {_s(row['latency_s'])}", LOWER),)
    elif first is not None:
        numbers += f"   first_word_s {_s(first)} (before E)"
        intervals = (Stretch((first, e), f"early start: {_s(e - first)} s before E", LOWER),)
    return _Plan(numbers, (_reference("E", e, "right"),), _zooms(duration, *points),
                 intervals=intervals)


def _seconds(spans: Spans) -> list[tuple[float, float]]:
    return [(from_us(start), from_us(end)) for start, end in spans.to_tuples()]


def _interruption_plan(row: dict[str, Any], duration: float, segments: Spans) -> _Plan:
    s, r = row["S"], row["R"]
    exercised = row["outcome"] != "not_exercised"
    parts = [f"outcome: {row['outcome']}",
             f"speech_at_onset {str(row['speech_at_onset']).lower()}",
             f"speech_at_end {str(row['speech_at_end']).lower()}"]
    intervals: list[Stretch] = []
    points = [("S", s), ("R", r)]
    markers = [_reference("S", s, "left"), _reference("R", r, "right")]
    if row["stop_s"] is not None:
        stop_s = s + row["stop_s"]
        points.append(("the stop", stop_s))
        parts.append(f"stop_s {_s(row['stop_s'])}")
        intervals.append(Stretch((s, stop_s), f"stop_s {_s(row['stop_s'])}", UPPER))
        # Left of its line, over the segment that stops, so it never meets a restart note.
        markers.append(Marker(stop_s, "stop", STOP_COLOR, width=1.6, side="left",
                              label_track=SPEECH))
    elif exercised:
        parts.append("no observed stop (speech runs to T)")
        intervals.append(Stretch((s, duration), "no observed stop: speech runs to T", UPPER))
    else:
        intervals.extend(_silence_at(s, segments))
    # A segment starting inside (S, R) is a restart only if the model was speaking at S;
    # otherwise it is the model's first start during the interruption.
    parts.append(f"restarts {row['restarts']}" if exercised
                 else f"segments starting inside (S, R) {row['restarts']}")
    # speech_at_end decides speaking_at_end and stays visible on a not-exercised sample
    # (the spec keeps it there): the stretch of the segment carrying over R, up to R.
    intervals += [Stretch((start, r), f"speech_at_end: carries over R from {_s(start)} s",
                          LOWER)
                  for start, end in _seconds(segments) if start < r < end]
    if row["latency_s"] is not None:
        parts.append(f"latency_s {_s(row['latency_s'])}")
        intervals.append(Stretch((r, row["first_word_s"]), f"latency_s {_s(row['latency_s'])}",
                                 LOWER))
        points.append(("the first word", row["first_word_s"]))
    note = "restart" if exercised else "start in (S, R)"
    markers += [Marker(start, note, RESTART_COLOR, side="right", label_track=SPEECH,
                       strong=False, line=False)
                for start, _end in _seconds(segments) if s < start < r]
    return _Plan("   ".join(parts), tuple(markers),
                 _zooms(duration, *sorted(points, key=lambda point: point[1])),
                 (Bar((s, r), "user interrupts", "#e8908c"),), tuple(intervals))


def _silence_at(onset_s: float, segments: Spans) -> list[Stretch]:
    """The gap between two segments that holds S, when S falls in one: the pause that
    made the sample not exercised.

    >>> _silence_at(10.531, Spans.from_seconds([4.0, 10.592], [10.432, 11.2]))[0].label
    'no speech at S: 0.160 s gap'
    >>> _silence_at(1.0, Spans.from_seconds([2.0], [3.0]))
    []
    """
    if not len(segments):
        return []
    hull = Spans([segments.starts.min()], [segments.ends.max()])
    onset_us = to_us(onset_s)
    return [Stretch(gap.seconds, f"no speech at S: {_s(gap.duration_s)} s gap", UPPER)
            for gap in hull.difference(segments) if gap.contains(onset_us)]
