"""Drawing a :class:`~.show_plan.Picture` with matplotlib (Agg, no pyplot state).

The whole window is the top panel; the zoom panels sit below it and are shaded on it.
Each panel has four lanes: the output waveform, Silero speech segments, transcript words
and the annotation. Word labels are laid out in up to three staggered rows from measured
text widths, so they never overlap; a label that fits in no row is left out, the lane's
name says how many were, and the zoom panels show words at a scale where they fit.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch
from numpy.typing import NDArray

from .show_plan import Picture

ENVELOPE_POINTS = 2000
LABEL_ROWS = 3
LABEL_GAP_PX = 4.0
WORD_FONT_SIZE = 8.0
MARKER_FONT_SIZE = 13.0
DPI = 110
LANES = ("annotation", "words", "speech (Silero)", "output")
REFERENCE_COLOR = "#c62828"
STOP_COLOR = "#6a3d9a"
WORD_LABEL_GID = "word-label"


def stagger(starts_px: Sequence[float], widths_px: Sequence[float], rows: int = LABEL_ROWS,
            gap_px: float = LABEL_GAP_PX) -> list[int | None]:
    """Row of each label, left to right, or None for a label that fits in no row.

    A label goes to the first row whose last label ends ``gap_px`` before it starts.

    >>> stagger([0, 10, 20, 30, 40], [30, 30, 30, 30, 30], rows=2, gap_px=0)
    [0, 1, None, 0, 1]
    """
    ends = [-np.inf] * rows
    placed: list[int | None] = []
    for start, width in zip(starts_px, widths_px, strict=True):
        row = next((i for i in range(rows) if start >= ends[i] + gap_px), None)
        if row is not None:
            ends[row] = start + width
        placed.append(row)
    return placed


def build_figure(picture: Picture, samples: NDArray[np.float32], rate: int) -> Figure:
    """The figure of ``picture``: the whole window on top, the zoom panels below."""
    fig = Figure(figsize=(14, 8.8), dpi=DPI)
    FigureCanvasAgg(fig)
    columns = max(1, len(picture.zooms))
    grid = fig.add_gridspec(2, columns, height_ratios=[1.25, 1], left=0.085, right=0.985,
                            top=0.875, bottom=0.065, hspace=0.42, wspace=0.05)
    fig.text(0.01, 0.975, picture.headline, fontsize=13, fontweight="bold", va="top")
    fig.text(0.01, 0.94, picture.numbers, fontsize=10.5, va="top")
    peak = float(np.max(np.abs(samples))) if samples.size else 0.0
    main = fig.add_subplot(grid[0, :])
    main.set_label("main")
    _panel(fig, main, picture, samples, rate, peak, 0.0, picture.duration_s)
    main.set_xlabel("time on the input window (s)", fontsize=9)
    for zoom in picture.zooms:
        main.axvspan(zoom.start_s, zoom.end_s, color="#1f77b4", alpha=0.07, lw=0)
    for index, zoom in enumerate(picture.zooms):
        ax = fig.add_subplot(grid[1, index])
        ax.set_label(zoom.title)
        _panel(fig, ax, picture, samples, rate, peak, zoom.start_s, zoom.end_s)
        ax.set_title(zoom.title, loc="left", fontsize=9.5, color="#1f4e79", pad=21)
        if index > 0:
            ax.set_yticklabels([])
    return fig


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """PNG or SVG bytes; SVG ids are salted so that reruns give the same bytes."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    with rc_context({"svg.hashsalt": "speecheval"}):
        fig.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
    return buffer.getvalue()


def _panel(fig: Figure, ax: Any, picture: Picture, samples: NDArray[np.float32], rate: int,
           peak: float, start_s: float, end_s: float) -> None:
    ax.set_xlim(start_s, end_s)
    ax.set_ylim(0, 4)
    ax.set_yticks([0.5, 1.5, 2.5, 3.5], list(LANES), fontsize=9)
    ax.tick_params(axis="x", labelsize=8.5)
    for y in (1, 2, 3):
        ax.axhline(y, color="#dddddd", lw=0.6)
    _waveform(ax, samples, rate, peak, start_s, end_s)
    for seg_start, seg_end in picture.segments:
        ax.broken_barh([(seg_start, seg_end - seg_start)], (2.2, 0.6), color="#2e8b57")
    _words(fig, ax, picture, start_s, end_s)
    _annotation(ax, picture, end_s - start_s)


