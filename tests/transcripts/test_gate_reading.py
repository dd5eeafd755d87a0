"""How the gate reads a raw output's tail: every way a raw can be cut, in each format."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.transcripts.gate.reading import read_raw, shifted
from speecheval.transcripts.gate.repeats import repeat_regions, token_ids

TWO = "[0.00][S01]hello there[2.50][3.00][S02]fine thanks[5.00]"


@pytest.mark.parametrize(("tail", "reason"), [
    ("", None),
    ("\n<|endoftext|>\n", None),  # an event tag after the last closed segment
    ("[5.2", "half_timestamp"),
    ("[5.", "half_timestamp"),
    ("[5.20][S0", "cut_speaker_tag"),
    ("[5.20][<unk", "cut_tag"),
    ("[5.20][S01]and then we", "cut_text"),
    ("[5.20][S01]", "segment_without_text"),
    ("[5.20]", "segment_without_text"),
])
def test_raw_tagged_tails(tail: str, reason: str | None) -> None:
    reading = read_raw(TWO + tail, "raw")
    assert (reading.tail_status, reading.tail_reason) == (
        "complete" if reason is None else "truncated", reason)
    # the complete segments are kept whatever the tail
    assert [(s.start, s.end, s.speaker, s.text) for s in reading.segments][:2] == [
        (0.0, 2.5, "S01", "hello there"), (3.0, 5.0, "S02", "fine thanks")]


@pytest.mark.parametrize(("raw", "segments", "status", "reason"), [
    ("hello there how are you", [(None, "hello there how are you")], "unsupported", None),
    ("[S01]hello <laughter> there[S02]fine thanks",
     [("S01", "hello there"), ("S02", "fine thanks")], "unsupported", None),
    ("[S01]hello[S02]", [("S01", "hello")], "unsupported", None),
    ("[S01]hello[S0", [("S01", "hello")], "truncated", "cut_speaker_tag"),
])
def test_raw_tagged_without_a_time_is_plain_text(raw: str, segments: list[tuple[str | None,
                                                 str]], status: str, reason: str | None) -> None:
    """No time tag at all: every word is kept (unfixed, the text was a cut segment and
    dropped), the tail is unsupported rather than cut_text; a broken tag is still a cut."""
    reading = read_raw(raw, "raw")
    assert [(s.speaker, s.text) for s in reading.segments] == segments
    assert (reading.tail_status, reading.tail_reason) == (status, reason)
    assert (reading.has_timestamps, reading.granularity) == (False, "none")


def test_chunks_of_plain_text_are_unsupported_not_complete() -> None:
    """Chunked plain text: no chunk has timestamps, so the whole answer has none and its
    tail is ``unsupported``; a cut tag in any chunk still cuts it."""
    plain = [("chunk-000", 0.0, read_raw("first part", "raw")),
             ("chunk-001", 70.0, read_raw("second part", "raw"))]
    reading = shifted(plain)
    assert (reading.tail_status, reading.has_timestamps, reading.granularity) == (
        "unsupported", False, "none")
    assert [s.text for s in reading.segments] == ["first part", "second part"]
    cut = shifted([plain[0], ("chunk-001", 70.0, read_raw("second [S0", "raw"))])
    assert (cut.tail_status, cut.tail_reason) == ("truncated", "chunk-001: cut_speaker_tag")


def test_raw_tagged_event_tags_are_dropped_and_their_text_kept() -> None:
    reading = read_raw("[0.0][S01]hello <laughter> there[2.0][2.5][S02]so [music]", "raw")
    assert [(s.start, s.end, s.text) for s in reading.segments] == [(0.0, 2.0, "hello there")]
    assert (reading.tail_status, reading.tail_reason) == ("truncated", "cut_text")


def test_raw_tagged_keeps_the_start_of_a_cut_segment_as_a_timestamp() -> None:
    reading = read_raw(TWO + "[1284.75][S02]我们接下来", "raw")
    assert reading.timestamps == (0.0, 2.5, 3.0, 5.0, 1284.75)
    assert reading.tail_excerpt.endswith("[1284.75][S02]我们接下来")


SRT = "1\n00:00:00,000 --> 00:00:02,500\n[S01] hello\n\n2\n00:00:03,000 --> 00:00:05,000\nbye\n"


@pytest.mark.parametrize(("tail", "reason"), [
    ("", None),
    ("\n3\n00:00:05,200 --> 00:00:0", "half_timestamp"),
    ("\n3\n00:00:05,2", "half_timestamp"),
    ("\n3\n", "cue_without_timing"),
    ("\n3\n00:00:05,200 --> 00:00:06,000\n", "cut_text"),
    ("\n3\n00:00:05,200 --> 00:00:06,000\n[S0", "cut_speaker_tag"),
])
def test_srt_tails(tail: str, reason: str | None) -> None:
    reading = read_raw(SRT + tail, "srt")
    assert (reading.tail_status, reading.tail_reason) == (
        "complete" if reason is None else "truncated", reason)
    assert [(s.start, s.end, s.speaker) for s in reading.segments] == [
        (0.0, 2.5, "S01"), (3.0, 5.0, None)]


def test_srt_damage_before_the_tail_is_a_parser_error_not_a_cut() -> None:
    text = SRT.replace("00:00:03,000 --> 00:00:05,000", "00:00:03,000 --> soon")
    reading = read_raw(text + "\n3\n00:00:06,000 --> 00:00:07,000\nend\n", "srt")
    assert reading.tail_status == "complete"
    assert reading.parser_errors == ("line 6: cue timing does not parse: "
                                     "'00:00:03,000 --> soon'",)
    assert len(reading.segments) == 2


def test_webvtt_voice_and_cut_voice_tag() -> None:
    text = "WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ann>hi</v>\n\nNOTE x\n\n"
    done = read_raw(text, "vtt")
    assert (done.tail_status, [(s.speaker, s.text) for s in done.segments]) == (
        "complete", [("Ann", "hi")])
    cut = read_raw(text + "00:03.000 --> 00:04.000\n<v An", "vtt")
    assert (cut.tail_status, cut.tail_reason) == ("truncated", "cut_speaker_tag")


VERBOSE = ('{"text": "a b", "segments": [{"id": 0, "start": 0.0, "end": 2.0, "text": " a"},'
           ' {"id": 1, "start": 2.5, "end": 4.0, "text": " b"}]}')


def test_json_complete_and_cut() -> None:
    whole = read_raw(VERBOSE, "json")
    assert (whole.tail_status, whole.timestamps) == ("complete", (0.0, 2.0, 2.5, 4.0))
    # cut inside the second segment after its start: one segment salvaged, the second's
    # start (complete, followed by a comma) still counts as a timestamp
    cut = read_raw(VERBOSE[:VERBOSE.index('"end": 4.0') + 8], "json")
    assert (cut.tail_status, cut.tail_reason) == ("truncated", "cut_json")
    assert [(s.start, s.end, s.text) for s in cut.segments] == [(0.0, 2.0, "a")]
    assert cut.timestamps == (0.0, 2.0, 2.5)


def test_json_text_without_timestamps_is_plain_text() -> None:
    reading = read_raw('{"text": "hello there"}', "json")
    assert (reading.tail_status, reading.has_timestamps) == ("unsupported", False)
    assert [s.text for s in reading.segments] == ["hello there"]


def test_json_words_only_and_seglst() -> None:
    words = read_raw('{"text": "a", "words": [{"word": "a", "start": 1, "end": 1.5}]}', "json")
    assert (words.granularity, words.timestamps) == ("word", (1.0, 1.5))
    seglst = read_raw('[{"session_id": "r", "speaker": "A", "start_time": "0.5", '
                      '"end_time": 2, "words": "hi"}]', "json")
    assert [(s.speaker, s.start, s.end) for s in seglst.segments] == [("A", 0.5, 2.0)]


STM = "ep 1 A 0.00 2.50 hello there\nep 1 B 3.00 5.00 fine thanks\n"


@pytest.mark.parametrize(("text", "status", "reason", "segments"), [
    (STM, "complete", None, 2),
    (STM + "ep 1 A 5.2", "truncated", "cut_line", 2),  # the last line alone fails
    ("ep 1 A zero 2.50 hi\n" + STM, "truncated", "unparsable", 0),
])
def test_other_formats_are_read_strictly(text: str, status: str, reason: str | None,
                                         segments: int) -> None:
    reading = read_raw(text, ".stm")
    assert (reading.tail_status, reading.tail_reason, len(reading.segments)) == (
        status, reason, segments)
    assert bool(reading.parser_errors) == (status != "complete")


def test_plain_text_and_empty() -> None:
    plain = read_raw("just words, no times", "text")
    assert (plain.tail_status, plain.has_timestamps) == ("unsupported", False)
    assert read_raw(" \n", "raw").tail_status == "empty"


def _brute_force(ids: list[int], window: int) -> list[tuple[int, int, int]]:
    """Regions by the definition, with plain loops: a block at i whose copy starts p <=
    window later; consecutive i merged; the region ends at the last copy's end."""
    hits: dict[int, tuple[int, int]] = {}  # i -> (shortest p, furthest end)
    for i in range(len(ids) - window):
        for p in range(1, window + 1):
            if i + p + window <= len(ids) and ids[i:i + window] == ids[i + p:i + p + window]:
                first, end = hits.get(i, (p, 0))
                hits[i] = (first, max(end, i + p + window))
    regions: list[tuple[int, int, int]] = []
    for i in sorted(hits):
        if regions and i - 1 in hits and regions[-1][1] >= i:
            start, stop, period = regions[-1]
            regions[-1] = (start, max(stop, hits[i][1]), period)
        else:
            regions.append((i, hits[i][1], hits[i][0]))
    return regions


