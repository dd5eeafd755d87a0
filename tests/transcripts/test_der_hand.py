"""DER/JER/speaker count on small cases worked out by hand (arithmetic in the comments)."""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.result import (
    DerComponents,
    DiarizationScore,
    DiarizationUnsupported,
    JerComponents,
    SpeakerCount,
)
from speecheval.transcripts.diarization.score import (
    default_uem,
    score_files,
    score_lattifai_parity,
    total,
)
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM


def rttm(*turns: tuple[str, float, float, str]) -> RTTM:
    """RTTM from (file, start, end, speaker) tuples."""
    lines = [f"SPEAKER {f} 1 {s} {round(e - s, 6)} <NA> <NA> {k} <NA> <NA>"
             for f, s, e, k in turns]
    return RTTM.parse("\n".join(lines))


def one(ref: RTTM, hyp: RTTM, uem: str, **kwargs: object) -> DiarizationScore:
    result = score_files(ref, hyp, UEM.parse(uem), **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, dict)
    return total(result)


def seconds(c: DerComponents) -> tuple[float, float, float, float]:
    return (c.scored, c.missed, c.false_alarm, c.confusion)


# Reference A [0,4], B [3,6] (overlap [3,4]); system X [0,3.5], Y [3.5,6]; UEM [0,6].
# Mapping over the UEM: A-X 3.5 s, A-Y 0.5, B-X 0.5, B-Y 2.5 -> A->X, B->Y (6 s).
OVERLAP_REF = rttm(("f", 0, 4, "A"), ("f", 3, 6, "B"))
OVERLAP_HYP = rttm(("f", 0, 3.5, "X"), ("f", 3.5, 6, "Y"))


def test_no_collar_overlap_counts_twice() -> None:
    score = one(OVERLAP_REF, OVERLAP_HYP, "f 1 0 6", collar_s=0)
    # [0,3] A/X correct 3 s; [3,3.5] A,B/X: 2 ref, 1 sys -> missed 0.5, A->X correct;
    # [3.5,4] A,B/Y: missed 0.5, B->Y correct; [4,6] B/Y correct 2 s.
    # scored = 3 + 2*0.5 + 2*0.5 + 2 = 7; missed = 1.0 -> DER 1/7.
    assert seconds(score.overlap_included) == (7.0, 1.0, 0.0, 0.0)
    assert score.overlap_included.der == pytest.approx(1 / 7)
    # Overlap only: [3,4] with 2 reference speakers -> scored 2, missed 1.
    assert seconds(score.overlap_only) == (2.0, 1.0, 0.0, 0.0)
    assert seconds(score.overlap_excluded) == (5.0, 0.0, 0.0, 0.0)
    assert score.mapping == (("f", "A", "X"), ("f", "B", "Y"))


def test_collar_around_overlapping_boundaries() -> None:
    score = one(OVERLAP_REF, OVERLAP_HYP, "f 1 0 6", collar_s=0.25)
    # Reference boundaries 0, 4, 3, 6 -> no-score zones [-.25,.25] [3.75,4.25] [2.75,3.25]
    # [5.75,6.25]; scored region [0.25,2.75] + [3.25,3.75] + [4.25,5.75] = 2.5+0.5+1.5.
    # [0.25,2.75] A/X 2.5 s correct; [3.25,3.5] A,B/X scored 0.5, missed 0.25;
    # [3.5,3.75] A,B/Y scored 0.5, missed 0.25; [4.25,5.75] B/Y 1.5 s correct.
    # scored = 2.5 + 0.5 + 0.5 + 1.5 = 5.0, missed 0.5 -> DER 0.1.
    assert seconds(score.overlap_included) == (5.0, 0.5, 0.0, 0.0)
    assert score.overlap_included.der == 0.1
    assert score.overlap_included.region_us == 4_500_000
    assert seconds(score.overlap_only) == (1.0, 0.5, 0.0, 0.0)
    assert score.collar == 0.25


