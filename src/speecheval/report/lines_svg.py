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
from .svg_frame import Frame, coord, svg_element, tick_label, tick_step

FRAME = Frame(height=360.0, left=64.0, right=24.0, top=24.0, bottom=44.0)


@dataclass(frozen=True)
class Line:
    """One series: a value (or None) per level, and the unit its tooltips show."""

    name: str
    values: tuple[float | None, ...]
    unit: str = ""


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
    slot = FRAME.plot_width / max(len(levels), 1)

    def x(index: int) -> float:
        return FRAME.left + (index + 0.5) * slot

    y = FRAME.y_scale(bottom, top).px
    parts = [FRAME.row_tick(y(tick), tick_label(tick))
             for tick in (bottom + k * step for k in range(int(round((top - bottom) / step)) + 1))]
    parts += [FRAME.column_tick(x(index), level, line=False, below=16.0)
              for index, level in enumerate(levels)]
    parts.append(FRAME.border_and_titles(x_label, y_label))
    for number, line in enumerate(lines):
        color = PALETTE[number % len(PALETTE)]
        moves, pen_down = [], False
        for index, value in enumerate(line.values):
            if value is None:
                pen_down = False
                continue
            moves.append(f"{'L' if pen_down else 'M'}{coord(x(index))} {coord(y(value))}")
            pen_down = True
        parts.append(f'<path class="line" data-series="{escape(line.name)}" '
                     f'd="{" ".join(moves)}" fill="none" stroke="{color}" stroke-width="2.2">'
                     f"<title>{escape(line.name)}</title></path>")
        parts += [f'<circle cx="{coord(x(index))}" cy="{coord(y(value))}" r="4" '
                  f'fill="{color}" stroke="#fff"><title>{escape(line.name)} at '
                  f"{escape(levels[index])}: {value:g}{escape(line.unit)}</title></circle>"
                  for index, value in enumerate(line.values) if value is not None]
        parts.append(FRAME.legend_entry(number, color, line.name))
    return svg_element("lines", f"{FRAME.height:g}", description, parts)
