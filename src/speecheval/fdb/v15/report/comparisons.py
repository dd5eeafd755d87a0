"""The page's paired comparisons, grouped by scenario in the paper's order.

Two kinds, both paired t-tests (:func:`..prosody.paired_tests.paired_test`, the test the
paper and the official scripts use):

* between systems: for every pair of systems, the stop and the response latency of the
  samples both systems have a value for (the same dataset sample is the pair);
* within a system: the prosody tests ``fdb15 score --prosody`` wrote (before and after
  the overlap, Tables 4 and 5), under the scenario they were measured on, one column
  per system.

p-values are printed as the paper prints them (:func:`speecheval.core.p_text.paper_p_text`);
a test on fewer than :data:`FEW_PAIRS` pairs carries a warning in its cell and above its
table, since a t-test on a handful of pairs says little either way.

The between-system tests of one scenario are one family: with three systems that is six
tests (three pairs, two latencies), and one of them below .05 by chance is likely. Each
gets a Holm-adjusted p beside its own (:func:`holm_texts`, Holm's step-down over the
family); the scenarios are separate families, as the paper reads each scenario on its
own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ....core.p_text import paper_p_text
from ....report import page as pg
from ....report.leaderboard_table import comparison_pairs
from ....report.numbers import fixed
from ....report.table import Table
from ..prosody.paired_tests import Measured, PairedTest, holm, paired_test
from .scored_system import ScoredSystem

FEW_PAIRS = 10
WARNING = "\u26a0 fewer than 10 pairs"
LATENCIES = (("stop_latency_s", "stop latency"), ("response_latency_s", "response latency"))


def _values(system: ScoredSystem, scenario: str, key: str) -> dict[str, float]:
    return {row["sample_id"]: float(row[key]) for row in system.timing
            if row["scenario"] == scenario and row[key] is not None
            and math.isfinite(float(row[key]))}


def between(first: ScoredSystem, second: ScoredSystem, scenario: str,
            key: str) -> PairedTest:
    """``key`` of ``first`` against ``second`` on the samples both have a value for, every
    pair kept: the official MAD trimming belongs to the prosody tests, not to a comparison
    of two systems' latencies."""
    a, b = _values(first, scenario, key), _values(second, scenario, key)
    trials = {sid: {first.name: {key: Measured(a[sid])}, second.name: {key: Measured(b[sid])}}
              for sid in sorted(a.keys() & b.keys())}
    return paired_test(key, first.name, second.name, trials, outliers="none")


def holm_texts(p_values: Sequence[float | None]) -> list[str]:
    """Holm's adjusted p-values of one family, printed as the paper prints p; a test
    without a p (too few pairs, no spread) stays ``–`` and is not counted in the family.

    >>> holm_texts([0.6, None, 0.7, 0.001])  # 3 x .001, 2 x .6 = 1.2 capped, max(1, .7)
    ['1.000', '–', '1.000', '.003']
    """
    return [paper_p_text(p) for p in holm(p_values)]


def _few(n: int) -> bool:
    return n < FEW_PAIRS


def _warning(count: int) -> pg.Paragraph:
    return pg.Paragraph((pg.Tone(f"{WARNING}: {count} of the tests below", "fail"),
                         " have fewer than 10 pairs; read their p-values as indicative "
                         "only."), kind="")


