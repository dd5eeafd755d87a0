"""``session run`` from the request to the evaluated result: plan, run, evaluate.

Each step is one call down: :func:`speecheval.session.run.plan.plan_run` (the agent, its
options and clock, every usage error), the plan's runner (the sessions, recorded), and
:func:`speecheval.session.metrics.evaluate.evaluate` (metrics, summary, assertions).
Nothing below calls back up here.
"""

from __future__ import annotations

from ...core.progress import progress
from ..metrics.evaluate import RunResult, evaluate
from ..scenario.model import Scenario
from .plan import RunRequest, plan_run


def run_sessions(scenario: Scenario, request: RunRequest) -> RunResult:
    """Run ``request.repeat`` sessions of ``scenario`` and evaluate them (progress shown
    on a terminal, one step per session)."""
    plan = plan_run(scenario, request)
    with progress(request.repeat, f"sessions of {scenario.name}", unit="session") as advance:
        recordings = plan.run(advance)
    return evaluate(scenario, plan.agent, plan.options, plan.clock, recordings,
                    limits=plan.limits, agent_settings=plan.settings)
