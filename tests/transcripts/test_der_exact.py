"""Diarization details that the DER totals hide: where the mapping is made, speakers heard
only outside the UEM, one-microsecond speech, a 1 µs collar, the default UEM, input
cleaning, every invariant's message, and the exact JSON and table a user reads.

Times are chosen so every value is exact; the arithmetic is in the comments.
"""

from __future__ import annotations

import pytest
from md_eval_tool import find_md_eval
from test_der_boundaries import score

from speecheval.core.errors import InputError
from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization.render import report_dict, table, unsupported_dict
from speecheval.transcripts.diarization.result import (
    DerComponents,
    DiarizationScore,
    JerComponents,
    SpeakerCount,
    TurnCounts,
)
from speecheval.transcripts.diarization.score import (
    default_uem,
    score_files,
    score_lattifai_parity,
    total,
)
from speecheval.transcripts.diarization.scoring_region import (
    clipped_turns,
    parse_durations,
)
from speecheval.transcripts.diarization.turns import speaker_turns, turn_spans
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

MD_EVAL = find_md_eval()


def rttm(text: str) -> RTTM:
    """RTTM from ``"file channel start duration speaker;..."``."""
    lines = []
    for turn in text.split(";"):
        file_id, channel, start, duration, speaker = turn.split()
        lines.append(f"SPEAKER {file_id} {channel} {start} {duration} <NA> <NA> {speaker} "
                     "<NA> <NA>\n")
    return RTTM.parse("".join(lines))


# --- the mapping is made over the whole UEM (as md-eval does), not the collared region -----

# Reference A [0, 1]; system X on [0, 0.3] and [0.7, 1], Y on [0.3, 0.7]; collar 0.25.
# Over the UEM A-X co-occur 0.6 s and A-Y 0.4 s, so A -> X. The scored region is
# [0.25, 0.75]: X is right on [0.25, 0.3] and [0.7, 0.75] (0.1 s), Y is confusion on
# [0.3, 0.7]: 0.4 s (md-eval-22 gives the same). Mapping over the scored region instead
# (LattifAI's parity track) gives A -> Y and 0.1 s of confusion.
MAP_REF = ((0.0, 1.0, "A"),)
MAP_HYP = ((0.0, 0.3, "X"), (0.7, 1.0, "X"), (0.3, 0.7, "Y"))


def test_mapping_is_made_over_the_whole_uem() -> None:
    s = score(MAP_REF, MAP_HYP, "f 1 0 1", 0.25)
    assert s.mapping == (("f", "A", "X"),) and s.mapping_region == "uem"
    assert (s.overlap_included.scored_us, s.overlap_included.confusion_us) == (500_000, 400_000)


def test_lattifai_parity_maps_over_the_scored_region() -> None:
    ref = rttm("f 1 0 1 A")
    hyp = rttm("f 1 0 0.3 X;f 1 0.7 0.3 X;f 1 0.3 0.4 Y")
    # collar 0.1 here: scored [0.1, 0.9]; X right on [0.1, 0.3] + [0.7, 0.9] = 0.4 s and
    # Y on [0.3, 0.7] = 0.4 s: a tie over the scored region too, so widen Y:
    hyp = rttm("f 1 0 0.2 X;f 1 0.8 0.2 X;f 1 0.2 0.6 Y")
    # over [0.1, 0.9]: A-X 0.2 s, A-Y 0.6 s -> A -> Y; confusion is X's 0.2 s
    result = score_lattifai_parity(ref, hyp, UEM.parse("f 1 0 1"))
    assert isinstance(result, dict)
    parity = total(result)
    assert parity.mapping == (("f", "A", "Y"),) and parity.mapping_region == "uem_minus_collar"
    assert parity.overlap_included.confusion_us == 200_000


# --- speakers outside the UEM, and one microsecond of speech -------------------------------

