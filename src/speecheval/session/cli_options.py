"""What ``session run`` and ``session load`` both take: the scenario, the agent and its
options, and a new output directory, declared once for both commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def session_options(agent_help: str, option_help: str, out_help: str) -> Callable[[F], F]:
    """Add the SCENARIO argument and ``--agent``, ``-o/--option``, ``--url`` and ``--out``
    to a click command (parameters ``scenario_path``, ``agent``, ``option_pairs``,
    ``url``, ``out``); the help of the first, second and last says what the command
    does with them. Join ``--url`` to the options with :func:`with_url`."""
    def add(command: F) -> F:
        for option in reversed((
                click.argument("scenario_path", metavar="SCENARIO",
                               type=click.Path(path_type=Path, dir_okay=False)),
                click.option("--agent", "agent", default=None, metavar="NAME|module:Class",
                             help=agent_help),
                click.option("-o", "--option", "option_pairs", multiple=True,
                             metavar="KEY=VALUE", help=option_help),
                click.option("--url", default=None, metavar="URL",
                             help="Agent URL: short for -o url=URL, and it wins over it "
                                  "(as in voicebench)."),
                click.option("--out", "out", required=True, type=click.Path(path_type=Path),
                             help=out_help))):
            command = option(command)
        return command
    return add


def with_url(option_pairs: tuple[str, ...], url: str | None) -> tuple[str, ...]:
    """The ``-o`` pairs with ``--url`` last, so that it wins over an ``-o url=``."""
    return option_pairs if url is None else (*option_pairs, f"url={url}")
