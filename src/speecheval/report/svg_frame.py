"""The frame every inline SVG chart is drawn in: its size, the plot area inside the
margins, data values to pixels, tick spacing, grid lines, axis titles and text widths.

The bars, curves, lines and timelines of the HTML pages are each 1200 units wide and
scale to the page width; they share this one frame so that a tick, a grid line or an
axis title looks (and is written) the same in every chart, and a new chart starts from
the frame rather than from a copy of another chart's helpers.

Coordinates are written with one decimal (:func:`coord`). A :class:`Scale` keeps the
arithmetic each kind of axis has always used, because the two forms round differently in
the last bit, which moves a coordinate written to a tenth of a unit now and then: a value
axis takes the value's share of its range (``(v - low) / (high - low) * length``), a
time axis multiplies by units per second (the timeline layout staggers its labels in
the same units per second).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from markupsafe import Markup, escape

from .text_width import display_width

WIDTH = 1200.0
"""Width of every chart's drawing (its ``viewBox``)."""
Role = Literal["axis", "lane", "small", "word", "note", "mark"]
"""What a text is, which sets its font size."""
SIZES: dict[Role, float] = {"axis": 10, "lane": 11, "small": 10, "word": 10, "note": 10,
                            "mark": 13}
"""Font size of each role in SVG units."""
GRID = "#e2e8f0"
BORDER = "#94a3b8"
TICK_TEXT = "#555"
_TICK_STEPS = (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0,
               600.0, 1800.0, 3600.0)


def coord(value: float) -> str:
    """A coordinate as the charts write it: one decimal.

    >>> coord(12.25), coord(3)
    ('12.2', '3.0')
    """
    return f"{value:.1f}"


def short(value: float) -> str:
    """A coordinate as a timeline writes it: one decimal, none when it is zero. A page
    holds a timeline per sample, so the two characters of ``.0`` add up.

    >>> short(12.25), short(3), short(-0.04)
    ('12.2', '3', '0')
    """
    text = f"{value:.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return "0" if text == "-0" else text


def text_width(text: str, role: Role, bold: bool = False) -> float:
    """Estimated width in SVG units: 0.62 em per narrow character, 1 em per wide one.

    Generous on purpose, so that labels placed by it never overlap.

    >>> text_width("ab", "small"), text_width("播", "small")
    (12.4, 10.0)
    """
    narrow_em = 0.66 if bold else 0.62
    wide = display_width(text) - len(text)
    return round(SIZES[role] * (wide * 1.0 + (len(text) - wide) * narrow_em), 6)


def tick_step(span: float, most: int = 12) -> float:
    """The smallest readable tick spacing that gives at most ``most`` ticks over ``span``.

    >>> tick_step(9.0), tick_step(45.0), tick_step(600.0), tick_step(1.5)
    (1.0, 5.0, 60.0, 0.2)
    """
    return next((step for step in _TICK_STEPS if span / step <= most), _TICK_STEPS[-1])


@dataclass(frozen=True)
class Scale:
    """Values from ``low`` to ``high`` onto ``length`` units from ``start``.

    ``flipped`` puts ``high`` at ``start`` (a y axis, which runs down); ``clamp`` holds
    values outside the range at its edges. ``per_unit`` given, a value moves
    ``per_unit`` units per step of one (the time axis of a timeline); otherwise it takes
    its share of the range.

    >>> Scale(0.0, 4.0, 50.0, 200.0).px(1.0), Scale(0.0, 1.0, 10.0, 100.0, flipped=True).px(0.25)
    (100.0, 85.0)
    >>> Scale(2.0, 4.0, 0.0, 100.0, clamp=True, per_unit=50.0).px(5.0)
    100.0
    """

    low: float
    high: float
    start: float
    length: float
    flipped: bool = False
    clamp: bool = False
    per_unit: float | None = None

    def px(self, value: float) -> float:
        """Where ``value`` is drawn."""
        if self.clamp:
            value = min(max(value, self.low), self.high)
        if self.per_unit is not None:
            return self.start + (value - self.low) * self.per_unit
        share = (self.high - value if self.flipped else value - self.low) \
            / (self.high - self.low)
        return self.start + share * self.length


def ticks(low: float, high: float, step: float | None = None) -> list[float]:
    """Multiples of ``step`` (by default :func:`tick_step` of the range) from ``low`` to
    ``high``, ends included within rounding.

    >>> ticks(0.0, 1.0, 0.25), ticks(0.3, 1.0, 0.5), ticks(0.0, 10.0)[:3]
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.5, 1.0], [0.0, 1.0, 2.0])
    """
    step = tick_step(high - low) if step is None else step
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, int(math.floor(high / step + 1e-9)) + 1)]


