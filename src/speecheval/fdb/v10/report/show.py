"""``fdb10 show``: a timeline picture of one sample, because people check an outcome by
looking at it.

This module loads and scores the sample exactly as ``unified-score`` does;
``show_plan`` decides what the picture shows and :mod:`speecheval.report.timeline`
draws it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ....core.audio import read_mono
from ....core.errors import InputError
from ....core.output import atomic_write_bytes, refuse_existing
from ....report.timeline import Timeline, image_bytes, to_figure
from ...common.speech import SpeechJob, segment_file
from ...common.tree import OUTPUT_WAV
from ...common.tree_read import load_asr, load_manifest
from ..scoring.unified import load_sample, score_sample
from .show_plan import plan_timeline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS: dict[str, Literal["png", "svg"]] = {".png": "png", ".svg": "svg"}


def render_timeline(tree: Path, sample_id: str, out: Path) -> Path:
    """Score one eligible sample and draw it to ``out`` (.png or .svg)."""
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError("the picture must end in .png or .svg", path=out)
    refuse_existing(out)
    atomic_write_bytes(out, image_bytes(sample_timeline(tree, sample_id), fmt))
    return out


def timeline_figure(tree: Path, sample_id: str) -> Figure:
    """The picture of one eligible sample, as ``render_timeline`` draws it."""
    return to_figure(sample_timeline(tree, sample_id))


def sample_timeline(tree: Path, sample_id: str) -> Timeline:
    """Load and score one eligible sample as ``unified-score`` does, and describe it."""
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
    row = score_sample(sample, segments).report_dict()
    audio = read_mono(wav, sample_id=sample_id)
    return plan_timeline(sample, segments, row, audio.samples, audio.rate)
