"""The CSV twin of a per-sample JSON Lines file, for a spreadsheet or ``pandas.read_csv``.

Why from the JSONL text and not from the rows: the CSV must say exactly what the JSONL
says, so it is derived from the written lines themselves, and every number is copied as
the JSONL spells it (``0.1`` stays ``0.1``, ``2.0`` stays ``2.0``) instead of being
formatted a second time.

The shape, fixed so that two runs give the same bytes:

- one header row, then one row per JSONL line, in the file's order;
- the columns are the union of the rows' keys in first-seen order (row by row, each
  row's keys in its own order, which canonical JSON sorts); a nested object becomes one
  column per leaf with a dotted name (``lineage.run``), an empty object stays one cell;
- a missing key and a JSON ``null`` are an empty cell; ``true``/``false`` stay those
  words; a list (or an empty object) is its compact JSON text, numbers as written;
- UTF-8, quoting by :mod:`csv` (RFC 4180: a cell with a comma, a quote or a line break
  is quoted, quotes doubled), ``\\n`` after every row.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any


class _Number(str):
    """A JSON number kept as the text the JSONL file spells it with."""


def csv_name(jsonl_name: str) -> str:
    """The CSV's file name beside ``jsonl_name``.

    >>> csv_name("unified-samples.jsonl")
    'unified-samples.csv'
    """
    return jsonl_name.removesuffix(".jsonl") + ".csv"


def jsonl_to_csv(jsonl_text: str) -> str:
    """The CSV text of a JSON Lines document of objects (see the module for the shape).

    >>> print(jsonl_to_csv('{"a":1.50,"b":{"c":"x, y"}}\\n{"a":2,"d":[1,2.0]}\\n'), end="")
    a,b.c,d
    1.50,"x, y",
    2,,"[1,2.0]"
    """
    rows = [_flat(_parse(line)) for line in jsonl_text.splitlines() if line.strip()]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([row.get(column, "") for column in columns] for row in rows)
    return out.getvalue()


def _parse(line: str) -> Mapping[str, Any]:
    value = json.loads(line, parse_int=_Number, parse_float=_Number,
                       parse_constant=_Number)
    if not isinstance(value, dict):
        raise ValueError(f"a JSON Lines row must be an object, got {line[:60]!r}")
    return value


def _flat(row: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """``row``'s cells by dotted column name."""
    cells: dict[str, str] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            cells.update(_flat(value, f"{name}."))
        else:
            cells[name] = _cell(value)
    return cells


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str) and not isinstance(value, _Number):
        return value
    return _json_text(value)


def _json_text(value: Any) -> str:
    """Compact JSON of a parsed value, its numbers as they were written."""
    if isinstance(value, _Number):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_json_text(item) for item in value) + "]"
    return "{" + ",".join(f"{json.dumps(key, ensure_ascii=False)}:{_json_text(item)}"
                          for key, item in value.items()) + "}"
