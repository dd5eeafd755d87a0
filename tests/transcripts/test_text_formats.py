"""Transcript formats: parse, dump, round trips, and errors that name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.formats.ctm import CTM
from speecheval.transcripts.formats.raw_tagged import RawTagged
from speecheval.transcripts.formats.seglst import SegLST
from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.formats.srt import SRT
from speecheval.transcripts.formats.stm import STM
from speecheval.transcripts.formats.textgrid import TextGrid
from speecheval.transcripts.formats.webvtt import WebVTT

SEGMENTS = (
    Segment("ep1", "S01", 0.0, 1.25, "大家好，欢迎收听"),
    Segment("ep1", "S02", 1.5, 3.0, 'say "hi" & <go>'),
    Segment("ep1", "S01", 3.0, 4.000001, "ok"),
)


def _plain(segments: tuple[Segment, ...]) -> list[tuple[str | None, float | None,
                                                        float | None, str]]:
    return [(s.speaker, s.start, s.end, s.words) for s in segments]


def test_stm_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "a.stm"
    STM(SEGMENTS).dump(path)
    assert _plain(STM.load(path).segments) == _plain(SEGMENTS)
    with pytest.raises(InputError, match="already exists"):
        STM(SEGMENTS).dump(path)


def test_seglst_roundtrip_and_bytes_stable() -> None:
    text = SegLST(SEGMENTS).dumps()
    again = SegLST.parse(text)
    assert _plain(again.segments) == _plain(SEGMENTS)
    assert again.dumps() == text


def test_textgrid_roundtrip_and_gap_intervals() -> None:
    text = TextGrid(SEGMENTS).dumps()
    # Tier S01 holds [0, 1.25] text, gap [1.25, 3.0], [3.0, 4.000001]: 3 intervals.
    assert "intervals: size = 3" in text
    back = TextGrid.parse(text, "ep1").segments
    assert sorted(_plain(back)) == sorted(_plain(SEGMENTS))


def test_textgrid_short_format() -> None:
    short = ('File type = "ooTextFile"\nObject class = "TextGrid"\n\n0\n2\n<exists>\n1\n'
             '"IntervalTier"\n"A"\n0\n2\n2\n0\n1\n"he said ""hi"""\n1\n2\n""\n')
    assert _plain(TextGrid.parse(short, "x").segments) == [("A", 0.0, 1.0, 'he said "hi"')]


def test_textgrid_refuses_overlap_within_speaker() -> None:
    with pytest.raises(ValueError, match="overlapping"):
        TextGrid([Segment("e", "A", 0, 2, "a"), Segment("e", "A", 1, 3, "b")]).dumps()


def test_srt_and_webvtt_roundtrip_to_the_millisecond() -> None:
    # Subtitle clocks hold milliseconds: 4.000001 s is written as 00:00:04,000.
    expected = [(s.speaker, s.start, round(s.end or 0, 3), s.words) for s in SEGMENTS]
    assert _plain(SRT.parse(SRT(SEGMENTS).dumps(), "ep1").segments) == expected
    assert _plain(WebVTT.parse(WebVTT(SEGMENTS).dumps(), "ep1").segments) == expected


def test_ctm_roundtrip() -> None:
    words = (Segment("r", None, 0.5, 0.75, "hello"), Segment("r", None, 1.0, 1.5, "world"))
    assert _plain(CTM.parse(CTM(words).dumps()).segments) == _plain(words)
    with pytest.raises(ValueError, match="one word"):
        CTM([Segment("r", None, 0, 1, "two words")]).dumps()


def test_raw_tagged_roundtrip_and_rules() -> None:
    # Angle-bracket text is an event tag in raw output, so "<go>" does not survive.
    back = RawTagged.parse(RawTagged(SEGMENTS).dumps(), "ep1").segments
    assert back[1].words == 'say "hi" &'
    assert _plain(back[:1] + back[2:]) == _plain(SEGMENTS[:1] + SEGMENTS[2:])
    # A speaker change without a time closes the open segment with no end time; the
    # next segment has no start; speakers carry over; events are removed.
    text = "[0][S01]a b[S02]c <music> d[4.5] e"
    assert _plain(RawTagged.parse(text, "x").segments) == [
        ("S01", 0.0, None, "a b"), ("S02", None, 4.5, "c d"), ("S02", 4.5, None, "e")]


