"""Where everything of a :class:`~.description.Timeline` goes in one panel, for any backend.

A panel shows the window ``[start_s, end_s]``. Positions are seconds across and layout
units down from the top of the lanes (about pixels in the HTML timeline; matplotlib
scales them to its axes). Only what lies in the window gets a mark, so every label
exists where it is seen. Backends (:mod:`.svg`, :mod:`.mpl`) turn the
marks into drawing calls and measure text for the word rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..svg_frame import Role
from .description import ARROW_COLOR, Marker, Timeline, Track

Anchor = Literal["start", "middle", "end"]
Baseline = Literal["top", "middle", "bottom"]
Measure = Callable[[str, Role], float]
"""Width in pixels of a text written in a role's font."""

LABEL_ROWS = 3
LABEL_GAP_PX = 4.0
WORD_BAR = 6.0
WORD_PAD = 2.0
SPAN_BAND = 16.0
INTERVAL_ROW = 12.0
SHADE_STRIP = 14.0
WAVE_FILL = 0.45  # half of the lane height a peak reaches, per side
BAR_FILL = 0.7
ZOOM_SHADE = "#1f77b4"
WORD_LABEL_GID = "word-label"


@dataclass(frozen=True)
class Box:
    x0: float
    x1: float
    y0: float
    y1: float
    color: str
    opacity: float = 1.0
    tooltip: str = ""
    outline: str | None = None


@dataclass(frozen=True, eq=False)
class Envelope:
    """Envelope columns: their times, and the lane positions of each column's lowest and
    highest sample (``low`` below ``high`` on the picture)."""

    times: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    color: str


@dataclass(frozen=True)
class VLine:
    x: float
    y0: float
    y1: float
    color: str
    width: float
    dashed: bool
    tooltip: str = ""


@dataclass(frozen=True)
class HLine:
    y: float


@dataclass(frozen=True)
class Arrow:
    x0: float
    x1: float
    y: float
    color: str
    tooltip: str = ""


@dataclass(frozen=True)
class Label:
    """Text at (x, y), moved by ``dx``/``dy`` points (``dy`` up); ``above`` puts it above
    the panel's top edge instead of at ``y``."""

    x: float
    y: float
    text: str
    role: Role
    anchor: Anchor = "start"
    baseline: Baseline = "middle"
    color: str = "#222222"
    bold: bool = False
    dx: float = 0.0
    dy: float = 0.0
    box: bool = False
    above: bool = False
    gid: str = ""


Mark = Box | Envelope | VLine | HLine | Arrow | Label


@dataclass
class Panel:
    """The marks of one panel, behind (shades) and in front, and the lane captions."""

    start_s: float
    end_s: float
    height: float
    background: list[Mark] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    captions: list[tuple[float, str]] = field(default_factory=list)
    """(lane centre, caption) of every captioned lane, top to bottom."""


def stagger(starts_px: Sequence[float], widths_px: Sequence[float], rows: int = LABEL_ROWS,
            gap_px: float = LABEL_GAP_PX) -> list[int | None]:
    """Row of each label, left to right, or None for a label that fits in no row.

    A label goes to the first row whose last label ends ``gap_px`` before it starts.

    >>> stagger([0, 10, 20, 30, 40], [30, 30, 30, 30, 30], rows=2, gap_px=0)
    [0, 1, None, 0, 1]
    """
    ends = [-np.inf] * rows
    placed: list[int | None] = []
    for start, width in zip(starts_px, widths_px, strict=True):
        row = next((i for i in range(rows) if start >= ends[i] + gap_px), None)
        if row is not None:
            ends[row] = start + width
        placed.append(row)
    return placed


