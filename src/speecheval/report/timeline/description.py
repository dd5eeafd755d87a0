"""What a timeline shows, described once for every backend.

A family says *what* its timeline shows; this package decides how it looks. The
description is small and declarative:

- :class:`Track`: one horizontal lane, top to bottom; a lane holds a waveform envelope
  (:class:`Wave`), bars (:class:`Bar`), transcript words (:class:`Word`, labels
  staggered so that they never overlap) and labelled double arrows (:class:`Stretch`).
- :class:`Marker`: a vertical line at one time, across every lane or some, with a
  readable label above the panel or at the top of a lane.
- :class:`Shade`: a background band over all lanes (a turn's window), optionally labelled.
- :class:`Zoom`: a window drawn again below at a larger scale (and shaded on the whole).

What is drawn over a stretch of time (a bar, a word, a shade, a measured stretch) holds
that stretch in the one time-span type's float view,
:data:`speecheval.core.timeline.SecondsPair` (``Span.seconds`` of a family's
:class:`~speecheval.core.timeline.Span`), with what the picture adds: a label, a colour,
a tooltip. Float seconds because a picture is drawn where the family measured, and some
measure finer than the microsecond (a session's 16 kHz sample times). The picture's own
coordinates (its duration, the zoom windows, a marker's instant) are seconds too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ...core.timeline import SecondsPair

Side = Literal["left", "right"]
DEFAULT_COLOR = "#4a6fa5"
ARROW_COLOR = "#333333"


@dataclass(frozen=True, eq=False)
class Wave:
    """A mono track drawn as its min/max envelope, scaled to the track's own peak so a
    quiet voice stays visible."""

    samples: NDArray[Any]
    rate: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "samples", np.asarray(self.samples).reshape(-1))


@dataclass(frozen=True)
class Bar:
    """A bar over ``seconds``; ``label`` is written inside it."""

    seconds: SecondsPair
    label: str = ""
    color: str | None = None
    tooltip: str = ""


@dataclass(frozen=True)
class Word:
    """A transcript word: a thin bar over ``seconds`` with its text under it when there
    is room."""

    text: str
    seconds: SecondsPair


@dataclass(frozen=True)
class Stretch:
    """A measured stretch: a double arrow over ``seconds`` (from where it is measured to
    where it ends; a negative latency runs backwards) labelled with its value, in row
    ``row`` (0 is the top row) of its lane's rows of measured stretches."""

    seconds: SecondsPair
    label: str
    row: int = 0
    color: str = ARROW_COLOR
    tooltip: str = ""


@dataclass(frozen=True)
class Track:
    """One lane. ``name`` identifies it (markers refer to it); ``caption`` is what the
    lane is called on the picture: ``None`` shows the name, ``""`` nothing (a lane that
    continues the one above it, e.g. detected speech under a waveform). ``height`` is in
    layout units (about pixels in the HTML timeline). ``interval_rows`` is the number of
    rows for the measured stretches."""

    name: str
    height: float = 40.0
    color: str = DEFAULT_COLOR
    caption: str | None = None
    wave: Wave | None = None
    spans: tuple[Bar, ...] = ()
    words: tuple[Word, ...] = ()
    intervals: tuple[Stretch, ...] = ()
    interval_rows: int = 2

    def __post_init__(self) -> None:
        if self.wave is not None and self.words:
            raise ValueError(f"lane {self.name!r}: a waveform and words need two lanes")

    @property
    def shown_name(self) -> str:
        return self.name if self.caption is None else self.caption


@dataclass(frozen=True)
class Marker:
    """A time worth a line. The label sits above the panel (``label_track`` None, large
    and bold when ``strong``) or at the top of the lane ``label_track``, on ``side`` of
    the line, so two markers close together label away from each other. ``tracks``
    limits the line to those lanes (all when empty); ``line`` False leaves only the
    label."""

    time_s: float
    label: str = ""
    color: str = "#c62828"
    dashed: bool = False
    width: float = 1.3
    side: Side = "right"
    label_track: str | None = None
    strong: bool = True
    tracks: tuple[str, ...] = ()
    line: bool = True
    tooltip: str = ""


@dataclass(frozen=True)
class Shade:
    """A background band over every lane during ``seconds``; ``label`` is written at
    its bottom left."""

    seconds: SecondsPair
    color: str
    label: str = ""
    tooltip: str = ""
    opacity: float = 1.0


@dataclass(frozen=True)
class Zoom:
    """``[start_s, end_s]`` drawn again at a larger scale under the whole timeline."""

    title: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Timeline:
    """Everything one picture shows, in seconds on ``[0, duration_s]``."""

    duration_s: float
    tracks: tuple[Track, ...]
    markers: tuple[Marker, ...] = ()
    shades: tuple[Shade, ...] = ()
    zooms: tuple[Zoom, ...] = ()
    title: str = ""
    subtitle: str = ""
    axis_label: str = "time (s)"