def test_raw_tagged_untimed_text() -> None:
    assert _plain(RawTagged.parse("just text", "x").segments) == [(None, None, None,
                                                                   "just text")]


@pytest.mark.parametrize(("loader", "content", "message"), [
    (STM.load, "rec 1 A 0 1 ok\nrec 1 A 2\n", "line 2: STM line needs at least 5"),
    (STM.load, "rec 1 A 3 1 ok\n", "line 1: end time 1.0 is before start time 3.0"),
    (CTM.load, "rec 1 0 0.1 hi 0.5 extra\n", "line 1: CTM line needs 5 or 6"),
    (CTM.load, "rec 1 0 0.1 hi high\n", "line 1: confidence: not a number: 'high'"),
    (SegLST.load, '[{"session_id": "r", "words": "x", "start_time": "a"}]',
     "segment 0: start_time: not a number"),
    (SegLST.load, '{"session_id": "r"}', "JSON array"),
    (SegLST.load, "[1,", "line 1: not valid JSON"),
    (SRT.load, "1\n00:00:01,000 --> 00:00:00,500\nhi\n", "line 2: end time 0.5 is before"),
    (SRT.load, "x\n", "line 1: expected a cue number"),
    # unfixed: kept, and 3.6e17 s overflowed int64 in DER (a traceback)
    (SRT.load, "1\n00:00:01,000 --> 99999999999999:00:00,000\nhi\n",
     "line 2: timestamp 3.6e+17 s is more than 1e+08 s"),
    (WebVTT.load, "WEBVTT\n\n00:01.000 --> 0:1\nhi\n", "line 3: not a subtitle timestamp"),
    # a missing blank line: the next cue's number and timing were read as this cue's words
    (SRT.load, "1\n00:00:01,000 --> 00:00:02,000\nhello\n2\n00:00:03,000 --> 00:00:04,000\n"
     "bye\n", "line 5: a timing line inside the text of the cue at line 2"),
    (TextGrid.load, 'File type = "ooTextFile"\nObject class = "TextGrid"\n0\n', "ends early"),
    (RawTagged.load, "[2][S01]a\n[1]", "line 2: segment 'a' ends at 1.0 before"),
    # interval times are checked as every format's (unfixed: -3 was kept, 1e20
    # overflowed int64 in DER with a traceback); the interval starts on line 12
    (TextGrid.load, 'File type = "ooTextFile"\nObject class = "TextGrid"\n0\n2\n<exists>\n1\n'
     '"IntervalTier"\n"A"\n0\n2\n1\n-3\n2\n"hi"\n', "line 12: negative start time -3.0"),
    (TextGrid.load, 'File type = "ooTextFile"\nObject class = "TextGrid"\n0\n2\n<exists>\n1\n'
     '"IntervalTier"\n"A"\n0\n2\n1\n0\n1e20\n"hi"\n',
     "line 13: interval xmax: '1e20' seconds is more than 1e+08 s"),
    # a count that is no whole number names its line (unfixed: no line)
    (TextGrid.load, 'File type = "ooTextFile"\nObject class = "TextGrid"\n0\n2\n<exists>\n1\n'
     '"IntervalTier"\n"A"\n0\n2\n-1\n', "line 11: number of intervals must be a non-negative"),
    # a model's runaway time tag: unfixed, an OverflowError traceback in DER
    (RawTagged.load, "[0][S01]a\n[99999999999999999999]",
     "line 2: time tag: '99999999999999999999' seconds is more than 1e+08 s"),
])
def test_errors_name_file_and_place(tmp_path: Path, loader: object, content: str,
                                    message: str) -> None:
    path = tmp_path / "input.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        loader(path)  # type: ignore[operator]
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_webvtt_header_lines_are_skipped_and_an_arrow_line_starts_a_cue() -> None:
    """YouTube's header lines (``Kind:``, ``Language:``) belong to the header (unfixed:
    "line 3: expected 'start --> end'", exit 2, on a valid file); a timing line right after
    cue text starts the next cue, as the WebVTT parsing rules say (unfixed: it and the
    next cue's text were read as words of the first cue)."""
    doc = ("WEBVTT\nKind: captions\nLanguage: en\n\n00:00:01.000 --> 00:00:02.000\nhello\n"
           "00:00:03.000 --> 00:00:04.000\nbye\n")
    segments = WebVTT.parse(doc, "yt").segments
    assert [(s.start, s.end, s.words, s.line) for s in segments] == [
        (1.0, 2.0, "hello", 5), (3.0, 4.0, "bye", 7)]


