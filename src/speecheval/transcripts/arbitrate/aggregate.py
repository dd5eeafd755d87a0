"""From valid judgements of one sample to a consensus and its human-review flags.

Spec (Agent 仲裁边界): at least :data:`MIN_VALID_JUDGES` valid judges form a consensus;
human review when the top choice has under 75 % of the votes, the mean confidence is under
0.65, or the vote splits 2:2. With too few valid judges there is no consensus and the
sample goes to human review as well.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from .prompt import CRITERIA, Answer

MIN_VALID_JUDGES = 3
MIN_TOP_SHARE = 0.75
MIN_MEAN_CONFIDENCE = 0.65


def aggregate(answers: Sequence[Answer], mapping: Mapping[str, str]) -> dict[str, Any]:
    """The sample's votes by system, mean scores by system and criterion, and the flags.

    >>> from .prompt import Answer
    >>> s = {c: 3 for c in CRITERIA}
    >>> votes = [Answer({"A": s, "B": s}, best, 0.8) for best in "AABB"]
    >>> out = aggregate(votes, {"A": "x", "B": "y"})
    >>> out["consensus"], out["human_review_reasons"]  # 2 of 4 is 50 % and a 2:2 split
    (None, ['top choice under 75 % of votes', 'votes split 2:2'])
    """
    valid = len(answers)
    votes = Counter(mapping[a.best] for a in answers)
    ranked = sorted(votes.items(), key=lambda item: (-item[1], item[0]))
    confidence = fmean(a.confidence for a in answers) if answers else None
    reasons = []
    if valid < MIN_VALID_JUDGES:
        reasons.append(f"fewer than {MIN_VALID_JUDGES} valid judges")
    top_share = ranked[0][1] / valid if ranked else None
    if top_share is not None and top_share < MIN_TOP_SHARE:
        reasons.append("top choice under 75 % of votes")
    if confidence is not None and confidence < MIN_MEAN_CONFIDENCE:
        reasons.append("mean confidence under 0.65")
    if sorted(votes.values()) == [2, 2]:
        reasons.append("votes split 2:2")
    tied = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
    consensus = ranked[0][0] if valid >= MIN_VALID_JUDGES and not tied else None
    scores = {system: {c: fmean(a.scores[label][c] for a in answers) for c in CRITERIA}
              for label, system in sorted(mapping.items()) if answers}
    return {"valid_judges": valid, "votes": dict(sorted(votes.items())),
            "consensus": consensus, "top_share": top_share, "mean_confidence": confidence,
            "human_review": bool(reasons), "human_review_reasons": reasons,
            "mean_scores": scores}
