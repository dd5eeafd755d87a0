"""The phase-one scenario set: what ``decision_grade`` must cover (spec: 场景矩阵).

The spec delivers in two layers. Phase one uses the set ``podcast-meeting-v1``, whose
blocking (P0) scenarios are the long podcast, the real business meeting and meeting
overlap; noise, dialect, Japanese, silence/music and the rest stay in the full
``core-v1`` set and do not block the phase-one product decision. So a run is
``decision_grade`` only when each of the three is stood for by a qualified core scenario
of the manifest (a scenario's ``covers:`` key names the one it stands for), and its
cross-scenario conclusions are limited to podcasts and meetings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

PHASE_ONE_SET = "podcast-meeting-v1"
SetScenario = Literal["long_podcast", "business_meeting", "meeting_overlap"]
PHASE_ONE_SCENARIOS: tuple[str, ...] = get_args(SetScenario)


def missing_from_set(covered: Iterable[str | None]) -> tuple[str, ...]:
    """The phase-one scenarios no entry of ``covered`` names, in the set's order.

    >>> missing_from_set(["long_podcast", None, "meeting_overlap"])
    ('business_meeting',)
    >>> missing_from_set(PHASE_ONE_SCENARIOS)
    ()
    """
    have = set(covered)
    return tuple(name for name in PHASE_ONE_SCENARIOS if name not in have)
