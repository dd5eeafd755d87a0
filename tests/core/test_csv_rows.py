"""The CSV beside a per-sample JSONL file says exactly what the JSONL says, cell by cell."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from csv_check import assert_csv_matches, expected_cells

from speecheval.core.canonical_json import dumps_lines
from speecheval.core.csv_rows import csv_name, jsonl_to_csv

ROWS = [
    {"sample_id": "a", "latency_s": 0.1, "count": 3, "ok": True, "note": None,
     "lineage": {"run": "r1", "depth": {"n": 2}}, "reasons": ["x", 2.0]},
    {"sample_id": "b", "latency_s": 2.0, "text": 'he said "hi, there"\nthen left',
     "ok": False, "empty": {}},
]


def test_every_cell_equals_the_jsonl_value() -> None:
    text = dumps_lines(ROWS)
    written = jsonl_to_csv(text)
    assert_csv_matches(text, written)
    header = written.splitlines()[0].split(",")
    # first-seen order: row a's sorted keys, nested ones dotted, then row b's new keys
    assert header == ["count", "latency_s", "lineage.depth.n", "lineage.run", "note", "ok",
                      "reasons", "sample_id", "empty", "text"]


def test_a_missing_key_is_an_empty_cell_and_numbers_keep_their_spelling() -> None:
    text = '{"a":1.50,"b":1e-07}\n{"c":"x"}\n'
    rows = list(csv.reader(io.StringIO(jsonl_to_csv(text), newline="")))
    assert rows == [["a", "b", "c"], ["1.50", "1e-07", ""], ["", "", "x"]]


def test_comma_quote_and_newline_are_quoted_rfc4180() -> None:
    written = jsonl_to_csv(dumps_lines([{"text": 'a, "b"\nc'}]))
    assert written == 'text\n"a, ""b""\nc"\n'
    assert list(csv.reader(io.StringIO(written, newline=""))) == [["text"], ['a, "b"\nc']]


def test_the_same_lines_give_the_same_bytes() -> None:
    text = dumps_lines(ROWS)
    assert jsonl_to_csv(text).encode() == jsonl_to_csv(text).encode()
    assert jsonl_to_csv("") == "\n"  # no rows: an empty header line


def test_a_line_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match="must be an object"):
        jsonl_to_csv("[1, 2]\n")


def test_pandas_reads_the_same_values(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    text = dumps_lines(ROWS)
    path = tmp_path / csv_name("samples.jsonl")
    path.write_text(jsonl_to_csv(text), encoding="utf-8")
    frame = pandas.read_csv(path, dtype=str, keep_default_na=False)
    assert frame.to_dict("records") == [
        {column: row.get(column, "") for column in frame.columns}
        for row in expected_cells(text)]