def test_reference_speaker_heard_only_outside_the_uem_takes_no_part() -> None:
    # UEM [0, 5]; A [0, 4] inside, B [10, 12] outside; system X [0, 4], Y [20, 21] outside.
    # Speaker count 1 and 1 (only speech inside the UEM counts); JER over A only: 0.
    s = score(((0.0, 4.0, "A"), (10.0, 12.0, "B")), ((0.0, 4.0, "X"), (20.0, 21.0, "Y")),
              "f 1 0 5", 0.0)
    assert (s.speaker_count.ref_speakers, s.speaker_count.hyp_speakers) == (1, 1)
    assert (s.jer.speaker_error_sum, s.jer.speakers) == (0.0, 1)
    assert s.mapping == (("f", "A", "X"),)


def test_one_microsecond_of_speech_counts() -> None:
    # UEM [5, 10]; A [0, 5.000001] has 1 µs inside; X [5, 5.000001] is exactly that 1 µs,
    # and B [6, 8] is matched by Y [6, 8]. Both reference speakers count (2 of 2), A's
    # Jaccard error is 1 - 1/1 = 0, so JER 0; A -> X is a mapping pair of 1 µs.
    s = score(((0.0, 5.000001, "A"), (6.0, 8.0, "B")), ((5.0, 5.000001, "X"), (6.0, 8.0, "Y")),
              "f 1 5 10", 0.0)
    assert (s.speaker_count.ref_speakers, s.speaker_count.hyp_speakers) == (2, 2)
    assert (s.jer.speaker_error_sum, s.jer.speakers) == (0.0, 2)
    assert s.mapping == (("f", "A", "X"), ("f", "B", "Y"))
    assert (s.overlap_included.scored_us, s.overlap_included.error_us) == (2_000_001, 0)


def test_single_speaker_jer_is_its_jaccard_error() -> None:
    # A [0, 4], X [1, 5], UEM [0, 6]: |A & X| = 3, |A | X| = 5 -> JER 1 - 3/5 = 0.4
    s = score(((0.0, 4.0, "A"),), ((1.0, 5.0, "X"),), "f 1 0 6", 0.0)
    assert s.jer.speakers == 1 and s.jer.speaker_error_sum == pytest.approx(0.4, abs=1e-12)
    assert s.jer.jer == pytest.approx(0.4, abs=1e-12)


def test_jer_ignores_speech_outside_the_region() -> None:
    # UEM [2, 6]; A [0, 4] (2 s inside), X [0, 6] (4 s inside): the Jaccard error inside is
    # 1 - 2/4 = 0.5 exactly; outside time (A's and X's [0, 2]) must not enter it. A system
    # speaker Y only outside the UEM ([8, 9]) is not a JER column either.
    s = score(((0.0, 4.0, "A"),), ((0.0, 6.0, "X"), (8.0, 9.0, "Y")), "f 1 2 6", 0.0)
    assert (s.jer.speaker_error_sum, s.jer.speakers) == (0.5, 1)
    # with two system speakers inside the UEM and one (W) outside, the outside one is left
    # out of the Jaccard matrix: A [2, 4] = X's, B [4, 6] vs Y [4, 5]: 1 - 1/2 = 0.5
    s = score(((2.0, 4.0, "A"), (4.0, 6.0, "B")),
              ((0.5, 1.0, "W"), (2.0, 4.0, "X"), (4.0, 5.0, "Y")), "f 1 2 6", 0.0)
    assert (s.jer.speaker_error_sum, s.jer.speakers) == (0.5, 2)


def test_overlap_excluded_jer_uses_single_speaker_regions_only() -> None:
    # A [0, 4], B [2, 6] overlap on [2, 4]; X [0, 4], Y [4, 6]; UEM [0, 6].
    # Overlap excluded (jer_collared_overlap_excluded; the collar is 0 here): region
    # [0, 2] + [4, 6]: A has [0, 2] = X's -> error 0; B has [4, 6] = Y's -> error 0: sum 0
    # over 2 speakers. Over everything (jer, dscore's): A-X exact (0); B [2, 6] vs
    # Y [4, 6]: 1 - 2/4 = 0.5.
    s = score(((0.0, 4.0, "A"), (2.0, 6.0, "B")), ((0.0, 4.0, "X"), (4.0, 6.0, "Y")),
              "f 1 0 6", 0.0)
    excluded = s.jer_collared_overlap_excluded
    assert (excluded.speaker_error_sum, excluded.speakers) == (0.0, 2)
    assert s.jer.speaker_error_sum == pytest.approx(0.5, abs=1e-12)


