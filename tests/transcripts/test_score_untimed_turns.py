"""DER of a system transcript where one speaker segment has no end time.

Unfixed, one such segment made DER ``unsupported`` for the whole sample, so a cut
diarization hid its error. Now the timed turns are scored, the speech of the others is
missed, and the run's status says how many turns were left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_score_maturity import rows, sample, score

core = pytest.importorskip("pyannote.core", reason="pyannote.metrics is a test-only dependency")
pyannote_diarization = pytest.importorskip("pyannote.metrics.diarization")


def test_a_turn_without_an_end_is_missed_speech(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.ref.stm").write_text("a 1 A 0.0 4.0 hello world\na 1 B 4.0 8.0 good day\n",
                                        "utf-8")
    (tmp_path / "a.hyp.json").write_text(json.dumps([
        {"session_id": "a", "speaker": "X", "start_time": 0.0, "end_time": 4.0,
         "words": "hello world"},
        {"session_id": "a", "speaker": "Y", "start_time": 4.0, "words": "good day"}]),
        "utf-8")
    code, err, out = score(tmp_path, {"scenarios": {"meet": {"unit": "word"}}, "samples": [
        {**sample("a", "meet", "x", [{"transcript": "a.hyp.json"}]), "duration_s": 8.0}]},
        capsys)
    assert code == 0, err
    row = rows(out)[("a", 1)]
    assert row["status"]["diarization_untimed_turns"] == (
        "1 of 2 system turns have no start or end time: DER is scored over the timed "
        "turns, the reference speech of the others counts as missed")
    # By hand: collars +-0.25 s at 0, 4 and 8 leave A 0.25-3.75 and B 4.25-7.75 scored,
    # 7.0 s; X covers A, B's 3.5 s is missed: DER 3.5 / 7.0 = 0.5.
    assert (row["diarization"]["missed"], row["diarization"]["der"]) == (3.5, 0.5)
    # pyannote.metrics agrees, given its total collar width 0.5 for the same +-0.25 s
    reference = core.Annotation(uri="a")
    reference[core.Segment(0.0, 4.0)] = "A"
    reference[core.Segment(4.0, 8.0)] = "B"
    hypothesis = core.Annotation(uri="a")
    hypothesis[core.Segment(0.0, 4.0)] = "X"
    metric = pyannote_diarization.DiarizationErrorRate(collar=0.5)
    assert metric(reference, hypothesis, uem=core.Timeline([core.Segment(0.0, 8.0)])) == 0.5
