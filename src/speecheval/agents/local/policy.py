"""Turn-taking of the local agents, independent of any wire protocol.

The agent hears the user's audio in 10 ms analysis frames and keeps time in audio time
(samples heard / rate): the client streams in real time, so audio time tracks the wall
clock, and the agent's behaviour depends only on what it heard, not on scheduling.

* Endpointing: a frame at or above ``threshold_db`` is speech. After speech, once
  ``endpoint_silence_ms`` of silence has passed, the agent waits ``response_delay_ms``
  and replies.
* Barge-in: while replying, ``barge_in_min_ms`` of continuous user speech makes it stop
  ``interrupt_reaction_ms`` later (unless ``interruptible`` is off), and that speech
  counts as the next user turn.
* Output pacing: ``paced`` emits 10 ms of reply per 10 ms heard (a PCM agent streaming
  in real time); ``burst`` emits a whole reply at once, as OpenAI Realtime sends audio
  faster than real time; ``duplex`` emits 10 ms of reply or of silence per 10 ms heard,
  a continuous full-duplex output stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from ...core.pcm import level_dbfs

ANALYSIS_MS = 10

Pacing = Literal["paced", "burst", "duplex"]
ActionKind = Literal["audio", "reply_start", "reply_end", "interrupted", "speech_started",
                     "speech_stopped", "transcript"]


@dataclass(frozen=True)
class TurnSettings:
    """Knobs of the local turn-taking agent (milliseconds and dBFS)."""

    threshold_db: float = -45.0
    endpoint_silence_ms: int = 300
    response_delay_ms: int = 200
    barge_in_min_ms: int = 100
    interrupt_reaction_ms: int = 100
    interruptible: bool = True


@dataclass(frozen=True)
class Action:
    """Something the agent does after hearing a frame; ``at_ms`` is audio time."""

    kind: ActionKind
    at_ms: int
    turn: int
    pcm: NDArray[np.int16] | None = None
    text: str = ""


class SessionPolicy(Protocol):
    """What a protocol session asks of the agent behind it: hear audio, say what to do."""

    heard_ms: int

    def feed(self, pcm: NDArray[np.int16]) -> list[Action]:
        """Hear more user audio; return what the agent does now, in order."""
        ...

    def close(self) -> None:
        """The session is over: stop anything still running for it."""
        ...


class TurnPolicy:
    """Energy-endpointing reply policy; feed it user PCM16, get :class:`Action` lists."""

    def __init__(self, rate: int, settings: TurnSettings, replies: list[NDArray[np.int16]],
                 transcripts: list[str], pacing: Pacing, out_rate: int | None = None) -> None:
        """``rate`` is the rate of the audio heard; ``out_rate`` (default ``rate``) the rate
        of ``replies`` and of the audio spoken, which a full-duplex model may set apart
        (MiniCPM-o hears 16 kHz and speaks 24 kHz)."""
        if not replies:
            raise ValueError("the local agent needs at least one reply")
        self.rate = rate
        self.out_rate = out_rate or rate
        self.settings = settings
        self.replies = replies
        self.transcripts = transcripts
        self.pacing = pacing
        self.step = rate * ANALYSIS_MS // 1000
        self.out_step = self.out_rate * ANALYSIS_MS // 1000
        self.heard_ms = 0
        self._pending = np.zeros(0, dtype=np.int16)
        self._state: Literal["listening", "waiting", "speaking"] = "listening"
        self._heard_speech = False
        self._silence_ms = 0
        self._overlap_ms = 0
        self._respond_at = 0
        self._stop_at: int | None = None
        self._reply = np.zeros(0, dtype=np.int16)
        self._reply_start_ms = 0
        self._position = 0
        self.turns_heard = 0
        self.replies_started = 0

    def feed(self, pcm: NDArray[np.int16]) -> list[Action]:
        """Hear more user audio; return what the agent does, in order."""
        self._pending = np.concatenate([self._pending, pcm]) if self._pending.size else pcm
        actions: list[Action] = []
        while self._pending.size >= self.step:
            frame, self._pending = self._pending[: self.step], self._pending[self.step :]
            self._frame(frame, actions)
        return actions

    def close(self) -> None:
        """Nothing to stop: this policy acts only when it hears audio."""

    def _frame(self, frame: NDArray[np.int16], out: list[Action]) -> None:
        cfg = self.settings
        now = self.heard_ms
        self.heard_ms += ANALYSIS_MS
        active = level_dbfs(frame) >= cfg.threshold_db
        if active:
            if self._state != "speaking" and not self._heard_speech:
                self._heard_speech = True
                out.append(Action("speech_started", now, self.turns_heard))
            self._silence_ms = 0
        else:
            self._silence_ms += ANALYSIS_MS
        if (self._state == "listening" and self._heard_speech
                and self._silence_ms >= cfg.endpoint_silence_ms):
            self._heard_speech = False
            self._respond_at = self.heard_ms + cfg.response_delay_ms
            self._state = "waiting"
            out.append(Action("speech_stopped", now, self.turns_heard))
            if self.turns_heard < len(self.transcripts):
                out.append(Action("transcript", now, self.turns_heard,
                                  text=self.transcripts[self.turns_heard]))
            self.turns_heard += 1
        if self._state == "waiting" and now >= self._respond_at:
            self._start_reply(now, out)
        if self._state == "speaking":
            self._speak(now, active, out)
        elif self.pacing == "duplex":
            out.append(Action("audio", now, self.replies_started,
                              pcm=np.zeros(self.out_step, dtype=np.int16)))

    def _start_reply(self, now: int, out: list[Action]) -> None:
        self._reply = self.replies[self.replies_started % len(self.replies)]
        self._reply_start_ms = now
        self._position = 0
        self._overlap_ms = 0
        self._stop_at = None
        self._state = "speaking"
        self.replies_started += 1
        out.append(Action("reply_start", now, self.replies_started))
        if self.pacing == "burst":
            out.append(Action("audio", now, self.replies_started, pcm=self._reply))

    def _speak(self, now: int, active: bool, out: list[Action]) -> None:
        cfg = self.settings
        self._overlap_ms = self._overlap_ms + ANALYSIS_MS if active else 0
        if cfg.interruptible and self._stop_at is None and self._overlap_ms >= cfg.barge_in_min_ms:
            self._stop_at = self.heard_ms + cfg.interrupt_reaction_ms
            self._heard_speech = True
            out.append(Action("speech_started", now, self.turns_heard))
        if self._stop_at is not None and now >= self._stop_at:
            self._state = "listening"
            out.append(Action("interrupted", now, self.replies_started))
            if self.pacing == "duplex":
                out.append(Action("audio", now, self.replies_started,
                                  pcm=np.zeros(self.out_step, dtype=np.int16)))
            return
        if self.pacing == "burst":
            played_ms = now + ANALYSIS_MS - self._reply_start_ms
            if played_ms * self.out_rate // 1000 >= self._reply.size:
                self._finish(now, out)
            return
        chunk = self._reply[self._position : self._position + self.out_step]
        self._position += self.out_step
        if chunk.size < self.out_step:
            chunk = np.concatenate([chunk, np.zeros(self.out_step - chunk.size, np.int16)])
        out.append(Action("audio", now, self.replies_started, pcm=chunk))
        if self._position >= self._reply.size:
            self._finish(now, out)

    def _finish(self, now: int, out: list[Action]) -> None:
        self._state = "listening"
        out.append(Action("reply_end", now, self.replies_started))


