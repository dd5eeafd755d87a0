"""Cases that kill mutants of the diarization scorer which the other DER tests let live.

Each test names what a planted one-token bug would change; the expected values are worked
out by hand (the arithmetic is in the comments).
"""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization.cli import collar_seconds
from speecheval.transcripts.diarization.compat import cut_at_uem
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
