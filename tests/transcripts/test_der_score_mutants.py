"""Cases of the DER entry point that no other test reached, found by mutation testing
(docs/testing.md): each assertion fails on a one-token change of
``transcripts/diarization/score.py`` that the rest of the suite let through."""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.score import score_files
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM


def rttm(*turns: str, path: str | None = None) -> RTTM:
    """RTTM of ``"file start duration speaker"`` turns, one line each."""
    return RTTM.parse("".join(f"SPEAKER {f} 1 {s} {d} <NA> <NA> {who} <NA> <NA>\n"
                              for f, s, d, who in (turn.split() for turn in turns)), path=path)


def test_a_system_naming_some_speakers_only_is_refused_at_its_first_unnamed_turn() -> None:
    # lines 2 and 3 have no speaker name, line 1 has: mixed labelling, refused at line 2,
    # naming the system's file
    hyp = rttm("f 0 1 X", "f 1 1 <NA>", "f 2 1 <NA>", path="sys.rttm")
    with pytest.raises(InputError) as info:
        score_files(rttm("f 0 1 A"), hyp, UEM.parse("f 1 0 5"))
    assert str(info.value) == ("sys.rttm: line 2: system turn in file 'f' has no speaker "
                               "name (<NA>)")


def test_the_main_protocol_is_the_default() -> None:
    # no track, mapping region or compat given: the main track, mapped over the UEM,
    # speecheval's own definition
    scores = score_files(rttm("f 0 1 A"), rttm("f 0 1 X"), UEM.parse("f 1 0 5"))
    assert isinstance(scores, dict)
    score = scores["f"]
    assert (score.track, score.mapping_region, score.compat) == ("main", "uem", "speecheval")


def test_speecheval_scores_file_ids_md_eval_would_strip() -> None:
    # md-eval and dscore strip '.' from UEM file ids and are refused such a UEM file;
    # speecheval's own definition reads it as written: A and X agree on [0, 1), so the
    # file is scored with nothing missed
    uem = UEM.parse("f.x 1 0 5", path="all.uem")
    scores = score_files(rttm("f.x 0 1 A"), rttm("f.x 0 1 X"), uem)
    assert isinstance(scores, dict)
    assert scores["f.x"].overlap_included.missed_us == 0
    assert scores["f.x"].overlap_included.scored_us == 500_000  # 1 s minus the 0.25 s collars
