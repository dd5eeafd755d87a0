"""The settings a diarization score is defined by: which definition (``--compat``) and
the main protocol's collar, and how every output states a collar.

Kept apart from the scorer so that the ``der`` command can describe its options (its
``--help``) without importing the scorer.
"""

from __future__ import annotations

from typing import Literal

Compat = Literal["speecheval", "md-eval", "dscore"]
COMPAT_MODES: tuple[Compat, ...] = ("speecheval", "md-eval", "dscore")
MAIN_COLLAR_S = 0.25
LATTIFAI_COLLAR_S = 0.1  # LattifAI runs pyannote.metrics with collar=0.2 (total width)


def collar_phrase(seconds: float) -> str:
    """A collar as every output states it: +-seconds around each reference boundary,
    with pyannote.metrics' number for it (its ``collar`` is the total width, twice ours),
    so md-eval's ``-c 0.25`` and pyannote's ``collar=0.5`` are never read as one number.

    >>> collar_phrase(0.25), collar_phrase(0.1)
    ('+-0.25 s (pyannote.metrics collar=0.5)', '+-0.1 s (pyannote.metrics collar=0.2)')
    """
    return f"+-{seconds:g} s (pyannote.metrics collar={2 * seconds:g})"
