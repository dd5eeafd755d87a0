"""Exact texts of what ``--compat md-eval|dscore`` refuses and warns about.

The messages are the user's only explanation of why a tool's number differs or why an
input is refused, so every part of them is checked word for word: which tool, which file,
which line, and what speecheval does instead (found missing by the mutation run,
docs/testing.md).
"""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.differences import Differences, Occurrence
from speecheval.transcripts.diarization.score import score_files
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

ONE_TURN = "SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>"
NOSCORE = "NOSCORE f 1 0 1 <NA> <NA> <NA> <NA> <NA>"


def refused(compat: str, ref: RTTM, hyp: RTTM, uem: UEM) -> str:
    with pytest.raises(InputError) as caught:
        score_files(ref, hyp, uem, compat=compat)  # type: ignore[arg-type]
    return str(caught.value)


@pytest.mark.parametrize(("compat", "tool"), [("md-eval", "md-eval-22"), ("dscore", "dscore")])
def test_other_records_are_refused_naming_the_tool_file_and_line(compat: str, tool: str) -> None:
    good = RTTM.parse(ONE_TURN, path="ref.rttm")
    other = RTTM.parse(f"{ONE_TURN}\n{NOSCORE}", path="hyp.rttm")
    assert refused(compat, good, other, UEM.parse("f 1 0 5", path="x.uem")) == (
        f"hyp.rttm: line 2: --compat {compat}: NOSCORE records are not reproduced ({tool} "
        "reads them as no-score zones or as turns); keep only SPEAKER (and SPKR-INFO) records")


def test_zero_length_turn_is_refused_by_dscore_only() -> None:
    ref = RTTM.parse(f"{ONE_TURN}\nSPEAKER f 1 2 0 <NA> <NA> A <NA> <NA>", path="ref.rttm")
    uem = UEM.parse("f 1 0 5", path="x.uem")
    assert refused("dscore", ref, ref, uem) == (
        "ref.rttm: line 2: --compat dscore: zero-length turn, which dscore refuses to load")
    score_files(ref, ref, uem, compat="md-eval")  # md-eval reads it (and scores nothing)


@pytest.mark.parametrize(("compat", "tool"), [("md-eval", "md-eval-22"), ("dscore", "dscore")])
def test_empty_uem_region_is_refused_with_its_line(compat: str, tool: str) -> None:
    ref = RTTM.parse(ONE_TURN, path="ref.rttm")
    assert refused(compat, ref, ref, UEM.parse("f 1 0 5\nf 1 7 7", path="x.uem")) == (
        f"x.uem: line 2: --compat {compat}: empty region of file 'f', which {tool} refuses")


def test_empty_region_of_a_uem_not_read_from_a_file_names_no_line() -> None:
    # UEM.from_regions: no file and no line, so the message starts with the option.
    ref = RTTM.parse(ONE_TURN, path="ref.rttm")
    uem = UEM.from_regions({"f": ((0.0, 5.0), (7.0, 7.0))})
    assert refused("dscore", ref, ref, uem) == (
        "--compat dscore: empty region of file 'f', which dscore refuses")


@pytest.mark.parametrize("file_id", ["a.b", "a/b"])
@pytest.mark.parametrize(("compat", "tool"), [("md-eval", "md-eval-22"), ("dscore", "dscore")])
def test_uem_file_id_with_dot_or_slash_is_refused(compat: str, tool: str, file_id: str) -> None:
    ref = RTTM.parse(f"SPEAKER {file_id} 1 0 1 <NA> <NA> A <NA> <NA>", path="ref.rttm")
    assert refused(compat, ref, ref, UEM.parse(f"{file_id} 1 0 5", path="x.uem")) == (
        f"x.uem: line 1: --compat {compat}: file id {file_id!r} holds '.' or '/', which "
        f"{tool} strips from UEM file ids")


