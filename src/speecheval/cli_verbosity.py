"""``-v/--verbose`` and ``-q/--quiet`` on every command, setting :mod:`speecheval.core.log`.

Why on every command and not only on ``speecheval``: a user adds ``-q`` at the end of the
line they already typed, so ``speecheval -q fdb10 unified-score ...`` and
``speecheval fdb10 unified-score ... -q`` both work. :func:`with_verbosity` adds the two
options to a command and, for a group, to each subcommand, including those a lazy group
imports later (:attr:`~speecheval.cli_lazy.LazyGroup.on_load`). When both are given, the
last one on the line wins.
"""

from __future__ import annotations

from typing import Any

import click

from .cli_lazy import LazyGroup
from .core.log import QUIET, VERBOSE, set_level

_NAMES = {"verbose", "quiet"}


def _choose(level: int) -> Any:
    def callback(ctx: click.Context, param: click.Parameter, given: bool) -> None:
        if given:
            set_level(level)
    return callback


def _options() -> list[click.Parameter]:
    return [
        click.Option(["-v", "--verbose"], is_flag=True, expose_value=False,
                     callback=_choose(VERBOSE),
                     help="Also say on standard error which files were read and what "
                          "was found in a cache."),
        click.Option(["-q", "--quiet"], is_flag=True, expose_value=False,
                     callback=_choose(QUIET),
                     help="Only warnings and errors on standard error (no progress "
                          "bars); results are unchanged."),
    ]


def with_verbosity(command: click.Command) -> click.Command:
    """``command`` with ``-v``/``-q`` added to it and every subcommand (once each)."""
    if not _NAMES & {param.name for param in command.params}:
        command.params.extend(_options())
    if isinstance(command, LazyGroup):
        command.on_load = with_verbosity
    if isinstance(command, click.Group):
        for subcommand in command.commands.values():
            with_verbosity(subcommand)
    return command
