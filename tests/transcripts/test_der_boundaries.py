"""DER at the collar edge, at a UEM edge, and overlap-excluded DER with system overlap.

Hand-worked cases that need neither md-eval nor ../shared. Definitions (md-eval's): a
collar of c seconds makes ``[b - c, b + c]`` around every reference boundary b unscored;
the UEM limits scoring to its regions; overlap-excluded DER (md-eval ``-1``) scores only
where the *reference* has at most one speaker, so system overlap there still counts.
Components are compared in whole microseconds (``*_us``), so a one-microsecond (or 10 ms)
step across a boundary shows exactly. Where perl and md-eval-22.pl are present (see
md_eval_tool.py) every case is also run through md-eval, with and without ``-1``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from md_eval_tool import SKIP_REASON, find_md_eval, md_eval_components

from speecheval.transcripts.diarization.result import DerComponents, DiarizationScore
from speecheval.transcripts.diarization.score import score_files, total
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

Turns = tuple[tuple[float, float, str], ...]
MD_EVAL = find_md_eval()


def rttm_text(turns: Turns) -> str:
    """RTTM lines of file ``f`` from (start, end, speaker) tuples."""
    return "".join(f"SPEAKER f 1 {s} {round(e - s, 6)} <NA> <NA> {k} <NA> <NA>\n"
                   for s, e, k in turns)


def score(ref: Turns, hyp: Turns, uem: str, collar_s: float) -> DiarizationScore:
    """speecheval's score; where md-eval is available, checked against it first."""
    ref_text, hyp_text = rttm_text(ref), rttm_text(hyp)
    result = score_files(RTTM.parse(ref_text), RTTM.parse(hyp_text), UEM.parse(uem),
                         collar_s=collar_s)
    assert isinstance(result, dict)
    ours = total(result)
    if MD_EVAL is not None:
        with tempfile.TemporaryDirectory() as tmp:
            for exclude, components in ((False, ours.overlap_included),
                                        (True, ours.overlap_excluded)):
                theirs = md_eval_components(MD_EVAL, Path(tmp), ref_text, hyp_text,
                                            uem + "\n", collar_s, exclude)
                assert seconds(components) == pytest.approx(theirs, abs=2e-6), exclude
    return ours


def seconds(c: DerComponents) -> tuple[float, float, float, float]:
    return (c.scored, c.missed, c.false_alarm, c.confusion)


def us(c: DerComponents) -> tuple[int, int, int, int]:
    """(scored, missed, false alarm, confusion) in microseconds."""
    return (c.scored_us, c.missed_us, c.false_alarm_us, c.confusion_us)


# --- collar edge ------------------------------------------------------------------------

REF_1_4: Turns = ((1.0, 4.0, "A"),)   # boundaries 1 and 4: with c = 0.25, no-score zones
#                                    [0.75, 1.25] and [3.75, 4.25]; scored [1.25, 3.75] = 2.5 s


def test_false_alarm_ending_exactly_at_the_collar_edge_is_not_scored() -> None:
    # system [1, 4.25]: its extra [4, 4.25] lies inside [3.75, 4.25] -> no false alarm
    s = score(REF_1_4, ((1.0, 4.25, "X"),), "f 1 0 6", 0.25)
    assert us(s.overlap_included) == (2_500_000, 0, 0, 0)
    # the region scored: [0, 0.75] + [1.25, 3.75] + [4.25, 6] = 0.75 + 2.5 + 1.75 = 5 s
    assert s.overlap_included.region_us == 5_000_000
    # system [1, 4.26]: [4.25, 4.26] is outside the zone -> 10 ms false alarm
    s = score(REF_1_4, ((1.0, 4.26, "X"),), "f 1 0 6", 0.25)
    assert us(s.overlap_included) == (2_500_000, 0, 10_000, 0)


def test_miss_starting_exactly_at_the_collar_edge_is_not_scored() -> None:
    # system [1, 3.75]: the missed [3.75, 4] lies inside the zone -> nothing missed;
    # system [1, 3.74]: [3.74, 3.75] is scored -> 10 ms missed
    s = score(REF_1_4, ((1.0, 3.75, "X"),), "f 1 0 6", 0.25)
    assert us(s.overlap_included) == (2_500_000, 0, 0, 0)
    s = score(REF_1_4, ((1.0, 3.74, "X"),), "f 1 0 6", 0.25)
    assert us(s.overlap_included) == (2_500_000, 10_000, 0, 0)