def _between_block(systems: Sequence[ScoredSystem], scenario: str,
                   baseline: str | None) -> list[pg.Block]:
    pairs = comparison_pairs([s.name for s in systems], baseline)
    tests = [(what, first, second, between(first, second, scenario, key))
             for first, second in ((systems[i], systems[j]) for i, j in pairs)
             for key, what in LATENCIES]
    if not tests:
        return []
    adjusted = holm_texts([test.p for *_, test in tests])
    rows = [[what, f"{first.name} vs {second.name}",
             f"{test.n}" + (f" {WARNING}" if _few(test.n) else ""),
             fixed(test.mean_before, 3, unit=" s"), fixed(test.mean_after, 3, unit=" s"),
             fixed(test.mean_difference, 3, unit=" s"), fixed(test.t, 2),
             paper_p_text(test.p), holm_p, test.note or ""]
            for (what, first, second, test), holm_p in zip(tests, adjusted, strict=True)]
    few = sum(_few(test.n) for *_, test in tests)
    family = sum(test.p is not None for *_, test in tests)
    table = Table.of(["measure", "systems", "pairs", "mean first", "mean second",
                      "mean difference", "t", "p", "p Holm", "note"], rows,
                     align=["left", "left", "left", "right", "right", "right", "right",
                            "right", "right", "left"])
    return [pg.Paragraph((pg.Strong("Between systems"), ": paired on the samples both "
                          "systems have a latency for; difference = second - first. "
                          f"p Holm: Holm-adjusted over the {family} tests of this "
                          "scenario with a p (one family per scenario)."),),
            *([_warning(few)] if few else []), pg.TableBlock(table)]


def _prosody_scenario(system: ScoredSystem) -> str | None:
    trials = str((system.prosody or {}).get("trials", ""))
    return trials.split(" ", 1)[0] or None


def _prosody_cell(test: dict[str, Any]) -> str:
    text = (f"diff {fixed(test['mean_difference'], 2)}, p {paper_p_text(test['p'])}"
            + (f", Holm {paper_p_text(test['p_corrected'])}"
               if test.get("p_corrected") is not None else "")
            + f", d_z {fixed(test['d_z'], 2)}, n {test['n']}")
    if _few(int(test["n"])):
        text += f" {WARNING}"
    return text


def _prosody_block(systems: Sequence[ScoredSystem], scenario: str) -> list[pg.Block]:
    measured = [s for s in systems if s.prosody is not None
                and _prosody_scenario(s) == scenario]
    if not measured:
        return []
    keys: list[tuple[str, str]] = []
    cells: list[dict[tuple[str, str], str]] = []
    few = 0
    for system in measured:
        tests = {(t["measure"], t["comparison"]): t for t in (system.prosody or {})["tests"]}
        keys += [key for key in tests if key not in keys]
        few += sum(_few(int(t["n"])) for t in tests.values())
        cells.append({key: _prosody_cell(test) for key, test in tests.items()})
    table = Table.of(["measure", "comparison", *(s.name for s in measured)],
                     [[measure, comparison, *(c.get((measure, comparison), "-")
                                              for c in cells)]
                      for measure, comparison in keys],
                     align=["left"] * (2 + len(measured)))
    notes: list[pg.Block] = []
    for system in measured:
        prosody = system.prosody or {}
        notes.append(pg.Paragraph((f"{system.name}: {prosody['n_trials']} trials "
                                   f"({prosody['trials']}). {prosody['statement']}",),
                                  kind="note"))
        dropped = [f"{t['measure']} {t['comparison']}: {d['sample_id']}: {d['reason']}"
                   for t in prosody["tests"] for d in t["dropped"]]
        if dropped:
            notes.append(pg.Details(f"{system.name}: {len(dropped)} dropped pairs",
                                    (pg.BulletList(tuple(dropped)),)))
    return [pg.Paragraph((pg.Strong("Within each system"), ": prosody and quality before "
                          "and after the overlap (Tables 4 and 5)."),),
            *([_warning(few)] if few else []), pg.TableBlock(table), *notes]


def comparisons_section(systems: Sequence[ScoredSystem], scenarios: Sequence[str],
                        baseline: str | None = None) -> pg.Section | None:
    """Per scenario, the between-system tests (each system against ``baseline``, else
    every pair) and the within-system tests it has."""
    blocks: list[pg.Block] = []
    for scenario in scenarios:
        parts = (_between_block(systems, scenario, baseline)
                 + _prosody_block(systems, scenario))
        if parts:
            blocks.append(pg.Section(scenario.replace("_", " "), tuple(parts), level=3))
    if not blocks:
        return None
    return pg.Section("Paired comparisons per scenario", tuple(blocks))