def test_dotted_file_id_without_a_uem_file_passes_md_eval_only() -> None:
    # md-eval reads no UEM file when none was given (speecheval's default UEM stays inside
    # speecheval), so nothing is stripped; dscore always writes and parses one.
    ref = RTTM.parse("SPEAKER a.b 1 0 1 <NA> <NA> A <NA> <NA>", path="ref.rttm")
    uem = UEM.parse("a.b 1 0 5")
    score_files(ref, ref, uem, compat="md-eval")
    assert refused("dscore", ref, ref, uem) == (
        "line 1: --compat dscore: file id 'a.b' holds '.' or '/', which dscore strips from "
        "UEM file ids")


# Every trigger once, with seconds chosen so that :g prints them exactly:
# 1_500_000 us = 1.5 s, 250_000 us = 0.25 s, 5_000 us = 0.005 s, 2_000_000 us = 2 s,
# 10_000 us = 0.01 s, 3_000_000 us = 3 s.
ALL = Differences(reference_self_overlap=Occurrence(2, 1_500_000),
                  reference_cut_at_uem=Occurrence(3, 250_000),
                  off_frame_grid=Occurrence(4, 5_000),
                  md_eval_overlap_defect=Occurrence(5, 2_000_000),
                  tie_order=Occurrence(6, 10_000),
                  unscored_files=Occurrence(7, 3_000_000))
SELF = ("2 reference turns overlap a turn of their own speaker (1.5 s of self-overlap): {}; "
        "md-eval-22 collars their inner boundaries and its -1 counts them as overlap")
CUT = ("3 reference turns cross a UEM edge (0.25 s outside it): {}; dscore cuts them at the "
       "edge, where md-eval then puts a +-{} s collar")
GRID = ("4 turn boundaries are off dscore's 10 ms frame grid (moved 0.005 s in all by its "
        "framing): {}")
DEFECT = "md-eval-22's -1 misplaces 5 stretches (2 s) here (known defect): {}"
TIES = ("in 6 files md-eval's -1 region depends on how Perl sorts simultaneous events (0.01 s "
        "at stake); speecheval takes ends before begins")
UNSCORED = ("7 files have no reference turns and are not scored, as in md-eval (3 s of system "
            "speaker time there is not counted as false alarm)")


@pytest.mark.parametrize(("compat", "collar_s", "expected"), [
    # Tie order and unscored files concern md-eval's -1 and its file loop, which the
    # default mode does not reproduce, so they are not warned about there.
    ("speecheval", 0.25, [SELF.format("merged, as speecheval and dscore do"),
                          CUT.format("not cut, as speecheval and md-eval do", "0.25"),
                          GRID.format("JER in continuous time"),
                          DEFECT.format("not reproduced (speecheval's overlap-excluded DER is "
                                        "right)")]),
    ("md-eval", 0.1, [SELF.format("scored as md-eval-22 does"),
                      CUT.format("not cut, as speecheval and md-eval do", "0.1"),
                      GRID.format("JER in continuous time"), DEFECT.format("reproduced"),
                      TIES, UNSCORED]),
    ("dscore", 0.5, [SELF.format("merged, as speecheval and dscore do"),
                     CUT.format("cut there as dscore does", "0.5"),
                     GRID.format("JER on 10 ms frames as dscore does"),
                     DEFECT.format("reproduced"), TIES, UNSCORED]),
])
def test_warnings_say_what_each_mode_does(compat: str, collar_s: float,
                                          expected: list[str]) -> None:
    assert ALL.warnings(compat, collar_s) == expected


@pytest.mark.parametrize("compat", ["speecheval", "md-eval", "dscore"])
def test_no_trigger_no_warning(compat: str) -> None:
    assert Differences().warnings(compat, 0.25) == []


@pytest.mark.parametrize(("count", "us"), [(-1, 0), (0, -1), (-1, 5)])
def test_negative_occurrence_is_refused(count: int, us: int) -> None:
    with pytest.raises(ValueError) as caught:
        Occurrence(count, us)
    assert str(caught.value) == f"negative occurrence Occurrence(count={count}, us={us})"
