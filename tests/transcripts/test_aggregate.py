"""Sample macro, corpus micro, duration weighting, repeats and maturity, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.transcripts.aggregate import SampleValue, cross_scenario, summarise
from speecheval.transcripts.maturity import (
    Maturity,
    ScenarioEvidence,
    combined_maturity,
    run_maturity,
    scenario_maturity,
)
from speecheval.transcripts.scenario_set import PHASE_ONE_SCENARIOS


def v(sample: str, repeat: int, duration: float, errors: int, tokens: int,
      failed: bool = False) -> SampleValue:
    return SampleValue(sample, repeat, duration, errors, tokens, failed)


def test_macro_and_micro_differ_as_defined() -> None:
    # A long sample with a low rate and a short one with a high rate:
    # rates 10/1000 = 0.01 (3600 s) and 5/10 = 0.5 (10 s).
    s = summarise([v("long", 1, 3600.0, 10, 1000), v("short", 1, 10.0, 5, 10)])
    assert s.macro == pytest.approx((0.01 + 0.5) / 2)        # 0.255
    assert s.micro == pytest.approx(15 / 1010)               # 0.014851...
    # Duration-weighted: (0.01 * 3600 + 0.5 * 10) / 3610 = 41 / 3610.
    assert s.duration_weighted == pytest.approx(41 / 3610)
    assert s.macro_std is None and s.runs == 2 and s.samples == 2


def test_undefined_samples_are_counted_not_averaged() -> None:
    s = summarise([v("a", 1, 1.0, 1, 4), v("empty", 1, 1.0, 2, 0)])
    # 'empty' has no reference tokens: no rate; its 2 insertions still count in the micro
    # numerator, whose denominator is 4: 3 / 4.
    assert s.undefined_samples == 1
    assert s.macro == pytest.approx(0.25)
    assert s.micro == pytest.approx(0.75)


def test_repeats_mean_std_and_failures() -> None:
    # Repeat 1: rates 0.1, 0.3 (macro 0.2). Repeat 2: b failed, scored 10/10 (macro 0.55).
    values = [v("a", 1, 1.0, 1, 10), v("b", 1, 1.0, 3, 10),
              v("a", 2, 1.0, 1, 10), v("b", 2, 1.0, 10, 10, failed=True)]
    s = summarise(values)
    assert [r.macro for r in s.per_repeat] == pytest.approx([0.2, 0.55])
    assert s.macro == pytest.approx(0.375)
    # Sample standard deviation of (0.2, 0.55): |0.35| / sqrt(2).
    assert s.macro_std == pytest.approx(0.35 / 2 ** 0.5)
    assert s.failed_runs == 1 and s.per_repeat[1].failed_runs == 1
    # Micro: 4/20 and 11/20 -> mean 0.375.
    assert s.micro == pytest.approx(0.375)


def test_bootstrap_intervals_are_the_pinned_percentile_bootstrap() -> None:
    # Ten samples, sample k with k errors in 10 + k tokens: rates k / (10 + k). The
    # documented bootstrap (docs/statistics.md): 2000 resamples of whole samples drawn by
    # numpy.random.default_rng(0).integers(0, n, size=(2000, n)); each resample's macro is
    # the mean of its rates and its micro is sum(errors) / sum(tokens); the interval is the
    # 50th and 1950th smallest (ceil(0.025 * 2000), ceil(0.975 * 2000)). Recomputed here
    # with plain numpy, independently of speecheval.core.stats.
    values = [v(f"s{k}", 1, 1.0, k, 10 + k) for k in range(10)]
    s = summarise(values)
    errors = np.arange(10, dtype=np.float64)
    tokens = errors + 10
    draws = np.random.default_rng(0).integers(0, 10, size=(2000, 10))
    macros = np.sort((errors / tokens)[draws].mean(axis=1))
    micros = np.sort(errors[draws].sum(axis=1) / tokens[draws].sum(axis=1))
    assert s.macro_ci95 == pytest.approx((macros[49], macros[1949]), rel=1e-12)
    assert s.micro_ci95 == pytest.approx((micros[49], micros[1949]), rel=1e-12)
    # and the point values lie inside: macro mean(k / (10 + k)), micro 45 / 145
    assert s.micro == pytest.approx(45 / 145)
    assert macros[49] < s.macro < macros[1949]  # type: ignore[operator]
    # Identical samples: the interval collapses to the value.
    same = summarise([v(f"s{k}", 1, 1.0, 2, 10) for k in range(5)])
    assert same.macro_ci95 == pytest.approx((0.2, 0.2))
    assert same.micro_ci95 == pytest.approx((0.2, 0.2))


def test_bootstrap_averages_a_samples_repeats_first() -> None:
    # Two samples with two repeats each: a has rates 0.1 and 0.3 (mean 0.2), b has 0.5
    # twice. The bootstrap resamples samples, not runs: every resample's macro is a mean
    # of 0.2s and 0.5s, so the interval lies in [0.2, 0.5]; a resample of only a gives 0.2,
    # and with 2000 draws of 2 samples, P(all a) = 1/4 puts the 50th smallest at 0.2.
    values = [v("a", 1, 1.0, 1, 10), v("a", 2, 1.0, 3, 10),
              v("b", 1, 1.0, 5, 10), v("b", 2, 1.0, 5, 10)]
    s = summarise(values)
    draws = np.random.default_rng(0).integers(0, 2, size=(2000, 2))
    macros = np.sort(np.array([0.2, 0.5])[draws].mean(axis=1))
    assert s.macro_ci95 == pytest.approx((macros[49], macros[1949]))
    assert s.macro_ci95 == pytest.approx((0.2, 0.5))


def test_duplicate_run_is_refused() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        summarise([v("a", 1, 1.0, 1, 2), v("a", 1, 1.0, 1, 2)])


def test_cross_scenario_uses_scenario_macros_only() -> None:
    # A big scenario of ten samples at 0.1 and a small one with a single 0.9 sample:
    # pooling samples would give (10 * 0.1 + 0.9) / 11 = 0.1727; the scenario macro is
    # (0.1 + 0.9) / 2 = 0.5. Duration-weighted over all samples: (10 * 0.1 * 60 + 0.9 * 30)
    # / 630 = 87 / 630.
    big = [v(f"b{k}", 1, 60.0, 1, 10) for k in range(10)]
    small = [v("s", 1, 30.0, 9, 10)]
    result = cross_scenario({"big": big, "small": small})
    assert result.scenario_macro == pytest.approx(0.5)
    assert result.duration_weighted == pytest.approx(87 / 630)
    assert result.scenarios == ("big", "small")


def ev(samples: int, sources: int, speakers: int, leak_free: bool = True, core: bool = True,
       missing: int = 0, name: str = "x", covers: str | None = None) -> ScenarioEvidence:
    return ScenarioEvidence(name, samples, sources, speakers, leak_free, core, missing,
                            covers)


def phase_one(*left_out: str) -> dict[str, tuple[ScenarioEvidence, Maturity]]:
    """The phase-one scenario set (spec 场景矩阵: podcast-meeting-v1, its P0 scenarios long
    podcast, business meeting and meeting overlap), each a qualified core scenario named
    after the set scenario it covers, but those in ``left_out``."""
    evidence = [ev(3, 2, 2, name=n, covers=n) for n in PHASE_ONE_SCENARIOS
                if n not in left_out]
    return {e.scenario: (e, scenario_maturity(e)) for e in evidence}


@pytest.mark.parametrize(("evidence", "level"), [
    (ev(1, 1, 1), "pipeline_smoke"),
    (ev(1, 1, 5), "pipeline_smoke"),          # one clean sample stays smoke, whatever it scores
    (ev(2, 2, 2), "exploratory"),             # fewer than 3 samples
    (ev(3, 1, 1), "exploratory"),             # one source, one speaker
    (ev(3, 1, 2), "scenario_qualified"),      # two speakers suffice
    (ev(3, 2, 1), "scenario_qualified"),      # two sources suffice
    (ev(5, 3, 3, leak_free=False), "exploratory"),
])
def test_scenario_levels(evidence: ScenarioEvidence, level: str) -> None:
    assert scenario_maturity(evidence).level == level


def test_run_level_needs_all_core_scenarios_and_repeats() -> None:
    qualified = ev(3, 2, 2, name="a")
    side = ev(1, 1, 1, core=False, name="side")
    scenarios = {**phase_one(), "a": (qualified, scenario_maturity(qualified)),
                 "side": (side, scenario_maturity(side))}
    # A non-core smoke scenario does not hold the run back.
    assert run_maturity(scenarios, required_repeats=3).level == "decision_grade"
    missing = ev(3, 2, 2, missing=2, name="a")
    result = run_maturity({**phase_one(), "a": (missing, scenario_maturity(missing))},
                          required_repeats=3)
    assert result.level == "scenario_qualified"
    assert result.reasons == ("2 runs missing for 3 required repeats",)
    weak = ev(2, 2, 2, name="b")
    result = run_maturity({**phase_one(), "a": scenarios["a"],
                           "b": (weak, scenario_maturity(weak))}, 3)
    assert result.level == "exploratory"
    assert result.reasons == ("core scenarios not all qualified: b (exploratory)",)


@pytest.mark.parametrize("missing", PHASE_ONE_SCENARIOS)
def test_decision_grade_needs_the_whole_phase_one_set(missing: str) -> None:
    # Spec (场景矩阵): phase one's P0 scenarios are the long podcast, the real business
    # meeting and meeting overlap. All three covered by qualified core scenarios, 3
    # repeats, nothing missing: decision_grade. Drop any one and the run stays at
    # scenario_qualified (the lowest core level), with the gap named (before: one
    # qualified core scenario alone was decision_grade).
    assert run_maturity(phase_one(), 3) == Maturity("decision_grade", ())
    result = run_maturity(phase_one(missing), 3)
    assert result == Maturity("scenario_qualified", (
        f"phase-one scenario set podcast-meeting-v1 incomplete: no core scenario covers "
        f"{missing}",))
    # A scenario covering the missing one but not core does not fill the gap.
    side = ev(3, 2, 2, core=False, name="side", covers=missing)
    assert run_maturity({**phase_one(missing), "side": (side, scenario_maturity(side))},
                        3).level == "scenario_qualified"
    # One qualified core scenario alone: scenario_qualified, all three named.
    alone = {"a": (q := ev(3, 2, 2, name="a"), scenario_maturity(q))}
    assert run_maturity(alone, 3).reasons == (
        "phase-one scenario set podcast-meeting-v1 incomplete: no core scenario covers "
        "long_podcast, business_meeting, meeting_overlap",)


def test_decision_grade_needs_the_spec_repeats() -> None:
    # Spec (场景矩阵): 3 repeats per system and sample are recommended, and decision_grade
    # needs each system to complete the prescribed repeats. The same qualified evidence
    # with nothing missing is decision_grade when 3 repeats are required, and held at
    # scenario_qualified when the manifest asks for 1 or 2 (before: decision_grade).
    scenarios = phase_one()
    assert run_maturity(scenarios, required_repeats=3).level == "decision_grade"
    assert run_maturity(scenarios, required_repeats=4).level == "decision_grade"
    for repeats in (1, 2):
        result = run_maturity(scenarios, required_repeats=repeats)
        assert result.level == "scenario_qualified"
        assert result.reasons == (f"required_repeats is {repeats}, fewer than the 3 repeats "
                                  "per sample the spec prescribes",)


def test_cross_scenario_level_is_the_lowest_of_its_scenarios() -> None:
    q = Maturity("scenario_qualified", ())
    e = Maturity("exploratory", ("fewer than 3 samples (2)",))
    run = Maturity("decision_grade", ())
    # All averaged scenarios qualified and core, run decision_grade: decision_grade.
    assert combined_maturity({"a": (True, q), "b": (True, q)}, run).level == "decision_grade"
    # A qualified but non-core scenario in the macro: never decision_grade.
    mixed = combined_maturity({"a": (True, q), "side": (False, q)}, run)
    assert mixed == Maturity("scenario_qualified", ("side is not a core scenario",))
    # Only an exploratory non-core scenario: exploratory, whatever the run level.
    only = combined_maturity({"side": (False, e)}, run)
    assert only.level == "exploratory"
    assert only.reasons == ("scenarios not all qualified: side (exploratory)",
                            "side is not a core scenario")
    # Capped by the run: qualified scenarios in a scenario_qualified run stay there.
    held = combined_maturity({"a": (True, q)}, Maturity("scenario_qualified", ("x",)))
    assert held == Maturity("scenario_qualified", ("run maturity is scenario_qualified",))
