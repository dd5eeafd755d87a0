"""How canonical JSON writes floats: 9 decimals from 1e-4 up, 9 significant digits below."""

from __future__ import annotations

import json

import pytest

from speecheval.core.canonical_json import dumps_line, round_float
from speecheval.core.csv_rows import jsonl_to_csv


@pytest.mark.parametrize(("value", "written"), [
    (4.785e-13, "4.785e-13"),                 # was 0.0
    (6.138e-09, "6.138e-09"),                 # was 6e-09
    (1.234567891234e-10, "1.23456789e-10"),   # 9 significant digits
    (-2.5e-300, "-2.5e-300"),
    (9.99999999449e-05, "9.99999999e-05"),    # just under 1e-4: 9 significant digits
    (0.0001, "0.0001"),                       # 1e-4 itself: 9 decimals, as before
    (0.000123456789123, "0.000123457"),       # 9 decimals keep 6 digits: as before
    (1 / 3, "0.333333333"),
    (6.32000000000005, "6.32"),
    (2.0, "2.0"),
    (12345.678901234, "12345.678901234"),
    (-0.0, "0.0"),
    (0.0, "0.0"),
])
def test_written_text(value: float, written: str) -> None:
    assert dumps_line({"v": value}) == f'{{"v":{written}}}\n'


def test_rule_at_the_boundary() -> None:
    # the same digits either side of 1e-4: 9 decimals above, 9 significant digits below
    assert round_float(1.00000000049e-4) == 0.0001
    assert round_float(0.99999999949e-4) == 9.99999999e-05


def test_read_back_is_the_value_to_nine_significant_digits() -> None:
    for value in (4.785123456789e-13, 3.3333333333333e-5, 7.7e-200):
        back = json.loads(dumps_line({"v": value}))["v"]
        assert f"{back:.8e}" == f"{value:.8e}"
        assert back == pytest.approx(value, rel=5e-9)


def test_the_csv_twin_spells_it_as_the_jsonl_does() -> None:
    assert jsonl_to_csv(dumps_line({"p": 4.785e-13, "q": 0.5})) == "p,q\n4.785e-13,0.5\n"


def test_non_finite_is_still_refused() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        dumps_line({"v": float("nan")})
