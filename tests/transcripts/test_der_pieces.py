"""Pieces of a file's timeline scored apart (``diarization/pieces.py``) and the second
thread of ``diarization/in_parallel.py``: hand-worked cases (the whole-file agreement on
random files is in ``test_der_oracle.py``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization import in_parallel, pieces
from speecheval.transcripts.diarization.pieces import (
    Regions,
    piece_windows,
    region_totals_in_pieces,
    turns_reaching,
)

FAR_PAST, FAR_FUTURE = np.iinfo(np.int64).min, np.iinfo(np.int64).max


def test_a_file_smaller_than_a_piece_is_one_window_over_all_time() -> None:
    # 3 + 0 starts, 4 turns a piece: 3 // 4 = 0 pieces, so one window, the whole line
    spans = Spans([0, 10, 20], [5, 15, 25])
    assert piece_windows(spans, Spans.empty(), 4) == [(FAR_PAST, FAR_FUTURE)]


def test_windows_cut_at_the_starts_that_split_both_sides_evenly() -> None:
    # starts 0 10 20 30 (reference) and 5 25 (system): 6 starts, 2 a piece, 3 pieces;
    # cuts at ranks 6 * 1 // 3 = 2 and 6 * 2 // 3 = 4 of the sorted starts
    # 0 5 10 20 25 30, which are 10 and 25
    ref, hyp = Spans([0, 10, 20, 30], [5, 15, 25, 35]), Spans([5, 25], [9, 28])
    assert piece_windows(ref, hyp, 2) == [(FAR_PAST, 10), (10, 25), (25, FAR_FUTURE)]


def test_one_turn_a_piece_cuts_at_every_start_but_the_first() -> None:
    # 4 starts, 1 a piece: 4 pieces, cuts at ranks 1, 2, 3 of the starts 0 10 20 30
    spans = Spans([0, 10, 20, 30], [5, 15, 25, 35])
    assert piece_windows(spans, Spans.empty(), 1) == [
        (FAR_PAST, 10), (10, 20), (20, 30), (30, FAR_FUTURE)]


def test_equal_starts_give_one_cut_not_an_empty_window() -> None:
    # six turns starting at 7: the cuts at ranks 2 and 4 are both 7, kept once
    spans = Spans([7] * 6, [9] * 6)
    assert piece_windows(spans, Spans.empty(), 2) == [(FAR_PAST, 7), (7, FAR_FUTURE)]


def test_turns_reaching_a_window_keep_their_order_speakers_and_times() -> None:
    # window [4, 9): [0, 4) ends at its start (out), [4, 5) and [8, 20) reach in,
    # [9, 10) starts at its end (out)
    spans = Spans([8, 0, 4, 9], [20, 4, 5, 10], labels=["b", "a", "a", "b"])
    inside = turns_reaching(spans, (4, 9))
    assert inside.starts.tolist() == [8, 4] and inside.ends.tolist() == [20, 5]
    assert [inside.label_names[k] for k in inside.label_ids.tolist()] == ["b", "a"]
    assert turns_reaching(spans, (FAR_PAST, FAR_FUTURE)) is spans
    # the first and the last window are bounded on one side only
    assert turns_reaching(spans, (FAR_PAST, 4)).starts.tolist() == [0]
    assert turns_reaching(spans, (9, FAR_FUTURE)).starts.tolist() == [8, 9]


def test_totals_over_pieces_are_the_whole_file_totals() -> None:
    # reference A [0, 10), B [4, 6); system X [2, 12); UEM [0, 12), scored [1, 12);
    # one turn a piece: cuts at the starts 2 and 4, so A and X are cut twice.
    # Whole file, by hand: A 10 in the UEM, B 2, X 10; A with X [2, 10) = 8, B with X 2;
    # min(R, H): [2, 4) 1, [4, 6) min(2, 1) = 1, [6, 10) 1, [10, 12) 0 -> 8 µs;
    # scored [1, 12): A 9, B 2, X 10, A-X 8, B-X 2, min 8, region 11 µs;
    # overlap excluded: [4, 6) has two reference speakers -> A 7, X 8, A-X 6, B-X 0,
    # min 6, region 9 µs
    ref = Spans([0, 4], [10, 6], labels=["A", "B"])
    hyp = Spans([2], [12], labels=["X"])
    regions = Regions(np.array([[0, 12]]), np.array([[1, 12]]), None)
    cut = region_totals_in_pieces(ref, hyp, regions, turns_per_piece=1)
    assert (cut.uem.ref_time.tolist(), cut.uem.hyp_time.tolist()) == ([10, 2], [10])
    assert cut.uem.cooccurrence.tolist() == [[8], [2]]
    assert (cut.uem.both_us, cut.uem.region_us) == (8, 12)
    assert (cut.scored.ref_time.tolist(), cut.scored.hyp_time.tolist()) == ([9, 2], [10])
    assert cut.scored.cooccurrence.tolist() == [[8], [2]]
    assert (cut.scored.both_us, cut.scored.region_us) == (8, 11)
    assert (cut.single.ref_time.tolist(), cut.single.hyp_time.tolist()) == ([7, 0], [8])
    assert cut.single.cooccurrence.tolist() == [[6], [0]]
    assert (cut.single.both_us, cut.single.region_us) == (6, 9)
    # the same totals unpieced (one window): the hand values above hold for both
    whole = region_totals_in_pieces(ref, hyp, regions)
    for name in ("uem", "scored", "single"):
        one, other = getattr(cut, name), getattr(whole, name)
        assert one.ref_time.tolist() == other.ref_time.tolist()
        assert one.hyp_time.tolist() == other.hyp_time.tolist()
        assert one.cooccurrence.tolist() == other.cooccurrence.tolist()
        assert (one.both_us, one.region_us) == (other.both_us, other.region_us)


def test_a_given_overlap_excluded_region_is_cut_like_the_others() -> None:
    # md-eval's own -1 region [0, 3) (not the intervals of two reference speakers):
    # A [0, 10) with X [2, 12), cut at 2: A 3, X 1, A-X 1, min 1, region 3 µs
    ref, hyp = Spans([0], [10], labels=["A"]), Spans([2], [12], labels=["X"])
    whole = np.array([[0, 12]])
    cut = region_totals_in_pieces(ref, hyp, Regions(whole, whole, np.array([[0, 3]])),
                                  turns_per_piece=1)
    assert (cut.single.ref_time.tolist(), cut.single.hyp_time.tolist()) == ([3], [1])
    assert cut.single.cooccurrence.tolist() == [[1]]  # A [0,10) and X [2,12) in [0,3): [2,3)
    assert (cut.single.both_us, cut.single.region_us) == (1, 3)


def test_pieces_run_in_threads_of_their_own_only_when_there_are_several(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[str] = set()
    partition = pieces.partition

    def recording(ref: Spans, hyp: Spans) -> object:
        seen.add(threading.current_thread().name)
        return partition(ref, hyp)

    monkeypatch.setattr(pieces, "partition", recording)
    ref, hyp = Spans([0, 4], [10, 6], labels=["A", "B"]), Spans([2], [12], labels=["X"])
    whole = np.array([[0, 12]])
    region_totals_in_pieces(ref, hyp, Regions(whole, whole, None))
    assert seen == {threading.current_thread().name}
    seen.clear()
    region_totals_in_pieces(ref, hyp, Regions(whole, whole, None), turns_per_piece=1)
    assert seen and all(name.startswith("der-piece") for name in seen)


def test_no_more_pieces_than_threads_are_scored_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each piece holds its arrays while it is scored: the peak memory is that of
    # THREADS pieces, so no more may run at once (each sweep waits a little so that
    # more threads, if there were any, would overlap)
    running, most = [0], [0]
    lock = threading.Lock()
    partition = pieces.partition

    def slow(ref: Spans, hyp: Spans) -> object:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(0.02)
        with lock:
            running[0] -= 1
        return partition(ref, hyp)

    monkeypatch.setattr(pieces, "partition", slow)
    starts = list(range(0, 80, 10))
    ref = Spans(starts, [start + 5 for start in starts], labels=["A"] * 8)
    whole = np.array([[0, 100]])
    region_totals_in_pieces(ref, Spans.empty(), Regions(whole, whole, None), turns_per_piece=1)
    assert most[0] == pieces.THREADS == 2  # the peak memory is two pieces' arrays


def test_the_steps_of_a_file_count_the_turns_of_both_sides(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 3 reference and 3 system turns, threshold 6: 3 + 3 = 6 turns, so the system's
    # merging runs in the second thread
    from speecheval.transcripts.diarization import compat
    from speecheval.transcripts.diarization.turns import speaker_turns

    where: list[str] = []

    def recording(raw: Spans) -> object:
        where.append(threading.current_thread().name)
        return speaker_turns(raw)

    monkeypatch.setattr(in_parallel, "FROM_TURNS", 6)
    monkeypatch.setattr(compat, "speaker_turns", recording)
    side = Spans([0, 10, 20], [5, 15, 25], labels=["A", "A", "B"])
    compat.file_view("speecheval", "f", side, side, [(0.0, 1.0)], 0)
    here = threading.current_thread().name
    assert sorted(name.startswith("der-step") for name in where) == [False, True]
    assert here in where


def test_the_second_step_runs_in_a_thread_from_the_threshold_on() -> None:
    name = lambda: threading.current_thread().name  # noqa: E731
    here = name()
    below = in_parallel.both(name, name, turns=in_parallel.FROM_TURNS - 1)
    assert below == (here, here)
    first, second = in_parallel.both(name, name, turns=in_parallel.FROM_TURNS)
    assert first == here and second.startswith("der-step")


def test_an_error_in_the_second_step_reaches_the_caller() -> None:
    def fails() -> None:
        raise ValueError("bad turn")

    with pytest.raises(ValueError, match="bad turn"):
        in_parallel.both(lambda: 1, fails, turns=in_parallel.FROM_TURNS)
