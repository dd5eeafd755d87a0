"""Every exact boundary of the FDB v1.0 unified rules, one microsecond either side.

The spec (fdb-v1.0-unified-metrics.md) fixes each comparison: a word "at or after" E or R,
"before" the first pause start, inside a pause "[a, b)", a segment covering S "start <= S
< end", speech carried over R "start < R < end", a restart "inside (S, R)", a stop not
observed when the segment "runs to T", a response "within k s" meaning "at most". Each
test puts an event exactly on the boundary and one microsecond (the time base) beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.core.timeline import Span, Spans
from speecheval.fdb.common.aggregate import rate_within
from speecheval.fdb.common.annotations import (
    Word,
    load_interruption,
    load_pauses,
    load_turn_end,
    load_words,
)
from speecheval.fdb.v10.scoring.interruption import score_interruption_sample
from speecheval.fdb.v10.scoring.pause import score_pause_sample
from speecheval.fdb.v10.scoring.turn_taking import score_turn_taking_sample

S, R, T = 5_000_000, 7_000_000, 20_000_000   # interruption [S, R] and window length, in µs


def interruption(segments: list[tuple[int, int]], words: list[int] = ()):  # type: ignore[assignment]
    return score_interruption_sample(
        Spans.from_spans(Span(a, b) for a, b in segments),
        tuple(Word("w", w, w + 200_000) for w in words), Span(S, R), T)


# --- E: the end of the user's turn --------------------------------------------------------

def test_word_exactly_at_e_is_a_response_with_zero_latency() -> None:
    e = 2_010_000
    at = score_turn_taking_sample((Word("ok", e, e + 300_000),), e, T)
    assert (at.outcome, at.latency_us) == ("response", 0)
    # one microsecond earlier: a word starts before E, so an early start with no latency
    before = score_turn_taking_sample((Word("ok", e - 1, e + 300_000),), e, T)
    assert (before.outcome, before.latency_us, before.first_word_us) == (
        "early_start", None, e - 1)
    # one microsecond later: latency 1 µs
    after = score_turn_taking_sample((Word("ok", e + 1, e + 300_000),), e, T)
    assert (after.outcome, after.latency_us) == ("response", 1)


def test_the_earliest_word_decides_whatever_the_order() -> None:
    # words given out of order: 3.0 s and 1.999999 s against E = 2.0 s -> early start
    words = (Word("b", 3_000_000, 3_100_000), Word("a", 1_999_999, 2_100_000))
    assert score_turn_taking_sample(words, 2_000_000, T).outcome == "early_start"
    # 3.0 s and 2.0 s -> response; latency from the earlier word, 2.0 - 2.0 = 0
    words = (Word("b", 3_000_000, 3_100_000), Word("a", 2_000_000, 2_100_000))
    sample = score_turn_taking_sample(words, 2_000_000, T)
    assert (sample.outcome, sample.latency_us, sample.first_word_us) == (
        "response", 0, 2_000_000)


def test_response_within_k_seconds_means_at_most_k() -> None:
    # latencies 1.000000 s (counts in the 1 s rate), 1.000001 s (does not), 2.000000 s,
    # and a sample that never responded (None): within 1 s -> 1; within 2 s -> 3.
    latencies = [1_000_000, 1_000_001, 2_000_000, None]
    assert rate_within(latencies, 1) == 1
    assert rate_within(latencies, 2) == 3
    assert rate_within([0], 1) == 1   # latency 0 is within every k


# --- pause start a and end b ------------------------------------------------------------

def test_word_exactly_at_the_first_pause_start_intrudes_and_is_not_pre_pause() -> None:
    pauses = Spans.from_spans((Span(2_000_000, 3_000_000), Span(5_000_000, 6_000_000)))
    at = score_pause_sample((Word("w", 2_000_000, 2_100_000),), pauses)
    # onset = a: "at or after the first pause start" and inside [a, b)
    assert (at.pause_intrusion, at.pre_pause_speech, at.inside_pause_onset) == (
        True, False, True)
    assert (at.intrusion_words, at.intruded_pauses) == (1, 1)
    assert at.intrusion_us == 100_000                 # [2.0, 2.1] inside [2, 3)
    before = score_pause_sample((Word("w", 1_999_999, 2_000_000),), pauses)
    # onset a - 1 µs: pre-pause speech only; the word ends exactly at a, so it neither
    # carries in (end > a is false) nor covers any pause time (2.0 - 2.0 = 0)
    assert (before.pause_intrusion, before.pre_pause_speech, before.inside_pause_onset,
            before.carry_in) == (False, True, False, False)
    assert (before.intrusion_words, before.intruded_pauses, before.intrusion_us) == (0, 0, 0)


def test_carry_in_needs_the_word_to_end_after_the_pause_start() -> None:
    pauses = Spans.from_spans((Span(2_000_000, 3_000_000),))
    # 1.5 s to a + 1 µs: starts before a and ends after it -> carry-in, covers 1 µs
    word = score_pause_sample((Word("w", 1_500_000, 2_000_001),), pauses)
    assert (word.carry_in, word.pre_pause_speech, word.pause_intrusion) == (True, True, False)
    assert word.intrusion_us == 1
    # a word starting exactly at a and running on is not carry-in (start < a is false)
    at = score_pause_sample((Word("w", 2_000_000, 2_500_000),), pauses)
    assert at.carry_in is False and at.first_pause_start_us == 2_000_000


def test_word_exactly_at_a_pause_end_is_not_inside_that_pause() -> None:
    pauses = Spans.from_spans((Span(2_000_000, 3_000_000), Span(5_000_000, 6_000_000)))
    # onset b = 3.0: [a, b) excludes b, so not inside; still intrusion (after the first
    # pause start) and in pause 1's owned [2, 5)
    at_end = score_pause_sample((Word("w", 3_000_000, 3_200_000),), pauses)
    assert (at_end.inside_pause_onset, at_end.pause_intrusion, at_end.intruded_pauses) == (
        False, True, 1)
    assert at_end.intrusion_us == 0                  # [3.0, 3.2] covers no pause time
    # onset b - 1 µs: inside pause 1
    inside = score_pause_sample((Word("w", 2_999_999, 3_200_000),), pauses)
    assert inside.inside_pause_onset and inside.intrusion_us == 1


def test_owned_interval_boundaries() -> None:
    # pauses [2, 3) and [5, 6), T = 10: pause 1 owns [2, 5), pause 2 owns [5, 10].
    pauses = Spans.from_spans((Span(2_000_000, 3_000_000), Span(5_000_000, 6_000_000)))
    # onsets 4.999999 (pause 1) and 5.0 (pause 2's start: owned by pause 2, not 1)
    words = (Word("a", 4_999_999, 4_999_999), Word("b", 5_000_000, 5_000_000))
    both = score_pause_sample(words, pauses)
    assert both.intruded_pauses == 2 and both.intrusion_words == 2
    only_second = score_pause_sample((Word("b", 5_000_000, 5_000_000),), pauses)
    assert only_second.intruded_pauses == 1
    # exactly at T = 10: the last owned interval is closed, so the onset counts
    at_t = score_pause_sample((Word("c", 10_000_000, 10_000_000),), pauses)
    assert at_t.intruded_pauses == 1 and at_t.inside_pause_onset is False
    # an onset in the first owned interval only (4.0): one of two pauses intruded
    first = score_pause_sample((Word("d", 4_000_000, 4_000_000),), pauses)
    assert (first.intruded_pauses, first.pauses) == (1, 2)


def test_coverage_at_the_pause_edges() -> None:
    # pause [2, 3); word [1.0, 2.0] touches a: 0; word [3.0, 4.0] touches b: 0;
    # word [2.999999, 3.5]: 1 µs; words [1.5, 2.4] and [2.4, 2.6] abut: union [1.5, 2.6]
    # covers 0.6 s of the pause.
    pauses = Spans.from_spans((Span(2_000_000, 3_000_000),))
    touching = (Word("a", 1_000_000, 2_000_000), Word("b", 3_000_000, 4_000_000))
    assert score_pause_sample(touching, pauses).intrusion_us == 0
    edge = (Word("c", 2_999_999, 3_500_000),)
    assert score_pause_sample(edge, pauses).intrusion_us == 1
    abutting = (Word("d", 1_500_000, 2_400_000), Word("e", 2_400_000, 2_600_000))
    assert score_pause_sample(abutting, pauses).intrusion_us == 600_000
    # pause time: two pauses of 1 s and 0.5 s -> 1.5 s
    two = Spans.from_spans((Span(2_000_000, 3_000_000), Span(4_000_000, 4_500_000)))
    assert score_pause_sample((), two).pause_us == 1_500_000


# --- S and R: the user's interruption ---------------------------------------------------

def test_segment_starting_exactly_at_s_covers_s_and_is_not_a_restart() -> None:
    # [S, 6.0): start <= S < end, so speech at the onset; a restart needs S < start, so
    # none. Stop = 6.0 - 5.0 = 1.0 s; speech inside [S, R] = 1.0 s.
    sample = interruption([(S, 6_000_000)], [8_000_000])
    assert sample.speech_at_onset and sample.restarts == 0
    assert sample.stop_us == 1_000_000 and sample.speech_in_interruption_us == 1_000_000
    assert not sample.speech_before_onset           # start < S is false
    assert (sample.outcome, sample.latency_us) == ("response", 1_000_000)   # 8.0 - 7.0


def test_segment_starting_one_microsecond_after_s_is_a_restart_not_onset_speech() -> None:
    sample = interruption([(S + 1, 6_000_000)])
    assert not sample.speech_at_onset and sample.restarts == 1
    assert sample.outcome == "not_exercised" and sample.stop_us is None
    # one microsecond before S: covers S, and counts as speech before the onset
    before = interruption([(S - 1, 6_000_000)])
    assert before.speech_at_onset and before.restarts == 0 and before.speech_before_onset
    assert before.stop_us == 1_000_000


def test_segment_ending_exactly_at_s_does_not_cover_s() -> None:
    # [4.0, S): S < end is false -> not exercised
    sample = interruption([(4_000_000, S)])
    assert (sample.outcome, sample.speech_at_onset, sample.stop_us, sample.stop_observed) == (
        "not_exercised", False, None, None)
    assert sample.speech_in_interruption_us == 0
    # [4.0, S + 1 µs) covers S: stops 1 µs after the onset
    covering = interruption([(4_000_000, S + 1)])
    assert covering.speech_at_onset and covering.stop_us == 1
    assert covering.outcome == "no_response"       # no word at or after R


def test_segment_starting_exactly_at_r_is_neither_restart_nor_carried_over() -> None:
    # speech [4, 6) covers S; a reply segment [R, 9) starts at R: start < R is false, so
    # no speech at the end and no restart (a restart is inside (S, R)); word at R -> 0.
    sample = interruption([(4_000_000, 6_000_000), (R, 9_000_000)], [R])
    assert (sample.outcome, sample.speech_at_end, sample.restarts) == ("response", False, 0)
    assert sample.latency_us == 0 and sample.first_word_us == R
    # [R - 1 µs, 9): starts inside (S, R) and runs over R -> restart and speaking at end
    early = interruption([(4_000_000, 6_000_000), (R - 1, 9_000_000)], [R])
    assert (early.outcome, early.speech_at_end, early.restarts) == ("speaking_at_end", True, 1)
    assert early.latency_us is None
    assert early.speech_in_interruption_us == 1_000_001   # [5, 6) + [R - 1 µs, R)


def test_segment_ending_exactly_at_r_is_not_carried_over() -> None:
    # [4, R): start < R < end is false at end = R -> stopped; the word before R does not
    # count, the one at R + 0.5 s gives latency 0.5 s
    sample = interruption([(4_000_000, R)], [R - 1, R + 500_000])
    assert (sample.outcome, sample.speech_at_end) == ("response", False)
    assert sample.latency_us == 500_000 and sample.first_word_us == R + 500_000
    assert sample.stop_us == 2_000_000                  # R - S
    # [4, R + 1 µs): carried over R by 1 µs -> speaking at the end
    over = interruption([(4_000_000, R + 1)], [R + 500_000])
    assert (over.outcome, over.speech_at_end) == ("speaking_at_end", True)


def test_word_one_microsecond_before_r_is_not_a_response() -> None:
    # speech [4, 6) covers S and stops; the only word starts at R - 1 µs -> no response
    sample = interruption([(4_000_000, 6_000_000)], [R - 1])
    assert (sample.outcome, sample.first_word_us, sample.latency_us) == (
        "no_response", None, None)


# --- T: the end of the window -----------------------------------------------------------

def test_segment_ending_exactly_at_t_has_no_observed_stop() -> None:
    # [4, T): runs to T -> no observed stop; [4, T - 1 µs): stop = T - 1 - S
    running = interruption([(4_000_000, T)])
    assert (running.stop_us, running.stop_observed) == (None, False)
    assert running.outcome == "speaking_at_end"
    ended = interruption([(4_000_000, T - 1)])
    assert (ended.stop_us, ended.stop_observed) == (T - 1 - S, True)


def test_only_the_segment_covering_s_gives_the_stop() -> None:
    # [1, 2) is before S, [4, 6) covers S, [8, 9) after R: stop = 6 - 5 = 1 s; speech
    # inside [S, R] is 1 s from the covering segment only
    sample = interruption([(1_000_000, 2_000_000), (4_000_000, 6_000_000),
                           (8_000_000, 9_000_000)], [8_000_000])
    assert sample.stop_us == 1_000_000 and sample.speech_in_interruption_us == 1_000_000
    assert sample.onset_us == S and sample.end_us == R


# --- the loader's window checks: [0, T] is closed ------------------------------------------

def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_word_exactly_at_t_is_accepted_and_one_microsecond_later_refused(tmp_path: Path) -> None:
    # T = 10 s: a word starting at 10.0 lies in [0, T]; at 10.000001 it does not
    ok = _write(tmp_path / "ok.json", {"chunks": [{"text": "hi", "timestamp": [10.0, None]}]})
    (word,) = load_words(ok, "s1", 10_000_000)
    assert (word.start_us, word.end_us, word.end_was_null) == (10_000_000, 10_000_000, True)
    late = _write(tmp_path / "late.json",
                  {"chunks": [{"text": "hi", "timestamp": [10.000001, None]}]})
    with pytest.raises(InputError, match=r"starts at 10\.000001 s lies outside the input "
                                         r"window \[0, 10\.000000\] s"):
        load_words(late, "s1", 10_000_000)
    early = _write(tmp_path / "early.json",
                   {"chunks": [{"text": "hi", "timestamp": [-0.000001, 0.1]}]})
    with pytest.raises(InputError, match="outside the input window"):
        load_words(early, "s1", 10_000_000)


def test_a_time_outside_the_window_is_named_in_full(tmp_path: Path) -> None:
    """The whole message of a word's and a pause's refused time: which entry, the word's
    repr, the time and the window, each to the microsecond (T = 10 s)."""
    words = _write(tmp_path / "words.json", {"chunks": [
        {"text": "ok", "timestamp": [1.0, 2.0]}, {"text": " it's ", "timestamp": [10.5, 11]}]})
    with pytest.raises(InputError) as caught:
        load_words(words, "s1", 10_000_000)
    assert str(caught.value) == (f"sample s1: {words}: chunks[1] (\"it's\") starts at "
                                 "10.500000 s lies outside the input window [0, 10.000000] s")
    pauses = _write(tmp_path / "pause.json", [{"timestamp": [1.0, 2.0]},
                                              {"timestamp": [3.0, 10.25]}])
    with pytest.raises(InputError) as caught:
        load_pauses(pauses, "s1", 10_000_000)
    assert str(caught.value) == (f"sample s1: {pauses}: pause 1 ends at 10.250000 s lies "
                                 "outside the input window [0, 10.000000] s")


def test_interruption_with_s_equal_to_r_and_at_the_window_edges(tmp_path: Path) -> None:
    # S = R is allowed (S <= R), both may sit exactly on 0 and T; R < S is refused
    same = _write(tmp_path / "same.json", [{"timestamp": [3.0, 3.0]}])
    assert load_interruption(same, "s1", 10_000_000) == Span(3_000_000, 3_000_000)
    edges = _write(tmp_path / "edges.json", [{"timestamp": [0.0, 10.0]}])
    assert load_interruption(edges, "s1", 10_000_000) == Span(0, 10_000_000)
    backwards = _write(tmp_path / "back.json", [{"timestamp": [3.0, 2.999999]}])
    with pytest.raises(InputError, match=r"ends \(R\) before it starts \(S\)"):
        load_interruption(backwards, "s1", 10_000_000)


def test_pauses_may_touch_but_not_overlap(tmp_path: Path) -> None:
    # [1, 2] then [2, 3]: the second starts exactly where the first ends (not overlapping);
    # [1, 2] then [1.999999, 3] overlaps by 1 µs and is refused
    touching = _write(tmp_path / "touch.json",
                      [{"timestamp": [1.0, 2.0]}, {"timestamp": [2.0, 3.0]}])
    assert load_pauses(touching, "s1", 10_000_000).to_tuples() == [
        (1_000_000, 2_000_000), (2_000_000, 3_000_000)]
    overlapping = _write(tmp_path / "over.json",
                         [{"timestamp": [1.0, 2.0]}, {"timestamp": [1.999999, 3.0]}])
    with pytest.raises(InputError, match="pause 1 starts before pause 0 ends"):
        load_pauses(overlapping, "s1", 10_000_000)
    # a zero-length pause a = b is allowed; b = T allowed, b = T + 1 µs refused
    zero = _write(tmp_path / "zero.json", [{"timestamp": [4.0, 4.0]}, {"timestamp": [9.0, 10.0]}])
    assert load_pauses(zero, "s1", 10_000_000)[0].duration_us == 0
    past = _write(tmp_path / "past.json", [{"timestamp": [9.0, 10.000001]}])
    with pytest.raises(InputError, match=r"pause 0 ends at 10\.000001 s lies outside"):
        load_pauses(past, "s1", 10_000_000)


def test_turn_end_e_may_be_exactly_t(tmp_path: Path) -> None:
    at_t = _write(tmp_path / "tt.json", [{"timestamp": [10.0, 11.0]}])
    assert load_turn_end(at_t, "s1", 10_000_000) == 10_000_000
    past = _write(tmp_path / "tt2.json", [{"timestamp": [10.000001, 11.0]}])
    with pytest.raises(InputError, match=r"E \(turn_taking\[0\] start\)"):
        load_turn_end(past, "s1", 10_000_000)


def test_task_load_names_the_annotation_file_of_a_bad_boundary() -> None:
    # the task reads the parsed annotation and must still name its file: E = 10.000001 s,
    # a pause end and R at 10.000001 s lie past T = 10 s
    from types import SimpleNamespace

    from speecheval.fdb.common.tree import PAUSE_HANDLING, SMOOTH_TURN_TAKING, USER_INTERRUPTION
    from speecheval.fdb.v10.scoring.samples import LoadedSample
    from speecheval.fdb.v10.scoring.tasks import TASKS

    for task, data in ((SMOOTH_TURN_TAKING, [{"timestamp": [10.000001, 11.0]}]),
                       (PAUSE_HANDLING, [{"timestamp": [9.0, 10.000001]}]),
                       (USER_INTERRUPTION, [{"timestamp": [9.0, 10.000001]}])):
        sample = LoadedSample(entry=SimpleNamespace(sample_id="s1"),  # type: ignore[arg-type]
                              duration_us=10_000_000, transcript=Path("out/s1.json"),
                              annotation=Path("ds/s1/annotation.json"), words=(),
                              annotation_data=data)
        with pytest.raises(InputError) as caught:
            TASKS[task].load(sample)
        assert caught.value.path == str(Path("ds/s1/annotation.json"))
        assert caught.value.sample_id == "s1"


def test_pause_task_scores_one_sample_as_it_scores_a_batch() -> None:
    # `fdb10 show` scores one sample (Task.score), `score` a batch (Task.score_many): one
    # pause [2 s, 4 s) and a word at [3 s, 3.5 s) inside it: one intruded pause of 2 s
    from types import SimpleNamespace

    from speecheval.fdb.common.annotations import Word
    from speecheval.fdb.common.tree import PAUSE_HANDLING
    from speecheval.fdb.v10.scoring.samples import LoadedSample
    from speecheval.fdb.v10.scoring.tasks import TASKS

    sample = LoadedSample(entry=SimpleNamespace(sample_id="s1"),  # type: ignore[arg-type]
                          duration_us=10_000_000, transcript=Path("out/s1.json"),
                          annotation=Path("ds/s1/pause.json"),
                          words=(Word("hi", 3_000_000, 3_500_000),),
                          pauses=Spans([2_000_000], [4_000_000]))
    task = TASKS[PAUSE_HANDLING]
    one = task.score(sample, Spans.empty())
    assert one == task.score_many([sample], {})[0]
    assert (one.pause_intrusion, one.pauses, one.intruded_pauses, one.pause_us,
            one.first_pause_start_us, one.words) == (True, 1, 1, 2_000_000, 2_000_000, 1)
