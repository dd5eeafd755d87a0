"""A p-value of about 1e-13 through the whole output path of the prosody tests.

The paired t-test runs on trials built so that t is exactly 75 with 9 degrees of freedom;
the section is written by ``fdb15 score``'s writer and read back. Before small values kept
their significant digits, ``prosody.json`` said ``"p": 0.0`` and the console ``0.0000``.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest

from speecheval.core.provenance import collect_provenance
from speecheval.fdb.v15.prosody.measures import TrialProsody
from speecheval.fdb.v15.prosody.paired_tests import Measured, paired_tests
from speecheval.fdb.v15.report.comparisons import _prosody_block, _prosody_scenario
from speecheval.fdb.v15.report.score_files import prosody_files, write_timing
from speecheval.fdb.v15.report.scored_system import ScoredSystem
from speecheval.fdb.v15.scoring.sections import ProsodySection, prosody_text
from speecheval.report import page as pg

MEASURE = "words_per_minute"
N = 10


def _trials() -> list[TrialProsody]:
    """Ten trials whose post minus pre alternates 10.4 and 9.6 words per minute."""
    trials = []
    for i in range(N):
        pre = 100.0 + 3 * i
        post = pre + (10.4 if i % 2 == 0 else 9.6)
        parts = {"pre": {MEASURE: Measured(pre)}, "post": {MEASURE: Measured(post)},
                 "clean": {MEASURE: Measured(pre)}}
        trials.append(TrialProsody(f"user_interruption/{i + 1}", 7_000_000, parts))
    return trials


def _expected_p() -> float:
    """Two-sided p of t = 75 with 9 degrees of freedom, from mpmath's incomplete beta.

    Differences: mean 10, deviations +-0.4, sum of squares 10 x 0.16 = 1.6, SD
    sqrt(1.6 / 9) = 0.4216; standard error SD / sqrt(10) = 0.4 / 3; t = 10 / (0.4 / 3) = 75.
    p = I_{df / (df + t^2)}(df / 2, 1 / 2) = 6.7372e-14.
    """
    mpmath.mp.dps = 40
    df, t = mpmath.mpf(9), mpmath.mpf(75)
    return float(mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t),
                                regularized=True))


def _nine_digits(value: float) -> str:
    return f"{value:.8e}"


@pytest.fixture(scope="module")
def section() -> ProsodySection:
    trials = _trials()
    tests = paired_tests([MEASURE], {t.sample_id: t.parts for t in trials}, "holm")
    return ProsodySection(trials, tests, "holm", {})


def test_the_test_itself_gives_the_tiny_p(section: ProsodySection) -> None:
    first = section.tests[0]
    assert (first.before, first.after, first.n) == ("pre", "post", N)
    assert first.t == pytest.approx(75.0)
    assert first.p == pytest.approx(_expected_p(), rel=1e-9)
    assert 6e-14 < first.p < 7e-14


def test_the_written_file_keeps_nine_significant_digits(section: ProsodySection,
                                                        tmp_path: Path) -> None:
    provenance = collect_provenance(command=["fdb15", "score"], settings={})
    write_timing(tmp_path / "scored", provenance, {}, [], prosody_files(section))
    written = json.loads((tmp_path / "scored" / "prosody.json").read_text(encoding="utf-8"))
    tests = {t["comparison"]: t for t in written["tests"]}
    pre_post = tests["pre->post"]
    assert pre_post["p"] != 0.0
    assert _nine_digits(pre_post["p"]) == _nine_digits(section.tests[0].p)
    assert _nine_digits(pre_post["p"]) == _nine_digits(_expected_p())
    # Holm over the two tests that have a p: the smaller one doubled (clean -> post is the
    # same differences, so both are 2p, the running maximum)
    assert _nine_digits(pre_post["p_corrected"]) == _nine_digits(2 * section.tests[0].p)


def test_console_and_page_print_it_as_the_paper_does(section: ProsodySection,
                                                     tmp_path: Path) -> None:
    text = prosody_text(section)
    row = next(line for line in text.splitlines() if line.startswith(MEASURE))
    assert row.split()[:5] == [MEASURE, "pre->post", "10.00", "<.001", "<.001"]
    assert "0.0000" not in text
    system = ScoredSystem("tiny", tmp_path, tmp_path, {}, [], None, {},
                          json.loads(prosody_files(section)["prosody.json"]))
    scenario = _prosody_scenario(system)
    assert scenario is not None
    blocks = _prosody_block([system], scenario)
    table = next(block for block in blocks if isinstance(block, pg.TableBlock)).table
    cells = [cell for row_cells in table.rows for cell in row_cells[2:]]
    assert cells
    for cell in cells:
        assert "p <.001, Holm <.001" in cell
        assert "0.0000" not in cell