def test_confusion_up_to_the_collar_edge() -> None:
    # reference A [1, 4], B [4, 7]; system X [1, 4.25], Y [4.25, 7]. Zones around 1, 4, 7:
    # [0.75, 1.25], [3.75, 4.25], [6.75, 7.25]. X's extra [4, 4.25] over B is in the zone:
    # no confusion. Scored: A [1.25, 3.75] 2.5 s + B [4.25, 6.75] 2.5 s = 5 s, all correct.
    ref: Turns = ((1.0, 4.0, "A"), (4.0, 7.0, "B"))
    s = score(ref, ((1.0, 4.25, "X"), (4.25, 7.0, "Y")), "f 1 0 8", 0.25)
    assert us(s.overlap_included) == (5_000_000, 0, 0, 0)
    # Y starting at 4.26 leaves X on B for [4.25, 4.26] scored: 10 ms confusion
    s = score(ref, ((1.0, 4.26, "X"), (4.26, 7.0, "Y")), "f 1 0 8", 0.25)
    assert us(s.overlap_included) == (5_000_000, 0, 0, 10_000)


# --- UEM edge ---------------------------------------------------------------------------

def test_speech_ending_exactly_at_the_uem_start_is_not_scored() -> None:
    # UEM [2, 6]; reference A [0, 2] ends at the UEM start, B [2, 5]: only B is scored,
    # 3 s; system X [0, 2] ends at the UEM start too -> no false alarm; B is missed
    # entirely (no system speech in [2, 5]).
    ref: Turns = ((0.0, 2.0, "A"), (2.0, 5.0, "B"))
    s = score(ref, ((0.0, 2.0, "X"),), "f 1 2 6", 0.0)
    assert us(s.overlap_included) == (3_000_000, 3_000_000, 0, 0)
    assert s.overlap_included.region_us == 4_000_000
    # the system running 10 ms into the UEM ([0, 2.01]) now covers B there: mapped
    # X -> B (10 ms, the only co-occurrence), correct 10 ms, missed 2.99 s
    s = score(ref, ((0.0, 2.01, "X"),), "f 1 2 6", 0.0)
    assert us(s.overlap_included) == (3_000_000, 2_990_000, 0, 0)


def test_speech_starting_exactly_at_the_uem_end_is_not_scored() -> None:
    # UEM [0, 3]; reference A [1, 3], B [3, 5] starts at the UEM end; system X [1, 3],
    # Y [3, 4]: scored A 2 s, all correct, nothing else counts
    ref: Turns = ((1.0, 3.0, "A"), (3.0, 5.0, "B"))
    s = score(ref, ((1.0, 3.0, "X"), (3.0, 4.0, "Y")), "f 1 0 3", 0.0)
    assert us(s.overlap_included) == (2_000_000, 0, 0, 0)
    # system Y starting 1 µs before the UEM end ([2.999999, 4]) adds a 1 µs false alarm
    s = score(ref, ((1.0, 3.0, "X"), (2.999999, 4.0, "Y")), "f 1 0 3", 0.0)
    assert us(s.overlap_included) == (2_000_000, 0, 1, 0)


def test_collar_is_cut_by_the_uem() -> None:
    # UEM [2, 6]; reference A [2, 5]: zones [1.75, 2.25] and [4.75, 5.25]; inside the UEM
    # the scored reference is [2.25, 4.75] = 2.5 s; an empty system misses all of it
    s = score(((2.0, 5.0, "A"),), ((5.5, 5.6, "X"),), "f 1 2 6", 0.25)
    # X [5.5, 5.6] is outside both zones and inside the UEM: 0.1 s false alarm
    assert us(s.overlap_included) == (2_500_000, 2_500_000, 100_000, 0)
    assert s.overlap_included.region_us == 4_000_000 - 250_000 - 500_000   # 3.25 s


