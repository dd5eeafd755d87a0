"""Error types that map to the CLI's exit codes.

Keeping the mapping in exceptions (not in ``sys.exit`` calls scattered through the code)
lets library users catch a typed error and lets the CLI turn it into one clear line.
"""

from __future__ import annotations

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
