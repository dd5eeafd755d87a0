"""The outcome of every ``unified-samples.jsonl`` row, and the counts the page's bars show.

One place decides which group a row falls in, so the stacked bars, the filter of the
per-sample table and the paired comparison of two systems always agree. A pause sample's
group is whether a word intruded (``pause_intrusion``); the other tasks carry their
outcome; an ineligible sample has none and is counted apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...common.tree import PAUSE_HANDLING, SMOOTH_TURN_TAKING, USER_INTERRUPTION

INELIGIBLE = "ineligible"
INTRUSION, NO_INTRUSION = "intrusion", "no intrusion"
OUTCOMES: dict[str, tuple[tuple[str, str], ...]] = {
    PAUSE_HANDLING: ((NO_INTRUSION, "good"), (INTRUSION, "bad"), (INELIGIBLE, "none")),
    SMOOTH_TURN_TAKING: (("response", "good"), ("early_start", "warn"),
                         ("no_response", "bad"), (INELIGIBLE, "none")),
    USER_INTERRUPTION: (("not_exercised", "other"), ("speaking_at_end", "warn"),
                        ("response", "good"), ("no_response", "bad"), (INELIGIBLE, "none")),
}
"""The outcomes of each task in the order of the bars, with their tones
(:data:`speecheval.report.page.BAR_TONES`)."""


def outcome(row: dict[str, Any]) -> str:
    """The group a per-sample row falls in.

    >>> outcome({"eligible": False}), outcome({"eligible": True, "pause_intrusion": True})
    ('ineligible', 'intrusion')
    >>> outcome({"eligible": True, "outcome": "early_start"})
    'early_start'
    """
    if not row["eligible"]:
        return INELIGIBLE
    if "pause_intrusion" in row:
        return INTRUSION if row["pause_intrusion"] else NO_INTRUSION
    return str(row["outcome"])


def outcome_counts(task: str, rows: Iterable[dict[str, Any]]) -> tuple[int, ...]:
    """How many rows fall in each of the task's outcomes, in the order of :data:`OUTCOMES`.

    >>> outcome_counts(PAUSE_HANDLING, [{"eligible": True, "pause_intrusion": False},
    ...                                 {"eligible": False}, {"eligible": False}])
    (1, 0, 2)
    """
    groups = [outcome(row) for row in rows]
    known = {name for name, _ in OUTCOMES[task]}
    unknown = sorted(set(groups) - known)
    if unknown:
        raise ValueError(f"{task}: outcome(s) {unknown} not among {sorted(known)}")
    return tuple(groups.count(name) for name, _ in OUTCOMES[task])
