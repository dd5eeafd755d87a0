"""The per-server half of the cascade agent: recognise a turn, choose a reply, speak it.

Loaded once per server and shared by every session: Whisper tiny.en (the bundled model
of :mod:`speecheval.asr.whisper`, int8 on the CPU, with its guards against words made up
over silence) is loaded when the server starts, not when a session needs it. Each turn's
work (recognition, then espeak-ng) runs on a worker thread, so the event loop keeps
serving every session's audio meanwhile. There are ``workers`` threads (default 1: on
two cores shared with the recorder, a second decoder steals the CPU the recorder's send
schedule needs), each with its own copy of the model (a faster-whisper model decodes one
call at a time); each decode is single-threaded and greedy, so a turn's words do not
depend on which worker took it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from queue import SimpleQueue
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ...asr.base import SAMPLE_RATE
from ...core import espeak
from ...core.audio import Samples
from ..local.voice import espeak_speech
from .listener import Listener
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
        self._executor = ThreadPoolExecutor(max_workers=settings.options.workers,
                                            thread_name_prefix="cascade")
        self._recognisers: SimpleQueue[WhisperRecogniser] = SimpleQueue()

    async def start(self) -> None:
        """Load the models (Whisper, Silero) on the worker thread, before any session."""
        espeak.engine("the cascade agent's voice")   # exit 2 naming the extra if none
        loop = asyncio.get_running_loop()
        for recogniser in await asyncio.gather(*[
                loop.run_in_executor(self._executor, _load_recogniser)
                for _ in range(self.settings.options.workers)]):
            self._recognisers.put(recogniser)
        # Silero's model too: loaded by the first session instead, it would hold the event
        # loop (and every other session's audio) for a third of a second
        await loop.run_in_executor(self._executor, Listener, SAMPLE_RATE, self.settings)

    def close(self) -> None:
        """Drop queued turns and wait for the one being decoded: no thread outlives it."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def answer(self, turn: Samples, out_rate: int,
                     wanted: Callable[[], bool] = lambda: True) -> Reply | None:
        """Recognise ``turn`` (16 kHz), choose the reply and speak it at ``out_rate``;
        None when ``wanted()`` says no once a worker is free (the user went on talking
        while the turn waited: decoding it would only delay the other sessions' turns)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._answer, turn, out_rate,
                                          wanted)

    def _answer(self, turn: Samples, out_rate: int, wanted: Callable[[], bool]
                ) -> Reply | None:
        if not wanted():
            return None
        recogniser = self._recognisers.get(timeout=60)  # start() put one per worker
        try:
            words = recogniser.words(turn)
        finally:
            self._recognisers.put(recogniser)
        heard = " ".join(word.text for word in words).strip()
        text = reply_text(heard, self.settings.options.max_reply_words)
        return Reply(heard=heard, text=text, pcm=espeak_speech(text, out_rate))


def _load_recogniser() -> WhisperRecogniser:
    """Whisper tiny.en, its model loaded now (decoding a short silence loads it)."""
    from ...asr.whisper import WhisperRecogniser

    recogniser = WhisperRecogniser()
    recogniser.words(np.zeros(SAMPLE_RATE // 10, dtype=np.float32))
    return recogniser