def test_one_microsecond_collar_is_a_collar() -> None:
    # A [1, 4], X [1, 4.000001]: 1 µs false alarm at collar 0; a 1 µs collar covers it
    ref, hyp = ((1.0, 4.0, "A"),), ((1.0, 4.000001, "X"),)
    assert score(ref, hyp, "f 1 0 6", 0.0).overlap_included.false_alarm_us == 1
    collared = score(ref, hyp, "f 1 0 6", 0.000001)
    assert collared.overlap_included.false_alarm_us == 0 and collared.collar_us == 1


# --- default UEM, durations, clipped turns ----------------------------------------------

def test_default_uem_runs_to_the_latest_end_of_either_side() -> None:
    # file f: reference turns end at 10 and 3 (the later one first), system at 11;
    # file g: one turn ending at 0.5 (below 1 s); without a system the reference decides
    ref = rttm("f 1 0 10 A;f 1 2 1 B;g 1 0 0.5 A")
    hyp = rttm("f 1 5 6 X")
    assert default_uem(ref, hyp).dumps() == "f 1 0.000 11.000\ng 1 0.000 0.500\n"
    assert default_uem(ref, None).dumps() == "f 1 0.000 10.000\ng 1 0.000 0.500\n"


def test_durations_describe_and_refuse_repeats() -> None:
    assert parse_durations(["12.5"]).describe() == "[0, 12.5] per file from --duration"
    assert parse_durations(["a=5"]).describe() == "[0, duration] per file from --duration"
    assert parse_durations(["9", "a=5"]).describe() == "[0, duration] per file from --duration"
    with pytest.raises(InputError, match=r"^--duration '3': a duration for every file is "
                                         r"given twice$"):
        parse_durations(["2", "3"])
    with pytest.raises(InputError, match=r"^--duration 'a=3': file id missing or given twice$"):
        parse_durations(["a=2", "a=3"])
    with pytest.raises(InputError, match=r"^--duration '=3': file id missing or given twice$"):
        parse_durations(["=3"])
    for bad in ("x", "nan", "inf"):   # not plain decimal digits
        with pytest.raises(InputError) as info:
            parse_durations([bad])
        assert str(info.value) == (f"--duration '{bad}': not a number of seconds: '{bad}' "
                                   "(plain decimal digits only, such as 1000.5)")
    for bad in ("-1", "0", "a=0"):
        with pytest.raises(InputError, match=rf"^--duration '{bad}': seconds must be a finite "
                                             r"number > 0$"):
            parse_durations([bad])
    # a duration of 0.5 s (below 1) is a valid duration
    assert parse_durations(["0.5"]).every_file == 0.5


def test_clipped_turns_keep_microseconds() -> None:
    # region [0, 5]; a turn 4-5.0000004 runs 0.4 µs past the end, rounded to 0.0 s at the
    # 6-decimal (µs) precision; 4-5.0000016 is cut by 1.6 µs -> 0.000002 s
    ref = rttm("a 1 4 1.0000016 A")
    assert clipped_turns(ref, UEM.from_regions({"a": ((0.0, 5.0),)})) == {
        "turns": 1, "seconds": 0.000002}


def test_speaker_turns_merge_overlaps_keep_touching_turns_and_drop_empty_ones() -> None:
    # a: 0-2 and 1-3 overlap -> one turn 0-3 (1 merge); 3-4 only touches it and stays;
    # b: 5-5 has no length and is dropped (1 empty)
    merged = speaker_turns(turn_spans(rttm("f 1 0 2 a;f 1 1 2 a;f 1 3 1 a;f 1 5 0 b").turns))
    assert (merged.starts.tolist(), merged.ends.tolist()) == ([0, 3_000_000],
                                                             [3_000_000, 4_000_000])
    assert merged.counts == TurnCounts(turns=4, merges=1, empty=1)
    assert merged.labels == ("a", "b") and merged.speakers.tolist() == [0, 0]


