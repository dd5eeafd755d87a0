"""The options of a local agent (``-o key=value`` of ``session mock-server``), as a schema.

Options arrive as text from a command line; each field turns its text into the value the
agent uses, and an unknown key is refused (a misspelt timing must not fall back to its
default). Errors name the agent, the option and the problem in one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from ...core.errors import InputError
from ...core.schema import Schema, validate
from .server import FaultMode


def _boolean(text: object) -> object:
    """true/false, 1/0, yes/no, on/off (any case) as a boolean; other values go on to be
    refused as they are."""
    if isinstance(text, str):
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
    return text


def _number(text: object) -> object:
    """A number written as text becomes that number (``""``: not given)."""
    if isinstance(text, str):
        stripped = text.strip()
        if stripped == "":
            return None
        for kind in (int, float):
            try:
                return kind(stripped)
            except ValueError:
                continue
    return text


def _pieces(text: object) -> object:
    """``a|b|c`` as the tuple of its non-empty pieces."""
    return tuple(piece for piece in text.split("|") if piece) if isinstance(text, str) else text


Whole = Annotated[int, BeforeValidator(_number)]
Positive = Annotated[Annotated[int, Field(gt=0)] | None, BeforeValidator(_number)]
Number = Annotated[float, BeforeValidator(_number)]
Flag = Annotated[bool, BeforeValidator(_boolean)]
Texts = Annotated[tuple[str, ...], BeforeValidator(_pieces)]


class LocalAgentOptions(Schema):
    """Every option of a local agent with its default (see docs/agents.md)."""

    sample_rate: Whole = Field(16000, gt=0)
    output_rate: Positive = None
    threshold_db: Number = -45.0
    endpoint_silence_ms: Whole = Field(300, ge=0)
    response_delay_ms: Whole = Field(200, ge=0)
    barge_in_min_ms: Whole = Field(100, ge=0)
    interrupt_reaction_ms: Whole = Field(100, ge=0)
    interruptible: Flag = True
    reply_text: Texts = ("Sure, I can help you with that right away.",)
    reply_ms: Positive = None
    voice: Literal["auto", "espeak", "synthetic"] = "auto"
    transcripts: Texts = ()
    pacing: Literal["", "paced", "burst", "duplex"] = ""
    fault: FaultMode = ""
    fault_after_ms: Whole = Field(500, ge=0)
    echo_request: Flag = False
    deny: Texts = ()
    playback_commit_policy: Literal["", "commit_all_on_done", "ack_only"] = ""


def parse_options(where: str, options: Mapping[str, str]) -> LocalAgentOptions:
    """``options`` validated; an error is one line starting with ``where`` (the agent)."""
    try:
        return validate(LocalAgentOptions, dict(options), what="options")
    except InputError as exc:
        raise InputError(f"{where}: option {exc}") from None
