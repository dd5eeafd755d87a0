"""A :class:`~.description.Timeline` as inline SVG for an HTML page.

The drawing is the charts' frame (:mod:`..svg_frame`): 1200 units wide, scaled to the
page width (CSS ``width: 100%``), text widths estimated from the characters (wide CJK
characters count double), generously, so staggered word labels never overlap. Every
bar, arrow and line carries its value as a tooltip; every label is escaped.

A page holds one timeline per sample of every system, so the drawing is written small:
the waveform envelope has a column every :data:`ENVELOPE_STEP` units (about one every
two screen pixels) and is one path in whole units, each point relative to the one
before; coordinates drop a trailing ``.0`` (:func:`~..svg_frame.short`); and what every
timeline repeats (grid lines, lane lines, tick labels, lane captions, word labels, the
default text size and colour) is a class of the page's style sheet
(``report.css.j2``, rules under ``svg.timeline``) instead of attributes on each element.
The SVG is therefore drawn as meant only inside a page with that style sheet, which is
where every caller puts it.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from ..svg_frame import (
    SIZES,
    WIDTH,
    Role,
    Scale,
    short,
    svg_element,
    text_width,
    tick_label,
    ticks,
)
from .description import Timeline
from .layout import (
    WORD_LABEL_GID,
    Arrow,
    Box,
    Envelope,
    HLine,
    Label,
    Mark,
    Panel,
    VLine,
    layout_panel,
)

RIGHT = 28.0
MIN_LEFT = 46.0
ZOOM_GAP = 24.0
ABOVE = 18.0  # room for labels above a panel
AXIS = 18.0
TITLE = 18.0
PX_PER_POINT = 1.3
ENVELOPE_STEP = 2.0
"""Units between two columns of a waveform envelope."""
DEFAULT_SIZE = 10.0
DEFAULT_FILL = "#222222"
"""Text size and colour the style sheet gives a timeline's text (``svg.timeline``);
a label in them writes neither."""
_BASELINES = {"top": "hanging", "middle": "central", "bottom": "auto"}


class _Frame:
    """Seconds and layout units to SVG coordinates for one panel."""

    def __init__(self, panel: Panel, left: float, top: float, width: float) -> None:
        self.panel, self.left, self.top, self.width = panel, left, top, width
        self.time = Scale(panel.start_s, panel.end_s, left, width, clamp=True,
                          per_unit=width / max(panel.end_s - panel.start_s, 1e-9))

    def x(self, t: float) -> float:
        return self.time.px(t)

    def y(self, units: float) -> float:
        return self.top + units


def _title(text: str) -> str:
    return f"<title>{escape(text)}</title>" if text else ""


def _box(frame: _Frame, box: Box) -> str:
    x0, x1 = frame.x(box.x0), frame.x(box.x1)
    opacity = f' fill-opacity="{box.opacity:g}"' if box.opacity < 1 else ""
    outline = f' stroke="{box.outline}" stroke-width=".5"' if box.outline else ""
    return _closed(f'<rect x="{short(x0)}" y="{short(frame.y(box.y0))}" '
                   f'width="{short(max(x1 - x0, 1.0))}" '
                   f'height="{short(box.y1 - box.y0)}" fill="{box.color}"{opacity}{outline}',
                   "rect", _title(box.tooltip))


def _closed(start: str, tag: str, inside: str) -> str:
    """An element from its start tag's text (without ``>``), closed at once when it holds
    nothing."""
    return f"{start}>{inside}</{tag}>" if inside else f"{start}/>"


def outline_path(points: list[tuple[float, float]]) -> str:
    """The ``d`` of a closed path through ``points``, in whole units: the first point
    absolute, each next one relative to the one before, a run along one height as one
    ``h`` (runs in one direction only, so a run that turns back keeps its far end), a
    point on the one before left out.

    >>> outline_path([(10.4, 5.0), (12.6, 5.2), (15.0, 4.9), (17.0, 8.0), (14.9, 9.6)])
    'M10,5h5l2,3-2,2z'
    """
    x0, y0 = round(points[0][0]), round(points[0][1])
    parts, run, previous = [f"M{x0},{y0}"], 0, "M"
    for x, y in points[1:]:
        dx, dy = round(x) - x0, round(y) - y0
        x0, y0 = x0 + dx, y0 + dy
        if dx == dy == 0:
            continue
        if dy == 0 and (run == 0 or (run > 0) == (dx > 0)):
            run += dx
            continue
        if run:
            parts.append(f"h{run}")
            run, previous = 0, "h"
        if dy == 0:
            run = dx
            continue
        parts.append(("l" if previous != "l" else "" if dx < 0 else " ") + f"{dx},{dy}")
        previous = "l"
    if run:
        parts.append(f"h{run}")
    return "".join(parts) + "z"


def _envelope(frame: _Frame, env: Envelope) -> str:
    xs = [frame.x(float(t)) for t in env.times]
    upper = [(x, frame.y(float(y))) for x, y in zip(xs, env.high, strict=True)]
    lower = [(x, frame.y(float(y))) for x, y in zip(xs, env.low, strict=True)]
    return (f'<path class="wave" d="{outline_path(upper + lower[::-1])}" '
            f'fill="{env.color}"/>')


def _vline(frame: _Frame, line: VLine) -> str:
    x = short(frame.x(line.x))
    dash = ' stroke-dasharray="4 3"' if line.dashed else ""
    return _closed(f'<line x1="{x}" y1="{short(frame.y(line.y0))}" '
                   f'x2="{x}" y2="{short(frame.y(line.y1))}" '
                   f'stroke="{line.color}" stroke-width="{line.width:g}"{dash}', "line",
                   _title(line.tooltip))


def _arrow(frame: _Frame, arrow: Arrow) -> str:
    x1, x2 = sorted((frame.x(arrow.x0), frame.x(arrow.x1)))
    y = frame.y(arrow.y)
    return (f'<g stroke="{arrow.color}" stroke-width="1.5">{_title(arrow.tooltip)}'
            f'<line x1="{short(x1)}" y1="{short(y)}" x2="{short(x2)}" y2="{short(y)}"/>'
            f'<line x1="{short(x1)}" y1="{short(y - 4)}" x2="{short(x1)}" '
            f'y2="{short(y + 4)}"/>'
            f'<line x1="{short(x2)}" y1="{short(y - 4)}" x2="{short(x2)}" '
            f'y2="{short(y + 4)}"/></g>')


def _label(frame: _Frame, label: Label) -> str:
    size = SIZES[label.role]
    x = frame.x(label.x) + label.dx * PX_PER_POINT
    y = (frame.top if label.above else frame.y(label.y)) - label.dy * PX_PER_POINT
    text = (f'<text x="{short(x)}" y="{short(y)}"{_label_style(label, size)}>'
            f"{escape(label.text)}</text>")
    if not label.box:
        return text
    width = text_width(label.text, label.role, label.bold) + 4
    left = {"start": x - 2, "middle": x - width / 2, "end": x - width + 2}[label.anchor]
    top = {"top": y - 1, "middle": y - size * 0.6, "bottom": y - size * 1.05}[label.baseline]
    return (f'<rect x="{short(left)}" y="{short(top)}" width="{short(width)}" '
            f'height="{short(size * 1.2)}" fill="white" fill-opacity="0.85"/>' + text)


def _label_style(label: Label, size: float) -> str:
    """A label's attributes that differ from the style sheet's text: a word label's
    class gives its baseline; SVG's own defaults are ``start`` and ``auto``."""
    baseline = _BASELINES[label.baseline]
    return "".join((
        f' font-size="{size:g}"' if size != DEFAULT_SIZE else "",
        f' fill="{label.color}"' if label.color != DEFAULT_FILL else "",
        f' text-anchor="{label.anchor}"' if label.anchor != "start" else "",
        f' dominant-baseline="{baseline}"'
        if baseline != "auto" and label.gid != WORD_LABEL_GID else "",
        ' font-weight="bold"' if label.bold else "",
        f' class="{label.gid}"' if label.gid else ""))


