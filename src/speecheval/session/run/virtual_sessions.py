"""Sessions on the virtual clock: ``repeat`` runs of a scenario, the turn audio rendered
once, spread over an executor; recordings in session order.

The real-clock runner (:mod:`speecheval.session.run.real_clock`) produces the same
:class:`SessionRecording`, so whichever clock recorded the sessions, they are evaluated
the same way (:mod:`speecheval.session.metrics.evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray

from ...agents.base import VirtualClockAgent
from ...core.errors import InputError
from ...core.executor import Executor, LocalExecutor
from ...core.progress import Advance
from ..record.recording import SessionRecording
from ..scenario.model import Scenario
from .synth import render_turns
from .virtual_runner import run_virtual


def run_virtual_sessions(scenario: Scenario, make_agent: Callable[[int], VirtualClockAgent],
                         repeat: int, advance: Advance | None = None,
                         executor: Executor | None = None) -> list[SessionRecording]:
    """``repeat`` sessions on the virtual clock, the turn audio rendered once, run on
    ``executor`` (default: one after another here; ``make_agent`` must then be picklable,
    as :class:`~speecheval.session.run.plan.MockMaker` is); recordings in session order.
    ``advance`` (a progress bar) is called after each. An error in a session (bad agent
    options) is raised."""
    clips = render_turns(scenario)
    outcomes = (executor or LocalExecutor(1)).map(
        partial(_virtual_session, scenario, clips, make_agent), list(range(repeat)),
        advance=advance or _no_progress, stop_on=(InputError,), name=_session_name)
    return [outcome.get() for outcome in outcomes]


def _session_name(index: int, position: int) -> str:
    """How an error names session ``index`` (its number, as in ``sessions/001``)."""
    return f"session {index + 1}"


def _virtual_session(scenario: Scenario, clips: list[NDArray[np.float32]],
                     make_agent: Callable[[int], VirtualClockAgent],
                     index: int) -> SessionRecording:
    """Session ``index`` (a work item of :func:`run_virtual_sessions`)."""
    return run_virtual(scenario, clips, make_agent(index))


def _no_progress(units: int = 1) -> None:
    """No progress bar."""
