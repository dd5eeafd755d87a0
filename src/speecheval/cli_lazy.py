"""A click group that imports a subcommand's module only when that subcommand is used.

Why: the commands of speecheval reach numpy, scipy, jinja2, pydantic, websockets and
ONNX models; importing all of them for every run made ``speecheval --help`` take a
second. A :class:`LazyGroup` names each subcommand by ``"module:attribute"`` and imports
it on first use, so a command pays only for what it runs.

A group's help page lists its subcommands with a short help text, which click takes from
the command object. A subcommand given with ``summary`` (its full help text, the same as
the command's own docstring; ``tests/test_cli_imports.py`` checks they agree) is listed
from that text without importing its module; one given without is imported for the
listing. ``on_load``, when set, is called with every subcommand the group hands out, so
that something every command shares (``-v``/``-q``, :mod:`speecheval.cli_verbosity`)
reaches the ones imported later too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class Lazy:
    """Where a subcommand lives (``"package.module:attribute"``) and, optionally, its help
    text for listing it without an import."""

    target: str
    summary: str | None = None

    def load(self) -> click.Command:
        """Import the module and return the command object."""
        module_name, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class LazyGroup(click.Group):
    """A :class:`click.Group` whose ``lazy`` subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, Lazy] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})
        self.on_load: Callable[[click.Command], object] | None = None
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = self.lazy.get(cmd_name)
        if spec is not None and cmd_name not in self.commands:
            if self._listing and spec.summary is not None:
                return click.Command(cmd_name, help=spec.summary)
            self.add_command(spec.load(), cmd_name)
        command = super().get_command(ctx, cmd_name)
        if command is not None and self.on_load is not None:
            self.on_load(command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The subcommand listing, from the summaries where given (nothing imported)."""
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False
