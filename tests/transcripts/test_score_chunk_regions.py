"""A chunked run's rates inside chunks and near its cuts, scored apart (段内表现 / 跨切点惩罚).

One sample of 20 s cut once at 10 s with a 1 s margin. The system gets the chunks right
but, near the cut, drops a word, repeats one and calls bob by alice's label in the second
chunk: every error of the run but one substitution is an across-cut penalty, and the
split says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_score_maturity import rows, score

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.score.chunk_regions import Cuts, split, time_regions

REFERENCE = ("s 1 alice 0.0 4.0 one two three four\n"
             "s 1 bob 9.5 10.5 five six\n"
             "s 1 alice 12.0 16.0 seven eight nine ten\n")
HYPOTHESIS = [
    {"session_id": "s", "speaker": "S1", "start_time": 0.0, "end_time": 4.0,
     "words": "one two three four"},
    {"session_id": "s", "speaker": "S2", "start_time": 9.5, "end_time": 9.9, "words": "five"},
    {"session_id": "s", "speaker": "S1", "start_time": 9.9, "end_time": 10.6,
     "words": "six six"},
    {"session_id": "s", "speaker": "S1", "start_time": 12.0, "end_time": 16.0,
     "words": "seven eight nine tan"}]


def _manifest(runs: list[dict[str, object]]) -> dict[str, object]:
    return {"scenarios": {"meet": {"unit": "word"}}, "samples": [
        {"id": "s", "scenario": "meet", "duration_s": 20.0, "source": "x",
         "speakers": ["alice", "bob"], "reference": {"transcript": "s.ref.stm"},
         "runs": runs}]}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "s.ref.stm").write_text(REFERENCE, "utf-8")
    (tmp_path / "s.hyp.json").write_text(json.dumps(HYPOTHESIS), "utf-8")
    return tmp_path


def test_the_cut_penalty_is_apart_from_the_in_chunk_errors(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = score(folder, _manifest([
        {"transcript": "s.hyp.json", "chunk_cuts": {"cuts_s": [10.0], "margin_s": 1.0}},
        {"repeat": 2, "failed": "timeout", "chunk_cuts": {"cuts_s": [10.0], "margin_s": 1.0}}]),
        capsys)
    assert code == 0, err
    found = rows(out)[("s", 1)]["chunk_regions"]
    inside, near = found["in_segment"], found["across_cut"]
    assert (found["granularity"], found["cuts"], found["cut_margin_s"]) == ("segments", 1, 1.0)
    # in_segment: the 0-4 s and 12-16 s segments (neither within 1 s of 10 s), 8 words,
    # 'ten' -> 'tan' one substitution: WER 1/8; cpWER the same (alice <-> S1).
    assert (inside["wer"], inside["substitutions"], inside["length"]) == (0.125, 1, 8)
    assert (inside["cpwer"], inside["cp_errors"]) == (0.125, 1)
    # across_cut: 'five six' against 'five' + 'six six': one insertion, WER 1/2. cp:
    # bob <-> S1 ('six six': 1 substitution) with S2 ('five') a false alarm (1 insertion)
    # is 2 errors; bob <-> S2 ('five': 1 deletion) with S1 ('six six', 2 insertions) is 3:
    # cpWER 2/2.
    assert (near["wer"], near["insertions"], near["length"]) == (0.5, 1, 2)
    assert (near["cpwer"], near["cp_errors"]) == (1.0, 2)
    # DER, +-0.25 s collars at 0, 4, 9.5, 10.5, 12, 16. in_segment ([0, 9] and [11, 20]):
    # alice 0.25-3.75 and 12.25-15.75, 7.0 s, S1 on it: 0. across_cut ([9, 11]): bob
    # 9.75-10.25, 0.5 s, S2 on 9.75-9.9 and S1 on 9.9-10.25: bob <-> S1, 0.15 s confused:
    # 0.15 / 0.5 = 0.3.
    assert (inside["der"]["scored"], inside["der"]["der"]) == (7.0, 0.0)
    assert (near["der"]["scored"], near["der"]["confusion"], near["der"]["der"]) == (
        0.5, 0.15, 0.3)
    # The failed repeat is empty output: every reference word deleted in both regions
    failed = rows(out)[("s", 2)]["chunk_regions"]
    assert (failed["in_segment"]["deletions"], failed["across_cut"]["deletions"]) == (8, 2)
    pooled = json.loads((out / "scenarios.json").read_text("utf-8"))["scenarios"]["meet"][
        "chunk_regions"]
    # pooled over both repeats: in_segment (1 + 8) / (8 + 8), across_cut (1 + 2) / (2 + 2)
    assert (pooled["runs"], pooled["in_segment"]["wer"], pooled["across_cut"]["wer"]) == (
        2, 9 / 16, 0.75)
    report = (out / "scenarios.md").read_text("utf-8")
    assert "### Chunked runs: inside chunks and near cuts, apart" in report
    # cp across: (2 + 2 deleted) / (2 + 2); DER across: (0.15 + 0.5 missed) / (0.5 + 0.5)
    assert ("| meet | across_cut | 2 | WER | 75.00% | 3 | 4 | 100.00% | 65.00% | 1.000 |"
            in report)
    assert "Chunked runs: inside chunks and near cuts, apart" in (
        out / "report.html").read_text("utf-8")


def test_a_manifest_without_cuts_has_no_region_key(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = score(folder, _manifest([{"transcript": "s.hyp.json"}]), capsys)
    assert code == 0, err
    assert "chunk_regions" not in rows(out)[("s", 1)]
    assert "inside chunks and near cuts" not in (out / "scenarios.md").read_text("utf-8")


def test_regions_in_time_merge_close_cuts_and_stay_inside_the_audio() -> None:
    # cuts at 0.5 (window clipped at 0), 5 and 6 (windows 4-6 and 5-7 merge), margin 1
    assert time_regions(Cuts((0.5, 5.0, 6.0), 1.0), 8.0) == {
        "in_segment": ((1.5, 4.0), (7.0, 8.0)), "across_cut": ((0.0, 1.5), (4.0, 7.0))}


def test_a_segment_without_times_cannot_be_placed() -> None:
    assert split([Segment("s", None, 1.0, None, "x")], Cuts((10.0,), 1.0)) is None


def test_a_negative_margin_is_refused_and_named(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = score(folder, _manifest([
        {"transcript": "s.hyp.json", "chunk_cuts": {"cuts_s": [10.0], "margin_s": -1.0}}]),
        capsys)
    assert code == 2 and not out.exists()
    assert "samples[0].runs[0].chunk_cuts.margin_s" in err
