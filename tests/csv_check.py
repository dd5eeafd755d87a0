"""Checks that a CSV twin (:mod:`speecheval.core.csv_rows`) holds its JSONL file's values.

The expected cells are worked out from the JSONL here, independently of the writer:
numbers as their JSON text, ``null`` as an empty cell, nested objects with dotted names,
lists as compact JSON.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any


def expected_cells(jsonl_text: str) -> list[dict[str, str]]:
    """What each cell must hold, worked out from the JSONL independently of the writer:
    numbers as their JSON text, null as empty, nested objects dotted, lists as JSON."""
    def cells(row: dict[str, Any], prefix: str = "") -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value in row.items():
            if isinstance(value, dict) and value:
                out.update(cells(value, f"{prefix}{key}."))
            elif value is None:
                out[prefix + key] = ""
            elif isinstance(value, str):
                out[prefix + key] = value
            else:
                out[prefix + key] = json.dumps(value, separators=(",", ":"),
                                               ensure_ascii=False)
        return out
    return [cells(json.loads(line)) for line in jsonl_text.splitlines()]


def assert_csv_matches(jsonl_text: str, csv_text: str) -> None:
    """Every row and cell of the CSV, read back with :mod:`csv`, equals the JSONL's, and
    the columns are the keys in first-seen order."""
    reader = csv.DictReader(io.StringIO(csv_text, newline=""))
    read = list(reader)
    want = expected_cells(jsonl_text)
    assert reader.fieldnames == list(dict.fromkeys(key for row in want for key in row))
    assert len(read) == len(want)
    for got, row in zip(read, want, strict=True):
        assert {k: v for k, v in got.items() if v != ""} == {
            k: v for k, v in row.items() if v != ""}
        assert set(row) <= set(got)