# --- overlap-excluded DER with system overlap -------------------------------------------

# Reference A [0, 6], B [4, 6] (reference overlap [4, 6]); system X [0, 6] and Y [1, 3]
# (system overlap [1, 3], where the reference has one speaker). Mapping: A-X 6 s, A-Y 2 s,
# B-X 2 s, B-Y 0 -> A->X (6 s beats A->Y + B->X = 4 s); B and Y never co-occur, so B
# stays unmapped.
REF_OV: Turns = ((0.0, 6.0, "A"), (4.0, 6.0, "B"))
HYP_OV: Turns = ((0.0, 6.0, "X"), (1.0, 3.0, "Y"))


def test_overlap_excluded_der_keeps_system_overlap_as_false_alarm() -> None:
    s = score(REF_OV, HYP_OV, "f 1 0 6", 0.0)
    # [0, 1] A/X: 1 s correct. [1, 3] A/X+Y: 2 s scored, Y is extra: 2 s false alarm.
    # [3, 4] A/X: 1 s. [4, 6] A+B/X: 4 s scored, one speaker missing: 2 s missed.
    # included: scored 1 + 2 + 1 + 4 = 8, missed 2, false alarm 2 -> DER 4/8 = 0.5
    assert us(s.overlap_included) == (8_000_000, 2_000_000, 2_000_000, 0)
    assert s.overlap_included.der == 0.5
    # excluded (reference has <= 1 speaker: [0, 4]): scored 4, false alarm 2 (the system
    # overlap stays in) -> DER 2/4 = 0.5; region [0, 4] = 4 s
    assert us(s.overlap_excluded) == (4_000_000, 0, 2_000_000, 0)
    assert s.overlap_excluded.der == 0.5 and s.overlap_excluded.region_us == 4_000_000
    # overlap only ([4, 6]): scored 4, missed 2 -> 0.5
    assert us(s.overlap_only) == (4_000_000, 2_000_000, 0, 0)
    assert s.mapping == (("f", "A", "X"),)


def test_overlap_excluded_der_with_system_overlap_and_a_collar() -> None:
    # c = 0.25: zones around A's 0, 6 and B's 4, 6: [-.25, .25], [3.75, 4.25], [5.75, 6.25].
    # Scored region [0.25, 3.75] + [4.25, 5.75].
    # [0.25, 1] 0.75 correct; [1, 3] 2 scored + 2 false alarm; [3, 3.75] 0.75 correct;
    # [4.25, 5.75] A+B/X: 3 scored, 1.5 missed.
    s = score(REF_OV, HYP_OV, "f 1 0 6", 0.25)
    assert us(s.overlap_included) == (6_500_000, 1_500_000, 2_000_000, 0)
    # excluded: [0.25, 3.75]: scored 3.5, false alarm 2 (the [1, 3] system overlap)
    assert us(s.overlap_excluded) == (3_500_000, 0, 2_000_000, 0)
    assert us(s.overlap_only) == (3_000_000, 1_500_000, 0, 0)


def test_overlap_excluded_der_with_system_overlap_and_confusion() -> None:
    # Reference A [0, 4] only. System X [0, 3], Y [2, 4] (system overlap [2, 3]).
    # Mapping A->X (3 s) over A->Y (2 s). [0, 2] correct; [2, 3] A/X+Y: correct plus 1 s
    # false alarm; [3, 4] A/Y: 1 s confusion. scored 4, FA 1, confusion 1 -> DER 0.5,
    # and the same with overlap excluded, since the reference never overlaps.
    s = score(((0.0, 4.0, "A"),), ((0.0, 3.0, "X"), (2.0, 4.0, "Y")), "f 1 0 4", 0.0)
    assert us(s.overlap_included) == (4_000_000, 0, 1_000_000, 1_000_000)
    assert us(s.overlap_excluded) == us(s.overlap_included)
    assert us(s.overlap_only) == (0, 0, 0, 0) and s.overlap_only.der is None


def test_md_eval_cross_check_is_available() -> None:
    """Reports (as a skip naming md-eval) when the cases above ran without md-eval."""
    if MD_EVAL is None:
        pytest.skip(SKIP_REASON)
