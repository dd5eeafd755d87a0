"""UEM parse/load/dump: several files, merged regions, errors naming file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.formats.uem import UEM


def test_parse_several_files_sorted_regions() -> None:
    uem = UEM.parse("b 1 10 20\n; comment\na 1 5 7\na 1 0 2\na 1 2 3\n", path="u.uem")
    assert uem.file_ids() == ("a", "b")
    # Sorted by start; [0, 2] and [2, 3] only touch, so they stay two regions.
    assert uem.regions("a") == ((0.0, 2.0), (2.0, 3.0), (5.0, 7.0))
    assert uem.regions("b") == ((10.0, 20.0),)
    assert uem.regions("c") == ()
    assert uem.segments[0].line == 1


def test_round_trip(tmp_path: Path) -> None:
    uem = UEM.parse("rec 1 1 4.5\nrec2 1 0 10\n")
    path = tmp_path / "x.uem"
    uem.dump(path)
    assert path.read_text() == "rec 1 1.000 4.500\nrec2 1 0.000 10.000\n"
    assert UEM.load(path).segments == uem.segments


@pytest.mark.parametrize(("line", "problem"), [
    ("f 1 0", "needs 4 fields"),
    ("f 1 0 1 2", "needs 4 fields"),
    ("f 1 x 1", "not a number of seconds: 'x'"),
    ("f 1 -2 1", "negative region start -2"),
    ("f 1 3 2", "region end 2 is before its start 3"),
])
def test_malformed_line_names_file_and_line(line: str, problem: str) -> None:
    with pytest.raises(InputError) as info:
        UEM.parse("f 1 0 1\n" + line, path="bad.uem")
    assert str(info.value).startswith("bad.uem: line 2: ")
    assert problem in str(info.value)