def test_self_overlap_merge_keeps_speakers_apart() -> None:
    # speaker 0 talks [0, 10], speaker 1 [0, 2]: nothing to merge, both turns stay
    merged = speaker_turns(Spans([0, 0], [10, 2], labels=["a", "b"]))
    assert (merged.starts.tolist(), merged.ends.tolist(), merged.speakers.tolist()) == (
        [0, 0], [10, 2], [0, 1])
    assert merged.counts == TurnCounts(turns=2, merges=0, empty=0)


# --- the checks and their messages -------------------------------------------------------

def test_input_errors_name_the_problem_and_the_file(tmp_path) -> None:
    uem_path = tmp_path / "all.uem"
    uem_path.write_text("g 1 0 5\n")
    ref_path = tmp_path / "ref.rttm"
    ref_path.write_text("SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>\n")
    with pytest.raises(InputError) as info:
        score_files(RTTM.load(ref_path), rttm("g 1 0 1 X"), UEM.load(uem_path))
    assert str(info.value) == (f"{ref_path}: line 1: file 'f' has no scoring region in the "
                               f"UEM {uem_path}")
    empty = tmp_path / "empty.uem"
    empty.write_text("")
    with pytest.raises(InputError) as info:
        score_files(rttm("f 1 0 1 A"), rttm("f 1 0 1 X"), UEM.load(empty))
    assert str(info.value) == f"{empty}: the UEM names no file, so nothing can be scored"
    # a UEM without a file name (parsed from text) is named by nothing after "UEM"
    with pytest.raises(InputError, match=r"^line 1: file 'f' has no scoring region in the "
                                         r"UEM$"):
        score_files(rttm("f 1 0 1 A"), rttm("f 1 0 1 X"), UEM.parse("g 1 0 5"))
    with pytest.raises(InputError, match=r"^line 1: reference turn in file 'f' has no speaker "
                                         r"name \(<NA>\)$"):
        score_files(rttm("f 1 0 1 <NA>"), rttm("f 1 0 1 X"), UEM.parse("f 1 0 5"))


def test_unsupported_report() -> None:
    result = score_files(rttm("f 1 0 1 A"), None, UEM.parse("f 1 0 5\ng 1 0 5"))
    assert not isinstance(result, dict)
    assert unsupported_dict(result, uem_source="given") == {
        "status": "unsupported", "reason": "the system gives no speaker attribution",
        "uem": "given", "der": None, "jer": None, "files": ["f", "g"]}


def test_unsupported_systems_say_why() -> None:
    ref, uem = rttm("f 1 0 1 A"), UEM.parse("f 1 0 5")
    none = score_files(ref, None, uem)
    assert not isinstance(none, dict) and none.reason == "the system gives no speaker attribution"
    unlabelled = score_files(ref, rttm("f 1 0 1 <NA>"), uem)
    assert not isinstance(unlabelled, dict) and unlabelled.reason == (
        "every system turn has the speaker name <NA> (no speaker attribution)")
    with pytest.raises(ValueError, match="^no file scores to add up$"):
        total({})


def _components(scored: int = 0) -> DerComponents:
    return DerComponents(scored_us=scored, missed_us=0, false_alarm_us=0, confusion_us=0,
                         region_us=scored)


def _score(**changes: object) -> DiarizationScore:
    fields: dict[str, object] = dict(
        track="main", compat="speecheval", collar_us=0, mapping_region="uem",
        file_ids=("f",), overlap_included=_components(2), overlap_excluded=_components(1),
        overlap_only=_components(1), jer=JerComponents(0.0, 1),
        jer_collared=JerComponents(0.0, 1), jer_collared_overlap_excluded=JerComponents(0.0, 1),
        speaker_count=SpeakerCount(1, 1, 0, 0, 1, 1), ref_turns=TurnCounts(1, 0, 0),
        hyp_turns=TurnCounts(1, 0, 0), mapping=())
    fields.update(changes)
    return DiarizationScore(**fields)  # type: ignore[arg-type]


