"""Writing ``unified.json`` and ``unified-samples.jsonl`` into a new directory."""

from __future__ import annotations

from pathlib import Path

from ....core.canonical_json import dumps, dumps_lines
from ....core.output import new_output_dir
from ..scoring.unified import UnifiedResult

UNIFIED_JSON = "unified.json"
UNIFIED_SAMPLES = "unified-samples.jsonl"


def write_unified(result: UnifiedResult, out: Path) -> Path:
    """Write both files atomically into ``out``, which must not exist yet."""
    with new_output_dir(out) as staging:
        (staging / UNIFIED_JSON).write_text(dumps(result.summary.report_dict()),
                                            encoding="utf-8")
        (staging / UNIFIED_SAMPLES).write_text(
            dumps_lines([row.report_dict() for row in result.rows]), encoding="utf-8")
    return out
