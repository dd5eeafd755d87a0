"""The per-server half of the cascade agent: recognise a turn, choose a reply, speak it.

Loaded once per server and shared by every session: Whisper tiny.en (the bundled model
of :mod:`speecheval.asr.whisper`, int8 on the CPU, with its guards against words made up
over silence) is loaded when the server starts, not when a session needs it. Each turn's
work (recognition, then espeak-ng) runs on one worker thread, so the event loop keeps
serving the other sessions' audio meanwhile, and turns are decoded one at a time, which
is also what keeps them deterministic and the CPU load bounded.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...asr.base import SAMPLE_RATE
from ...core.audio import Samples
from ...core.errors import InputError
from ..local.voice import espeak_available, espeak_speech
from .options import CascadeSettings
from .reply import reply_text

if TYPE_CHECKING:
    from ...asr.whisper import WhisperRecogniser


@dataclass(frozen=True)
class Reply:
    """What the agent makes of one user turn."""

    heard: str  # the recognised words
    text: str  # the reply
    pcm: NDArray[np.int16]  # the reply spoken, at the session's output rate


class CascadeEngine:
    """``await engine.start()`` once; then ``await engine.answer(turn_audio, rate)``."""

    def __init__(self, settings: CascadeSettings) -> None:
        self.settings = settings
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cascade")
        self._recogniser: WhisperRecogniser | None = None

    async def start(self) -> None:
        """Load the recogniser (and its model) on the worker thread."""
        if not espeak_available():
            raise InputError("the cascade agent speaks with espeak-ng, which is not "
                             "installed (apt-get install espeak-ng)")
        loop = asyncio.get_running_loop()
        self._recogniser = await loop.run_in_executor(self._executor, _load_recogniser)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def answer(self, turn: Samples, out_rate: int) -> Reply:
        """Recognise ``turn`` (16 kHz), choose the reply and speak it at ``out_rate``."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._answer, turn, out_rate)

    def _answer(self, turn: Samples, out_rate: int) -> Reply:
        assert self._recogniser is not None, "start() loads the recogniser first"
        words = self._recogniser.words(turn)
        heard = " ".join(word.text for word in words).strip()
        text = reply_text(heard, self.settings.max_reply_words)
        return Reply(heard=heard, text=text, pcm=espeak_speech(text, out_rate))


def _load_recogniser() -> WhisperRecogniser:
    """Whisper tiny.en, its model loaded now (decoding a short silence loads it)."""
    from ...asr.whisper import WhisperRecogniser

    recogniser = WhisperRecogniser()
    recogniser.words(np.zeros(SAMPLE_RATE // 10, dtype=np.float32))
    return recogniser