def test_result_invariants_and_their_messages() -> None:
    assert _score().collar == 0.0
    with pytest.raises(ValueError, match="^collar must be non-negative$"):
        _score(collar_us=-1)
    with pytest.raises(ValueError, match=r"^a file is counted twice in \('f', 'f'\)$"):
        _score(file_ids=("f", "f"), speaker_count=SpeakerCount(2, 2, 0, 0, 2, 2))
    with pytest.raises(ValueError, match="^overlap-excluded and overlap-only DER must add up "
                                         "to the total$"):
        _score(overlap_only=_components(2))
    with pytest.raises(ValueError, match="^speaker count must cover each file once$"):
        _score(speaker_count=SpeakerCount(2, 2, 0, 0, 2, 2))
    with pytest.raises(ValueError, match=r"^inconsistent turn counts TurnCounts\("):
        TurnCounts(-1, 0, 0)
    for bad in ((1, -1, 0), (1, 0, -1), (2, 2, 1), (3, 2, 2)):
        with pytest.raises(ValueError, match="inconsistent turn counts"):
            TurnCounts(*bad)
    assert TurnCounts(3, 2, 1).turns == 3 and TurnCounts(3, 1, 2).empty == 2
    with pytest.raises(ValueError, match=r"^exact files outside \[0, files\] in SpeakerCount"):
        SpeakerCount(1, 2, 0, 0, 1, 1)
    with pytest.raises(ValueError, match=r"^each inexact file adds at least 1 to the error: "):
        SpeakerCount(1, 0, 0, 0, 1, 1)
    with pytest.raises(ValueError, match=r"^signed error must be hyp - ref speakers in "):
        SpeakerCount(1, 0, 1, 1, 1, 1)
    # the JER error sum may reach the speaker count (up to a 1e-9 rounding allowance)
    assert JerComponents(1.0 + 1e-9, 1).speakers == 1
    with pytest.raises(ValueError, match=r"JER error sum must lie in \[0, speakers\]"):
        JerComponents(1.1, 1)


# --- what the user reads ----------------------------------------------------------------

