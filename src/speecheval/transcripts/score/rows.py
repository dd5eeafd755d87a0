"""Per-run rows for ``samples.jsonl`` and the parity files (fractions, seconds, null)."""

from __future__ import annotations

from typing import Any

from ..diarization.render import score_dict
from .sample import RunScore
from .tables import RATE_NAMES


def sample_row(run: RunScore, maturity: str) -> dict[str, Any]:
    """Main-protocol measures of one run, with its scenario's maturity level; parity
    tracks and the segment-timestamp diagnostic are left to their own files."""
    sample = run.sample
    rate_name = RATE_NAMES[run.unit]
    timestamps = None if run.timestamps is None else run.timestamps.report_dict()
    if timestamps is not None:
        timestamps.pop("segment_pairs_diagnostic")
    cp_key = "cp" + rate_name
    return {
        "sample_id": sample.id, "scenario": sample.scenario, "repeat": run.repeat,
        "kind": sample.kind, "duration_s": sample.duration_s, "source": sample.source,
        "speakers": list(sample.speakers), "unit": run.unit, "rate_name": rate_name,
        "failed": run.failure is not None, "failure": run.failure, "maturity": maturity,
        "text": None if run.text is None else {rate_name: run.text.error_rate,
                                               **run.text.report_dict()},
        "punctuation": None if run.punctuation is None else run.punctuation.report_dict(),
        "numbers": None if run.numbers is None else run.numbers.report_dict(),
        "terms": None if run.terms is None else run.terms.report_dict(),
        "cp": None if run.cp is None else run.cp.report_dict(cp_key),
        "diarization": (None if run.diarization is None
                        else score_dict(run.diarization, exclude_overlap=False)),
        "hallucination": None if run.hallucination is None else run.hallucination.report_dict(),
        "timestamps": timestamps,
        "status": dict(sorted(run.status.items())),
    }


def moss_row(run: RunScore) -> dict[str, Any] | None:
    """The MOSS parity values of one run, or ``None`` when the track does not apply."""
    if run.moss is None:
        return None
    moss = run.moss
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            "cer": None if moss.cer is None else moss.cer.report_dict(),
            "cpcer": None if moss.cp is None else moss.cp.report_dict("cpcer"),
            "cp_invalid_reason": moss.cp_invalid_reason}


def lattifai_row(run: RunScore) -> dict[str, Any] | None:
    """The LattifAI parity DER of one run, or ``None``."""
    if run.lattifai is None:
        return None
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            **score_dict(run.lattifai, exclude_overlap=False)}


def diagnostic_row(run: RunScore) -> dict[str, Any] | None:
    """The segment-pair timestamp diagnostic of one run, or ``None``."""
    if run.timestamps is None or run.timestamps.segment_pairs is None:
        return None
    return {"sample_id": run.sample.id, "scenario": run.sample.scenario, "repeat": run.repeat,
            **run.timestamps.segment_pairs.report_dict()}