def _mark(frame: _Frame, mark: Mark) -> str:
    if isinstance(mark, Box):
        return _box(frame, mark)
    if isinstance(mark, Envelope):
        return _envelope(frame, mark)
    if isinstance(mark, VLine):
        return _vline(frame, mark)
    if isinstance(mark, HLine):
        y = short(frame.y(mark.y))
        return (f'<line class="lane" x1="{short(frame.left)}" y1="{y}" '
                f'x2="{short(frame.left + frame.width)}" y2="{y}"/>')
    if isinstance(mark, Arrow):
        return _arrow(frame, mark)
    return _label(frame, mark)


def _axis(frame: _Frame) -> tuple[list[str], list[str]]:
    """Light gridlines through the panel, and second labels under it."""
    panel = frame.panel
    lines, labels = [], []
    bottom = frame.y(panel.height)
    for t in ticks(panel.start_s, panel.end_s):
        x = short(frame.x(t))
        lines.append(f'<line class="grid" x1="{x}" y1="{short(frame.top)}" x2="{x}" '
                     f'y2="{short(bottom)}"/>')
        labels.append(f'<text class="tick" x="{x}" y="{short(bottom + 12)}">'
                      f'{tick_label(t, " s")}</text>')
    return lines, labels


def _captions(frame: _Frame) -> list[str]:
    parts = []
    for centre, caption in frame.panel.captions:
        lines = caption.split("\n")
        size = SIZES["lane"]
        first = frame.y(centre) - (len(lines) - 1) * size * 0.6
        spans = "".join(f'<tspan x="{short(frame.left - 6)}" y="{short(first + i * size * 1.2)}">'
                        f"{escape(line)}</tspan>" for i, line in enumerate(lines))
        parts.append(f'<text class="caption">{spans}</text>')
    return parts


