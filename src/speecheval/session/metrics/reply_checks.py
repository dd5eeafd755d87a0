"""What the agent said: its track transcribed, and each turn's ``reply`` checks.

The agent track is transcribed by the bundled Whisper tiny.en
(:class:`speecheval.asr.whisper.WhisperRecogniser`, the FDB v1.0 recogniser with its
guards: only the speech regions are decoded, so silence and low noise give no invented
words, and looping repeats are dropped). Only runs whose scenario has a turn with
``reply`` checks pay for it. A turn's reply is the words that start inside its window
(its audio start to the next turn's start).

The checks, on the reply after the WER normalization (lowercase, punctuation removed):
``says_any`` (at least one phrase occurs, as whole words), ``says_none`` (no phrase
occurs), ``matches`` (a regular expression, case-insensitive, on the reply as written)
and ``max_wer`` (the word error rate of the reply against ``text``). Like the timing
assertions they fail on a missing value: a turn without any agent words fails every
check it has, ``says_none`` included.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...core.timebase import to_us
from ..scenario.model import ReplySpec, Scenario
from ..scenario.wer import normalize_words, wer
from .results import ReplyFindings, TurnMetrics

if TYPE_CHECKING:
    from ...asr.base import TimedWord
    from ...asr.whisper import WhisperRecogniser

ASR_RATE = 16000


@lru_cache(maxsize=1)
def _recogniser() -> WhisperRecogniser:
    from ...asr.whisper import WhisperRecogniser  # faster-whisper only when a reply is checked

    return WhisperRecogniser()


def recogniser_identity() -> dict[str, object]:
    """The agent-track recogniser's identity (model files and hashes, decoding, guards),
    for the provenance record of a run that checked replies."""
    return _recogniser().identity()


def agent_words(agent: NDArray[np.int16], rate: int) -> list[TimedWord]:
    """The agent track's words, with times in seconds on the session timeline."""
    from ...core.audio import resample

    samples = agent.astype(np.float32) / 32768.0
    if rate != ASR_RATE:
        samples = resample(samples, rate, ASR_RATE)
    return _recogniser().words(samples)


def with_reply_checks(turns: tuple[TurnMetrics, ...], scenario: Scenario,
                      words: list[TimedWord]) -> tuple[TurnMetrics, ...]:
    """``turns`` with each checked turn's ``reply`` filled in and its verdict updated."""
    specs = {turn.id: turn.reply for turn in scenario.turns if turn.reply is not None}
    out = []
    for turn in turns:
        spec = specs.get(turn.id)
        if spec is None:
            out.append(turn)
            continue
        said = _said(turn, words)
        result = check_reply(spec, said)
        failed = [name for name, ok in result.checks.items() if not ok]
        notes = turn.notes
        if failed:
            heard = "nothing" if said is None else repr(said)
            notes = (*notes, f"reply check(s) failed: {', '.join(failed)}; the agent said "
                             f"{heard}")
        out.append(replace(turn, reply=result, passed=turn.passed and not failed,
                           notes=notes))
    return tuple(out)


def _said(turn: TurnMetrics, words: list[TimedWord]) -> str | None:
    if turn.start_s is None or turn.end_s is None:
        return None  # the turn never played
    start, end = to_us(turn.start_s), to_us(turn.end_s)
    mine = [w.text for w in words if start <= to_us(w.start_s) < end]
    return " ".join(mine) if mine else None


def _contains(words: list[str], phrase: str) -> bool:
    wanted = normalize_words(phrase)
    n = len(wanted)
    return any(words[i:i + n] == wanted for i in range(len(words) - n + 1))


def check_reply(spec: ReplySpec, said: str | None) -> ReplyFindings:
    """The reply entry of a turn: what was said, its WER against ``text``, each check."""
    checks: dict[str, bool] = {}
    words = [] if said is None else normalize_words(said)
    error = None if said is None or spec.text is None else wer(spec.text, said)
    if spec.says_any is not None:
        checks["says_any"] = said is not None and any(_contains(words, p)
                                                      for p in spec.says_any)
    if spec.says_none is not None:
        checks["says_none"] = said is not None and not any(_contains(words, p)
                                                           for p in spec.says_none)
    if spec.matches is not None:
        checks["matches"] = said is not None and re.search(spec.matches, said,
                                                           re.IGNORECASE) is not None
    if spec.max_wer is not None:
        checks["max_wer"] = error is not None and error <= spec.max_wer
    return ReplyFindings(transcript=said, wer=error, checks=checks)
