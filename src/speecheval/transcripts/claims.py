"""Which comparative words a report may use at which maturity level (spec: 报告措辞).

The spec asks a report to keep apart measured facts, judgements drawn from them and
untested hypotheses, and forbids "显著领先" (significantly better) when the samples do not
allow it. Its maturity levels (结果成熟度门槛) say what each level allows:
``pipeline_smoke`` no ranking, ``exploratory`` per-sample facts and no trend,
``scenario_qualified`` comparisons inside the scenario, ``decision_grade`` conclusions
across scenarios. A judgement written by a user is checked here before it is printed as a
judgement:

- ranking or trend words (better, worse, ahead, outperforms, consistently, 优于, 领先, 趋势
  ...) need ``scenario_qualified`` for the claim's scenario, or ``decision_grade`` for a
  claim across scenarios;
- significance words (significantly, statistically, 显著 ...) need ``decision_grade`` in
  both cases: only there are the prescribed repeats done, failures counted and intervals
  reported, which is what such a word asserts; a scenario-scoped one also needs its
  scenario qualified.

A claim with none of these words is a plain description and needs no level. A claim
that needs more than the evidence gives is refused (:func:`refusal`); it may be written
as a hypothesis instead, which is never checked: it asserts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .maturity import LEVELS, Level

RANKING_WORDS = ("better", "worse", "best", "worst", "ahead", "behind", "beat", "outperform",
                 "lead", "superior", "inferior", "rank", "wins", "winner", "trend", "consistent",
                 "generally", "tends", "优于", "劣于", "领先", "落后", "更好", "更差", "最好",
                 "最佳", "胜过", "趋势", "一贯", "普遍")
"""Words of a ranking or a trend (English ones match as word starts: ``outperforms``)."""
SIGNIFICANCE_WORDS = ("significant", "statistically", "显著")
"""Words that claim the difference is beyond the uncertainty."""


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    latin = [w for w in words if w.isascii()]
    other = [w for w in words if not w.isascii()]
    parts = [r"\b(?:" + "|".join(latin) + r")\w*"] + [re.escape(w) for w in other]
    return re.compile("|".join(parts), re.IGNORECASE)


_RANKING = _pattern(RANKING_WORDS)
_SIGNIFICANCE = _pattern(SIGNIFICANCE_WORDS)


@dataclass(frozen=True)
class Requirement:
    """The level a claim needs and the word that asks for it."""

    level: Level
    word: str
    why: str


def requirement(text: str, scenario: str | None) -> Requirement | None:
    """What ``text`` needs (``scenario`` ``None``: a claim across scenarios).

    >>> requirement("WER is 12.5% on meet", "meet") is None
    True
    >>> requirement("A is better than B", "meet").level
    'scenario_qualified'
    >>> requirement("A is better than B", None).level
    'decision_grade'
    >>> requirement("A 显著领先 B", "meet").word
    '显著'
    """
    found = _SIGNIFICANCE.search(text)
    if found is not None:
        return Requirement("decision_grade", found.group(0),
                           "a significance claim needs the prescribed repeats, failures "
                           "counted and intervals: decision_grade")
    found = _RANKING.search(text)
    if found is None:
        return None
    if scenario is None:
        return Requirement("decision_grade", found.group(0),
                           "a ranking or trend across scenarios needs decision_grade")
    return Requirement("scenario_qualified", found.group(0),
                       "a ranking or trend inside a scenario needs scenario_qualified")


def allows(level: Level, needed: Level) -> bool:
    """Whether evidence at ``level`` carries a claim that needs ``needed``.

    ``decision_grade`` is a run level; a scenario is at most ``scenario_qualified``, so a
    scenario-scoped claim is judged with both (:func:`refusal`).
    """
    return LEVELS.index(level) >= LEVELS.index(needed)


def refusal(text: str, scenario: str | None, scenario_level: Level | None,
            run_level: Level) -> str | None:
    """Why ``text`` may not be printed as a judgement, or ``None`` when it may.

    ``scenario_level`` is the scenario's headline level (``None`` for a claim across
    scenarios).

    >>> refusal("A is significantly better", "meet", "scenario_qualified", "exploratory")
    "'significantly' needs decision_grade, the run is exploratory (a significance claim \
needs the prescribed repeats, failures counted and intervals: decision_grade)"
    >>> refusal("A is better", "meet", "scenario_qualified", "exploratory") is None
    True
    """
    need = requirement(text, scenario)
    if need is None:
        return None
    if scenario is not None and scenario_level is not None and not allows(
            scenario_level, min(need.level, "scenario_qualified", key=LEVELS.index)):
        return (f"{need.word!r} needs {need.level}, scenario {scenario} is {scenario_level} "
                f"({need.why})")
    if need.level == "decision_grade" and run_level != "decision_grade":
        return f"{need.word!r} needs decision_grade, the run is {run_level} ({need.why})"
    return None
