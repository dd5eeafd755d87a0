"""A :class:`~.description.Timeline` as inline SVG for an HTML page.

The drawing is the charts' frame (:mod:`..svg_frame`): 1200 units wide, scaled to the
page width (CSS ``width: 100%``), text widths estimated from the characters (wide CJK
characters count double), generously, so staggered word labels never overlap. Every
bar, arrow and line carries its value as a tooltip; every label is escaped.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from ..svg_frame import (
    SIZES,
    WIDTH,
    Role,
    Scale,
    coord,
    svg_element,
    text_width,
    tick_label,
    ticks,
)
from .description import Timeline
from .layout import Arrow, Box, Envelope, HLine, Label, Mark, Panel, VLine, layout_panel

RIGHT = 28.0
MIN_LEFT = 46.0
ZOOM_GAP = 24.0
ABOVE = 18.0  # room for labels above a panel
AXIS = 18.0
TITLE = 18.0
GRID = "#cbd5e1"
PX_PER_POINT = 1.3
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
    outline = f' stroke="{box.outline}" stroke-width="0.5"' if box.outline else ""
    return (f'<rect x="{coord(x0)}" y="{coord(frame.y(box.y0))}" '
            f'width="{coord(max(x1 - x0, 1.0))}" '
            f'height="{coord(box.y1 - box.y0)}" fill="{box.color}"{opacity}{outline}>'
            f"{_title(box.tooltip)}</rect>")


def _envelope(frame: _Frame, env: Envelope) -> str:
    xs = [frame.x(float(t)) for t in env.times]
    upper = [f"{coord(x)},{coord(frame.y(float(y)))}" for x, y in zip(xs, env.high, strict=True)]
    lower = [f"{coord(x)},{coord(frame.y(float(y)))}" for x, y in zip(xs, env.low, strict=True)]
    return (f'<polygon points="{" ".join(upper + lower[::-1])}" fill="{env.color}" '
            'fill-opacity="0.85"/>')


def _vline(frame: _Frame, line: VLine) -> str:
    x = coord(frame.x(line.x))
    dash = ' stroke-dasharray="4 3"' if line.dashed else ""
    return (f'<line x1="{x}" y1="{coord(frame.y(line.y0))}" '
            f'x2="{x}" y2="{coord(frame.y(line.y1))}" '
            f'stroke="{line.color}" stroke-width="{line.width:g}"{dash}>'
            f"{_title(line.tooltip)}</line>")


def _arrow(frame: _Frame, arrow: Arrow) -> str:
    x1, x2 = sorted((frame.x(arrow.x0), frame.x(arrow.x1)))
    y = frame.y(arrow.y)
    return (f'<g stroke="{arrow.color}" stroke-width="1.5">{_title(arrow.tooltip)}'
            f'<line x1="{coord(x1)}" y1="{coord(y)}" x2="{coord(x2)}" y2="{coord(y)}"/>'
            f'<line x1="{coord(x1)}" y1="{coord(y - 4)}" x2="{coord(x1)}" '
            f'y2="{coord(y + 4)}"/>'
            f'<line x1="{coord(x2)}" y1="{coord(y - 4)}" x2="{coord(x2)}" '
            f'y2="{coord(y + 4)}"/></g>')


def _label(frame: _Frame, label: Label) -> str:
    size = SIZES[label.role]
    x = frame.x(label.x) + label.dx * PX_PER_POINT
    y = (frame.top if label.above else frame.y(label.y)) - label.dy * PX_PER_POINT
    weight = ' font-weight="bold"' if label.bold else ""
    gid = f' class="{label.gid}"' if label.gid else ""
    text = (f'<text x="{coord(x)}" y="{coord(y)}" font-size="{size:g}" fill="{label.color}" '
            f'text-anchor="{label.anchor}" dominant-baseline="{_BASELINES[label.baseline]}"'
            f"{weight}{gid}>{escape(label.text)}</text>")
    if not label.box:
        return text
    width = text_width(label.text, label.role, label.bold) + 4
    left = {"start": x - 2, "middle": x - width / 2, "end": x - width + 2}[label.anchor]
    top = {"top": y - 1, "middle": y - size * 0.6, "bottom": y - size * 1.05}[label.baseline]
    return (f'<rect x="{coord(left)}" y="{coord(top)}" width="{coord(width)}" '
            f'height="{coord(size * 1.2)}" fill="white" fill-opacity="0.85"/>' + text)


def _mark(frame: _Frame, mark: Mark) -> str:
    if isinstance(mark, Box):
        return _box(frame, mark)
    if isinstance(mark, Envelope):
        return _envelope(frame, mark)
    if isinstance(mark, VLine):
        return _vline(frame, mark)
    if isinstance(mark, HLine):
        y = coord(frame.y(mark.y))
        return (f'<line x1="{coord(frame.left)}" y1="{y}" x2="{coord(frame.left + frame.width)}" '
                f'y2="{y}" stroke="#dddddd" stroke-width="0.6"/>')
    if isinstance(mark, Arrow):
        return _arrow(frame, mark)
    return _label(frame, mark)


def _axis(frame: _Frame) -> tuple[list[str], list[str]]:
    """Light gridlines through the panel, and second labels under it."""
    panel = frame.panel
    lines, labels = [], []
    bottom = frame.y(panel.height)
    for t in ticks(panel.start_s, panel.end_s):
        x = coord(frame.x(t))
        lines.append(f'<line x1="{x}" y1="{coord(frame.top)}" x2="{x}" y2="{coord(bottom)}" '
                     f'stroke="{GRID}" stroke-width="0.5"/>')
        labels.append(f'<text x="{x}" y="{coord(bottom + 12)}" font-size="{SIZES["axis"]:g}" '
                      f'fill="#555" text-anchor="middle">{tick_label(t, " s")}</text>')
    return lines, labels


def _captions(frame: _Frame) -> list[str]:
    parts = []
    for centre, caption in frame.panel.captions:
        lines = caption.split("\n")
        size = SIZES["lane"]
        first = frame.y(centre) - (len(lines) - 1) * size * 0.6
        spans = "".join(f'<tspan x="{coord(frame.left - 6)}" y="{coord(first + i * size * 1.2)}">'
                        f"{escape(line)}</tspan>" for i, line in enumerate(lines))
        parts.append(f'<text font-size="{SIZES["lane"]:g}" text-anchor="end" '
                     f'dominant-baseline="central" fill="#333">{spans}</text>')
    return parts


def _panel(frame: _Frame, clip_id: str, captions: bool) -> list[str]:
    panel = frame.panel
    grid, ticks = _axis(frame)
    parts = [f'<clipPath id="{clip_id}"><rect x="{coord(frame.left)}" y="{coord(frame.top)}" '
             f'width="{coord(frame.width)}" height="{coord(panel.height)}"/></clipPath>',
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
            parts.append(f'<text x="4" y="{coord(y + size)}" font-size="{size}"{weight}>'
                         f"{escape(text)}</text>")
            y += TITLE
    main = layout_panel(timeline, 0.0, timeline.duration_s, width_px=plot, columns=int(plot),
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
                                 columns=int(width), measure=_measure, show_zooms=False)
            x = left + index * (width + ZOOM_GAP)
            parts.append(f'<text x="{coord(x)}" y="{coord(y + 12)}" font-size="11" fill="#1f4e79">'
                         f"{escape(zoom.title)}</text>")
            frame = _Frame(panel, x, y + TITLE + above, width)
            parts += _panel(frame, f"{ident}-clip-{index + 1}", captions=index == 0)
            bottom = max(bottom, frame.top + panel.height + AXIS)
        y = bottom
    return svg_element("timeline", coord(y + 2), description, parts)
