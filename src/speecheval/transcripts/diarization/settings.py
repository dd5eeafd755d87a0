"""The settings a diarization score is defined by: which definition (``--compat``) and
the main protocol's collar.

Kept apart from the scorer so that the ``der`` command can describe its options (its
``--help``) without importing the scorer.
"""

from __future__ import annotations

from typing import Literal

Compat = Literal["speecheval", "md-eval", "dscore"]
COMPAT_MODES: tuple[Compat, ...] = ("speecheval", "md-eval", "dscore")
MAIN_COLLAR_S = 0.25
