"""The steps of a demo (``fdb10 demo``, ``fdb15 demo``): each one is the public command a
user would type, echoed and run through the CLI's ``main``, so a demo is also the
pipeline's script."""

from __future__ import annotations

import click

from ...core.errors import EXIT_OK, SpeechEvalError


def run_step(args: list[str], allowed: tuple[int, ...] = ()) -> int:
    """Run one speecheval command as typed; stop the demo if it failed."""
    from ...cli import main

    click.echo("$ speecheval " + " ".join(args))
    code = main(args)
    if code != EXIT_OK and code not in allowed:
        raise _StepFailed(f"step failed (exit {code}): speecheval {' '.join(args)}", code)
    return code


class _StepFailed(SpeechEvalError):
    """A step of the demo failed; its own message is printed above."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code