def envelope(samples: NDArray[Any], rate: int, start_s: float, end_s: float, columns: int
             ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Times and the lowest and highest sample of about ``columns`` equal blocks of the
    window (a short tail that fills no block is left out).

    >>> t, lo, hi = envelope(np.array([0, 2, -4, 1]), 4, 0.0, 1.0, 2)
    >>> t.tolist(), lo.tolist(), hi.tolist()
    ([0.25, 0.75], [0.0, -4.0], [2.0, 1.0])
    """
    window = samples[int(start_s * rate): int(np.ceil(end_s * rate))]
    block = max(1, window.size // max(columns, 1))
    usable = window[: window.size // block * block].reshape(-1, block)
    times = start_s + (np.arange(usable.shape[0]) * block + block / 2) / rate
    return (times, usable.min(axis=1).astype(np.float64) if usable.size else np.zeros(0),
            usable.max(axis=1).astype(np.float64) if usable.size else np.zeros(0))


def lane_tops(timeline: Timeline) -> dict[str, tuple[float, float]]:
    """(top, bottom) of every lane, by name."""
    tops, y = {}, 0.0
    for track in timeline.tracks:
        tops[track.name] = (y, y + track.height)
        y += track.height
    return tops


def layout_panel(timeline: Timeline, start_s: float, end_s: float, *, width_px: float,
                 columns: int, measure: Measure, show_zooms: bool) -> Panel:
    """The marks of the window ``[start_s, end_s]`` drawn ``width_px`` wide."""
    lanes = lane_tops(timeline)
    lanes_height = sum(t.height for t in timeline.tracks)
    labelled_shades = any(s.label for s in timeline.shades)
    panel = Panel(start_s, end_s, lanes_height + (SHADE_STRIP if labelled_shades else 0.0))
    window = _Window(start_s, end_s, width_px)
    for shade in timeline.shades:
        shade_start, shade_end = shade.seconds
        if window.meets(shade_start, shade_end):
            panel.background.append(Box(shade_start, shade_end, 0.0, panel.height,
                                        shade.color, shade.opacity, shade.tooltip))
            if shade.label:
                panel.marks.append(Label(max(shade_start, start_s), panel.height - 2,
                                         shade.label, "small", baseline="bottom", dx=2.0))
    if show_zooms:
        panel.background.extend(Box(z.start_s, z.end_s, 0.0, panel.height, ZOOM_SHADE, 0.07)
                                for z in timeline.zooms)
    for index, track in enumerate(timeline.tracks):
        top, bottom = lanes[track.name]
        if index and track.caption != "":
            panel.marks.append(HLine(top))
        caption = _Lane(panel, window, track, top, measure, columns).draw()
        if caption:
            panel.captions.append(((top + bottom) / 2, caption))
    for marker in timeline.markers:
        if window.holds(marker.time_s):
            _marker(panel, marker, lanes, lanes_height)
    return panel


@dataclass(frozen=True)
class _Window:
    start_s: float
    end_s: float
    width_px: float

    def meets(self, a: float, b: float) -> bool:
        return max(a, b) >= self.start_s and min(a, b) <= self.end_s

    def holds(self, t: float) -> bool:
        return self.start_s <= t <= self.end_s

    @property
    def px_per_s(self) -> float:
        return self.width_px / max(self.end_s - self.start_s, 1e-9)


class _Lane:
    """The marks of one lane, stacked top-down: waveform, bars, words, interval rows."""

    def __init__(self, panel: Panel, window: _Window, track: Track, top: float,
                 measure: Measure, columns: int) -> None:
        self.panel, self.window, self.track, self.top = panel, window, track, top
        self.measure, self.columns = measure, columns

    def draw(self) -> str:
        """Interval rows at the bottom; above them the waveform with its bars under it,
        or the bars with the words under them, or the bars alone."""
        track, top = self.track, self.top
        rows = track.interval_rows if track.intervals else 0
        alone = track.wave is None and not track.spans and not track.words
        row_height = track.height / rows if rows and alone else INTERVAL_ROW
        upper = track.height - rows * row_height
        band = (SPAN_BAND if track.wave is not None or track.words else upper) \
            if track.spans else 0.0
        caption = track.shown_name
        if track.wave is not None:
            self._wave(top, upper - band)
            self._spans(top + upper - band, band)
        else:
            self._spans(top, band)
        if track.words:
            left_out = self._words(top + band, upper - band)
            if left_out:
                caption += f"\n({left_out} unlabelled)"
        self._intervals(top + upper, row_height)
        return caption

    def _wave(self, top: float, height: float) -> None:
        wave = self.track.wave
        assert wave is not None
        samples = wave.samples
        # max(-min, max) in floats: np.abs of int16 -32768 is still -32768
        peak = max(-float(samples.min()), float(samples.max())) if samples.size else 0.0
        times, low, high = envelope(wave.samples, wave.rate, self.window.start_s,
                                    self.window.end_s, self.columns)
        if times.size == 0:
            return
        scale = WAVE_FILL * height / peak if peak > 0 else 0.0
        middle = top + height / 2
        self.panel.marks.append(Envelope(times, middle - low * scale, middle - high * scale,
                                         self.track.color))

    def _spans(self, top: float, band: float) -> None:
        bar = band * BAR_FILL
        y0 = top + (band - bar) / 2
        for drawn in self.track.spans:
            start_s, end_s = drawn.seconds
            if not self.window.meets(start_s, end_s):
                continue
            width = max(end_s - start_s, 1.0 / self.window.px_per_s)
            self.panel.marks.append(Box(start_s, start_s + width, y0, y0 + bar,
                                        drawn.color or self.track.color,
                                        tooltip=drawn.tooltip))
            if drawn.label:
                self.panel.marks.append(Label(max(start_s, self.window.start_s),
                                              y0 + bar / 2, drawn.label, "small", dx=2.0))

    def _words(self, top: float, height: float) -> int:
        """Bars and staggered labels; the number of words left without a label."""
        window = self.window
        visible = [w for w in self.track.words if window.meets(*w.seconds)]
        shortest = (window.end_s - window.start_s) / 1500
        top += WORD_PAD
        for word in visible:
            start_s, end_s = word.seconds
            self.panel.marks.append(Box(start_s, start_s + max(
                end_s - start_s, shortest), top, top + WORD_BAR, self.track.color,
                tooltip=word.text, outline="white"))
        starts = [(max(w.seconds[0], window.start_s) - window.start_s) * window.px_per_s
                  for w in visible]
        rows = stagger(starts, [self.measure(w.text, "word") for w in visible])
        row_height = (height - WORD_PAD - WORD_BAR) / LABEL_ROWS
        for word, row in zip(visible, rows, strict=True):
            if row is not None:
                self.panel.marks.append(Label(
                    max(word.seconds[0], window.start_s),
                    top + WORD_BAR + 1 + row * row_height,
                    word.text, "word", baseline="top", gid=WORD_LABEL_GID))
        return rows.count(None)

    def _intervals(self, top: float, row_height: float) -> None:
        window = self.window
        for interval in self.track.intervals:
            start_s, end_s = interval.seconds
            if not window.meets(start_s, end_s):
                continue
            y = top + (interval.row + 0.8) * row_height
            self.panel.marks.append(Arrow(start_s, end_s, y,
                                          interval.color, interval.tooltip or interval.label))
            middle = (max(min(start_s, end_s), window.start_s)
                      + min(max(start_s, end_s), window.end_s)) / 2
            self.panel.marks.append(Label(middle, y - 1.5, interval.label, "small",
                                          anchor="middle", baseline="bottom",
                                          color=interval.color if interval.color
                                          != ARROW_COLOR else "#222222", box=True))


def _marker(panel: Panel, marker: Marker, lanes: dict[str, tuple[float, float]],
            lanes_height: float) -> None:
    if marker.line:
        spans = [lanes[name] for name in marker.tracks] or [(0.0, panel.height)]
        panel.marks.append(VLine(marker.time_s, min(a for a, _ in spans),
                                 max(b for _, b in spans), marker.color, marker.width,
                                 marker.dashed, marker.tooltip or marker.label))
    if not marker.label:
        return
    left = marker.side == "left"
    if marker.label_track is None:
        panel.marks.append(Label(marker.time_s, 0.0, marker.label,
                                 "mark" if marker.strong else "note",
                                 anchor="end" if left else "start", baseline="bottom",
                                 color=marker.color, bold=marker.strong,
                                 dx=-4.0 if left else 4.0, dy=2.0, above=True))
        return
    top = lanes[marker.label_track][0]
    panel.marks.append(Label(marker.time_s, top + 0.5, marker.label, "note",
                             anchor="end" if left else "start", baseline="top",
                             color=marker.color, bold=marker.strong,
                             dx=-3.0 if left else 3.0, box=True))
