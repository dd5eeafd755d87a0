"""Stacked bars (:class:`~.page.Bars`) as inline SVG: one bar per row, each category's
count as its share of the row's total.

SVG rather than styled boxes so that the bars print, scale and copy as one picture like
the timelines and curves; each segment carries its category and count as a tooltip
(``response: 9 of 13``) and writes the count inside when it fits. The drawing is 1200
units wide and scales to the page width; every label is escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from .fonts import CSS_STACK
from .timeline_svg import text_width

if TYPE_CHECKING:
    from .page import Bars

WIDTH = 1200.0
BAR = 22.0
GAP = 8.0
LEGEND = 22.0
TOTAL = 70.0  # room right of the bars for "n = 13"
TONE_COLORS = {"good": "#2e7d32", "warn": "#e0a000", "bad": "#c62828", "other": "#6a3d9a",
               "none": "#9e9e9e"}
"""The fill of each tone; the keys are :data:`speecheval.report.page.BAR_TONES`."""


def _f(value: float) -> str:
    return f"{value:.1f}"


def _legend(bars: Bars) -> list[str]:
    parts, x = [], 4.0
    for category, tone in zip(bars.categories, bars.tones, strict=True):
        parts.append(f'<rect x="{_f(x)}" y="4" width="12" height="12" '
                     f'fill="{TONE_COLORS[tone]}"/><text x="{_f(x + 16)}" y="14" '
                     f'font-size="12">{escape(category)}</text>')
        x += 16 + text_width(category, "small") * 1.2 + 18
    return parts


def render_bars(bars: Bars) -> Markup:
    """The SVG element of ``bars``; a row with no samples draws an empty frame."""
    left = max((text_width(label, "lane") for label, _ in bars.rows), default=0.0) + 12
    plot = WIDTH - left - TOTAL
    parts = _legend(bars)
    for index, (label, counts) in enumerate(bars.rows):
        y = LEGEND + index * (BAR + GAP)
        total = sum(counts)
        parts.append(f'<text x="{_f(left - 6)}" y="{_f(y + BAR / 2)}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="central">{escape(label)}</text>')
        parts.append(f'<rect x="{_f(left)}" y="{_f(y)}" width="{_f(plot)}" '
                     f'height="{_f(BAR)}" fill="none" stroke="#ccc"/>')
        x = left
        for category, tone, count in zip(bars.categories, bars.tones, counts, strict=True):
            if not count:
                continue
            width = plot * count / total
            parts.append(f'<rect class="t-{tone}" x="{_f(x)}" y="{_f(y)}" '
                         f'width="{_f(width)}" height="{_f(BAR)}" fill="{TONE_COLORS[tone]}">'
                         f"<title>{escape(category)}: {count} of {total}</title></rect>")
            if text_width(str(count), "small") + 4 <= width:
                parts.append(f'<text x="{_f(x + width / 2)}" y="{_f(y + BAR / 2)}" '
                             'font-size="11" fill="#fff" text-anchor="middle" '
                             f'dominant-baseline="central">{count}</text>')
            x += width
        parts.append(f'<text x="{_f(left + plot + 6)}" y="{_f(y + BAR / 2)}" font-size="11" '
                     f'dominant-baseline="central" fill="#555">n = {total}</text>')
    height = LEGEND + len(bars.rows) * (BAR + GAP)
    description = "; ".join(f"{label}: " + ", ".join(
        f"{c} {n}" for c, n in zip(bars.categories, counts, strict=True))
        for label, counts in bars.rows)
    return Markup(f'<svg class="bars" viewBox="0 0 {WIDTH:g} {_f(height)}" role="img" '
                  f'aria-label="{escape(description)}" font-family="{escape(CSS_STACK)}">'
                  + "".join(parts) + "</svg>")
