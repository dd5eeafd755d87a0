"""RTTM parse/load/dump: round trips, several files, and errors naming file and line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.formats.rttm import RTTM, RttmTurn

TEXT = """\
; a comment
# another comment

SPEAKER rec.A 1 0.000 1.500 <NA> <NA> alice <NA> <NA>
SPKR-INFO rec.A 1 <NA> <NA> <NA> unknown alice <NA> <NA>
SPEAKER rec.B 1 3.25 0.5 <NA> <NA> bob 0.9
SPEAKER rec.A 1 2 1 <NA> <NA> bob <NA> <NA>
"""


def test_parse_keeps_speaker_records_and_counts_others() -> None:
    rttm = RTTM.parse(TEXT, path="x.rttm")
    assert [(t.file_id, t.start, t.end, t.speaker) for t in rttm.turns] == [
        ("rec.A", 0.0, 1.5, "alice"), ("rec.B", 3.25, 3.75, "bob"), ("rec.A", 2.0, 3.0, "bob")]
    assert rttm.ignored_records == 1  # the SPKR-INFO line
    assert rttm.turns[1].confidence == "0.9" and rttm.turns[1].slat == "<NA>"  # 9 fields
    assert rttm.turns[0].line == 4
    assert rttm.file_ids() == ("rec.A", "rec.B")
    assert [t.speaker for t in rttm.by_file()["rec.A"]] == ["alice", "bob"]


def test_dump_is_canonical_and_round_trips(tmp_path: Path) -> None:
    rttm = RTTM.parse(TEXT)
    text = rttm.dumps()
    assert text.splitlines()[1] == "SPEAKER rec.B 1 3.250 0.500 <NA> <NA> bob 0.9 <NA>"
    path = tmp_path / "out.rttm"
    rttm.dump(path)
    again = RTTM.load(path)
    assert again.turns == rttm.turns  # ``line`` is not part of equality
    assert again.dumps() == text
    with pytest.raises(InputError, match="already exists"):
        rttm.dump(path)


def test_float_noise_is_written_at_the_microsecond() -> None:
    turn = RttmTurn.from_seconds("f", 6.32000000000005, 0.1 + 0.2, "s")
    assert turn.to_line() == "SPEAKER f 1 6.320 0.300 <NA> <NA> s <NA> <NA>"


@pytest.mark.parametrize(("line", "problem"), [
    ("SPEAKER f 1 0 1 <NA> <NA> s", "needs 9 or 10 fields, found 8"),
    ("SPEAKER f 1 0 1 <NA> <NA> s <NA> <NA> extra", "needs 9 or 10 fields, found 11"),
    ("SPEAKER f 1 abc 1 <NA> <NA> s <NA> <NA>", "bad onset"),
    ("SPEAKER f 1 0 inf <NA> <NA> s <NA> <NA>", "bad duration"),
    ("SPEAKER f 1 -1 1 <NA> <NA> s <NA> <NA>", "negative onset -1"),
    ("SPEAKER f 1 0 -0.5 <NA> <NA> s <NA> <NA>", "negative duration -0.5"),
    ("SPEECH f 1 0 1 <NA> <NA> s <NA> <NA>", "unknown RTTM record type 'SPEECH'"),
])
def test_malformed_line_names_file_and_line(line: str, problem: str) -> None:
    text = "SPEAKER f 1 0 1 <NA> <NA> s <NA> <NA>\n" + line + "\n"
    with pytest.raises(InputError) as info:
        RTTM.parse(text, path="bad.rttm")
    assert info.value.path == "bad.rttm"
    assert str(info.value).startswith("bad.rttm: line 2: ")
    assert problem in str(info.value)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\u001c", "\u001e"])
def test_a_line_breaks_at_line_feeds_only(separator: str) -> None:
    """A comment holding U+2028 (or another character :meth:`str.splitlines` breaks at)
    is one line: the bad line after it is line 3 (unfixed: "line 4")."""
    text = (f"SPEAKER f 1 0 1 <NA> <NA> s <NA> <NA>\n# see{separator}notes\n"
            "SPEAKER f 1 abc 1 <NA> <NA> s <NA> <NA>\n")
    with pytest.raises(InputError, match=r"^bad\.rttm: line 3: bad onset"):
        RTTM.parse(text, path="bad.rttm")


def test_line_numbers_add_up_over_chunks() -> None:
    """20 000 comment lines of 60 characters (1.2 MB, past the first 1 MiB chunk of the
    line reader), CR LF line ends: the bad line after them is line 20 002."""
    comments = ("# " + "x" * 56 + "\r\n") * 20_000
    text = ("SPEAKER f 1 0 1 <NA> <NA> s <NA> <NA>\r\n" + comments
            + "SPEAKER f 1 abc 1 <NA> <NA> s <NA> <NA>\r\n")
    with pytest.raises(InputError, match=r"^bad\.rttm: line 20002: bad onset"):
        RTTM.parse(text, path="bad.rttm")


def test_load_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read RTTM file"):
        RTTM.load(tmp_path / "absent.rttm")


@pytest.mark.parametrize("text", [
    # plain: read by the bytes reader, no line array
    "SPEAKER a 1 0.5 1 <NA> <NA> x <NA> <NA>\nSPEAKER b 1 2 1 <NA> <NA> y <NA> <NA>\n",
    # not plain: a comment, another record, a confidence and a tenth field kept
    "; note\nSPEAKER a 1 0.5 1 <NA> <NA> x 0.9 <NA>\n"
    "NOSCORE a 1 0 1 <NA> <NA> <NA> <NA> <NA>\nSPEAKER b 2 2 1 w <NA> y <NA> 7\n",
])
def test_renamed_is_every_turn_moved_to_one_file(text: str) -> None:
    rttm = RTTM.parse(text, path="in.rttm")
    renamed = rttm.renamed("sample")
    # what the sample readers did before, one turn object at a time
    assert renamed == rttm.with_turns(replace(t, file_id="sample") for t in rttm.turns)
    assert renamed.file_ids() == ("sample",)
    assert [t.line for t in renamed.turns] == [t.line for t in rttm.turns]
    assert list(renamed.columns.spans_by_file()) == ["sample"]
    assert RTTM.parse("").renamed("sample").file_ids() == ()