def test_srt_text_holding_an_arrow_is_words() -> None:
    """Only two timestamps around ``-->`` make a timing line; an arrow in text stays text."""
    doc = "1\n00:00:01,000 --> 00:00:02,000\nleft --> right\n"
    assert SRT.parse(doc, "s").segments[0].words == "left --> right"


@pytest.mark.parametrize(("text", "speaker", "words"), [
    ("[S01] yes", "S01", "yes"),                      # the raw-output speaker tag
    ("[Anna] yes", "Anna", "yes"),                    # a name in brackets is a speaker
    ("[laughter] yes", None, "[laughter] yes"),       # a sound description is not
    ("[LAUGHTER] yes", None, "[LAUGHTER] yes"),       # in any case
    ("[Music]", None, "[Music]"),
    ("[inaudible] we ship", None, "[inaudible] we ship"),
    ("[BLANK_AUDIO]", None, "[BLANK_AUDIO]"),         # Whisper's silence tag
    ("[door slams] yes", None, "[door slams] yes"),   # several words: never a speaker
])
def test_a_sound_tag_opening_a_cue_is_no_speaker(text: str, speaker: str | None,
                                                 words: str) -> None:
    """SRT and WebVTT (without a voice span) read a leading one-word ``[Name]`` as the
    speaker, except a non-speech tag (unfixed: ``[laughter] yes`` was speaker
    ``laughter`` saying ``yes``)."""
    srt = SRT.parse(f"1\n00:00:01,000 --> 00:00:02,000\n{text}\n", "s").segments
    vtt = WebVTT.parse(f"WEBVTT\n\n00:01.000 --> 00:02.000\n{text}\n", "s").segments
    assert [(s.speaker, s.words) for s in srt + vtt] == [(speaker, words)] * 2


def test_a_webvtt_voice_span_names_the_speaker_of_a_sound_tag() -> None:
    """The voice span is WebVTT's own speaker marker: it wins over any bracket."""
    doc = "WEBVTT\n\n00:01.000 --> 00:02.000\n<v Anna>[laughter] yes\n"
    [segment] = WebVTT.parse(doc, "s").segments
    assert (segment.speaker, segment.words) == ("Anna", "[laughter] yes")


@pytest.mark.parametrize("encoding", ["utf-16-be", "utf-16-le"])
def test_textgrid_in_utf16_as_praat_writes_it(tmp_path: Path, encoding: str) -> None:
    """Praat saves a TextGrid with non-ASCII labels as UTF-16 with a byte-order mark
    (unfixed: "cannot read TextGrid file: 'utf-8' codec can't decode byte 0xfe", exit 2)."""
    text = TextGrid([Segment("ep", "S01", 0.5, 1.5, "你好")]).dumps().replace("\n", "\r\n")
    path = tmp_path / "praat.TextGrid"
    path.write_bytes("\ufeff".encode(encoding) + text.encode(encoding))
    [segment] = TextGrid.load(path).segments
    # line 20: 8 header lines, 6 of the tier, 4 of the gap interval 0-0.5, its "intervals
    # [2]:", then its xmin (CRLF read as one line break)
    assert (segment.session_id, segment.speaker, segment.start, segment.end,
            segment.words, segment.line) == ("praat", "S01", 0.5, 1.5, "你好", 20)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_srt_and_stm_in_utf16_with_a_byte_order_mark(tmp_path: Path, encoding: str) -> None:
    """SRT and STM saved as UTF-16 with a BOM are read like the UTF-8 files, CR LF and
    all (unfixed: "cannot read SRT file: 'utf-8' codec can't decode byte 0xff", exit 2)."""
    srt, stm = tmp_path / "talk.srt", tmp_path / "talk.stm"
    srt.write_bytes("\ufeff1\r\n00:00:01,000 --> 00:00:02,500\r\n[S01] 你好\r\n"
                    .encode(encoding))
    stm.write_bytes("\ufeffrec 1 A 0 1.5 你好\r\nrec 1 B 1.5 2 hi\r\n".encode(encoding))
    assert [(s.speaker, s.start, s.end, s.words, s.line) for s in SRT.load(srt).segments] == [
        ("S01", 1.0, 2.5, "你好", 2)]
    assert [(s.speaker, s.words, s.line) for s in STM.load(stm).segments] == [
        ("A", "你好", 1), ("B", "hi", 2)]


