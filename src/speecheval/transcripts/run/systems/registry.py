"""Adapter name -> how to build the system and how to parse its saved raw answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...formats.segment import Segment
from ..manifest import CommandSystem, OpenAICompatibleSystem, WhisperLocalSystem
from . import command, openai_compatible, whisper_local
from .base import System

PARSERS: dict[str, Callable[[Path, str], list[Segment]]] = {
    whisper_local.ADAPTER: whisper_local.parse,
    openai_compatible.ADAPTER: openai_compatible.parse,
    command.ADAPTER: command.parse,
}
WORD_PARSERS: dict[str, Callable[[Path, str], list[Segment] | None]] = {
    whisper_local.ADAPTER: whisper_local.words,
    openai_compatible.ADAPTER: openai_compatible.words,
    command.ADAPTER: command.words,
}
"""Adapter name -> the timed words of a saved raw answer (``None``: the answer has none)."""


def build(name: str, spec: WhisperLocalSystem | OpenAICompatibleSystem | CommandSystem,
          folder: Path) -> System:
    """The system ``name`` of the manifest in ``folder`` (an InputError if unusable)."""
    if isinstance(spec, WhisperLocalSystem):
        return whisper_local.WhisperLocal(name, spec)
    if isinstance(spec, OpenAICompatibleSystem):
        return openai_compatible.OpenAICompatible(name, spec)
    return command.Command(name, spec, folder)