def _panel(frame: _Frame, clip_id: str, captions: bool) -> list[str]:
    panel = frame.panel
    grid, ticks = _axis(frame)
    parts = [f'<clipPath id="{clip_id}"><rect x="{short(frame.left)}" y="{short(frame.top)}" '
             f'width="{short(frame.width)}" height="{short(panel.height)}"/></clipPath>',
             f'<g clip-path="url(#{clip_id})">',
             *(_mark(frame, m) for m in panel.background), *grid,
             *(_mark(frame, m) for m in panel.marks
               if not (isinstance(m, Label) and m.above)), "</g>",
             *(_mark(frame, m) for m in panel.marks if isinstance(m, Label) and m.above),
             *ticks]
    return parts + (_captions(frame) if captions else [])


def _measure(text: str, role: Role) -> float:
    return text_width(text, role)


def render(timeline: Timeline, *, ident: str, description: str) -> Markup:
    """The SVG element (see the module docstring)."""
    captions = [t.shown_name for t in timeline.tracks] + ["words (99 unlabelled)"] * any(
        t.words for t in timeline.tracks)
    left = max(MIN_LEFT, max((text_width(c.split("\n")[0], "lane") for c in captions),
                             default=0.0) + 12)
    plot = WIDTH - left - RIGHT
    above = ABOVE if any(m.label and m.label_track is None for m in timeline.markers) else 4.0
    parts: list[str] = []
    y = 4.0
    for text, size, bold in ((timeline.title, 14, True), (timeline.subtitle, 12, False)):
        if text:
            weight = ' font-weight="bold"' if bold else ""
            parts.append(f'<text x="4" y="{short(y + size)}" font-size="{size}"{weight}>'
                         f"{escape(text)}</text>")
            y += TITLE
    main = layout_panel(timeline, 0.0, timeline.duration_s, width_px=plot,
                        columns=int(plot / ENVELOPE_STEP),
                        measure=_measure, show_zooms=True)
    frame = _Frame(main, left, y + above, plot)
    parts += _panel(frame, f"{ident}-clip-0", captions=True)
    y = frame.top + main.height + AXIS
    if timeline.zooms:
        count = len(timeline.zooms)
        width = (plot - ZOOM_GAP * (count - 1)) / count
        y += 10
        bottom = y
        for index, zoom in enumerate(timeline.zooms):
            panel = layout_panel(timeline, zoom.start_s, zoom.end_s, width_px=width,
                                 columns=int(width / ENVELOPE_STEP), measure=_measure,
                                 show_zooms=False)
            x = left + index * (width + ZOOM_GAP)
            parts.append(f'<text x="{short(x)}" y="{short(y + 12)}" font-size="11" fill="#1f4e79">'
                         f"{escape(zoom.title)}</text>")
            frame = _Frame(panel, x, y + TITLE + above, width)
            parts += _panel(frame, f"{ident}-clip-{index + 1}", captions=index == 0)
            bottom = max(bottom, frame.top + panel.height + AXIS)
        y = bottom
    return svg_element("timeline", short(y + 2), description, parts)
