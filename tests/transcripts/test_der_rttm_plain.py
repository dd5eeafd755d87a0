"""The bytes reader of plain RTTM (:mod:`rttm_plain`) gives what the line reader gives.

Each text is read twice: through :meth:`RTTM.parse` (the plain reader when the text is
plain) and through the line reader alone (``_ColumnReader``, one turn object per line,
the checks and rounding of :class:`RttmTurn`). The turns must be equal, field by field
and microsecond by microsecond; text that is not plain must fall back and still agree.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.score import score_files
from speecheval.transcripts.formats import rttm_plain
from speecheval.transcripts.formats.rttm import RTTM, _ColumnReader
from speecheval.transcripts.formats.rttm_fields import (
    CHANNEL,
    DURATION,
    MAX_FIELDS,
    ONSET,
    PLAIN,
    TYPE,
)
from speecheval.transcripts.formats.rttm_plain import plain_columns
from speecheval.transcripts.formats.uem import UEM


def _line_reader(text: str) -> RTTM:
    return _ColumnReader(None).read(text)


def _random_plain(rng: np.random.Generator, lines: int) -> str:
    names = ["spk0", "spk1", "Ünïcødé", "a" * 40, "x"]
    files = ["rec", "EN2002a.Mix-Headset", "f"]
    out = []
    for _ in range(lines):
        digits = int(rng.integers(0, 7))
        start = float(rng.uniform(0, 99_999)) if rng.random() < 0.5 else float(
            rng.uniform(0, 10))
        duration = float(rng.uniform(0, 30))
        onset = f"{start:.{digits}f}" if rng.random() < 0.9 else str(int(start))
        span = f"{duration:.{int(rng.integers(0, 10))}f}"
        out.append(f"SPEAKER {files[int(rng.integers(0, 3))]} 1 {onset} {span} <NA> <NA> "
                   f"{names[int(rng.integers(0, 5))]} <NA> <NA>")
    return "\n".join(out) + ("\n" if rng.random() < 0.5 else "")


@pytest.mark.parametrize("seed", range(12))
def test_plain_reader_matches_the_line_reader(seed: int) -> None:
    text = _random_plain(np.random.default_rng(seed), 500)
    assert plain_columns(text.encode()) is not None
    plain, lines = RTTM.parse(text), _line_reader(text)
    assert plain.turns == lines.turns
    assert [t.line for t in plain.turns] == [t.line for t in lines.turns]
    assert plain.file_ids() == lines.file_ids()



@pytest.mark.parametrize("seed", range(4))
def test_many_distinct_names_are_coded_as_a_few_are(seed: int) -> None:
    # 40 speakers (past the 16 the comparison passes code) and 20 files, short and long
    # names: the sorted coding must give what the line reader gives, and both codings
    # the same codes on the same keys
    rng = np.random.default_rng(seed)
    names = [f"s{k}" for k in range(20)] + [f"speaker-with-a-long-name-{k}" for k in range(20)]
    text = "".join(f"SPEAKER file{int(rng.integers(0, 20))} 1 {float(rng.uniform(0, 99)):.2f} "
                   f"1.5 <NA> <NA> {names[int(rng.integers(0, 40))]} <NA> <NA>\n"
                   for _ in range(400))
    assert plain_columns(text.encode()) is not None
    plain, lines = RTTM.parse(text), _line_reader(text)
    assert plain.turns == lines.turns
    assert plain.columns.speaker_names == lines.columns.speaker_names
    keys = rng.integers(0, 12, 300).astype(np.uint64)
    few = rttm_plain._few_codes(keys)
    assert few is not None
    for got, want in zip(few, rttm_plain._sorted_codes(keys), strict=True):
        assert got.tolist() == want.tolist()
    assert rttm_plain._few_codes(np.arange(17, dtype=np.uint64)) is None  # 17 distinct

def test_long_decimals_round_as_float_does() -> None:
    # 15 digits (leading zeros count), the most the reader converts itself; 16 fall back
    text = ("SPEAKER f 1 12345.6789012345 0.00000049999999 <NA> <NA> a <NA> <NA>\n"
            "SPEAKER f 1 0.0000005 1.0000005 <NA> <NA> a <NA> <NA>\n")
    assert plain_columns(text.encode()) is not None
    assert RTTM.parse(text).turns == _line_reader(text).turns
    longer = text.replace("12345.6789012345", "12345.67890123456")
    assert plain_columns(longer.encode()) is None
    assert RTTM.parse(longer).turns == _line_reader(longer).turns


@pytest.mark.parametrize("text", [
    "SPEAKER f 1 0.5 1 <NA> <NA> a <NA>\n",  # nine fields
    "SPEAKER f 1 0.5 1 <NA> <NA> a <NA> <NA>\n\n",  # a blank line
    "; comment\nSPEAKER f 1 0.5 1 <NA> <NA> a <NA> <NA>\n",
    "SPEAKER f 1 0.5 1 <NA> <NA> a <NA> <NA>\r\n",
    "SPEAKER  f 1 0.5 1 <NA> <NA> a <NA> <NA>\n",  # two spaces
    "SPEAKER\tf 1 0.5 1 <NA> <NA> a <NA> <NA>\n",
    "SPEAKER f 1 0.5 1 <NA> <NA> a <NA>\x1f<NA>\n",  # a control byte where a space goes
    "SPEAKER f 1 0.5 1 <NA> <NA> a\x0bb <NA> <NA>\n",  # one inside a field
    # ten fields before a newline, but the first line's tenth ends at a space
    "SPEAKER f 1 0.5 1 <NA> <NA> a <NA>\n<NA> SPEAKER f 1 0.5 1 <NA> <NA> a <NA> <NA>\n",
    "speaker f 1 0.5 1 <NA> <NA> a <NA> <NA>\n",
    "SPEAKER f 2 0.5 1 <NA> <NA> a <NA> <NA>\n",  # channel kept for round trips
    "SPEAKER f 1 0.5 1 x <NA> a 0.9 <NA>\n",
    "SPEAKER f 1 1e1 1 <NA> <NA> a <NA> <NA>\n",
    "SPEAKER f 1 +1 1 <NA> <NA> a <NA> <NA>\n",
    "SPEAKER f 1 0.5 1 <NA> <NA> a\u00a0b <NA> <NA>\n",  # str.split splits at NBSP
    "SPEAKER f 1 0.5 1 <NA> <NA> a\u2028b <NA> <NA>\n",  # and str.splitlines at U+2028
    "SPKR-INFO f 1 <NA> <NA> <NA> unknown a <NA> <NA>\n",
])
def test_text_that_is_not_plain_is_read_line_by_line(text: str) -> None:
    assert plain_columns(text.encode()) is None
    assert _outcome(RTTM.parse, text) == _outcome(_line_reader, text)


def _outcome(read: Callable[[str], RTTM], text: str) -> object:
    """The turns and ignored records read, or the error (the NBSP line has 11 fields)."""
    try:
        rttm = read(text)
    except InputError as exc:
        return str(exc)
    return rttm.turns, rttm.ignored_records


@pytest.mark.parametrize(("text", "message"), [
    ("SPEAKER f 1 2e8 1 <NA> <NA> a <NA> <NA>\n", "line 1: bad onset: '2e8' seconds is more"),
    ("SPEAKER f 1 1 . <NA> <NA> a <NA> <NA>\n", "line 1: bad duration: not a number"),
    ("SPEAKER f 1 1 1 <NA> <NA> a <NA> <NA>\nSPEAKER f 1 1 -1 <NA> <NA> a <NA> <NA>\n",
     "line 2: negative duration -1"),
    ("SPEAKER f 1 100000001 1 <NA> <NA> a <NA> <NA>\n", "line 1: bad onset: '100000001'"),
])
def test_bad_times_get_the_line_readers_error(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as raised:
        RTTM.parse(text, path="x.rttm")
    assert str(raised.value).startswith("x.rttm: " + message)


def test_load_of_a_plain_file_keeps_path_and_lines(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "a.rttm"
    path.write_bytes(b"\xef\xbb\xbfSPEAKER f 1 0.5 1 <NA> <NA> a <NA> <NA>\n"
                     b"SPEAKER g 1 2 1 <NA> <NA> b <NA> <NA>\n")
    rttm = RTTM.load(path)
    assert rttm.path == str(path)
    assert [(t.file_id, t.span.start_us, t.span.end_us, t.speaker, t.line)
            for t in rttm.turns] == [("f", 500_000, 1_500_000, "a", 1),
                                     ("g", 2_000_000, 3_000_000, "b", 2)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_chunks_read_by_threads_join_in_file_order(monkeypatch: pytest.MonkeyPatch,
                                                   threads: int) -> None:
    # 120 lines in chunks of about 200 bytes (four lines): some 30 chunks, read by
    # `threads` threads at once; the codes are renumbered across chunks in order of first
    # appearance, as one chunk or the line reader gives them
    text = _random_plain(np.random.default_rng(7), 120)
    whole = plain_columns(text.encode())
    monkeypatch.setattr(rttm_plain, "_CHUNK_BYTES", 200)
    monkeypatch.setattr(rttm_plain, "_THREADS", threads)
    chunked = plain_columns(text.encode())
    assert whole is not None and chunked is not None
    assert chunked[0] == whole[0] and chunked[2] == whole[2]
    for k in (1, 3, 4, 5):
        assert chunked[k].dtype == whole[k].dtype
        assert chunked[k].tolist() == whole[k].tolist()
    assert RTTM.parse(text).turns == _line_reader(text).turns


@pytest.mark.parametrize("threads", [1, 2])
def test_a_late_chunk_that_is_not_plain_sends_the_file_to_the_line_reader(
        monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    lines = _random_plain(np.random.default_rng(8), 80).splitlines()
    lines[70] = lines[70].replace(" 1 ", " 2 ", 1)  # channel 2: not plain
    text = "\n".join(lines) + "\n"
    monkeypatch.setattr(rttm_plain, "_CHUNK_BYTES", 200)
    monkeypatch.setattr(rttm_plain, "_THREADS", threads)
    assert plain_columns(text.encode()) is None
    parsed = RTTM.parse(text)
    assert parsed.turns == _line_reader(text).turns
    assert parsed.turns[70].channel == "2"


def test_a_plain_file_keeps_no_line_array_and_still_names_the_line() -> None:
    # a plain file has one turn a line, so turn i is on line i + 1 without an array saying
    # so; the scorer's messages still name the right line (the third here)
    text = ("SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>\n"
            "SPEAKER f 1 1 1 <NA> <NA> B <NA> <NA>\n"
            "SPEAKER f 1 2 1 <NA> <NA> <NA> <NA> <NA>\n")
    rttm = RTTM.parse(text, path="ref.rttm")
    assert rttm.columns.lines is None
    assert [rttm.columns.line(i) for i in range(3)] == [1, 2, 3]
    with pytest.raises(InputError, match=r"^ref\.rttm: line 3: reference turn in file 'f' "
                                         r"has no speaker name \(<NA>\)$"):
        score_files(rttm, RTTM.parse(text.replace("<NA> <NA> <NA> <NA> <NA>",
                                                  "<NA> <NA> C <NA> <NA>")),
                    UEM.parse("f 1 0 5"))


GOOD = "SPEAKER f 1 0.5 1.25 <NA> <NA> a <NA> <NA>"


def _with(column: int, value: str) -> str:
    fields = GOOD.split()
    fields[column] = value
    return " ".join(fields) + "\n"


@pytest.mark.parametrize(("text", "message"), [
    (_with(ONSET, "-0.5"), "line 1: negative onset -0.5"),
    (_with(DURATION, "-1"), "line 1: negative duration -1"),
    (_with(ONSET, "0.5.1"), "line 1: bad onset: not a number of seconds: '0.5.1'"),
    (_with(DURATION, "."), "line 1: bad duration: not a number of seconds: '.'"),
    (_with(ONSET, "99999999999"), "line 1: bad onset: '99999999999' seconds is more"),
    (_with(DURATION, "nan"), "line 1: bad duration: not a number of seconds: 'nan'"),
    (_with(TYPE, "SPEAKERS"), "line 1: unknown RTTM record type 'SPEAKERS'"),
    (GOOD.rsplit(" ", 2)[0] + "\n", "line 1: SPEAKER record needs 9 or 10 fields, found 8"),
    (GOOD + " x\n", "line 1: SPEAKER record needs 9 or 10 fields, found 11"),
    (GOOD + "\n" + _with(ONSET, "1e400"), "line 2: bad onset: not a finite number of seconds"),
])
def test_a_malformed_line_gets_one_error_whichever_way_it_is_read(
        tmp_path, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    # the plain reader refuses the file and the line reader names the problem, so the
    # file's bytes (RTTM.load), its text (RTTM.parse) and the line reader alone give the
    # same message
    path = tmp_path / "bad.rttm"
    path.write_text(text, encoding="utf-8")
    assert plain_columns(text.encode()) is None
    errors = []
    for read in (lambda: RTTM.load(path), lambda: RTTM.parse(text, path=path),
                 lambda: _ColumnReader(str(path)).read(text)):
        with pytest.raises(InputError) as raised:
            read()
        errors.append(str(raised.value))
    assert errors[0].startswith(f"{path}: {message}")
    assert errors == [errors[0]] * 3


@pytest.mark.parametrize("column", range(MAX_FIELDS))
def test_the_plain_reader_follows_the_column_table(column: int) -> None:
    # a column with a plain value in rttm_fields must hold exactly that value for the
    # bytes reader; the others (file, times, name) may hold any value the line reader takes
    other = "2" if column in (CHANNEL, ONSET, DURATION) else "x"
    text = _with(column, other)
    assert (plain_columns(text.encode()) is None) == (column in PLAIN)
    assert _outcome(RTTM.parse, text) == _outcome(_line_reader, text)