def test_webvtt_in_utf16_is_refused_as_its_standard_says(tmp_path: Path) -> None:
    """W3C WebVTT files are UTF-8 (the standard's parser decodes UTF-8 only): a UTF-16
    one is refused, saying so."""
    path = tmp_path / "talk.vtt"
    path.write_bytes("\ufeffWEBVTT\n\n00:01.000 --> 00:02.000\nhi\n".encode("utf-16-le"))
    with pytest.raises(InputError) as info:
        WebVTT.load(path)
    assert str(info.value) == (f"{path}: cannot read WebVTT file: it is UTF-16 (it starts "
                               "with a UTF-16 byte-order mark); WebVTT files are read as UTF-8")


def test_a_utf16_file_of_unknown_suffix_is_told_by_its_header(tmp_path: Path) -> None:
    """Without a known suffix the header decides the format, read from the UTF-16 text too
    (unfixed: a Praat TextGrid named x.grid was refused as "it is UTF-16"); the format
    then reads it its own way, so a UTF-16 WebVTT is still refused."""
    from speecheval.transcripts.formats.registry import load

    grid = tmp_path / "praat.grid"
    text = TextGrid([Segment("ep", "S01", 0.5, 1.5, "你好")]).dumps()
    grid.write_bytes("\ufeff".encode("utf-16-le") + text.encode("utf-16-le"))
    [segment] = load(grid).segments
    assert (segment.speaker, segment.words) == ("S01", "你好")
    cues = tmp_path / "talk.cues"
    cues.write_bytes("\ufeffWEBVTT\n\n00:01.000 --> 00:02.000\nhi\n".encode("utf-16-le"))
    with pytest.raises(InputError) as info:
        load(cues)
    assert str(info.value) == (f"{cues}: cannot read WebVTT file: it is UTF-16 (it starts "
                               "with a UTF-16 byte-order mark); WebVTT files are read as UTF-8")


def test_a_utf16_file_is_opened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The byte-order mark and the text come from one open (unfixed: the file was opened
    to look at its first two bytes, then again to read it)."""
    import builtins
    import io

    path = tmp_path / "praat.TextGrid"
    text = TextGrid([Segment("ep", "S01", 0.5, 1.5, "你好")]).dumps()
    path.write_bytes("\ufeff".encode("utf-16-le") + text.encode("utf-16-le"))
    opened: list[object] = []
    real_open = builtins.open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)
    assert TextGrid.load(path).segments[0].words == "你好"
    assert [Path(str(f)) for f in opened] == [path]


def test_a_line_breaks_at_line_feeds_only(tmp_path: Path) -> None:
    """U+2028 and U+001E inside a line's words stay in it (unfixed: str.splitlines cut
    the line there, "line 2: STM line needs at least 5 fields" for a one-line file);
    CR LF still ends a line."""
    path = tmp_path / "a.stm"
    path.write_bytes("rec 1 A 0 1 hello\u2028world\r\nrec 1 B 1 2 x\u001ey\r\n".encode())
    assert [(s.speaker, s.words, s.line) for s in STM.load(path).segments] == [
        ("A", "hello\u2028world", 1), ("B", "x\u001ey", 2)]


def test_unreadable_file_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.stm"
    path.write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(InputError, match="cannot read STM file"):
        STM.load(path)


def test_meeteval_examples_parse(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "meeteval-examples"
    stm = STM.load(folder / "ref.stm").segments
    # 7 lines; the third (Bob, 2-3) has an empty transcript.
    assert len(stm) == 7 and stm[2].words == "" and stm[2].speaker == "Bob"
    seglst = SegLST.load(folder / "hyp.seglst.json").segments
    assert (seglst[1].start, seglst[1].end) == (1.0, 2.5)
    ctm = CTM.load(folder / "hyp1.ctm").segments
    assert ctm[0].words == "Effort" and ctm[-1].start == 80.0
