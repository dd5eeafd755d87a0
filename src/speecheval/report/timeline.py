"""A timeline, described once and drawn as SVG (inline in HTML pages) or PNG/SVG images.

A family says *what* its timeline shows; this package decides how it looks. The
description is small and declarative:

- :class:`Track`: one horizontal lane, top to bottom; a lane holds a waveform envelope
  (:class:`Wave`), bars (:class:`Span`), transcript words (:class:`Word`, labels
  staggered so that they never overlap) and labelled double arrows (:class:`Interval`).
- :class:`Marker`: a vertical line at one time, across every lane or some, with a
  readable label above the panel or at the top of a lane.
- :class:`Shade`: a background band over all lanes (a turn's window), optionally labelled.
- :class:`Zoom`: a window drawn again below at a larger scale (and shaded on the whole).

:func:`to_svg` writes hand-made SVG that scales to the page width and carries a tooltip
on every mark; :func:`to_figure` draws the same description with matplotlib (imported
only then) for ``.png`` and ``.svg`` files. Both place everything through
:mod:`.timeline_layout`, so the two pictures agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from markupsafe import Markup
from numpy.typing import NDArray

from ..core.extras import require

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Side = Literal["left", "right"]
PICTURE = "a timeline picture (.png, .svg)"
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
class Span:
    """A bar from ``start_s`` to ``end_s``; ``label`` is written inside it."""

    start_s: float
    end_s: float
    label: str = ""
    color: str | None = None
    tooltip: str = ""


@dataclass(frozen=True)
class Word:
    """A transcript word: a thin bar with its text under it when there is room."""

    text: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Interval:
    """A measured stretch: a double arrow labelled with its value, in row ``row`` (0 is
    the top row) of its lane's interval rows."""

    start_s: float
    end_s: float
    label: str
    row: int = 0
    color: str = ARROW_COLOR
    tooltip: str = ""


@dataclass(frozen=True)
class Track:
    """One lane. ``name`` identifies it (markers refer to it); ``caption`` is what the
    lane is called on the picture: ``None`` shows the name, ``""`` nothing (a lane that
    continues the one above it, e.g. detected speech under a waveform). ``height`` is in
    layout units (about pixels in the HTML timeline)."""

    name: str
    height: float = 40.0
    color: str = DEFAULT_COLOR
    caption: str | None = None
    wave: Wave | None = None
    spans: tuple[Span, ...] = ()
    words: tuple[Word, ...] = ()
    intervals: tuple[Interval, ...] = ()
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
    """A background band over every lane; ``label`` is written at its bottom left."""

    start_s: float
    end_s: float
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


def to_svg(timeline: Timeline, *, ident: str, description: str) -> Markup:
    """Inline SVG for an HTML page; ``ident`` keeps its clip ids unique on the page,
    ``description`` is what a screen reader says."""
    from .timeline_svg import render

    return render(timeline, ident=ident, description=description)


def to_figure(timeline: Timeline) -> Figure:
    """The matplotlib figure (the whole timeline on top, zoom panels below)."""
    require("matplotlib", needed_for=PICTURE, extra="fdb")
    from .timeline_mpl import build_figure

    return build_figure(timeline)


def image_bytes(timeline: Timeline, fmt: Literal["png", "svg"]) -> bytes:
    """PNG or SVG file bytes of :func:`to_figure`; the same description gives the same
    bytes."""
    require("matplotlib", needed_for=PICTURE, extra="fdb")
    from .timeline_mpl import figure_bytes

    return figure_bytes(to_figure(timeline), fmt)
