"""When a judged run may call itself official: the paper's setup, checked on what is known.

A model name in the settings proves nothing: any OpenAI-compatible server, a local fake
included, answers under whatever name it is asked for. So a run is official only when all
three things it can observe match the official setup:

- the prompt sent as the system message has the SHA-256 of the official
  ``instruction/behavior.txt`` (pinned with the evaluator revision speecheval follows);
- every reply named the official model (``model`` of each chat completion; a run without
  a reply, or with a reply that names no model, is not official);
- the base URL's host is ``api.openai.com`` (host class ``openai``; any other host, a
  proxy or a local server included, is ``other``).

Each unmet condition gives one reason, recorded with the run beside the three observed
values, so a reader sees why a run is not official.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ...common.official_evaluator import PINNED_SHA256

OFFICIAL_MODEL = "gpt-4o-2024-08-06"
PROMPT_NAME = "v1_v1.5/evaluation/instruction/behavior.txt"
OFFICIAL_PROMPT_SHA256 = PINNED_SHA256[PROMPT_NAME]
OFFICIAL_HOST = "api.openai.com"
HOST_OPENAI, HOST_OTHER = "openai", "other"


def host_class(base_url: str) -> str:
    """``openai`` when the URL's host is api.openai.com (any case, any port), else ``other``.

    >>> [host_class(u) for u in ("https://api.openai.com/v1", "https://API.OpenAI.com:443/v1",
    ...                          "http://127.0.0.1:8000/v1", "https://api.openai.com.evil/v1",
    ...                          "https://proxy.example/api.openai.com/v1")]
    ['openai', 'openai', 'other', 'other', 'other']
    """
    host = (urlsplit(base_url).hostname or "").rstrip(".")
    return HOST_OPENAI if host == OFFICIAL_HOST else HOST_OTHER


@dataclass(frozen=True)
class Officiality:
    """Whether a run is official, and why not (one reason per unmet condition)."""

    official: bool
    reasons: tuple[str, ...]

    @property
    def note(self) -> str | None:
        return "; ".join(self.reasons) if self.reasons else None


def officiality(prompt_sha256: str, reported_models: Sequence[str | None],
                host: str) -> Officiality:
    """The rule of the module on the three observed values (``None`` among the reported
    models: a reply that named no model).

    >>> officiality(OFFICIAL_PROMPT_SHA256, [OFFICIAL_MODEL], HOST_OPENAI)
    Officiality(official=True, reasons=())
    >>> officiality(OFFICIAL_PROMPT_SHA256, [OFFICIAL_MODEL], HOST_OTHER).note
    'the endpoint is not api.openai.com (host class other)'
    """
    reasons = []
    if prompt_sha256 != OFFICIAL_PROMPT_SHA256:
        reasons.append(f"the prompt's SHA-256 {prompt_sha256[:12]}... is not the official "
                       f"{OFFICIAL_PROMPT_SHA256[:12]}...")
    named = [model for model in reported_models if model is not None]
    if not reported_models:
        reasons.append("the endpoint reported no model (no reply)")
    if None in reported_models:
        reasons.append("a reply named no model")
    if set(named) - {OFFICIAL_MODEL}:
        reasons.append(f"the endpoint reported the model {', '.join(named)}; the official "
                       f"model is {OFFICIAL_MODEL}")
    if host != HOST_OPENAI:
        reasons.append(f"the endpoint is not {OFFICIAL_HOST} (host class {host})")
    return Officiality(not reasons, tuple(reasons))
