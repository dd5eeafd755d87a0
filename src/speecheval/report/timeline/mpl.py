"""A :class:`~.description.Timeline` drawn with matplotlib (Agg, no pyplot state) for
``.png`` and ``.svg`` files.

The whole window is the top panel; the zoom panels sit below it, side by side, and are
shaded on it. Lane captions are the y tick labels. Word labels are measured with the
renderer's own font metrics before they are staggered. Fonts fall back to a CJK font
where the system has one (:mod:`.fonts`).
"""

from __future__ import annotations

import io
from typing import Any, Literal

from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch

from ..fonts import matplotlib_families
from ..svg_frame import Role
from .description import Timeline
from .layout import Arrow, Box, Envelope, HLine, Label, Mark, Panel, VLine, layout_panel

DPI = 110
ENVELOPE_POINTS = 2000
SIZES: dict[Role, float] = {"axis": 8.5, "lane": 9.0, "small": 8.5, "word": 8.0,
                            "note": 9.0, "mark": 13.0}
_VA = {"top": "top", "middle": "center", "bottom": "bottom"}
_HA = {"start": "left", "middle": "center", "end": "right"}


def build_figure(timeline: Timeline) -> Figure:
    """The figure: title lines, the whole timeline, the zoom panels."""
    with rc_context({"font.family": list(matplotlib_families())}):
        return _build(timeline)


def figure_bytes(fig: Figure, fmt: Literal["png", "svg"]) -> bytes:
    """PNG or SVG bytes; SVG ids are salted so that reruns give the same bytes."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    with rc_context({"svg.hashsalt": "speecheval",
                     "font.family": list(matplotlib_families())}):
        fig.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
    return buffer.getvalue()


def _build(timeline: Timeline) -> Figure:
    zooms = timeline.zooms
    fig = Figure(figsize=(14, 8.8 if zooms else 5.2), dpi=DPI)
    FigureCanvasAgg(fig)
    columns = max(1, len(zooms))
    if zooms:
        grid = fig.add_gridspec(2, columns, height_ratios=[1.25, 1], left=0.085, right=0.985,
                                top=0.875, bottom=0.065, hspace=0.42, wspace=0.05)
    else:
        grid = fig.add_gridspec(1, 1, left=0.085, right=0.985, top=0.8, bottom=0.11)
    if timeline.title:
        fig.text(0.01, 0.975, timeline.title, fontsize=13, fontweight="bold", va="top")
    if timeline.subtitle:
        fig.text(0.01, 0.94 if zooms else 0.905, timeline.subtitle, fontsize=10.5, va="top")
    main = fig.add_subplot(grid[0, :])
    main.set_label("main")
    _panel(fig, main, timeline, 0.0, timeline.duration_s, show_zooms=True)
    main.set_xlabel(timeline.axis_label, fontsize=9)
    for index, zoom in enumerate(zooms):
        ax = fig.add_subplot(grid[1, index])
        ax.set_label(zoom.title)
        _panel(fig, ax, timeline, zoom.start_s, zoom.end_s, show_zooms=False)
        ax.set_title(zoom.title, loc="left", fontsize=9.5, color="#1f4e79", pad=21)
        if index > 0:
            ax.set_yticklabels([])
    return fig


def _panel(fig: Figure, ax: Axes, timeline: Timeline, start_s: float, end_s: float, *,
           show_zooms: bool) -> None:
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]

    def measure(text: str, role: Role) -> float:
        font = FontProperties(size=SIZES[role])
        return float(renderer.get_text_width_height_descent(text, font, ismath=False)[0])

    width_px = ax.get_position().width * fig.get_figwidth() * fig.dpi
    panel = layout_panel(timeline, start_s, end_s, width_px=width_px,
                         columns=ENVELOPE_POINTS, measure=measure, show_zooms=show_zooms)
    ax.set_xlim(start_s, end_s)
    ax.set_ylim(0, panel.height)
    captions = panel.captions[::-1]  # bottom lane first, as the y axis runs upwards
    ax.set_yticks([panel.height - centre for centre, _ in captions],
                  [caption for _, caption in captions], fontsize=SIZES["lane"])
    ax.tick_params(axis="x", labelsize=SIZES["axis"])
    for mark in [*panel.background, *panel.marks]:
        _draw(ax, panel, mark)


def _draw(ax: Axes, panel: Panel, mark: Mark) -> None:
    """One mark; the lane units run downwards, the axes' y upwards."""
    height = panel.height
    if isinstance(mark, Box):
        ax.broken_barh([(mark.x0, mark.x1 - mark.x0)], (height - mark.y1, mark.y1 - mark.y0),
                       color=mark.color, alpha=mark.opacity, linewidth=0.5 if mark.outline
                       else 0, edgecolor=mark.outline or mark.color)
    elif isinstance(mark, Envelope):
        ax.fill_between(mark.times, height - mark.low, height - mark.high, color=mark.color,
                        linewidth=0)
    elif isinstance(mark, VLine):
        ax.axvline(mark.x, ymin=1 - mark.y1 / height, ymax=1 - mark.y0 / height,
                   color=mark.color, lw=mark.width, ls="--" if mark.dashed else "-")
    elif isinstance(mark, HLine):
        ax.axhline(height - mark.y, color="#dddddd", lw=0.6)
    elif isinstance(mark, Arrow):
        # A patch, not an annotation: it is clipped at the panel edge instead of vanishing
        # when an end lies outside a zoom panel.
        ax.add_patch(FancyArrowPatch((mark.x0, height - mark.y), (mark.x1, height - mark.y),
                                     arrowstyle="<->", mutation_scale=10, color=mark.color,
                                     lw=1.0))
    else:
        _text(ax, height, mark)


def _text(ax: Axes, height: float, label: Label) -> None:
    options: dict[str, Any] = {
        "ha": _HA[label.anchor], "va": _VA[label.baseline], "fontsize": SIZES[label.role],
        "color": label.color, "fontweight": "bold" if label.bold else "normal",
        "textcoords": "offset points", "xytext": (label.dx, label.dy)}
    if label.box:
        options["bbox"] = {"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none",
                           "alpha": 0.85}
    if label.above:
        # Above the lanes, outside the axes: never hidden behind a mark.
        text = ax.annotate(label.text, xy=(label.x, 1.0), xycoords=("data", "axes fraction"),
                           **options)
    else:
        text = ax.annotate(label.text, xy=(label.x, height - label.y), clip_on=True,
                           **options)
    if label.gid:
        text.set_gid(label.gid)
