"""The ``--executor`` and ``--ray-address`` options every batch command shares.

They choose where a command's work items run (:mod:`speecheval.core.executor`): ``local``
(this machine, ``--jobs`` worker processes) or ``ray`` (a Ray cluster). They change where
the work runs, never what it computes, so commands leave them out of the command lines
they record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from .core.executor import EXECUTORS

F = TypeVar("F", bound=Callable[..., object])


def executor_options(command: F) -> F:
    """Add ``--executor`` and ``--ray-address`` to a click command (parameters
    ``executor`` and ``ray_address``); build the executor with
    :func:`speecheval.core.executor.make_executor`."""
    command = click.option(
        "--ray-address", "ray_address", default=None, metavar="ADDR",
        help="--executor ray: the cluster to join (host:port of its head, or auto) "
             "[default: $RAY_ADDRESS, else a private local cluster with --jobs CPUs].")(command)
    return click.option(
        "--executor", "executor", type=click.Choice(EXECUTORS), default="local",
        show_default=True,
        help="Where the work items run: local = worker processes on this machine "
             "(--jobs), ray = tasks on a Ray cluster (pip install 'speecheval[ray]'); the "
             "output does not depend on it (docs/executor.md).")(command)
