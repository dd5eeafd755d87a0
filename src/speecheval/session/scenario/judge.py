"""The scenario's ``judge`` block and the client it names.

A scenario may name a task judge: the caller's task, the model and the OpenAI-compatible
endpoint that judges it (:mod:`speecheval.session.metrics.task_judge` asks it after each
session). The spec and opening its client live here, beside the rest of the scenario,
because ``session run`` opens the client before the first session, so that a missing key
is a usage error and not a failure after a live call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...remote.chat import ChatModel


@dataclass(frozen=True)
class JudgeSpec:
    """The scenario's ``judge``: the task, and where and how to ask."""

    task: str
    model: str
    base_url: str
    api_key_env: str = "OPENAI_API_KEY"
    max_attempts: int = 3
    timeout_s: float = 60.0


def open_judge(spec: JudgeSpec) -> ChatModel:
    """The judge client; a missing key is a usage error, raised before any session."""
    from ...remote.chat import ChatModel, ChatSettings
    from ...remote.keys import api_key, check_base_url

    check_base_url(spec.base_url)
    key = api_key(spec.api_key_env, f"judge: the environment variable {spec.api_key_env} "
                                    "holding the judge's API key is not set (set it, to any "
                                    "value for a server without keys, or name another with "
                                    "judge.api_key_env)")
    settings = ChatSettings(spec.base_url, spec.model, spec.api_key_env,
                            max_attempts=spec.max_attempts, timeout_s=spec.timeout_s)
    return ChatModel("task", settings, key=key)
