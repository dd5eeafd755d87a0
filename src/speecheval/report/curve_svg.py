"""Step curves of a share against seconds (a cumulative distribution) as inline SVG.

A family gives each series its steps (where the share rises, and to what), the points to
mark on it with their values, and vertical guides (a time worth reading the share at, an
observation horizon); this module only draws. One path per series carries the series'
name (``data-series``), so a page test can find every system's curve. The drawing is
1200 units wide and scales to the page width; every label is escaped and every point
and guide carries its value as a tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from .svg_frame import (
    WIDTH,
    Frame,
    Scale,
    coord,
    svg_element,
    text_width,
    tick_label,
    ticks,
)

FRAME = Frame(height=420.0, left=56.0, right=24.0, top=40.0, bottom=44.0)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
"""Series colours in order; a page with more series repeats them."""
SHARE_TICKS = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)


@dataclass(frozen=True)
class Point:
    """A marked point of a series, with what it means as its tooltip."""

    x: float
    y: float
    tooltip: str


@dataclass(frozen=True)
class Series:
    """One curve: zero up to the first step, then the share each step reaches."""

    name: str
    steps: tuple[tuple[float, float], ...]
    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class Guide:
    """A vertical line across the plot at ``x``, labelled at the top; ``shade`` greys
    everything to its right (what lies past it is not fully observed)."""

    x: float
    label: str
    color: str = "#777"
    dashed: bool = True
    shade: bool = False


@dataclass(frozen=True)
class _Axes:
    """Seconds across from 0 to ``x_max`` (held at the edges), shares up from 0 to 1."""

    x: Scale
    y: Scale

    @classmethod
    def of(cls, x_max: float) -> _Axes:
        return cls(FRAME.x_scale(0.0, x_max, clamp=True), FRAME.y_scale(0.0, 1.0))


def _path(axes: _Axes, series: Series) -> str:
    """The step path: flat at each share until the next step, then straight up."""
    moves = [f"M{coord(axes.x.px(0.0))} {coord(axes.y.px(0.0))}"]
    for x, share in series.steps:
        moves += [f"H{coord(axes.x.px(x))}", f"V{coord(axes.y.px(share))}"]
    moves.append(f"H{coord(axes.x.px(axes.x.high))}")
    return " ".join(moves)


def _frame(axes: _Axes, x_label: str, y_label: str) -> list[str]:
    parts = [FRAME.row_tick(axes.y.px(share), tick_label(share)) for share in SHARE_TICKS]
    x_max = axes.x.high
    parts += [FRAME.column_tick(axes.x.px(t), tick_label(t))
              for t in ticks(0.0, x_max)]
    return [*parts, FRAME.border_and_titles(x_label, y_label)]


def _guides(axes: _Axes, guides: Sequence[Guide]) -> list[str]:
    """Each guide's line, and its label in the first free row above the plot."""
    parts: list[str] = []
    rows: list[float] = []  # right end of the last label in each row
    top, bottom = coord(FRAME.top), coord(FRAME.plot_bottom)
    for guide in guides:
        x = axes.x.px(guide.x)
        if guide.shade:
            parts.append(f'<rect x="{coord(x)}" y="{top}" '
                         f'width="{coord(FRAME.left + FRAME.plot_width - x)}" '
                         f'height="{coord(FRAME.plot_height)}" fill="#94a3b8" '
                         'fill-opacity="0.15"/>')
        dash = ' stroke-dasharray="5 4"' if guide.dashed else ""
        parts.append(f'<line x1="{coord(x)}" y1="{top}" x2="{coord(x)}" '
                     f'y2="{bottom}" stroke="{guide.color}" stroke-width="1.2"'
                     f"{dash}><title>{escape(guide.label)}</title></line>")
        width = text_width(guide.label, "small")
        anchor, start = ("end", x - 3 - width) if x + 3 + width > WIDTH else ("start", x + 3)
        row = next((i for i, end in enumerate(rows) if start > end + 6), len(rows))
        if row == len(rows):
            rows.append(0.0)
        rows[row] = start + width
        label_x = x - 3 if anchor == "end" else x + 3
        parts.append(f'<text x="{coord(label_x)}" y="{coord(FRAME.top - 6 - row * 13)}" '
                     f'font-size="10" fill="{guide.color}" text-anchor="{anchor}">'
                     f"{escape(guide.label)}</text>")
    return parts


def render_curves(series: Sequence[Series], *, x_max: float, guides: Sequence[Guide] = (),
                  x_label: str, y_label: str, description: str) -> Markup:
    """The SVG element: every series over ``[0, x_max]`` seconds and shares 0 to 1."""
    if not x_max > 0:
        raise ValueError(f"curve: x_max must be positive, got {x_max}")
    axes = _Axes.of(x_max)
    parts = _frame(axes, x_label, y_label) + _guides(axes, guides)
    for index, one in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        parts.append(f'<path class="curve" data-series="{escape(one.name)}" '
                     f'd="{_path(axes, one)}" fill="none" stroke="{color}" stroke-width="2.2">'
                     f"<title>{escape(one.name)}</title></path>")
        parts += [f'<circle cx="{coord(axes.x.px(p.x))}" cy="{coord(axes.y.px(p.y))}" r="4" '
                  f'fill="{color}" stroke="#fff"><title>{escape(p.tooltip)}</title></circle>'
                  for p in one.points]
    parts += [FRAME.legend_entry(index, PALETTE[index % len(PALETTE)], one.name)
              for index, one in enumerate(series)]
    return svg_element("curve", f"{FRAME.height:g}", description, parts)
