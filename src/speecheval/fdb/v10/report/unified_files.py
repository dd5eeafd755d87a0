"""Writing ``unified.json``, ``unified-samples.jsonl`` and its CSV twin into a new directory."""

from __future__ import annotations

from pathlib import Path

from ....core.canonical_json import dumps, dumps_lines
from ....core.csv_rows import csv_name, jsonl_to_csv
from ....core.output import new_output_dir
from ..scoring.unified import UnifiedResult

UNIFIED_JSON = "unified.json"
UNIFIED_SAMPLES = "unified-samples.jsonl"


def write_unified(result: UnifiedResult, out: Path) -> Path:
    """Write the three files atomically into ``out``, which must not exist yet."""
    with new_output_dir(out) as staging:
        (staging / UNIFIED_JSON).write_text(dumps(result.summary.report_dict()),
                                            encoding="utf-8")
        samples = dumps_lines([row.report_dict() for row in result.rows])
        (staging / UNIFIED_SAMPLES).write_text(samples, encoding="utf-8")
        (staging / csv_name(UNIFIED_SAMPLES)).write_text(jsonl_to_csv(samples),
                                                         encoding="utf-8")
    return out
