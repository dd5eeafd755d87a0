"""A timeline, described once and drawn as SVG (inline in HTML pages) or PNG/SVG images.

The description (:mod:`.description`: tracks, bars, words, measured stretches, markers,
shades, zooms) says what a picture shows. :func:`to_svg` writes hand-made SVG that
scales to the page width and carries a tooltip on every mark (:mod:`.svg`);
:func:`to_figure` draws the same description with matplotlib (:mod:`.mpl`, imported only
then) for ``.png`` and ``.svg`` files. Both place everything through :mod:`.layout`, so
the two pictures agree.

The modules import downwards only: ``description`` <- ``layout`` <- ``svg`` / ``mpl``
<- this package's entry points; no module of the package imports the package itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from markupsafe import Markup

from ...core.extras import require
from .description import Bar, Marker, Shade, Stretch, Timeline, Track, Wave, Word, Zoom

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# what a missing matplotlib stops, in its install message
PICTURE = "a timeline picture (.png, .svg)"

__all__ = ["Bar", "Marker", "Shade", "Stretch", "Timeline", "Track", "Wave", "Word", "Zoom",
           "image_bytes", "to_figure", "to_svg"]


def to_svg(timeline: Timeline, *, ident: str, description: str) -> Markup:
    """Inline SVG for an HTML page; ``ident`` keeps its clip ids unique on the page,
    ``description`` is what a screen reader says."""
    from .svg import render

    return render(timeline, ident=ident, description=description)


def to_figure(timeline: Timeline) -> Figure:
    """The matplotlib figure (the whole timeline on top, zoom panels below)."""
    require("matplotlib", needed_for=PICTURE, extra="fdb")
    from .mpl import build_figure

    return build_figure(timeline)


def image_bytes(timeline: Timeline, fmt: Literal["png", "svg"]) -> bytes:
    """PNG or SVG file bytes of :func:`to_figure`; the same description gives the same
    bytes."""
    require("matplotlib", needed_for=PICTURE, extra="fdb")
    from .mpl import figure_bytes

    return figure_bytes(to_figure(timeline), fmt)
