"""Word times kept: the word-level SegLST derived from a raw answer that has word times.

``data/whisper_local_response.json`` is a raw answer of our own whisper-local (tiny.en,
``transcripts run --track production_complete_file``) on the first 8 s of the test
recording of ``long_recording.py`` (seed 2026: "He bought three new chairs for the
meeting room." at 1.0 s, "She said the train to the airport leaves every twenty
minutes." at 4.38 s); tiny.en heard "He might free new characters from a meeting room."
and "She sent the train to their hot leave in 20 minutes.", with faster-whisper's word
times. Reading a committed answer keeps the test fast and needs no model.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from speecheval.transcripts.run.derive import derive_words
from speecheval.transcripts.run.systems import command, openai_compatible, whisper_local

DATA = Path(__file__).parent / "data"


def _raw(folder: Path, response: dict | None = None) -> Path:
    folder.mkdir(parents=True)
    if response is None:
        shutil.copy(DATA / "whisper_local_response.json", folder / "response.json")
    else:
        (folder / "response.json").write_text(json.dumps(response))
    return folder


def test_whisper_local_words_are_faster_whispers_word_times(tmp_path: Path) -> None:
    words = whisper_local.words(_raw(tmp_path / "r1"), "short")
    assert words is not None
    assert [w.words for w in words] == [
        "He", "might", "free", "new", "characters", "from", "a", "meeting", "room.",
        "She", "sent", "the", "train", "to", "their", "hot", "leave", "in", "20", "minutes."]
    assert (words[0].start, words[0].end) == (0.66, 1.26)
    assert (words[-1].start, words[-1].end) == (7.02, 7.5)
    assert {w.session_id for w in words} == {"short"} and all(w.speaker is None for w in words)
    # the word times lie inside their segment's (0.66-4.14 s, 4.58-7.5 s)
    segments = whisper_local.parse(tmp_path / "r1", "short")
    assert [(s.start, s.end) for s in segments] == [(0.66, 4.14), (4.58, 7.5)]
    assert words[8].end == 4.14 and words[9].start == 4.58


def test_an_answer_without_word_lists_claims_no_word_times(tmp_path: Path) -> None:
    data = json.loads((DATA / "whisper_local_response.json").read_text())
    data["segments"][1]["words"] = None  # as faster-whisper gives without word_timestamps
    assert whisper_local.words(_raw(tmp_path / "r1", data), "short") is None
    data["segments"] = [{**s, "words": None, "text": " "} for s in data["segments"]]
    assert whisper_local.words(_raw(tmp_path / "r2", data), "short") == []


def test_chunked_words_move_by_their_chunk_start(tmp_path: Path) -> None:
    raw = tmp_path / "r1"
    for index in (0, 1):
        _raw(raw / f"chunk-{index:03d}")
    meta = {"chunks": [{"index": 0, "start_s": 0.0}, {"index": 1, "start_s": 10.0}]}
    made = derive_words(raw, "whisper-local", "short", meta, cut_margin_s=1.0)
    assert made is not None
    rows = json.loads(made[0])
    assert len(rows) == 40 and [r["chunk"] for r in rows] == [0] * 20 + [1] * 20
    # SegLST times here are seconds; chunk 1's first word 0.66 + 10 = 10.66
    assert (rows[20]["start_time"], rows[20]["end_time"]) == (10.66, 11.26)
    # within 1.0 s of the cut at 10 s: chunk 0's last word ends 7.5 (in), chunk 1's
    # first starts 10.66 (across); chunk 1's last ends 17.5 (in)
    assert [rows[19]["region"], rows[20]["region"], rows[39]["region"]] == [
        "in_segment", "across_cut", "in_segment"]
    assert made[1]["regions"] == {"across_cut": 1, "in_segment": 39}
    # one chunk without word lists: no word times for the stitched transcript at all
    data = json.loads((DATA / "whisper_local_response.json").read_text())
    data["segments"][0]["words"] = None
    (raw / "chunk-001" / "response.json").write_text(json.dumps(data))
    assert derive_words(raw, "whisper-local", "short", meta, cut_margin_s=1.0) is None


def test_other_adapters_give_words_when_their_answer_has_them(tmp_path: Path) -> None:
    answer = {"text": "hi there", "words": [{"word": " hi", "start": 0.5, "end": 0.7},
                                            {"word": "there", "start": 0.7, "end": 1.1}]}
    words = openai_compatible.words(_raw(tmp_path / "openai", answer), "s")
    assert words is not None and [(w.words, w.start, w.end) for w in words] == [
        ("hi", 0.5, 0.7), ("there", 0.7, 1.1)]
    assert openai_compatible.words(_raw(tmp_path / "plain", {"text": "hi"}), "s") is None
    ctm = tmp_path / "ctm"
    ctm.mkdir()
    (ctm / "response.ctm").write_text("x 1 0.50 0.20 hi\nx 1 0.70 0.40 there\n")
    found = command.words(ctm, "s")
    assert found is not None and [(w.words, w.start) for w in found] == [
        ("hi", 0.5), ("there", 0.7)]
    stm = tmp_path / "stm"
    stm.mkdir()
    (stm / "response.stm").write_text("x 1 A 0.50 1.10 hi there\n")
    assert command.words(stm, "s") is None
