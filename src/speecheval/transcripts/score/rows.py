"""Per-run rows for ``samples.jsonl`` and the parity files (fractions, seconds, null)."""

from __future__ import annotations

from typing import Any

from ..diarization.render import score_dict
from .measure import RunScore, selected_measures
from .measures.diarization import Diarization
from .measures.moss_parity import MossParity
from .measures.text import RATE_NAMES
from .measures.timestamps import Timestamps


def sample_row(run: RunScore, maturity: str) -> dict[str, Any]:
    """Main-protocol measures of one run (each measure's row, ``null`` when not scored),
    with its scenario's maturity level; parity tracks and the segment-timestamp
    diagnostic are left to their own files."""
    sample = run.sample
    row: dict[str, Any] = {
        "sample_id": sample.id, "scenario": sample.scenario, "repeat": run.repeat,
        "kind": sample.kind, "duration_s": sample.duration_s, "source": sample.source,
        "speakers": list(sample.speakers), "unit": run.unit,
        "rate_name": RATE_NAMES[run.unit], "failed": run.failure is not None,
        "failure": run.failure, "maturity": maturity,
        "status": dict(sorted(run.status.items())),
    }
    for measure in selected_measures(run.options):
        if measure.in_sample_row:
            result = run.results.get(measure.name)
            row[measure.name] = None if result is None else measure.row(result, run)
    return row


def moss_row(run: RunScore) -> dict[str, Any] | None:
    """The MOSS parity values of one run, or ``None`` when the track does not apply."""
    moss = run.get(MossParity)
    if moss is None:
        return None
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            "cer": None if moss.cer is None else moss.cer.report_dict(),
            "cpcer": None if moss.cp is None else moss.cp.report_dict("cpcer"),
            "cp_invalid_reason": moss.cp_invalid_reason}


def lattifai_row(run: RunScore) -> dict[str, Any] | None:
    """The LattifAI parity DER of one run, or ``None``."""
    diarization = run.get(Diarization)
    if diarization is None:
        return None
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            **score_dict(diarization.lattifai, exclude_overlap=False)}


def diagnostic_row(run: RunScore) -> dict[str, Any] | None:
    """The segment-pair timestamp diagnostic of one run, or ``None``."""
    timestamps = run.get(Timestamps)
    if timestamps is None or timestamps.segment_pairs is None:
        return None
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            **timestamps.segment_pairs.report_dict()}