def test_repeat_regions_match_the_definition_on_random_loops() -> None:
    rng = np.random.default_rng(12)
    for _ in range(60):
        parts: list[int] = []
        while len(parts) < 150:
            if rng.random() < 0.3:
                block = rng.integers(0, 4, rng.integers(1, 20)).tolist()
                parts += block * int(rng.integers(2, 5))
            else:
                parts += rng.integers(0, 50, rng.integers(1, 30)).tolist()
        found = repeat_regions(np.array(parts), [1, 3, 12, 24])
        for window in (1, 3, 12, 24):
            assert [(r.start, r.stop, r.period) for r in found[window]] == _brute_force(
                parts, window)


def test_a_loop_whose_period_divides_no_window_is_found() -> None:
    # a 13-token sentence said 8 times: no block of 12, 24, 48 or 96 tokens is followed
    # at once by its copy, but every block has a copy 13 tokens later; 104 tokens, so a
    # block of n repeats for n = 24 and 48 (13 <= n and n + 13 <= 104), not for 12 (its
    # copy starts 13 > 12 later: one token apart, not adjacent) nor 96 (96 + 13 > 104)
    ids = np.array([100] + list(range(13)) * 8 + [200])
    found = repeat_regions(ids, [12, 24, 48, 96])
    assert [[(r.start, r.stop, r.period) for r in found[n]] for n in (12, 24, 48, 96)] == [
        [], [(1, 105, 13)], [(1, 105, 13)], []]


def test_token_ids_are_equal_for_equal_tokens() -> None:
    assert token_ids(["x", "y", "x", "z"]).tolist() == [0, 1, 0, 2]
