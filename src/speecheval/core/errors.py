"""Error types that map to the CLI's exit codes.

Keeping the mapping in exceptions (not in ``sys.exit`` calls scattered through the code)
lets library users catch a typed error and lets the CLI turn it into one clear line.
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_CHECKS_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_SYSTEM_FAILED = 3
EXIT_TOOL_FAILED = 4
"""speecheval's own worker process died on an item every time it was tried (killed, out
of memory, a crash in native code): neither bad input (2) nor the measured system (3)."""


class SpeechEvalError(Exception):
    """Base class; ``exit_code`` is what the CLI returns for it."""

    exit_code = EXIT_BAD_INPUT


class InputError(SpeechEvalError):
    """Bad input: a file, a sample or a setting that cannot be scored as given.

    The message names the file or sample and the problem, so the user can fix it
    without reading a traceback.
    """

    def __init__(self, problem: str, *, path: object | None = None, sample_id: str | None = None):
        self.problem = problem
        self.path = None if path is None else str(path)
        self.sample_id = sample_id
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.sample_id is not None:
            where.append(f"sample {self.sample_id}")
        if self.path is not None:
            where.append(self.path)
        return f"{': '.join(where)}: {self.problem}" if where else self.problem


class SystemUnderTestError(SpeechEvalError):
    """The system or backend being measured failed (not the user's input)."""

    exit_code = EXIT_SYSTEM_FAILED


class WorkerDied(Exception):
    """The worker process running an item died every time the item was tried
    (:mod:`~speecheval.core.executor`; here, so that the CLI can catch it without
    importing the executor).

    Its text is the reason, as a command records it against the item; ``item`` names the
    item (:func:`~speecheval.core.executor.item_name`) for the command line, where an
    uncaught one is a one-line error with its own exit code (:data:`EXIT_TOOL_FAILED`):
    a fault of the tool or its machine, neither bad input nor the system under test's."""

    def __init__(self, attempts: int, ending: str, item: str = "an item") -> None:
        super().__init__(f"the worker process died while running this item "
                         f"({ending}; {attempts} attempts)")
        self.attempts, self.ending, self.item = attempts, ending, item

    def __reduce__(self) -> tuple[Any, ...]:
        return (WorkerDied, (self.attempts, self.ending, self.item))
