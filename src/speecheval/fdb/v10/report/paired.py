"""The page's paired comparison of two systems on one subset (``scoring.paired``).

It first says which samples the comparison covers and which it leaves out (selected in
one tree only; eligible in one system only or in neither; for interruption exercised in
one only or in neither), because pairing does not remove selection bias. Then, on the
paired samples only: how many fell in each combination of outcomes, both systems'
latency curves over the same samples, and how often each answered sooner, with the exact
sign test of those counts (its p-value printed as the paper prints them).
"""

from __future__ import annotations

from ....core.p_text import paper_p_text
from ....report import page as pg
from ....report.table import Table
from ...common.tree import USER_INTERRUPTION
from ..scoring.latency_curve import REFERENCE_TIME
from ..scoring.outcomes import INELIGIBLE, OUTCOMES
from ..scoring.paired import PairedSubset, sign_test_p
from .curves import RIGHT, curve_blocks

FEW_PAIRS = 10
"""Below this many differing pairs the page warns that the sign test has little power."""


def _coverage(paired: PairedSubset, first: str, second: str) -> tuple[str, ...]:
    both, only_first, only_second = paired.selected
    eligible = paired.eligible
    lines = [f"selected in both trees: {both} (only in {first}: {only_first}, only in "
             f"{second}: {only_second})",
             f"of those, eligible in both: {eligible.both}; in {first} only: "
             f"{eligible.first_only}; in {second} only: {eligible.second_only}; in neither: "
             f"{eligible.neither}"]
    if paired.exercised is not None:
        ex = paired.exercised
        lines.append(f"of the samples eligible in both, exercised in both: {ex.both}; in "
                     f"{first} only: {ex.first_only}; in {second} only: {ex.second_only}; "
                     f"in neither: {ex.neither}")
    kind = "exercised" if paired.task == USER_INTERRUPTION else "eligible"
    lines.append(f"paired samples ({kind} in both): {paired.paired}")
    return tuple(lines)


def _outcome_table(paired: PairedSubset, first: str, second: str) -> pg.TableBlock:
    """Counts of (first outcome, second outcome), the first system's outcomes down."""
    left_out = {INELIGIBLE, "not_exercised"}
    names = [name for name, _ in OUTCOMES[paired.task] if name not in left_out]
    counts = {(a, b): n for a, b, n in paired.outcomes}
    rows = [[a, *(str(counts.get((a, b), 0)) for b in names)] for a in names]
    return pg.TableBlock(Table.of([f"{first} \u2193 / {second} \u2192", *names], rows,
                                  align=["left", *(RIGHT,) * len(names)]))


def paired_section(paired: PairedSubset, first: str, second: str) -> pg.Section:
    """The subsection of one subset's paired comparison."""
    blocks: list[pg.Block] = [
        pg.BulletList(_coverage(paired, first, second)),
        pg.Paragraph(("Pairing does not remove selection bias: read the coverage, the "
                      "selected bounds" + (" and exercised_rate" if paired.exercised
                                           is not None else "")
                      + " above with these numbers.",), kind="note"),
        pg.Section("Outcomes on the paired samples", (_outcome_table(paired, first, second),),
                   level=4)]
    if paired.curves is not None and paired.sooner is not None:
        what = "the paired samples"
        blocks.append(pg.Section("Latency curves on the paired samples", curve_blocks(
            [(first, paired.curves[0]), (second, paired.curves[1])],
            reference=REFERENCE_TIME[paired.task], what=what), level=4))
        sooner_first, sooner_second, equal = paired.sooner
        p = paper_p_text(sign_test_p(sooner_first, sooner_second))
        blocks.append(pg.Paragraph((
            f"Where both responded ({sooner_first + sooner_second + equal} samples): "
            f"{first} sooner in {sooner_first}, {second} sooner in {sooner_second}, the "
            f"same latency in {equal}; exact sign test over the ones that differ: p = "
            f"{p}.",)))
        if sooner_first + sooner_second < FEW_PAIRS:
            blocks.append(pg.Paragraph((
                f"Fewer than {FEW_PAIRS} pairs differ: the sign test can hardly tell the "
                "systems apart.",), kind="note"))
    return pg.Section(f"Paired comparison: {first} and {second}", tuple(blocks), level=3)
