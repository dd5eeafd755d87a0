"""``formats.load`` picks the transcript format by suffix, else by the file's header, and a
format joins the registry by defining its class."""

from __future__ import annotations

import builtins
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts import formats
from speecheval.transcripts.formats import registry
from speecheval.transcripts.formats.ctm import CTM
from speecheval.transcripts.formats.document import SessionFileDocument
from speecheval.transcripts.formats.raw_tagged import RawTagged
from speecheval.transcripts.formats.seglst import SegLST
from speecheval.transcripts.formats.srt import SRT
from speecheval.transcripts.formats.stm import STM
from speecheval.transcripts.formats.textgrid import TextGrid
from speecheval.transcripts.formats.webvtt import WebVTT

VTT = "WEBVTT\n\n00:01.000 --> 00:02.500\n<v S01>hello there\n"


def test_every_transcript_format_is_registered_by_its_suffix() -> None:
    assert formats.suffixes() == (".ctm", ".json", ".srt", ".stm", ".textgrid", ".txt", ".vtt")
    chosen = {suffix: formats.format_of(f"a{suffix.upper()}") for suffix in formats.suffixes()}
    assert chosen == {".ctm": CTM, ".json": SegLST, ".srt": SRT, ".stm": STM,
                      ".textgrid": TextGrid, ".txt": RawTagged, ".vtt": WebVTT}
    assert [cls for cls in chosen.values() if cls.word_timed] == [CTM]
    assert [cls for cls in chosen.values() if cls.raw_text] == [RawTagged]


def test_load_reads_in_the_chosen_format_with_the_session(tmp_path: Path) -> None:
    path = tmp_path / "ep1.vtt"
    path.write_text(VTT, encoding="utf-8")
    (segment,) = formats.load(path).segments
    assert (segment.session_id, segment.speaker, segment.start, segment.end, segment.words) == (
        "ep1", "S01", 1.0, 2.5, "hello there")
    assert formats.load(path, "sample-7").segments[0].session_id == "sample-7"
    stm = tmp_path / "ref.stm"
    stm.write_text("rec 1 A 0 1 hi\n", encoding="utf-8")
    # STM lines name their session: the one given for session-less formats is not used
    assert formats.load(stm, "sample-7").segments[0].session_id == "rec"


@pytest.mark.parametrize(("text", "expected"), [
    (VTT, WebVTT),
    ('\ufeffFile type = "ooTextFile"\nObject class = "TextGrid"\n', TextGrid),
])
def test_an_unclaimed_suffix_is_read_by_its_header(tmp_path: Path, text: str,
                                                    expected: type) -> None:
    path = tmp_path / "captions.subs"
    path.write_text(text, encoding="utf-8")
    assert formats.format_of(path) is expected


def test_an_unclaimed_suffix_is_read_once(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The header that picks the format and the segments come from one reading of the
    file (unfixed: opened twice, to sniff and again to parse)."""
    path = tmp_path / "captions.subs"
    path.write_text(VTT, encoding="utf-8")
    opened: list[object] = []
    real_open = builtins.open

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(path):
            opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)  # pathlib's reads go through io.open
    (segment,) = formats.load(path).segments
    assert len(opened) == 1
    assert (segment.session_id, segment.speaker, segment.start, segment.end, segment.words) == (
        "captions", "S01", 1.0, 2.5, "hello there")


def test_an_unknown_format_names_the_file_and_the_suffixes(tmp_path: Path) -> None:
    path = tmp_path / "notes.doc"
    path.write_text("hello\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        formats.load(path)
    assert str(caught.value) == (
        f"{path}: unknown transcript format .doc; expected a suffix among .ctm, .json, .srt, "
        ".stm, .textgrid, .txt, .vtt")


@pytest.fixture()
def clean_registry() -> Iterator[None]:
    before = dict(registry._BY_SUFFIX)
    yield
    registry._BY_SUFFIX.clear()
    registry._BY_SUFFIX.update(before)


@pytest.mark.usefixtures("clean_registry")
def test_a_new_format_is_one_class(tmp_path: Path) -> None:
    class Lines(SessionFileDocument):
        """One segment per line, no times: a format written only for this test."""

        format_name = "lines"
        suffixes = (".lines",)

        @classmethod
        def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> Self:
            from speecheval.transcripts.formats.segment import Segment
            return cls(Segment(session_id, None, None, None, line, line=n)
                       for n, line in enumerate(text.splitlines(), start=1))

        def dumps(self) -> str:
            return "".join(s.words + "\n" for s in self.segments)

    path = tmp_path / "x.lines"
    path.write_text("a b\nc\n", encoding="utf-8")
    assert [s.words for s in formats.load(path).segments] == ["a b", "c"]
    assert ".lines" in formats.suffixes()

    with pytest.raises(ValueError, match="suffix '.lines' is claimed by"):
        class Clash(Lines):
            suffixes = (".lines",)
