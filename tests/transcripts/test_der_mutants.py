"""Cases that kill mutants of the diarization scorer which the other DER tests let live.

Each test names what a planted one-token bug would change; the expected values are worked
out by hand (the arithmetic is in the comments).
"""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization.cli import collar_seconds
from speecheval.transcripts.diarization.compat import cut_at_uem, file_view, self_overlap
from speecheval.transcripts.diarization.differences import Occurrence
from speecheval.transcripts.diarization.turns import SpeakerTurns, speaker_turns


def test_negative_collar_message_names_the_option_and_the_value() -> None:
    # the one-line error a user sees for --collar -0.5: option, rule and the text given
    with pytest.raises(InputError) as caught:
        collar_seconds("-0.5")
    assert str(caught.value) == "--collar: must be 0 or more seconds, got -0.5"
    # 0 itself is allowed (the boundary of "0 or more")
    assert collar_seconds("0") == 0.0


def _speaker_a(starts: list[int], ends: list[int]) -> SpeakerTurns:
    return speaker_turns(Spans(starts, ends, labels=["a"] * len(starts)))


def test_cut_at_uem_over_two_regions_counts_the_gap_as_outside() -> None:
    # UEM [0, 10) and [20, 30) s; one reference turn [5, 25) s has 5 + 5 = 10 s inside
    # and the 10 s of the gap [10, 20) outside: one cut turn, 10 s outside. (Were the
    # two regions read as one stretch [0, 30), nothing would lie outside.)
    uem = Spans([0, 20_000_000], [10_000_000, 30_000_000])
    assert cut_at_uem(_speaker_a([5_000_000], [25_000_000]), uem) == Occurrence(1, 10_000_000)


def test_cut_at_uem_counts_a_single_microsecond_on_either_side() -> None:
    # UEM [0, 10 s); turn [10 s - 1 us, 10 s + 1 us): 1 us inside, 1 us outside, so it
    # crosses the edge: count 1, 1 us outside
    uem = Spans([0], [10_000_000])
    assert cut_at_uem(_speaker_a([9_999_999], [10_000_001]), uem) == Occurrence(1, 1)
    # a turn ending at the edge has nothing outside; one starting there nothing inside
    assert cut_at_uem(_speaker_a([9_000_000], [10_000_000]), uem) == Occurrence()
    assert cut_at_uem(_speaker_a([10_000_000], [11_000_000]), uem) == Occurrence()


def test_self_overlap_with_a_last_speaker_of_zero_length_turns_only() -> None:
    # a: [0, 4) and [2, 6) s overlap on [2, 4): 1 merge, 2 s of self-overlap; b: one turn;
    # c (the last speaker index): only a zero-length turn, so it has no timed turn at all
    # and the per-speaker counts must still cover all three speakers
    raw = Spans([0, 2_000_000, 10_000_000, 20_000_000],
                [4_000_000, 6_000_000, 12_000_000, 20_000_000], labels=["a", "a", "b", "c"])
    assert self_overlap(speaker_turns(raw)) == Occurrence(1, 2_000_000)


# (reference turns as (speaker, start s, end s), UEM end s, tie_order, overlap defect)
TIE_CASES = [
    # md_eval.py's hand check: reference A [0, 10), B [2, 5), B [5, 20) s over UEM [0, 8].
    # At 5 s one B record ends as the other begins. Ends first: the overlap zones are
    # [2, 5) and [5, 10), and md-eval's loop keeps [0, 2] and [5, 8] as -1 region; begins
    # first: one zone [2, 10), -1 region [0, 2]. They differ on [5, 8]: one tie-sensitive
    # file, 3 s at stake. The -1 region [0, 2], [5, 8] also differs from the correct
    # [0, 2] by [5, 8]: one misplaced stretch of 3 s.
    ([("A", 0, 10), ("B", 2, 5), ("B", 5, 20)], 8, Occurrence(1, 3_000_000),
     Occurrence(1, 3_000_000)),
    # Reference B [5, 7), A [7, 8), B [8, 13) s over UEM [0, 7]. No two records overlap,
    # so ends first there is no overlap zone and the -1 region is [0, 7]. Begins first,
    # A begins at 7 before B ends, a zero-length zone [7, 7], and likewise [8, 8].
    # md-eval's loop then closes [0, 7] at the zone's begin, restarts at its end (the UEM
    # region is still open: ends of zones come before ends of regions), is stuck at the
    # region end of the same instant, and closes at the next event, the zone at 8: [7, 8]
    # joins the -1 region although it lies outside the UEM. 1 s depends on the order, in
    # one file; the ends-first region itself is the correct one (no defect).
    ([("B", 5, 7), ("A", 7, 8), ("B", 8, 13)], 7, Occurrence(1, 1_000_000), Occurrence()),
]


@pytest.mark.parametrize(("turns", "uem_end", "ties", "defect"), TIE_CASES)
def test_tie_order_counts_the_seconds_that_depend_on_event_order(
        turns: list[tuple[str, int, int]], uem_end: int, ties: Occurrence,
        defect: Occurrence) -> None:
    # no collar; the system talks over the whole UEM (it plays no part in either count)
    ref = Spans([a * 1_000_000 for _, a, _ in turns], [b * 1_000_000 for _, _, b in turns],
                labels=[name for name, _, _ in turns])
    hyp = Spans([0], [uem_end * 1_000_000], labels=["X"])
    view = file_view("md-eval", "f", ref, hyp, [(0.0, float(uem_end))], 0)
    assert view.differences.tie_order == ties
    assert view.differences.md_eval_overlap_defect == defect
