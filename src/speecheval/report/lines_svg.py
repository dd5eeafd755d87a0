"""Lines of values against a few named levels (concurrency 1, 2, 4, ...) as inline SVG.

The levels are spaced evenly whatever their values (a doubling series reads as a
straight walk, not crowded at the left); the y axis runs from 0 (or a round number below
the smallest value, when one is negative: a response latency can be) to a round number
above the largest value. A missing value (None) breaks its line. Every point carries its value
as a tooltip, and each line its name (``data-series``), so a page test can find it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from .curve_svg import PALETTE
from .fonts import CSS_STACK
from .timeline_layout import tick_step

WIDTH, HEIGHT = 1200.0, 360.0
LEFT, RIGHT, TOP, BOTTOM = 64.0, 24.0, 24.0, 44.0


@dataclass(frozen=True)
class Line:
    """One series: a value (or None) per level, and the unit its tooltips show."""

    name: str
    values: tuple[float | None, ...]
    unit: str = ""


def _f(value: float) -> str:
    return f"{value:.1f}"


def _y_axis(lines: Sequence[Line]) -> tuple[float, float, float]:
    """The axis bottom, top and tick step: from the last tick at or below the smallest
    value (0 unless a value is negative) to the first at or above the largest (0 unless
    one is positive)."""
    values = [v for line in lines for v in line.values if v is not None]
    low, high = min([0.0, *values]), max([0.0, *values])
    if high <= low:
        return 0.0, 1.0, 0.2
    step = tick_step(high - low, most=6)
    return (math.floor(low / step + 1e-9) * step, math.ceil(high / step - 1e-9) * step,
            step)


def render_lines(levels: Sequence[str], lines: Sequence[Line], *, x_label: str,
                 y_label: str, description: str) -> Markup:
    """The SVG element; ``levels`` name the x positions, every line has one value each."""
    if any(len(line.values) != len(levels) for line in lines):
        raise ValueError("lines: every line needs one value per level")
    bottom, top, step = _y_axis(lines)
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = width / max(len(levels), 1)

    def x(index: int) -> float:
        return LEFT + (index + 0.5) * slot

    def y(value: float) -> float:
        return TOP + (top - value) / (top - bottom) * height

    parts = []
    for k in range(int(round((top - bottom) / step)) + 1):
        tick = bottom + k * step
        parts.append(f'<line x1="{_f(LEFT)}" y1="{_f(y(tick))}" x2="{_f(LEFT + width)}" '
                     f'y2="{_f(y(tick))}" stroke="#e2e8f0" stroke-width="0.8"/>'
                     f'<text x="{_f(LEFT - 6)}" y="{_f(y(tick))}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="central" fill="#555">'
                     f"{round(tick, 6):g}</text>")
    for index, level in enumerate(levels):
        parts.append(f'<text x="{_f(x(index))}" y="{_f(TOP + height + 16)}" font-size="11" '
                     f'text-anchor="middle" fill="#555">{escape(level)}</text>')
    parts.append(f'<rect x="{_f(LEFT)}" y="{_f(TOP)}" width="{_f(width)}" '
                 f'height="{_f(height)}" fill="none" stroke="#94a3b8"/>'
                 f'<text x="{_f(LEFT + width / 2)}" y="{_f(HEIGHT - 8)}" font-size="12" '
                 f'text-anchor="middle">{escape(x_label)}</text>'
                 f'<text x="14" y="{_f(TOP + height / 2)}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {_f(TOP + height / 2)})">{escape(y_label)}</text>')
    for number, line in enumerate(lines):
        color = PALETTE[number % len(PALETTE)]
        moves, pen_down = [], False
        for index, value in enumerate(line.values):
            if value is None:
                pen_down = False
                continue
            moves.append(f"{'L' if pen_down else 'M'}{_f(x(index))} {_f(y(value))}")
            pen_down = True
        parts.append(f'<path class="line" data-series="{escape(line.name)}" '
                     f'd="{" ".join(moves)}" fill="none" stroke="{color}" stroke-width="2.2">'
                     f"<title>{escape(line.name)}</title></path>")
        parts += [f'<circle cx="{_f(x(index))}" cy="{_f(y(value))}" r="4" fill="{color}" '
                  f'stroke="#fff"><title>{escape(line.name)} at {escape(levels[index])}: '
                  f"{value:g}{escape(line.unit)}</title></circle>"
                  for index, value in enumerate(line.values) if value is not None]
        legend_y = TOP + 14 + number * 16
        parts.append(f'<line x1="{_f(LEFT + 8)}" y1="{_f(legend_y)}" x2="{_f(LEFT + 30)}" '
                     f'y2="{_f(legend_y)}" stroke="{color}" stroke-width="2.5"/>'
                     f'<text x="{_f(LEFT + 36)}" y="{_f(legend_y)}" font-size="12" '
                     f'dominant-baseline="central">{escape(line.name)}</text>')
    return Markup(f'<svg class="lines" viewBox="0 0 {WIDTH:g} {HEIGHT:g}" role="img" '
                  f'aria-label="{escape(description)}" font-family="{escape(CSS_STACK)}">'
                  + "".join(parts) + "</svg>")
