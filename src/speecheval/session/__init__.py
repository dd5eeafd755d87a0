"""Live voice-agent sessions: scripted user track in, both tracks recorded, metrics out.

The public Python API of the sessions family (``speecheval session``) is
:func:`run_scenario`, which ``speecheval session run`` calls; everything not listed in
``__all__`` is private and may change. Importing this package is cheap: the scenario
loader, the agents and the metrics are imported when the function is called.

>>> from speecheval import session
>>> result = session.run_scenario("examples/scenarios/booking.yaml")
>>> result.agent, result.clock, result.passed
('mock', 'virtual', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agents.receive_limits import ReceiveLimits
    from ..core.executor import Executor
    from .metrics.evaluate import RunResult

__all__ = ["run_scenario"]


def run_scenario(path: str | Path, agent: str | None = None,
                 options: Mapping[str, str] | Sequence[str] | None = None, *,
                 repeat: int = 1, concurrency: int = 1, realtime: bool = False,
                 executor: Executor | None = None, limits: ReceiveLimits | None = None
                 ) -> RunResult:
    """Run a scenario file against an agent and measure it: the run's typed result.

    The same run as ``speecheval session run PATH`` without ``--out`` (nothing is
    written; ``speecheval.session.report.run_output.write_run`` is what writes a run
    directory). ``agent`` is an agent's name (``mock``, a transport, ``module:Class``;
    default: the scenario's ``agent.type``, ``mock`` in the bundled examples).
    ``options`` are the agent's options as ``-o`` gives them, text (``{"key":
    "value"}`` or ``["key=value"]``), parsed as YAML for in-process agents; they
    override the scenario's options for the same agent. ``repeat`` sessions run;
    ``realtime`` asks for the real clock and ``concurrency`` runs that many real-clock
    sessions at once; ``executor`` runs virtual-clock sessions elsewhere (default: one
    after another here); ``limits`` caps what a real-clock session keeps of its agent.

    A bad scenario, agent or option is an :class:`~speecheval.core.errors.InputError`;
    an agent that fails is recorded in the result (``faulted``, each recording's
    ``fault``), not raised. The result holds the ``scenario``, each session's
    ``recordings`` and ``sessions`` metrics, the ``summary`` over the sessions and the
    scenario's ``assertions`` (``passed`` when all hold); ``report_dict()`` on them gives
    the file shape of ``report.json``.

    >>> from speecheval import session
    >>> result = session.run_scenario("examples/scenarios/booking.yaml", options={"seed": "7"})
    >>> [(turn.id, turn.response_latency_ms) for turn in result.sessions[0].turns][:2]
    [('ask', 720.0), ('correct', 750.0)]
    """
    from ..agents.receive_limits import DEFAULT_LIMITS
    from ..core.errors import InputError
    from ..core.option_pairs import parse_option_pairs, yaml_values
    from .run.launch import run_sessions
    from .run.plan import RunRequest
    from .scenario.load import load_scenario

    scenario = load_scenario(path)
    if isinstance(options, str):
        raise InputError(f"options: give a mapping or a list of key=value, got {options!r}")
    if options is None or isinstance(options, Mapping):
        raw = dict(options or {})
        for key, value in raw.items():
            if not isinstance(value, str):
                raise InputError(f"options: {key}: give the value as text, as -o takes it, "
                                 f"got {value!r}")
    else:
        raw = parse_option_pairs(tuple(options))
    return run_sessions(scenario, RunRequest(
        agent=agent, parsed=yaml_values(raw), raw=raw, repeat=repeat, concurrency=concurrency,
        realtime=realtime, executor=executor,
        limits=DEFAULT_LIMITS if limits is None else limits))