def test_lattifai_parity_uses_plus_minus_point_one_and_its_own_track() -> None:
    result = score_lattifai_parity(OVERLAP_REF, OVERLAP_HYP, UEM.parse("f 1 0 6"))
    assert isinstance(result, dict)
    parity = total(result)
    # Zones [-.1,.1] [2.9,3.1] [3.9,4.1] [5.9,6.1]: [0.1,2.9] A/X 2.8 correct;
    # [3.1,3.5] A,B/X scored 0.8 missed 0.4; [3.5,3.9] A,B/Y scored 0.8 missed 0.4;
    # [4.1,5.9] B/Y 1.8 correct. scored 6.2, missed 0.8 -> DER 0.8/6.2.
    assert seconds(parity.overlap_included) == (6.2, 0.8, 0.0, 0.0)
    assert parity.overlap_included.der == pytest.approx(0.8 / 6.2)
    assert (parity.track, parity.collar, parity.mapping_region) == (
        "lattifai_parity", 0.1, "uem_minus_collar")
    main = one(OVERLAP_REF, OVERLAP_HYP, "f 1 0 6")
    with pytest.raises(ValueError, match="different tracks"):
        main + parity


def test_self_overlapping_turns_are_merged_and_counted() -> None:
    # Reference A [0,2] and A [1,3] merge into A [0,3]; B [3,5].
    # System Y [3,5] absorbs Y [4,5]; X [0,3].
    ref = rttm(("f", 0, 2, "A"), ("f", 1, 3, "A"), ("f", 3, 5, "B"))
    hyp = rttm(("f", 0, 3, "X"), ("f", 3, 5, "Y"), ("f", 4, 5, "Y"))
    score = one(ref, hyp, "f 1 0 5", collar_s=0)
    # After merging, A/X and B/Y match exactly: scored = 3 + 2 = 5 s (not 6 s, which
    # counting A twice over [1,2] would give), no error.
    assert seconds(score.overlap_included) == (5.0, 0.0, 0.0, 0.0)
    assert (score.ref_turns.turns, score.ref_turns.merges) == (3, 1)
    assert (score.hyp_turns.turns, score.hyp_turns.merges) == (3, 1)
    assert score.overlap_only.scored_us == 0  # a speaker never overlaps itself


def test_uem_clips_both_sides() -> None:
    ref = rttm(("f", 0, 10, "A"))
    hyp = rttm(("f", 2, 12, "X"))
    score = one(ref, hyp, "f 1 1 4\nf 1 8 11", collar_s=0)
    # [1,4]: A throughout, X from 2 -> missed [1,2] = 1 s, 2 s correct.
    # [8,11]: A until 10 correct 2 s, X alone [10,11] -> false alarm 1 s.
    # scored = 3 + 2 = 5; errors 2 -> DER 0.4; the region itself is 3 + 3 = 6 s.
    assert seconds(score.overlap_included) == (5.0, 1.0, 1.0, 0.0)
    assert score.overlap_included.der == 0.4
    assert score.overlap_included.region_us == 6_000_000


def test_confusion_jer_and_speaker_count() -> None:
    ref = rttm(("f", 0, 4, "A"), ("f", 4, 8, "B"))
    hyp = rttm(("f", 0, 3, "X"), ("f", 3, 8, "Y"), ("f", 8, 9, "Z"))
    score = one(ref, hyp, "f 1 0 9", collar_s=0)
    # Mapping: A-X 3, A-Y 1, B-Y 4 -> A->X, B->Y. [3,4] A/Y confusion 1 s;
    # [8,9] Z alone false alarm 1 s. scored 8 -> DER (1 + 1) / 8 = 0.25.
    assert seconds(score.overlap_included) == (8.0, 0.0, 1.0, 1.0)
    assert score.overlap_included.der == 0.25
    # JER (dscore): A|X = 1 - 3/4 = 0.25; B|Y = 1 - 4/(4+5-4) = 0.2; the Hungarian
    # pairing minimising the sum picks these two -> (0.25 + 0.2) / 2 = 0.225.
    assert score.jer.speakers == 2
    assert score.jer.jer == pytest.approx(0.225)
    # 3 system speakers for 2 reference speakers: error +1.
    assert score.speaker_count == SpeakerCount(files=1, exact_files=0, abs_error_sum=1,
                                               signed_error_sum=1, ref_speakers=2,
                                               hyp_speakers=3)


def test_empty_hypothesis_is_all_missed() -> None:
    ref = rttm(("f", 0, 2, "A"), ("f", 1, 3, "B"))
    score = one(ref, RTTM.parse(""), "f 1 0 4", collar_s=0)
    # scored = 2 + 2 = 4 s of reference speaker time, all missed -> DER 1.0.
    assert seconds(score.overlap_included) == (4.0, 4.0, 0.0, 0.0)
    assert score.overlap_included.der == 1.0
    assert score.jer.jer == 1.0  # both reference speakers unpaired
    assert score.speaker_count.signed_error_sum == -2


