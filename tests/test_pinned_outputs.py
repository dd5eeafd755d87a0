"""Every reported number on the bundled inputs equals its pinned value (tests/golden/pins.py).

A refactor that changes a metric value, a per-sample row or a report number fails here,
naming the first place that differs. A deliberate change of a number is made by rerunning
``python tests/golden/pins.py`` and saying why in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from speech_engine import require_speech

sys.path.insert(0, str(Path(__file__).parent / "golden"))

import pins  # noqa: E402


def first_difference(expected: Any, actual: Any, where: str = "") -> str | None:
    """The path of the first value that differs, or None when the two are equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{where}/{key}: only in {'actual' if key in actual else 'pinned'}"
            found = first_difference(expected[key], actual[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{where}: {len(expected)} pinned items, {len(actual)} now"
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if expected == actual else f"{where}: pinned {expected!r}, now {actual!r}"


def test_first_difference_names_the_path() -> None:
    found = first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]})
    assert found == "/a[1]/b: pinned 2, now 3"
    assert first_difference({"a": 1}, {"a": 1}) is None


def test_reported_numbers_equal_their_pins(tmp_path: Path) -> None:
    # the example scenarios speak: either engine gives these numbers (checked with
    # SPEECHEVAL_ESPEAK=library: the mock agent's timing does not hang on the samples)
    require_speech()
    pinned = json.loads(pins.PINS.read_text(encoding="utf-8"))
    actual = json.loads(pins.canonical(pins.collect(tmp_path)))
    difference = first_difference(pinned, actual)
    assert difference is None, f"a reported number changed: {difference}"
