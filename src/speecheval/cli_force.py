"""The ``--force`` option of every command that writes an output.

Outputs are never overwritten silently: without ``--force`` an existing output is an
error (exit 2) naming it. With it the command may replace its own output, atomically
(:func:`speecheval.core.output.replacing`): the new one is written beside the old one
and renamed into place, so a failed run leaves the previous output as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from .core.output import FORCE_HELP

F = TypeVar("F", bound=Callable[..., object])


def force_option(command: F) -> F:
    """Add ``--force`` (parameter ``force``) to a click command; the command passes it to
    :func:`speecheval.core.output.replacing` around its writing."""
    return click.option("--force", "force", is_flag=True, default=False,
                        help=FORCE_HELP)(command)