def test_system_speech_without_reference_has_no_der() -> None:
    score = one(RTTM.parse(""), rttm(("f", 1, 2, "X")), "f 1 0 3", collar_s=0)
    # Nothing to divide by: DER is None (null), and the false alarm stays visible.
    assert seconds(score.overlap_included) == (0.0, 0.0, 1.0, 0.0)
    assert score.overlap_included.der is None
    assert score.jer.jer is None


def test_system_without_speaker_attribution_is_unsupported() -> None:
    hyp = RTTM.parse("SPEAKER f 1 0 1 <NA> <NA> <NA> <NA> <NA>")
    ref = rttm(("f", 0, 1, "A"))
    result = score_files(ref, hyp, UEM.parse("f 1 0 1"))
    assert isinstance(result, DiarizationUnsupported)
    assert result.status == "unsupported" and result.der is None
    assert result.file_ids == ("f",)
    assert isinstance(score_files(ref, None, UEM.parse("f 1 0 1")), DiarizationUnsupported)
    scored = one(ref, ref, "f 1 0 1")
    with pytest.raises(TypeError):  # a supported and an unsupported system never add up
        scored + result  # type: ignore[operator]


def test_partly_labelled_system_is_an_input_error() -> None:
    hyp = RTTM.parse("SPEAKER f 1 0 1 <NA> <NA> X <NA> <NA>\n"
                     "SPEAKER f 1 1 1 <NA> <NA> <NA> <NA> <NA>", path="sys.rttm")
    with pytest.raises(InputError, match=r"sys.rttm: line 2: system turn .* no speaker"):
        score_files(rttm(("f", 0, 2, "A")), hyp, UEM.parse("f 1 0 2"))


def test_file_outside_uem_is_an_input_error() -> None:
    ref = rttm(("f", 0, 1, "A"), ("g", 0, 1, "A"))
    with pytest.raises(InputError, match="file 'g' has no scoring region"):
        score_files(ref, ref, UEM.parse("f 1 0 1", path="u.uem"))


def test_sum_over_files_equals_totals_and_default_uem() -> None:
    ref = rttm(("a", 0, 4, "A"), ("a", 3, 6, "B"), ("b", 0, 10, "A"))
    hyp = rttm(("a", 0, 3.5, "X"), ("a", 3.5, 6, "Y"), ("b", 2, 12, "X"))
    uem = default_uem(ref, hyp)
    # Default: [0, last end over both] per file -> a [0,6], b [0,12].
    assert uem.regions("a") == ((0.0, 6.0),) and uem.regions("b") == ((0.0, 12.0),)
    files = score_files(ref, hyp, uem, collar_s=0)
    assert isinstance(files, dict)
    # a: scored 7, missed 1 (first test); b: A [0,10] vs X [2,12] -> missed 2, FA 2.
    summed = total(files)
    assert seconds(summed.overlap_included) == (17.0, 3.0, 2.0, 0.0)
    assert sum(files.values()) == summed
    assert summed.file_ids == ("a", "b")


def test_result_invariants_refuse_impossible_values() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        DerComponents(scored_us=1, missed_us=1, false_alarm_us=0, confusion_us=1, region_us=1)
    with pytest.raises(ValueError, match="negative"):
        DerComponents(scored_us=1, missed_us=-1, false_alarm_us=0, confusion_us=0, region_us=1)
    with pytest.raises(ValueError, match="JER"):
        JerComponents(speaker_error_sum=3.0, speakers=2)
    with pytest.raises(ValueError, match="signed"):
        SpeakerCount(files=1, exact_files=1, abs_error_sum=0, signed_error_sum=1,
                     ref_speakers=1, hyp_speakers=2)


def test_negative_collar_is_an_input_error() -> None:
    with pytest.raises(InputError, match="collar"):
        score_files(OVERLAP_REF, OVERLAP_HYP, UEM.parse("f 1 0 6"), collar_s=-0.1)


def test_default_uem_extent_starts_at_the_earliest_turn_of_either_side() -> None:
    # reference turn [1, 3], system turn [2, 9] (the reverse order of the docstring's):
    # dscore takes the extent of both, [min(1, 2), max(3, 9)] = [1, 9]; md-eval the
    # reference's [1, 3]; speecheval [0, 9]
    ref, hyp = rttm(("a", 1, 3, "A")), rttm(("a", 2, 9, "X"))
    assert [default_uem(ref, hyp, c).regions("a") for c in ("speecheval", "md-eval", "dscore")
            ] == [((0.0, 9.0),), ((1.0, 3.0),), ((1.0, 9.0),)]
