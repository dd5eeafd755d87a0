"""Step curves of a share against seconds (a cumulative distribution) as inline SVG.

A family gives each series its steps (where the share rises, and to what), the points to
mark on it with their values, and vertical guides (a time worth reading the share at, an
observation horizon); this module only draws. One path per series carries the series'
name (``data-series``), so a page test can find every system's curve. The drawing is
1200 units wide and scales to the page width; every label is escaped and every point
and guide carries its value as a tooltip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from .fonts import CSS_STACK
from .timeline_layout import tick_step
from .timeline_svg import text_width

WIDTH, HEIGHT = 1200.0, 420.0
LEFT, RIGHT, TOP, BOTTOM = 56.0, 24.0, 40.0, 44.0
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


def _f(value: float) -> str:
    return f"{value:.1f}"


class _Axes:
    def __init__(self, x_max: float) -> None:
        self.x_max = x_max
        self.width = WIDTH - LEFT - RIGHT
        self.height = HEIGHT - TOP - BOTTOM

    def x(self, seconds: float) -> float:
        return LEFT + min(max(seconds, 0.0), self.x_max) / self.x_max * self.width

    def y(self, share: float) -> float:
        return TOP + (1.0 - share) * self.height


def _path(axes: _Axes, series: Series) -> str:
    """The step path: flat at each share until the next step, then straight up."""
    moves = [f"M{_f(axes.x(0.0))} {_f(axes.y(0.0))}"]
    for x, share in series.steps:
        moves += [f"H{_f(axes.x(x))}", f"V{_f(axes.y(share))}"]
    moves.append(f"H{_f(axes.x(axes.x_max))}")
    return " ".join(moves)


def _frame(axes: _Axes, x_label: str, y_label: str) -> list[str]:
    parts = []
    for share in SHARE_TICKS:
        y = _f(axes.y(share))
        parts.append(f'<line x1="{_f(LEFT)}" y1="{y}" x2="{_f(LEFT + axes.width)}" y2="{y}" '
                     'stroke="#e2e8f0" stroke-width="0.8"/>'
                     f'<text x="{_f(LEFT - 6)}" y="{y}" font-size="11" text-anchor="end" '
                     f'dominant-baseline="central" fill="#555">{share:g}</text>')
    step = tick_step(axes.x_max)
    for k in range(int(math.floor(axes.x_max / step + 1e-9)) + 1):
        x = _f(axes.x(k * step))
        parts.append(f'<line x1="{x}" y1="{_f(TOP)}" x2="{x}" y2="{_f(TOP + axes.height)}" '
                     'stroke="#e2e8f0" stroke-width="0.8"/>'
                     f'<text x="{x}" y="{_f(TOP + axes.height + 14)}" font-size="11" '
                     f'text-anchor="middle" fill="#555">{round(k * step, 6):g}</text>')
    parts.append(f'<rect x="{_f(LEFT)}" y="{_f(TOP)}" width="{_f(axes.width)}" '
                 f'height="{_f(axes.height)}" fill="none" stroke="#94a3b8"/>')
    parts.append(f'<text x="{_f(LEFT + axes.width / 2)}" y="{_f(HEIGHT - 8)}" '
                 f'font-size="12" text-anchor="middle">{escape(x_label)}</text>')
    parts.append(f'<text x="14" y="{_f(TOP + axes.height / 2)}" font-size="12" '
                 f'text-anchor="middle" transform="rotate(-90 14 {_f(TOP + axes.height / 2)})">'
                 f"{escape(y_label)}</text>")
    return parts


def _guides(axes: _Axes, guides: Sequence[Guide]) -> list[str]:
    """Each guide's line, and its label in the first free row above the plot."""
    parts: list[str] = []
    rows: list[float] = []  # right end of the last label in each row
    for guide in guides:
        x = axes.x(guide.x)
        if guide.shade:
            parts.append(f'<rect x="{_f(x)}" y="{_f(TOP)}" width="{_f(LEFT + axes.width - x)}" '
                         f'height="{_f(axes.height)}" fill="#94a3b8" fill-opacity="0.15"/>')
        dash = ' stroke-dasharray="5 4"' if guide.dashed else ""
        parts.append(f'<line x1="{_f(x)}" y1="{_f(TOP)}" x2="{_f(x)}" '
                     f'y2="{_f(TOP + axes.height)}" stroke="{guide.color}" stroke-width="1.2"'
                     f"{dash}><title>{escape(guide.label)}</title></line>")
        width = text_width(guide.label, "small")
        anchor, start = ("end", x - 3 - width) if x + 3 + width > WIDTH else ("start", x + 3)
        row = next((i for i, end in enumerate(rows) if start > end + 6), len(rows))
        if row == len(rows):
            rows.append(0.0)
        rows[row] = start + width
        label_x = x - 3 if anchor == "end" else x + 3
        parts.append(f'<text x="{_f(label_x)}" y="{_f(TOP - 6 - row * 13)}" font-size="10" '
                     f'fill="{guide.color}" text-anchor="{anchor}">{escape(guide.label)}</text>')
    return parts


def _legend(series: Sequence[Series]) -> list[str]:
    parts, x = [], LEFT + 8
    for index, one in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        y = TOP + 14 + index * 16
        parts.append(f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x + 22)}" y2="{_f(y)}" '
                     f'stroke="{color}" stroke-width="2.5"/><text x="{_f(x + 28)}" '
                     f'y="{_f(y)}" font-size="12" dominant-baseline="central">'
                     f"{escape(one.name)}</text>")
    return parts


def render_curves(series: Sequence[Series], *, x_max: float, guides: Sequence[Guide] = (),
                  x_label: str, y_label: str, description: str) -> Markup:
    """The SVG element: every series over ``[0, x_max]`` seconds and shares 0 to 1."""
    if not x_max > 0:
        raise ValueError(f"curve: x_max must be positive, got {x_max}")
    axes = _Axes(x_max)
    parts = _frame(axes, x_label, y_label) + _guides(axes, guides)
    for index, one in enumerate(series):
        color = PALETTE[index % len(PALETTE)]
        parts.append(f'<path class="curve" data-series="{escape(one.name)}" '
                     f'd="{_path(axes, one)}" fill="none" stroke="{color}" stroke-width="2.2">'
                     f"<title>{escape(one.name)}</title></path>")
        parts += [f'<circle cx="{_f(axes.x(p.x))}" cy="{_f(axes.y(p.y))}" r="4" '
                  f'fill="{color}" stroke="#fff"><title>{escape(p.tooltip)}</title></circle>'
                  for p in one.points]
    parts += _legend(series)
    return Markup(f'<svg class="curve" viewBox="0 0 {WIDTH:g} {HEIGHT:g}" role="img" '
                  f'aria-label="{escape(description)}" font-family="{escape(CSS_STACK)}">'
                  + "".join(parts) + "</svg>")
