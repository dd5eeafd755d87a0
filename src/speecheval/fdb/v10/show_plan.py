"""What ``fdb10 show`` draws for one scored sample, decided apart from how it is drawn.

A picture is checked by eye, so everything that decides an outcome must be visible on it:
the reference times (E, S, R, the first pause) with readable labels, the stop time and the
latency as spans, and, because a 160 ms pause at S can decide an interruption sample,
zoomed panels around the reference times. The title carries the outcome and the numbers
exactly as ``unified-samples.jsonl`` has them, including ``speech_at_end`` for a sample
that is not exercised (the spec keeps it visible there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.timebase import from_us
from .pause import owned_intervals
from .scoring import LoadedSample
from .tree import PAUSE_HANDLING, SMOOTH_TURN_TAKING

ZOOM_MARGIN_S = 0.75
"""Seconds shown on each side of a reference time in a zoom panel: at about 650 px for
1.5 s, a 160 ms pause is some 70 px wide."""


@dataclass(frozen=True)
class Marker:
    """A reference time: a dashed line through every lane, labelled above the panel on
    ``side`` of the line (S to the left, R to the right, so the two never collide)."""

    label: str
    time_s: float
    side: str


@dataclass(frozen=True)
class Span:
    """A measured stretch drawn as a labelled double arrow in the annotation lane;
    ``level`` 0 is the lower row, 1 the upper."""

    label: str
    start_s: float
    end_s: float
    level: int


@dataclass(frozen=True)
class Bar:
    """An annotated stretch (the interruption, a pause) in the annotation lane."""

    label: str
    start_s: float
    end_s: float
    color: str


@dataclass(frozen=True)
class Zoom:
    """A panel showing ``[start_s, end_s]`` of the timeline at a larger scale."""

    title: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Picture:
    """Everything drawn for one sample, in seconds on the input window ``[0, T]``."""

    headline: str
    numbers: str
    duration_s: float
    segments: tuple[tuple[float, float], ...]
    words: tuple[tuple[str, float, float], ...]
    bars: tuple[Bar, ...]
    markers: tuple[Marker, ...]
    spans: tuple[Span, ...]
    stop_s: float | None
    zooms: tuple[Zoom, ...]
    segment_notes: tuple[tuple[str, float], ...] = ()
    """Labels at segment starts: ``restart`` inside (S, R) when the model was speaking at
    S, ``start in (S, R)`` when it was not (a first start is no restart)."""


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


def plan_picture(sample: LoadedSample, segments: tuple[tuple[float, float], ...],
                 row: dict[str, Any]) -> Picture:
    """The picture of one eligible, scored sample (``row`` is its jsonl row)."""
    duration = from_us(sample.duration_us)
    words = tuple((w.text, from_us(w.start_us), from_us(w.end_us)) for w in sample.words)
    common = {"duration_s": duration, "segments": segments, "words": words}
    headline = f"{sample.entry.sample_id}   {sample.entry.task}"
    if sample.entry.task == PAUSE_HANDLING:
        return _pause_picture(sample, row, headline, common)
    if sample.entry.task == SMOOTH_TURN_TAKING:
        return _turn_picture(row, headline, common)
    return _interruption_picture(row, headline, common)


def _pause_picture(sample: LoadedSample, row: dict[str, Any], headline: str,
                   common: dict[str, Any]) -> Picture:
    flags = [k for k in ("pause_intrusion", "inside_pause_onset", "pre_pause_speech",
                         "carry_in") if row[k]]
    numbers = (f"flags: {', '.join(flags) if flags else 'none'}   "
               f"intrusion_words {row['intrusion_words']}   "
               f"intruded_pauses {row['intruded_pauses']} of {row['pauses']}   "
               f"intrusion_s {_s(row['intrusion_s'])} of pause_s {_s(row['pause_s'])}")
    pauses = sample.pauses
    bars = tuple(Bar(f"pause {i + 1}", from_us(p.start_us), from_us(p.end_us), "#9a9a9a")
                 for i, p in enumerate(pauses))
    owned = tuple(Span(f"pause {i + 1} owns", from_us(start), from_us(end), 0)
                  for i, (start, end) in enumerate(owned_intervals(pauses,
                                                                   sample.duration_us)))
    first = pauses[0]
    start, end = from_us(first.start_us), from_us(first.end_us)
    # The first onset at or after the first pause start decides pause_intrusion: show it
    # in the zoom too when it follows the pause closely.
    onset = min((w[1] for w in common["words"] if w[1] >= start), default=None)
    title = "zoom around the first pause"
    if onset is not None and end < onset <= end + 2 * ZOOM_MARGIN_S:
        end, title = onset, title + " and the first onset after it"
    return Picture(headline=headline, numbers=numbers, bars=bars,
                   markers=(Marker("first pause", start, "right"),), spans=owned,
                   stop_s=None, zooms=(_zoom(title, start, end, common["duration_s"]),),
                   **common)


def _turn_picture(row: dict[str, Any], headline: str, common: dict[str, Any]) -> Picture:
    e, first = row["E"], row["first_word_s"]
    numbers = f"outcome: {row['outcome']}   E {_s(e)} s"
    points = sorted([("E", e)] + ([] if first is None else [("the first word", first)]),
                    key=lambda point: point[1])
    spans: tuple[Span, ...] = ()
    if row["latency_s"] is not None:
        numbers += f"   first_word_s {_s(first)}   latency_s {_s(row['latency_s'])}"
        spans = (Span(f"latency_s {_s(row['latency_s'])}", e, first, 0),)
    elif first is not None:
        numbers += f"   first_word_s {_s(first)} (before E)"
        spans = (Span(f"early start: {_s(e - first)} s before E", first, e, 0),)
    return Picture(headline=headline, numbers=numbers, bars=(),
                   markers=(Marker("E", e, "right"),), spans=spans, stop_s=None,
                   zooms=_zooms(common["duration_s"], *points), **common)


def _interruption_picture(row: dict[str, Any], headline: str, common: dict[str, Any]
                          ) -> Picture:
    s, r, duration = row["S"], row["R"], common["duration_s"]
    exercised = row["outcome"] != "not_exercised"
    parts = [f"outcome: {row['outcome']}",
             f"speech_at_onset {str(row['speech_at_onset']).lower()}",
             f"speech_at_end {str(row['speech_at_end']).lower()}"]
    spans: list[Span] = []
    points = [("S", s), ("R", r)]
    stop_s = None
    if row["stop_s"] is not None:
        stop_s = s + row["stop_s"]
        points.append(("the stop", stop_s))
        parts.append(f"stop_s {_s(row['stop_s'])}")
        spans.append(Span(f"stop_s {_s(row['stop_s'])}", s, stop_s, 1))
    elif exercised:
        parts.append("no observed stop (speech runs to T)")
        spans.append(Span("no observed stop: speech runs to T", s, duration, 1))
    else:
        spans.extend(_silence_at(s, common["segments"]))
    # A segment starting inside (S, R) is a restart only if the model was speaking at S;
    # otherwise it is the model's first start during the interruption.
    parts.append(f"restarts {row['restarts']}" if exercised
                 else f"segments starting inside (S, R) {row['restarts']}")
    if row["latency_s"] is not None:
        parts.append(f"latency_s {_s(row['latency_s'])}")
        spans.append(Span(f"latency_s {_s(row['latency_s'])}", r, row["first_word_s"], 0))
        points.append(("the first word", row["first_word_s"]))
    note = "restart" if exercised else "start in (S, R)"
    notes = tuple((note, start) for start, _end in common["segments"] if s < start < r)
    return Picture(headline=headline, numbers="   ".join(parts),
                   bars=(Bar("user interrupts", s, r, "#e8908c"),),
                   markers=(Marker("S", s, "left"), Marker("R", r, "right")),
                   spans=tuple(spans), stop_s=stop_s,
                   zooms=_zooms(duration, *sorted(points, key=lambda point: point[1])),
                   segment_notes=notes, **common)


def _silence_at(onset_s: float, segments: tuple[tuple[float, float], ...]) -> list[Span]:
    """The gap between two segments that holds S, when S falls in one: the pause that
    made the sample not exercised.

    >>> _silence_at(10.531, ((4.0, 10.432), (10.592, 11.2)))[0].label
    'no speech at S: 0.160 s gap'
    >>> _silence_at(1.0, ((2.0, 3.0),))
    []
    """
    before = [end for start, end in segments if end <= onset_s]
    after = [start for start, end in segments if start > onset_s]
    if not before or not after:
        return []
    gap = (max(before), min(after))
    return [Span(f"no speech at S: {_s(gap[1] - gap[0])} s gap", gap[0], gap[1], 1)]
