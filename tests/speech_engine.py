"""When a test may speak: the one condition every test that needs espeak-ng speech skips on.

speecheval speaks through either engine of :mod:`speecheval.core.espeak` (Debian's
``espeak-ng`` program, or the libespeak-ng of the ``espeakng-loader`` wheel), so a test
that needs speech asks core.espeak itself (:func:`~speecheval.core.espeak.available`), not
``PATH``: on a machine with only the wheel it runs through the library instead of
skipping. ``SPEECHEVAL_ESPEAK=library`` runs the suite so on a machine that has both.

A test that compares numbers or bytes pinned from Debian's eSpeak NG 1.51 audio asks for
that engine (:func:`require_pinned_engine`): another engine speaks other samples, so such a
test skips there, naming the engine, rather than being loosened.
"""

from __future__ import annotations

import pytest

from speecheval.core import espeak

NO_ENGINE = ("no espeak-ng engine: neither Debian's espeak-ng program (apt-get install "
             "espeak-ng) nor espeakng-loader (pip install 'speecheval[speech]') is installed")
PINNED_ENGINE = "eSpeak NG text-to-speech: 1.51 "
"""The first ``--version`` words of the engine the pinned audio came from (Debian 13's
program; its line goes on with ``Data at: ...``)."""


def require_speech() -> None:
    """Skip the calling test where neither engine can speak."""
    if not espeak.available():
        pytest.skip(NO_ENGINE)


def pinned_engine_problem() -> str | None:
    """Why this machine's engine cannot reproduce the pinned audio, or ``None``."""
    if not espeak.available():
        return NO_ENGINE
    version = espeak.engine_version()
    if not version.startswith(PINNED_ENGINE):
        return (f"the expected values were pinned from Debian's espeak-ng 1.51 audio; this "
                f"engine is {version!r} (apt-get install espeak-ng, and leave "
                f"{espeak.ENGINE_VARIABLE} unset)")
    return None


def require_pinned_engine() -> None:
    """Skip the calling test unless Debian's espeak-ng 1.51 is the engine that speaks."""
    problem = pinned_engine_problem()
    if problem is not None:
        pytest.skip(problem)


needs_speech = pytest.mark.skipif(not espeak.available(), reason=NO_ENGINE)
