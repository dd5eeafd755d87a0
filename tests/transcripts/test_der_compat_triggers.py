"""What the disagreement counters of ``transcripts der`` count, file by file, at their
edges: tie order, turns cut at the UEM, boundaries off dscore's frame grid (cases worked
out by hand; the definitions are in :mod:`speecheval.transcripts.diarization.differences`).
"""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.errors import InputError
from speecheval.core.timeline import Spans
from speecheval.transcripts.diarization.compat import off_grid
from speecheval.transcripts.diarization.differences import Occurrence
from speecheval.transcripts.diarization.partition import Activity
from speecheval.transcripts.diarization.render import table
from speecheval.transcripts.diarization.result import DiarizationScore
from speecheval.transcripts.diarization.score import default_uem, score_file, score_files, total
from speecheval.transcripts.diarization.scoring_region import clipped_turns
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM


def rttm(*turns: tuple[float, float, str], file_id: str = "f") -> RTTM:
    return RTTM.parse("\n".join(f"SPEAKER {file_id} 1 {s} {round(e - s, 6)} <NA> <NA> {k} <NA> "
                                "<NA>" for s, e, k in turns))


def one(ref: RTTM, hyp: RTTM, uem: str, **kwargs: object) -> DiarizationScore:
    result = score_files(ref, hyp, UEM.parse(uem), **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, dict)
    return total(result)


def test_tie_order_counts_the_seconds_that_depend_on_perls_sort() -> None:
    # Item 21's case, collar 0, UEM [0, 8]: reference A 0-10, B 2-5, B 5-20. Taking B's
    # end at 5 before its new begin (md_eval module) gives zones [2, 5], [5, 10] and the
    # -1 region [0, 2] + [5, 8]; begins first gives one zone [2, 10] and [0, 2]. 3 s at
    # stake in 1 file.
    ref = rttm((0, 10, "A"), (2, 5, "B"), (5, 20, "B"))
    score = one(ref, rttm((0, 8, "X")), "f 1 0 8", collar_s=0, compat="md-eval")
    assert score.differences.tie_order == Occurrence(1, 3_000_000)
    # Without simultaneous events nothing depends on the order.
    plain = one(rttm((0, 10, "A"), (2, 6, "B")), rttm((0, 8, "X")), "f 1 0 8", collar_s=0,
                compat="md-eval")
    assert plain.differences.tie_order == Occurrence()


def test_cut_at_uem_counts_turns_partly_outside_only() -> None:
    # UEM [0, 10], collar 0.25: A 0-5 is inside, B 20-25 wholly outside (not a cut turn:
    # no part is scored), C 8-12 crosses the edge at 10 with 2 s outside.
    ref = rttm((0, 5, "A"), (20, 25, "B"), (8, 12, "C"))
    score = one(ref, ref, "f 1 0 10", collar_s=0.25)
    assert score.differences.reference_cut_at_uem == Occurrence(1, 2_000_000)
    # Without a collar dscore's cut makes no difference (no collar at the cut), so it is
    # not counted.
    assert one(ref, ref, "f 1 0 10", collar_s=0).differences.reference_cut_at_uem == Occurrence()


def test_off_grid_counts_boundaries_inside_the_uem_up_to_its_edges() -> None:
    # Region [1.005 s, 2.005 s] in us. 1_005_000 (the region's start) and 2_005_000 (its
    # end) are inside and 5_000 us past the grid point before them: each is moved
    # 10_000 - 5_000 = 5_000 us. 1_000_000 is inside but on the grid (not counted);
    # 3_005_000 and 505_000 are outside the region (not counted).
    uem = Spans([1_005_000], [2_005_000])
    boundaries = np.array([505_000, 1_005_000, 1_500_000, 2_005_000, 3_005_000])
    assert off_grid(boundaries, uem) == Occurrence(2, 10_000)
    # A region not starting at the first boundary's left: 1_005_000 lies before [2 s, 3 s].
    assert off_grid(np.array([1_005_000]), Spans([2_000_000], [3_000_000])) == Occurrence()
    # No UEM region: nothing is inside.
    assert off_grid(np.array([5_000, 15_000]), Spans.empty()) == Occurrence()


def test_dscore_0_over_0_names_the_file() -> None:
    # UEM [0, 1]; frames at 0, 0.01, ... A [0.001, 0.005] and X [0.002, 0.006] lie
    # between frame 0 and frame 1, so both hold no frame: dscore's JER is 0/0.
    ref = rttm((0.001, 0.005, "A"), file_id="g")
    hyp = rttm((0.002, 0.006, "X"), file_id="g")
    with pytest.raises(InputError) as caught:
        score_files(ref, hyp, UEM.parse("g 1 0 1"), collar_s=0, compat="dscore")
    assert str(caught.value).startswith("file 'g': a reference and a system speaker both ")


def test_defaults_are_speechevals_definition() -> None:
    ref = RTTM.parse("SPEAKER a 1 2 3 <NA> <NA> A <NA> <NA>")
    hyp = RTTM.parse("SPEAKER a 1 1 7 <NA> <NA> X <NA> <NA>")
    # speecheval's default UEM starts at 0 and ends at the last end, 1 + 7 = 8.
    assert default_uem(ref, hyp).regions("a") == ((0.0, 8.0),)
    got = score_file("a", ref.turns, hyp.turns, [(0.0, 8.0)], collar_s=0, track="main",
                     mapping_region="uem")
    assert got.compat == "speecheval"


def test_numeric_file_ids_stay_left_aligned_in_the_table() -> None:
    ref = rttm((0, 10, "A"), file_id="7")
    files = score_files(ref, ref, UEM.parse("7 1 0 10"), collar_s=0)
    assert isinstance(files, dict)
    lines = table(files, exclude_overlap=False, title="t").splitlines()
    # The file id "7" is narrower than the column (as wide as "TOTAL"): left-aligned, the
    # row starts with it; numbers right-aligned would start the row with spaces.
    row = next(line for line in lines if line.strip().startswith("7"))
    assert row.startswith("7 ")


def test_clipped_seconds_are_whole_microseconds() -> None:
    # RTTM times are read to the microsecond: the turn 0-5.1234567 ends at 5.123457, so
    # it runs 0.123457 s past the region [0, 5].
    rttm_ = RTTM.parse("SPEAKER a 1 0 5.1234567 <NA> <NA> A <NA> <NA>")
    got = clipped_turns(rttm_, UEM.from_regions({"a": ((0.0, 5.0),)}))
    assert got == {"turns": 1, "seconds": 0.123457}


def test_activity_without_intervals_counts_nothing() -> None:
    # No turn edges: zero elementary intervals, so zero speaker counts and zero time
    # per speaker (two speakers declared, neither talks).
    empty32 = np.array([], dtype=np.int32)
    activity = Activity(empty32, empty32, np.array([], dtype=np.int64), 0, 2)
    assert activity.counts().shape == (0,)
    assert activity.time(np.zeros(1, dtype=np.int64)).tolist() == [0, 0]  # prefix sums
