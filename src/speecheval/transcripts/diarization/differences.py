"""Where an input makes speecheval, md-eval-22 and dscore disagree: counted, never silent.

speecheval's definition (merge a speaker's self-overlapping turns; overlap means two or
more distinct speakers; no collar at UEM edges; continuous time) is the default, and
``--compat md-eval`` / ``--compat dscore`` reproduce the other tools. Whichever mode runs,
every file counts the inputs that make the definitions part, with the seconds involved,
so the command can warn (the counting is in :mod:`.compat`):

* ``reference_self_overlap``: reference turns overlapping another turn of their own
  speaker (merged by speecheval and dscore; md-eval collars their inner boundaries and
  its ``-1`` counts them as overlap), and the time a speaker overlaps itself.
* ``reference_cut_at_uem``: with a collar, reference turns that cross a UEM edge and the
  seconds outside it (dscore cuts them there, so md-eval collars the cut).
* ``off_frame_grid``: turn boundaries inside the UEM that are not on dscore's 10 ms frame
  grid, and how far dscore's framing moves them in all (its JER is on frames).
* ``md_eval_overlap_defect``: stretches md-eval's ``-1`` scores although they are
  reference overlap, or leaves out although they are not (its stuck loop, see
  :mod:`.md_eval`).
* ``tie_order``: files where md-eval's ``-1`` region depends on how Perl's sort orders
  events of one instant, and the seconds at stake.
* ``unscored_files``: files md-eval does not score because they have no reference
  turns, and the system speaker time there that is then not counted as false alarm.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ...core.results import FieldwiseSum, Result
from ...core.timebase import from_us


@dataclass(frozen=True)
class Occurrence(FieldwiseSum, Result, kind="transcripts.der_difference_occurrence"):
    """How often an input triggers one difference, and the microseconds involved."""

    count: int = 0
    us: int = 0

    def __post_init__(self) -> None:
        if self.count < 0 or self.us < 0:
            raise ValueError(f"negative occurrence {self!r}")

    def report_dict(self) -> dict[str, Any]:
        """``{"count": n, "seconds": s}``."""
        return {"count": self.count, "seconds": from_us(self.us)}


@dataclass(frozen=True)
class Differences(FieldwiseSum, Result, kind="transcripts.der_differences"):
    """Per file (or summed): the triggers listed in the module docstring."""

    reference_self_overlap: Occurrence = Occurrence()
    reference_cut_at_uem: Occurrence = Occurrence()
    off_frame_grid: Occurrence = Occurrence()
    md_eval_overlap_defect: Occurrence = Occurrence()
    tie_order: Occurrence = Occurrence()
    unscored_files: Occurrence = Occurrence()

    def report_dict(self) -> dict[str, Any]:
        """Every trigger by name, zeros included."""
        return {field.name: getattr(self, field.name).report_dict() for field in fields(self)}

    def warnings(self, compat: str, collar_s: float) -> list[str]:
        """One line per trigger that occurred, saying what each tool does with it."""
        lines = []
        overlap = self.reference_self_overlap
        if overlap.count:
            done = ("scored as md-eval-22 does" if compat == "md-eval"
                    else "merged, as speecheval and dscore do")
            lines.append(f"{overlap.count} reference turns overlap a turn of their own speaker "
                         f"({from_us(overlap.us):g} s of self-overlap): {done}; md-eval-22 "
                         "collars their inner boundaries and its -1 counts them as overlap")
        cut = self.reference_cut_at_uem
        if cut.count:
            done = ("cut there as dscore does" if compat == "dscore"
                    else "not cut, as speecheval and md-eval do")
            lines.append(f"{cut.count} reference turns cross a UEM edge ({from_us(cut.us):g} s "
                         f"outside it): {done}; dscore cuts them at the edge, where md-eval "
                         f"then puts a +-{collar_s:g} s collar")
        grid = self.off_frame_grid
        if grid.count:
            done = ("JER on 10 ms frames as dscore does" if compat == "dscore"
                    else "JER in continuous time")
            lines.append(f"{grid.count} turn boundaries are off dscore's 10 ms frame grid "
                         f"(moved {from_us(grid.us):g} s in all by its framing): {done}")
        defect = self.md_eval_overlap_defect
        if defect.count:
            done = ("reproduced" if compat != "speecheval"
                    else "not reproduced (speecheval's overlap-excluded DER is right)")
            lines.append(f"md-eval-22's -1 misplaces {defect.count} stretches "
                         f"({from_us(defect.us):g} s) here (known defect): {done}")
        ties = self.tie_order
        if ties.count and compat != "speecheval":
            lines.append(f"in {ties.count} files md-eval's -1 region depends on how Perl "
                         f"sorts simultaneous events ({from_us(ties.us):g} s at stake); "
                         "speecheval takes ends before begins")
        unscored = self.unscored_files
        if unscored.count and compat != "speecheval":
            lines.append(f"{unscored.count} files have no reference turns and are not scored, "
                         f"as in md-eval ({from_us(unscored.us):g} s of system speaker time "
                         "there is not counted as false alarm)")
        return lines
