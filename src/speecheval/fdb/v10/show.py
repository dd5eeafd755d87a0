"""``fdb10 show``: a timeline picture of one sample, because people check an outcome by
looking at it.

Lanes, top to bottom: the output waveform, Silero speech segments, transcript words, and
the annotation (pauses with their owned intervals, E, or the interruption [S, R]). The
title gives the outcome and its numbers exactly as ``unified-samples.jsonl`` has them.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from ...core.audio import read_mono
from ...core.errors import InputError
from ...core.output import atomic_write_bytes, refuse_existing
from ...core.timebase import from_us
from .annotations import Interval
from .pause import owned_intervals
from .scoring import LoadedSample, load_sample, sample_row, score_sample
from .speech import SpeechJob, segment_file
from .tree import OUTPUT_WAV, PAUSE_HANDLING, SMOOTH_TURN_TAKING, load_asr, load_manifest

FORMATS = {".png": "png", ".svg": "svg"}
ENVELOPE_POINTS = 2000


def _envelope(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Min/max envelope over at most ENVELOPE_POINTS blocks, for a readable waveform."""
    block = max(1, samples.size // ENVELOPE_POINTS)
    usable = samples[: samples.size // block * block].reshape(-1, block)
    times = (np.arange(usable.shape[0]) * block + block / 2) / rate
    return times, usable.min(axis=1), usable.max(axis=1)


def _title(sample: LoadedSample, row: dict[str, Any]) -> str:
    parts = [sample.entry.sample_id]
    if "outcome" in row:
        parts.append(f"outcome: {row['outcome']}")
    for key in ("latency_s", "stop_s", "restarts", "intrusion_words", "intruded_pauses"):
        if row.get(key) is not None:
            value = row[key]
            parts.append(f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}")
    if sample.entry.task == PAUSE_HANDLING:
        flags = [k for k in ("pause_intrusion", "inside_pause_onset", "pre_pause_speech",
                             "carry_in") if row.get(k)]
        parts.append("flags: " + (", ".join(flags) if flags else "none"))
    return "   ".join(parts)


def render_timeline(tree: Path, sample_id: str, out: Path) -> Path:
    """Score one eligible sample and draw it to ``out`` (.png or .svg)."""
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError("the picture must end in .png or .svg", path=out)
    refuse_existing(out)
    manifest = load_manifest(tree)
    entries = {e.sample_id: e for e in manifest.samples}
    if sample_id not in entries:
        raise InputError("no such sample in manifest.json", path=manifest.path,
                         sample_id=sample_id)
    entry = entries[sample_id]
    if entry.annotation_file is None:
        raise InputError(f"{entry.subset} has no unified metric to show", sample_id=sample_id)
    if not entry.eligible:
        raise InputError("sample is ineligible (" + ", ".join(entry.reasons)
                         + "): it has no outcome to show", sample_id=sample_id)
    sample = load_sample(tree, entry, load_asr(tree))
    wav = entry.file(tree, OUTPUT_WAV)
    segments = segment_file(SpeechJob(sample_id, wav, entry.files[OUTPUT_WAV],
                                      entry.input_duration_s))
    score = score_sample(sample, segments)
    row = sample_row(sample, score, segments)
    audio = read_mono(wav)
    data = _draw(sample, segments, row, audio.samples, audio.rate, fmt)
    atomic_write_bytes(out, data)
    return out


def _draw(sample: LoadedSample, segments: tuple[Interval, ...], row: dict[str, Any],
          samples: np.ndarray, rate: int, fmt: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "speecheval"
    duration = from_us(sample.duration_us)
    fig, (wave_ax, lanes) = plt.subplots(
        2, 1, figsize=(14, 5.2), sharex=True, gridspec_kw={"height_ratios": [1.2, 2]})
    times, low, high = _envelope(samples, rate)
    wave_ax.fill_between(times, low, high, color="#4a6fa5", linewidth=0)
    wave_ax.set_ylabel("output")
    wave_ax.set_ylim(-1, 1)
    wave_ax.set_title(_title(sample, row), fontsize=9, loc="left")

    lanes.set_ylim(0, 3)
    lanes.set_yticks([0.5, 1.5, 2.5], ["annotation", "words", "speech (Silero)"])
    for seg in segments:
        lanes.broken_barh([(from_us(seg.start_us), from_us(seg.length_us))], (2.15, 0.7),
                          color="#2e8b57")
    for index, word in enumerate(sample.words):
        start, length = from_us(word.start_us), from_us(word.end_us - word.start_us)
        lanes.broken_barh([(start, max(length, duration / 2000))], (1.15, 0.7),
                          color="#c77d1f", edgecolor="white", linewidth=0.6)
        lanes.text(start, 1.9 if index % 2 else 1.05, word.text, fontsize=6,
                   va="bottom" if index % 2 else "top", clip_on=True)
    _draw_annotation(lanes, wave_ax, sample)
    lanes.set_xlim(0, duration)
    lanes.set_xlabel("time on the input window (s)")
    fig.tight_layout()
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    plt.close(fig)
    return buffer.getvalue()


def _draw_annotation(lanes: Any, wave_ax: Any, sample: LoadedSample) -> None:
    task = sample.entry.task
    if task == PAUSE_HANDLING:
        for pause in sample.pauses:
            lanes.broken_barh([(from_us(pause.start_us), from_us(pause.length_us))],
                              (0.15, 0.7), color="#999999")
        for index, (start, end) in enumerate(owned_intervals(sample.pauses,
                                                             sample.duration_us)):
            lanes.annotate("", xy=(from_us(end), 0.08), xytext=(from_us(start), 0.08),
                           arrowprops={"arrowstyle": "<->", "color": "#555555", "lw": 0.8})
            lanes.text(from_us(start), 0.9, f"pause {index + 1} owns", fontsize=6)
        marks = [("first pause", sample.pauses[0].start_us)]
    elif task == SMOOTH_TURN_TAKING:
        assert sample.turn_end_us is not None
        marks = [("E", sample.turn_end_us)]
    else:
        assert sample.interruption is not None
        span = sample.interruption
        lanes.broken_barh([(from_us(span.start_us), from_us(span.length_us))], (0.15, 0.7),
                          color="#d9534f", alpha=0.6)
        lanes.text(from_us(span.start_us), 0.4, "user interrupts", fontsize=7)
        marks = [("S", span.start_us), ("R", span.end_us)]
    for label, t_us in marks:
        for axis in (lanes, wave_ax):
            axis.axvline(from_us(t_us), color="#d9534f", lw=1, ls="--")
        lanes.text(from_us(t_us), 2.95, label, color="#d9534f", fontsize=8, va="top")
