"""SIGTERM unwinds the program as Ctrl-C does, so that what it started is stopped.

Why: Python's default for SIGTERM ends the process at once, without running a single
``finally`` or ``with`` exit; a command that started a child (``fdb10 demo`` serves the
cascade agent in its own process) would leave it running, and staged output behind.
Ctrl-C raises :class:`KeyboardInterrupt` instead, which every command already cleans up
after. :func:`unwind_on_sigterm` makes SIGTERM raise :class:`Terminated`, a kind of
:class:`KeyboardInterrupt`, so both take the same path; the program then exits with
:data:`EXIT_TERMINATED`, as a shell reports a process that SIGTERM ended.

Only the program installs it (:func:`speecheval.cli.run`), never a caller of
:func:`speecheval.cli.main` (the tests), whose signals stay their own.
"""

from __future__ import annotations

import signal
from types import FrameType

EXIT_TERMINATED = 128 + signal.SIGTERM
"""143: the exit code of a command stopped by SIGTERM once it has cleaned up."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; raised wherever the main thread was, so the stack unwinds."""


def unwind_on_sigterm() -> None:
    """From now on the first SIGTERM raises :class:`Terminated` in the main thread; later
    ones are ignored while the program cleans up (which is bounded: a child that does
    not stop when asked is killed), so a second signal cannot cut the cleanup short."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, _ignore)
    raise Terminated()


def _ignore(signum: int, frame: FrameType | None) -> None:
    """A Python-level no-op rather than ``SIG_IGN``, which children would inherit."""


def was_terminated(error: BaseException) -> bool:
    """Whether ``error`` is, or was raised because of, a :class:`Terminated` (click turns
    an interrupt into ``Abort`` and keeps the interrupt as its cause)."""
    return isinstance(error, Terminated) or isinstance(error.__cause__, Terminated)