def test_report_json_and_table_of_a_hand_case() -> None:
    # Reference A [0, 4], B [3, 6]; system X [0, 3.5], Y [3.5, 6]; UEM [0, 6], no collar
    # (test_der_hand.py): scored 7, missed 1 -> DER 1/7; overlap only [3, 4]: scored 2,
    # missed 1; excluded: 5 s all correct. JER: A [0, 4] vs X [0, 3.5]: 1 - 3.5/4 =
    # 0.125; B [3, 6] vs Y [3.5, 6]: 1 - 2.5/3 = 1/6; sum 0.291667 over 2. With no collar
    # jer_collared is over the same region: the same 0.145833.
    ref = rttm("f 1 0 4 A;f 1 3 3 B")
    hyp = rttm("f 1 0 3.5 X;f 1 3.5 2.5 Y")
    files = score_files(ref, hyp, UEM.parse("f 1 0 6"), collar_s=0.0)
    assert isinstance(files, dict)
    report = report_dict(files, exclude_overlap=False, uem_source="given")
    per_file = report.pop("files")
    jer = 0.125 + 1 / 6
    expected_score = {
        "der": 1 / 7, "scored": 7.0, "missed": 1.0, "false_alarm": 0.0, "confusion": 0.0,
        "scored_region": 6.0, "regions": "all", "jer": pytest.approx(jer / 2),
        "jer_reference_speakers": 2, "jer_collared": pytest.approx(jer / 2),
        "overlap_included": {"der": 1 / 7, "scored": 7.0, "missed": 1.0, "false_alarm": 0.0,
                             "confusion": 0.0, "scored_region": 6.0},
        "overlap_excluded": {"der": 0.0, "scored": 5.0, "missed": 0.0, "false_alarm": 0.0,
                             "confusion": 0.0, "scored_region": 5.0},
        "overlap_only": {"der": 0.5, "scored": 2.0, "missed": 1.0, "false_alarm": 0.0,
                         "confusion": 0.0, "scored_region": 1.0},
        "speaker_count": {"reference_speakers": 2, "system_speakers": 2, "error": 0.0,
                          "abs_error": 0.0, "accuracy": 1.0, "files": 1},
        "reference_turns": {"turns": 2, "self_overlap_merges": 0, "empty_turns_dropped": 0},
        "system_turns": {"turns": 2, "self_overlap_merges": 0, "empty_turns_dropped": 0},
        "differences": {name: {"count": 0, "seconds": 0.0} for name in (
            "reference_self_overlap", "reference_cut_at_uem", "off_frame_grid",
            "md_eval_overlap_defect", "tie_order", "unscored_files")},
    }
    assert per_file == {"f": expected_score}
    assert report == {
        "status": "scored", "track": "main", "compat": "speecheval",
        "compat_definition": report["compat_definition"], "collar": 0.0,
        # collar 0.0 s a side: pyannote.metrics' total width is 2 x 0 = 0
        "collar_plus_minus": "+-0 s (pyannote.metrics collar=0)",
        "collar_definition": ("no-score collar of +-collar seconds around every reference "
                              "turn boundary (md-eval -c); pyannote.metrics' collar is the "
                              "total width, 2 x collar"),
        "mapping_region": "uem",
        "jer_definition": report["jer_definition"],
        "jer_collared_definition": report["jer_collared_definition"],
        "uem": "given", **expected_score,
        "speaker_mapping": [{"file": "f", "reference": "A", "system": "X"},
                            {"file": "f", "reference": "B", "system": "Y"}],
    }
    excluded = report_dict(files, exclude_overlap=True, uem_source="given")
    assert (excluded["der"], excluded["regions"], excluded["scored"]) == (0.0,
                                                                          "exclude_overlap", 5.0)
    assert excluded["files"]["f"]["regions"] == "exclude_overlap"
    # JER is dscore's whatever --exclude-overlap says (no collar, overlap included):
    # still 0.145833. The collared variant excludes the overlap [3, 4]: A has [0, 3] vs
    # X's [0, 3]; B [4, 6] vs Y [4, 6]: jer_collared 0
    assert excluded["jer"] == pytest.approx(jer / 2)
    assert excluded["files"]["f"]["jer"] == pytest.approx(jer / 2)
    assert excluded["jer_collared"] == 0.0 and excluded["files"]["f"]["jer_collared"] == 0.0
    assert table(files, exclude_overlap=False, title="DER") == (
        "DER\n"
        "file   scored_s  missed_s   fa_s  conf_s     DER     JER  spk ref/sys\n"
        + "-" * 69 + "\n"
        "f         7.000     1.000  0.000   0.000  14.29%  14.58%          2/2\n"
        "TOTAL     7.000     1.000  0.000   0.000  14.29%  14.58%          2/2\n"
        "overlap excluded DER 0.00%, overlap-only DER 50.00%, speaker count accuracy 100.00%,"
        " mean |count error| 0.00\n"
        "JER is dscore's (no collar); jer_collared 14.58%\n"
        "self-overlap merges: reference 0, system 0\n")
    table_excluded = table(files, exclude_overlap=True, title="DER").splitlines()
    assert table_excluded[3] == ("f         5.000     0.000  0.000   0.000  0.00%  14.58%"
                                 "          2/2")
    assert table_excluded[-2] == "JER is dscore's (no collar); jer_collared 0.00%"


def test_table_says_n_a_for_undefined_rates() -> None:
    # the system speaks where the reference is silent: no scored speech, DER undefined
    files = score_files(rttm("f 1 0 1 A"), rttm("f 1 2 1 X"), UEM.parse("f 1 1 5"), collar_s=0.0)
    assert isinstance(files, dict)
    last_rows = table(files, exclude_overlap=False, title="t").splitlines()
    assert last_rows[3] == "f         0.000     0.000  1.000   0.000  n/a  n/a          0/1"
    assert last_rows[-3] == ("overlap excluded DER n/a, overlap-only DER n/a, speaker count "
                             "accuracy 0.00%, mean |count error| 1.00")
    assert last_rows[-2] == "JER is dscore's (no collar); jer_collared n/a"
