"""JER without a collar (item 19), ``--compat md-eval|dscore`` (item 20), md-eval's ``-1``
defect (item 21): small cases worked out by hand, arithmetic in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.result import DerComponents, DiarizationScore
from speecheval.transcripts.diarization.score import score_files, total
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM


def rttm(*turns: tuple[float, float, str]) -> RTTM:
    """RTTM of file ``f`` from (start, end, speaker) tuples."""
    return RTTM.parse("\n".join(f"SPEAKER f 1 {s} {round(e - s, 6)} <NA> <NA> {k} <NA> <NA>"
                                for s, e, k in turns))


def one(ref: RTTM, hyp: RTTM, uem: str, **kwargs: object) -> DiarizationScore:
    result = score_files(ref, hyp, UEM.parse(uem), **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, dict)
    return total(result)


def seconds(c: DerComponents) -> tuple[float, float, float, float]:
    return (c.scored, c.missed, c.false_alarm, c.confusion)


# --- item 19: JER has no collar; the collared one has its own name -----------------------

# Reference A [0,10], B [10,20]; system X [0,12], Y [12,20]; UEM [0,20].
JER_REF = rttm((0, 10, "A"), (10, 20, "B"))
JER_HYP = rttm((0, 12, "X"), (12, 20, "Y"))


def test_jer_is_dscores_without_collar_and_collared_is_separate() -> None:
    score = one(JER_REF, JER_HYP, "f 1 0 20", collar_s=0.25)
    # JER (dscore: no collar). A-X: |A&X| = 10, |A|X| = 12 -> 1 - 10/12 = 1/6.
    # B-Y: |B&Y| = 8, |B|Y| = 10 -> 1 - 8/10 = 0.2. Mean (1/6 + 0.2) / 2 = 0.183333.
    assert score.jer.jer == pytest.approx((1 / 6 + 0.2) / 2)
    assert score.jer.speakers == 2
    # jer_collared: the region is [0,20] minus +-0.25 s around 0, 10 and 20, that is
    # [0.25, 9.75] + [10.25, 19.75]. A: 9.5 s; X there: [0.25, 9.75] + [10.25, 12] =
    # 11.25 s; A&X 9.5 -> 1 - 9.5/11.25 = 0.155556. B: 9.5 s; Y: [12, 19.75] = 7.75 s;
    # B&Y 7.75 -> 1 - 7.75/9.5 = 0.184211. Mean 0.169883.
    assert score.jer_collared.jer == pytest.approx((1 - 9.5 / 11.25 + 1 - 7.75 / 9.5) / 2)
    # Without a collar the two are the same number.
    no_collar = one(JER_REF, JER_HYP, "f 1 0 20", collar_s=0)
    assert no_collar.jer_collared.jer == pytest.approx(no_collar.jer.jer)  # type: ignore[arg-type]
    assert no_collar.jer.jer == score.jer.jer  # the collar does not touch JER


def test_der_json_names_both_jers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text(JER_REF.dumps())
    hyp.write_text(JER_HYP.dumps())
    assert main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["jer"] == round((1 / 6 + 0.2) / 2, 9)
    assert data["jer_collared"] == round((1 - 9.5 / 11.25 + 1 - 7.75 / 9.5) / 2, 9)
    assert "no collar" in data["jer_definition"]
    assert data["jer_collared_definition"].startswith("jer_collared")
    assert data["files"]["f"]["jer"] == data["jer"]


# --- item 20: md-eval's treatment of a speaker overlapping itself ------------------------

# Reference A [0,10] and A [4,6] (A overlaps itself over [4,6]), B [20,30];
# system X [0,5], Y [20,30]; UEM [0,30]; collar +-0.25 s.
SELF_REF = rttm((0, 10, "A"), (4, 6, "A"), (20, 30, "B"))
SELF_HYP = rttm((0, 5, "X"), (20, 30, "Y"))


def test_self_overlap_speecheval_merges() -> None:
    score = one(SELF_REF, SELF_HYP, "f 1 0 30", collar_s=0.25)
    # A merged to [0,10]; collars around 0, 10, 20, 30: scored [0.25, 9.75] (A, 9.5 s) and
    # [20.25, 29.75] (B, 9.5 s) = 19.0. X covers A up to 5: missed [5, 9.75] = 4.75.
    assert seconds(score.overlap_included) == (19.0, 4.75, 0.0, 0.0)
    assert seconds(score.overlap_excluded) == (19.0, 4.75, 0.0, 0.0)  # no overlap
    assert score.differences.reference_self_overlap.report_dict() == {"count": 1, "seconds": 2.0}


def test_self_overlap_md_eval_collars_inner_boundaries_and_counts_overlap() -> None:
    score = one(SELF_REF, SELF_HYP, "f 1 0 30", collar_s=0.25, compat="md-eval")
    # md-eval also collars 4 and 6: A is scored over [0.25, 3.75] + [4.25, 5.75] +
    # [6.25, 9.75] = 3.5 + 1.5 + 3.5 = 8.5 s, B 9.5 s: 18.0 s. Missed: [5, 5.75] + [6.25,
    # 9.75] = 0.75 + 3.5 = 4.25 s.
    assert seconds(score.overlap_included) == (18.0, 4.25, 0.0, 0.0)
    # Its -1 counts the two A records over [4,6] as overlap, so [4.25, 5.75] (1.5 s, of
    # which [5, 5.75] = 0.75 s missed) leaves the scoring: 18.0 - 1.5 = 16.5 s scored,
    # 4.25 - 0.75 = 3.5 s missed.
    assert seconds(score.overlap_excluded) == (16.5, 3.5, 0.0, 0.0)
    assert seconds(score.overlap_only) == (1.5, 0.75, 0.0, 0.0)
    assert score.compat == "md-eval"


def test_self_overlap_warning_names_count_and_seconds(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text(SELF_REF.dumps())
    hyp.write_text(SELF_HYP.dumps())
    for compat, done in (("speecheval", "merged, as speecheval and dscore do"),
                         ("md-eval", "scored as md-eval-22 does")):
        assert main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp), "--compat",
                     compat, "--duration", "30"]) == 0
        err = capsys.readouterr().err
        assert (f"warning: 1 reference turns overlap a turn of their own speaker (2 s of "
                f"self-overlap): {done}; md-eval-22 collars their inner boundaries") in err


# --- item 20: dscore cuts turns at the UEM edges ------------------------------------------

# Reference A [0,10], B [10,20]; system X [0,10], Y [10,20]; UEM [2,18]; collar +-0.25 s.
CUT_REF = rttm((0, 10, "A"), (10, 20, "B"))
CUT_HYP = rttm((0, 10, "X"), (10, 20, "Y"))


@pytest.mark.parametrize(("compat", "scored"), [
    # Boundaries 0, 10, 20: the UEM [2,18] loses only [9.75, 10.25]: 16 - 0.5 = 15.5 s.
    ("speecheval", 15.5),
    ("md-eval", 15.5),
    # dscore cuts A to [2,10] and B to [10,18]; md-eval then collars 2 and 18 as well:
    # [2.25, 9.75] + [10.25, 17.75] = 7.5 + 7.5 = 15.0 s.
    ("dscore", 15.0),
])
def test_dscore_cuts_turns_at_uem_edges(compat: str, scored: float) -> None:
    score = one(CUT_REF, CUT_HYP, "f 1 2 18", collar_s=0.25, compat=compat)
    assert seconds(score.overlap_included) == (scored, 0.0, 0.0, 0.0)
    # A crosses 2 (2 s outside), B crosses 18 (2 s outside): counted in every mode.
    assert score.differences.reference_cut_at_uem.report_dict() == {"count": 2, "seconds": 4.0}


def test_dscore_jer_is_on_10_ms_frames() -> None:
    ref, hyp = rttm((0.005, 1.005, "A")), rttm((0, 1, "X"))
    # Continuous: |A&X| = [0.005, 1] = 0.995, |A|X| = [0, 1.005] = 1.005:
    # JER 1 - 0.995/1.005 = 0.00995.
    assert one(ref, hyp, "f 1 0 2", collar_s=0).jer.jer == pytest.approx(1 - 0.995 / 1.005)
    # dscore: frame i (t = 0.01 i) is A's when 0.005 <= t < 1.005: frames 1..100;
    # X's when 0 <= t < 1: frames 0..99. Intersection 99 frames, union 101:
    # JER 1 - 99/101 = 0.019802.
    framed = one(ref, hyp, "f 1 0 2", collar_s=0, compat="dscore")
    assert framed.jer.jer == pytest.approx(1 - 99 / 101)
    assert framed.differences.off_frame_grid.report_dict() == {"count": 2, "seconds": 0.01}


def test_dscore_and_md_eval_skip_files_without_reference() -> None:
    ref = rttm((0, 4, "A"))
    hyp = RTTM.parse("SPEAKER f 1 0 4 <NA> <NA> X <NA> <NA>\n"
                     "SPEAKER g 1 0 3 <NA> <NA> X <NA> <NA>")
    uem = "f 1 0 4\ng 1 0 5"
    # speecheval scores g: 3 s of false alarm against no reference speech.
    assert seconds(one(ref, hyp, uem, collar_s=0).overlap_included) == (4.0, 0.0, 3.0, 0.0)
    for compat in ("md-eval", "dscore"):
        score = one(ref, hyp, uem, collar_s=0, compat=compat)
        # md-eval never sees file g (it loops over the reference files).
        assert seconds(score.overlap_included) == (4.0, 0.0, 0.0, 0.0)
        assert score.differences.unscored_files.report_dict() == {"count": 1, "seconds": 3.0}


@pytest.mark.parametrize("compat", ["md-eval", "dscore"])
def test_an_unscored_file_counts_only_its_turns_inside_the_uem(compat: str) -> None:
    """File g has no reference turns, so md-eval and dscore leave it out; its system
    turns cross the UEM's edges, and the UEM has two regions that touch. Only the time
    inside the UEM is counted: X [1, 6] inside [0, 3] + [3, 5] = [0, 5]: 4 s; Y [2, 9.5]
    inside [0, 5]: 3 s, and inside [7, 8]: 1 s; 4 + 3 + 1 = 8 s."""
    ref = rttm((0, 4, "A"))
    hyp = RTTM.parse("SPEAKER f 1 0 4 <NA> <NA> X <NA> <NA>\n"
                     "SPEAKER g 1 1 5 <NA> <NA> X <NA> <NA>\n"
                     "SPEAKER g 1 2 7.5 <NA> <NA> Y <NA> <NA>")
    uem = "f 1 0 4\ng 1 0 3\ng 1 3 5\ng 1 7 8"
    score = one(ref, hyp, uem, collar_s=0, compat=compat)
    assert score.differences.unscored_files.report_dict() == {"count": 1, "seconds": 8.0}


@pytest.mark.parametrize(("compat", "ref_text", "uem_text", "message"), [
    ("dscore", "SPEAKER f 1 0 0 <NA> <NA> A <NA> <NA>\nSPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>",
     "f 1 0 5", "line 1: --compat dscore: zero-length turn"),
    ("md-eval", "NOSCORE f 1 0 1 <NA> <NA> <NA> <NA> <NA>\n"
                "SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>", "f 1 0 5",
     "line 1: --compat md-eval: NOSCORE records are not reproduced"),
    ("md-eval", "SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>", "f 1 0 5\nf 1 7 7",
     "line 2: --compat md-eval: empty region of file 'f'"),
])
def test_compat_refuses_what_it_cannot_reproduce(compat: str, ref_text: str, uem_text: str,
                                                 message: str) -> None:
    ref = RTTM.parse(ref_text, path="ref.rttm")
    with pytest.raises(InputError, match=message):
        score_files(ref, ref, UEM.parse(uem_text, path="x.uem"), compat=compat)  # type: ignore[arg-type]
    score_files(ref, ref, UEM.parse(uem_text), collar_s=0.25)  # speecheval scores it


# --- item 21: md-eval-22's -1 defect at collar 0 -----------------------------------------

# Reference A [0,10], B [2,5], B [5,20]; UEM [0,8]; collar 0; system X [0,8].
DEFECT_REF = rttm((0, 10, "A"), (2, 5, "B"), (5, 20, "B"))
DEFECT_HYP = rttm((0, 8, "X"))


def test_md_eval_overlap_defect_speecheval_is_right() -> None:
    score = one(DEFECT_REF, DEFECT_HYP, "f 1 0 8", collar_s=0)
    # Reference overlap (A with B) is [2, 8] inside the UEM, so the overlap-excluded
    # region is [0, 2]: A alone, X correct -> scored 2.0 s, no error.
    assert seconds(score.overlap_excluded) == (2.0, 0.0, 0.0, 0.0)
    # md-eval's -1 loop closes the zone [2,5] at 5, sees the zone [5,10] open at the same
    # instant and stays "evaluating" from 5 until the UEM ends at 8: it scores [5, 8].
    assert score.differences.md_eval_overlap_defect.report_dict() == {"count": 1, "seconds": 3.0}


def test_md_eval_overlap_defect_reproduced_under_compat() -> None:
    score = one(DEFECT_REF, DEFECT_HYP, "f 1 0 8", collar_s=0, compat="md-eval")
    # md-eval-22 -1: [0,2] A (2 s) + [5,8] A and B (2 x 3 = 6 s) = 8.0 s of speaker time;
    # X maps to A, so B is missed over [5,8]: 3.0 s.
    assert seconds(score.overlap_excluded) == (8.0, 3.0, 0.0, 0.0)
    # The three variants still add up: overlap only is the remaining [2, 5] (2 x 3 s).
    assert seconds(score.overlap_only) == (6.0, 3.0, 0.0, 0.0)
