"""Stacked bars (:class:`~.page.Bars`) as inline SVG: one bar per row, each category's
count as its share of the row's total.

SVG rather than styled boxes so that the bars print, scale and copy as one picture like
the timelines and curves; each segment carries its category and count as a tooltip
(``response: 9 of 13``) and writes the count inside when it fits. The drawing is 1200
units wide and scales to the page width; every label is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from .svg_frame import WIDTH, coord, svg_element, text_width

BAR = 22.0
GAP = 8.0
LEGEND = 22.0
TOTAL = 70.0  # room right of the bars for "n = 13"
TONE_COLORS = {"good": "#2e7d32", "warn": "#e0a000", "bad": "#c62828", "other": "#6a3d9a",
               "none": "#9e9e9e"}
"""The fill of each tone; the keys are :data:`speecheval.report.page.BAR_TONES`."""


Rows = Sequence[tuple[str, Sequence[int]]]
"""Each bar's label and its count per category."""


def _legend(categories: Sequence[str], tones: Sequence[str]) -> list[str]:
    parts, x = [], 4.0
    for category, tone in zip(categories, tones, strict=True):
        parts.append(f'<rect x="{coord(x)}" y="4" width="12" height="12" '
                     f'fill="{TONE_COLORS[tone]}"/><text x="{coord(x + 16)}" y="14" '
                     f'font-size="12">{escape(category)}</text>')
        x += 16 + text_width(category, "small") * 1.2 + 18
    return parts


def render_bars(categories: Sequence[str], rows: Rows, tones: Sequence[str]) -> Markup:
    """The SVG element of the bars of a :class:`~.page.Bars` block (its categories, rows
    and tones); a row with no samples draws an empty frame."""
    left = max((text_width(label, "lane") for label, _ in rows), default=0.0) + 12
    plot = WIDTH - left - TOTAL
    parts = _legend(categories, tones)
    for index, (label, counts) in enumerate(rows):
        y = LEGEND + index * (BAR + GAP)
        total = sum(counts)
        parts.append(f'<text x="{coord(left - 6)}" y="{coord(y + BAR / 2)}" font-size="11" '
                     f'text-anchor="end" dominant-baseline="central">{escape(label)}</text>')
        parts.append(f'<rect x="{coord(left)}" y="{coord(y)}" width="{coord(plot)}" '
                     f'height="{coord(BAR)}" fill="none" stroke="#ccc"/>')
        x = left
        for category, tone, count in zip(categories, tones, counts, strict=True):
            if not count:
                continue
            width = plot * count / total
            parts.append(f'<rect class="t-{tone}" x="{coord(x)}" y="{coord(y)}" '
                         f'width="{coord(width)}" height="{coord(BAR)}" fill="{TONE_COLORS[tone]}">'
                         f"<title>{escape(category)}: {count} of {total}</title></rect>")
            if text_width(str(count), "small") + 4 <= width:
                parts.append(f'<text x="{coord(x + width / 2)}" y="{coord(y + BAR / 2)}" '
                             'font-size="11" fill="#fff" text-anchor="middle" '
                             f'dominant-baseline="central">{count}</text>')
            x += width
        parts.append(f'<text x="{coord(left + plot + 6)}" y="{coord(y + BAR / 2)}" font-size="11" '
                     f'dominant-baseline="central" fill="#555">n = {total}</text>')
    height = LEGEND + len(rows) * (BAR + GAP)
    description = "; ".join(f"{label}: " + ", ".join(
        f"{c} {n}" for c, n in zip(categories, counts, strict=True))
        for label, counts in rows)
    return svg_element("bars", coord(height), description, parts)