def _waveform(ax: Any, samples: NDArray[np.float32], rate: int, peak: float,
              start_s: float, end_s: float) -> None:
    """Min/max envelope of the visible samples, scaled to the file's peak."""
    window = samples[int(start_s * rate): int(np.ceil(end_s * rate))]
    if window.size == 0:
        return
    block = max(1, window.size // ENVELOPE_POINTS)
    usable = window[: window.size // block * block].reshape(-1, block)
    times = start_s + (np.arange(usable.shape[0]) * block + block / 2) / rate
    scale = 0.45 / peak if peak > 0 else 0.0
    ax.fill_between(times, 3.5 + usable.min(axis=1) * scale, 3.5 + usable.max(axis=1) * scale,
                    color="#4a6fa5", linewidth=0)


def _words(fig: Figure, ax: Any, picture: Picture, start_s: float, end_s: float) -> None:
    visible = [w for w in picture.words if w[2] >= start_s and w[1] <= end_s]
    min_width = (end_s - start_s) / 1500
    for _text, word_start, word_end in visible:
        ax.broken_barh([(word_start, max(word_end - word_start, min_width))], (1.7, 0.25),
                       color="#c77d1f", edgecolor="white", linewidth=0.5)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    font = FontProperties(size=WORD_FONT_SIZE)

    def width(text: str) -> float:
        return float(renderer.get_text_width_height_descent(text, font, ismath=False)[0])

    px_per_s = ax.get_position().width * fig.get_figwidth() * fig.dpi / (end_s - start_s)
    starts = [(max(w[1], start_s) - start_s) * px_per_s for w in visible]
    rows = stagger(starts, [width(w[0]) for w in visible])
    for (text, word_start, _end), row in zip(visible, rows, strict=True):
        if row is not None:
            label = ax.text(max(word_start, start_s), 1.62 - 0.2 * row, text,
                            fontsize=WORD_FONT_SIZE, va="top", ha="left", clip_on=True)
            label.set_gid(WORD_LABEL_GID)
    left_out = rows.count(None)
    if left_out:
        names = list(LANES)
        names[1] = f"words\n({left_out} unlabelled)"
        ax.set_yticks([0.5, 1.5, 2.5, 3.5], names, fontsize=9)


def _annotation(ax: Any, picture: Picture, width_s: float) -> None:
    """Bars, spans, the stop and the reference times; only what lies in the panel gets an
    artist, so each label exists where it is seen."""
    low, high = ax.get_xlim()
    for bar in picture.bars:
        if bar.end_s < low or bar.start_s > high:
            continue
        ax.broken_barh([(bar.start_s, bar.end_s - bar.start_s)], (0.62, 0.3),
                       color=bar.color, alpha=0.75)
        ax.text(max(bar.start_s, low) + width_s / 400, 0.77, bar.label,
                fontsize=8.5, va="center", clip_on=True)
    for span in picture.spans:
        if max(span.start_s, span.end_s) < low or min(span.start_s, span.end_s) > high:
            continue
        y = 0.1 + 0.26 * span.level
        # A patch, not an annotation: it is clipped at the panel edge instead of vanishing
        # when an end lies outside a zoom panel.
        ax.add_patch(FancyArrowPatch((span.start_s, y), (span.end_s, y), arrowstyle="<->",
                                     mutation_scale=10, color="#333333", lw=1.0))
        middle = (max(span.start_s, low) + min(span.end_s, high)) / 2
        ax.text(middle, y + 0.02, span.label, fontsize=8.5, ha="center", va="bottom",
                clip_on=True, bbox={"boxstyle": "round,pad=0.15", "fc": "white",
                                    "ec": "none", "alpha": 0.85})
    if picture.stop_s is not None and low <= picture.stop_s <= high:
        # Left of its line, over the segment that stops, so it never meets a restart note.
        ax.axvline(picture.stop_s, color=STOP_COLOR, lw=1.6)
        ax.annotate("stop", xy=(picture.stop_s, 2.97), xytext=(-3, 0),
                    textcoords="offset points", ha="right", va="top", fontsize=10,
                    fontweight="bold", color=STOP_COLOR,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
    for label, start in picture.segment_notes:
        if low <= start <= high:
            ax.annotate(label, xy=(start, 2.97), xytext=(3, 0), textcoords="offset points",
                        ha="left", va="top", fontsize=9, color="#1b5e20",
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})
    for marker in picture.markers:
        if not low <= marker.time_s <= high:
            continue
        ax.axvline(marker.time_s, color=REFERENCE_COLOR, lw=1.3, ls="--")
        offset = -4 if marker.side == "left" else 4
        ax.annotate(marker.label, xy=(marker.time_s, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(offset, 2), textcoords="offset points",
                    ha="right" if marker.side == "left" else "left", va="bottom",
                    fontsize=MARKER_FONT_SIZE, fontweight="bold", color=REFERENCE_COLOR)
