"""The options of the cascade agent (``-o key=value``), as a schema with defaults.

The same mechanism as the local agents' options (:mod:`speecheval.agents.local.options`):
text in, typed values out, an unknown or misspelt key refused in one line that names the
agent, so a typo never falls back to a default silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import Field

from ...core.errors import InputError
from ...core.schema import Schema, validate
from ..local.options import Number, Positive, Whole
from ..local.server import COMMON_PROTOCOLS as PROTOCOLS


class CascadeOptions(Schema):
    """Every option of the cascade agent with its default (see docs/agents.md)."""

    sample_rate: Whole = Field(16000, gt=0)
    output_rate: Positive = None
    silence_ms: Whole = Field(500, ge=0)
    min_speech_ms: Whole = Field(250, ge=0)
    vad_threshold: Number = Field(0.5, gt=0, lt=1)
    chunk_ms: Whole = Field(80, gt=0)
    max_reply_words: Whole = Field(8, gt=0)
    workers: Whole = Field(1, gt=0)


@dataclass(frozen=True)
class CascadeSettings:
    """The protocol served and the parsed options."""

    protocol: str
    options: CascadeOptions

    @classmethod
    def parse(cls, protocol: str, options: Mapping[str, str]) -> CascadeSettings:
        """``options`` checked; an error is one line naming the agent and the option."""
        where = f"cascade agent ({protocol})"
        if protocol not in PROTOCOLS:
            raise InputError(f"cascade agent protocol must be one of {', '.join(PROTOCOLS)}, "
                             f"got {protocol!r}")
        try:
            parsed = validate(CascadeOptions, dict(options), what="options")
        except InputError as exc:
            raise InputError(f"{where}: option {exc}") from None
        if parsed.output_rate is not None and protocol != "native-realtime":
            raise InputError(f"{where}: output_rate is for native-realtime only")
        return cls(protocol=protocol, options=parsed)
