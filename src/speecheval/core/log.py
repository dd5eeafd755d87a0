"""What speecheval says on standard error, through one ``logging`` logger: ``speecheval``.

Why one logger: results go to standard output and files, everything else (notes,
warnings, progress bars, errors) to standard error, and a user chooses how much of the
latter to see with ``-q`` (warnings and errors only, no bars) or ``-v`` (debug details:
which files were read, what a cache held) on any command. Every module takes its logger
from :func:`get_logger` (a child of ``speecheval``), so one level set here governs all.

The logger writes each message as it is, one line, to whatever ``sys.stderr`` is when it
is written (the test runners swap it), and passes nothing on to the root logger. It is
set up on import at the ``INFO`` level, so that what a command prints by default, and what
a library caller sees, is what it was before the logger existed; a program embedding
speecheval may add its own handlers or levels to ``speecheval`` as to any logger.
"""

from __future__ import annotations

import logging
import sys

ROOT = "speecheval"
QUIET, NORMAL, VERBOSE = logging.WARNING, logging.INFO, logging.DEBUG


class _CurrentStderr(logging.Handler):
    """Writes the message, and a newline, to the ``sys.stderr`` of the moment."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # noqa: BLE001  # logging's own rule: a failed write is reported, not raised
            self.handleError(record)


def _root() -> logging.Logger:
    logger = logging.getLogger(ROOT)
    if not any(isinstance(handler, _CurrentStderr) for handler in logger.handlers):
        handler = _CurrentStderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
        logger.setLevel(NORMAL)
    return logger


def get_logger(name: str) -> logging.Logger:
    """The logger of module ``name`` (``__name__``), under ``speecheval``."""
    _root()
    return logging.getLogger(name)


def current_level() -> int:
    """The level set now (:data:`NORMAL` unless :func:`set_level` changed it)."""
    return _root().level


def set_level(level: int) -> None:
    """Show messages from ``level`` up (:data:`QUIET`, :data:`NORMAL`, :data:`VERBOSE`)."""
    _root().setLevel(level)


def shows_progress() -> bool:
    """Whether progress bars are wanted: not under ``-q``."""
    return _root().isEnabledFor(NORMAL)


def level_flags() -> list[str]:
    """The ``-q`` or ``-v`` that gives a ``speecheval`` child process this level (none at
    the default), so that what it says on the shared standard error obeys the user too.

    >>> set_level(QUIET); level_flags(), set_level(NORMAL), level_flags()
    (['-q'], None, [])
    """
    level = _root().getEffectiveLevel()
    return ["-q"] if level >= QUIET else ["-v"] if level <= VERBOSE else []