def tick_label(value: float, unit: str = "") -> str:
    """A tick's text: the value without float noise, and its unit.

    >>> tick_label(0.30000000000000004), tick_label(2.0, " s")
    ('0.3', '2 s')
    """
    return f"{round(value, 6):g}{unit}"


@dataclass(frozen=True)
class Frame:
    """A chart of ``height`` units (and :data:`WIDTH`) with its plot area inside the
    margins: what is drawn around the plot (grid lines, tick labels, the border, the
    axis titles) is drawn here, the same for every chart."""

    height: float
    left: float
    right: float
    top: float
    bottom: float

    @property
    def plot_width(self) -> float:
        return WIDTH - self.left - self.right

    @property
    def plot_height(self) -> float:
        return self.height - self.top - self.bottom

    @property
    def plot_bottom(self) -> float:
        return self.top + self.plot_height

    def x_scale(self, low: float, high: float, *, clamp: bool = False) -> Scale:
        """Values across the plot, ``low`` at its left edge."""
        return Scale(low, high, self.left, self.plot_width, clamp=clamp)

    def y_scale(self, low: float, high: float) -> Scale:
        """Values up the plot, ``low`` at its bottom edge."""
        return Scale(low, high, self.top, self.plot_height, flipped=True)

    def row_tick(self, y: float, label: str) -> str:
        """A grid line across the plot at ``y``, labelled left of the plot."""
        return (f'<line x1="{coord(self.left)}" y1="{coord(y)}" '
                f'x2="{coord(self.left + self.plot_width)}" y2="{coord(y)}" '
                f'stroke="{GRID}" stroke-width="0.8"/>'
                f'<text x="{coord(self.left - 6)}" y="{coord(y)}" font-size="11" '
                f'text-anchor="end" dominant-baseline="central" fill="{TICK_TEXT}">'
                f"{escape(label)}</text>")

    def column_tick(self, x: float, label: str, *, line: bool = True,
                    below: float = 14.0) -> str:
        """A grid line down the plot at ``x`` (unless ``line`` is False), labelled
        ``below`` units under the plot."""
        grid = (f'<line x1="{coord(x)}" y1="{coord(self.top)}" x2="{coord(x)}" '
                f'y2="{coord(self.plot_bottom)}" stroke="{GRID}" stroke-width="0.8"/>'
                if line else "")
        return (grid + f'<text x="{coord(x)}" y="{coord(self.plot_bottom + below)}" '
                f'font-size="11" text-anchor="middle" fill="{TICK_TEXT}">'
                f"{escape(label)}</text>")

    def border_and_titles(self, x_label: str, y_label: str) -> str:
        """The plot's border, the x title under it and the y title turned up its left."""
        middle = coord(self.top + self.plot_height / 2)
        return (f'<rect x="{coord(self.left)}" y="{coord(self.top)}" '
                f'width="{coord(self.plot_width)}" height="{coord(self.plot_height)}" '
                f'fill="none" stroke="{BORDER}"/>'
                f'<text x="{coord(self.left + self.plot_width / 2)}" '
                f'y="{coord(self.height - 8)}" font-size="12" text-anchor="middle">'
                f"{escape(x_label)}</text>"
                f'<text x="14" y="{middle}" font-size="12" text-anchor="middle" '
                f'transform="rotate(-90 14 {middle})">{escape(y_label)}</text>')

    def legend_entry(self, index: int, color: str, name: str) -> str:
        """Line ``index`` of the legend in the plot's top left corner: a stroke of the
        series' colour and its name."""
        x, y = self.left + 8, self.top + 14 + index * 16
        return (f'<line x1="{coord(x)}" y1="{coord(y)}" x2="{coord(x + 22)}" y2="{coord(y)}" '
                f'stroke="{color}" stroke-width="2.5"/><text x="{coord(x + 28)}" '
                f'y="{coord(y)}" font-size="12" dominant-baseline="central">'
                f"{escape(name)}</text>")


def svg_element(css_class: str, height: str, description: str,
                parts: Sequence[str]) -> Markup:
    """The ``<svg>`` element of a chart :data:`WIDTH` wide and ``height`` (as written)
    high; ``description`` is what a screen reader says. Its font is the page's
    (:data:`~.fonts.CSS_STACK`, which the style sheet gives every ``svg``), not an
    attribute repeated on every chart."""
    return Markup(f'<svg class="{css_class}" viewBox="0 0 {WIDTH:g} {height}" role="img" '
                  f'aria-label="{escape(description)}">' + "".join(parts) + "</svg>")
