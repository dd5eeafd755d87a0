"""The ``mock`` agent: a deterministic in-process voice agent on the virtual clock.

It exists to check the whole session pipeline offline (runner, detector, metrics,
reports) against behaviour that is known in advance, and to demonstrate failure modes
on purpose: slow replies, talking over the caller, ignoring barge-in, stopping for a
cough, answering a door slam. Its numbers describe its settings, never a real product.

Behaviour, one user frame at a time (a frame is loud when its RMS is at or above
``threshold_db``):

* listening: loud frames add to the current user turn; once it has lasted
  ``min_turn_ms`` it is a turn (shorter bursts are noise and are forgotten after
  ``endpoint_silence_ms`` of quiet). After ``endpoint_silence_ms`` of quiet following a
  turn, it reports the next fixture transcript and waits ``response_delay_ms`` plus a
  seeded jitter in [0, ``jitter_ms``). With ``talk_over_ms`` set it starts replying that
  long after the user's onset even if the user is still talking.
* speaking: a reply of ``lead_in_ms`` quiet audio (``lead_in_level_db``) and then
  ``response_ms`` of speech-shaped audio, sent in packets of ``packet_ms`` (default: one
  frame) as playback needs them. If ``interruptible`` and the user has been talking over
  it for ``barge_in_min_ms`` (gaps under ``BARGE_IN_GAP_MS`` between words count as
  talking), it stops ``interrupt_reaction_ms`` later, sends a clear (unless
  ``send_clear`` is false) and treats the interruption as a new user turn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BeforeValidator

from ..core.pcm import level_dbfs, to_int16
from ..core.schema import Schema, SchemaError, shown, validate
from ..core.synthetic_signals import FADE_MS, db_to_amplitude, samples_for_ms, speech_shaped
from ..core.timebase import MAX_AUDIO_MS
from .base import AgentEvent, AudioOut, Clear, Transcript, VirtualClockAgent

_EPS_S = 1e-9
# Quiet gaps shorter than this (between words) do not reset the barge-in count.
BARGE_IN_GAP_MS = 100.0
_TAKE_MS = 30000.0  # the mock's voice is cut from one 30 s take


@lru_cache(maxsize=16)
def _voice_take(rate: int, level_db: float, seed: int) -> NDArray[np.float32]:
    take = speech_shaped(_TAKE_MS, rate, level_db, seed)
    take.setflags(write=False)
    return take


class MockOptionError(ValueError):
    """An option the mock does not know, or a value it cannot use; names the option."""

    def __init__(self, key: str, problem: str) -> None:
        self.key = key
        self.problem = problem
        super().__init__(f"mock agent option {key!r}: {problem}")


def _number(value: object) -> float:
    """A finite number (not a boolean), as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, got {shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # a whole number too large for a float
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {shown(value)}")
    return number


def _milliseconds(value: object) -> float:
    """A duration: a number from 0 to :data:`MAX_AUDIO_MS` (one hour)."""
    too_long = f"must be at most {MAX_AUDIO_MS:.0f} ms (one hour), got {shown(value)}"
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_AUDIO_MS:
        raise ValueError(too_long)  # before float(): a whole number of any size
    number = _number(value)
    if number < 0:
        raise ValueError(f"must not be negative, got {shown(value)}")
    if number > MAX_AUDIO_MS:
        raise ValueError(too_long)
    return number


def _optional_milliseconds(value: object) -> float | None:
    """A duration, or ``None`` (not set)."""
    return None if value is None else _milliseconds(value)


def _packet_milliseconds(value: object) -> float | None:
    """A positive duration, or ``None`` (one packet a frame)."""
    number = _optional_milliseconds(value)
    if number is not None and number <= 0:
        raise ValueError(f"must be positive, got {shown(value)}")
    return number


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {shown(value)}")
    return value


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"must be a whole number >= 0, got {shown(value)}")
    return value


def _texts(value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"must be a list of strings, got {shown(value)}")
    return tuple(value)


Milliseconds = Annotated[float, BeforeValidator(_milliseconds)]
OptionalMilliseconds = Annotated[float | None, BeforeValidator(_optional_milliseconds)]
PacketMilliseconds = Annotated[float | None, BeforeValidator(_packet_milliseconds)]
Decibels = Annotated[float, BeforeValidator(_number)]
Flag = Annotated[bool, BeforeValidator(_flag)]
Seed = Annotated[int, BeforeValidator(_seed)]
Texts = Annotated[tuple[str, ...], BeforeValidator(_texts)]


class MockSettings(Schema):
    """The mock's knobs (milliseconds and dBFS); names shared with voicebench's mock.

    Durations run from 0 to one hour, levels are any finite dBFS; options come from a
    scenario or from ``-o`` values parsed as YAML (:func:`from_options`)."""

    endpoint_silence_ms: Milliseconds = 300.0
    response_delay_ms: Milliseconds = 400.0
    jitter_ms: Milliseconds = 0.0
    response_ms: Milliseconds = 1500.0
    greeting_ms: Milliseconds = 0.0
    level_db: Decibels = -20.0
    threshold_db: Decibels = -45.0
    interruptible: Flag = True
    barge_in_min_ms: Milliseconds = 100.0
    interrupt_reaction_ms: Milliseconds = 150.0
    transcripts: Texts = ()
    seed: Seed = 0
    min_turn_ms: Milliseconds = 0.0
    talk_over_ms: OptionalMilliseconds = None
    lead_in_ms: Milliseconds = 0.0
    lead_in_level_db: Decibels = -60.0
    packet_ms: PacketMilliseconds = None
    send_clear: Flag = True

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> MockSettings:
        """Settings from scenario/CLI options; unknown keys and bad values are refused
        with a :class:`MockOptionError` naming the option."""
        known = sorted(cls.model_fields)
        for key in options:
            if key not in cls.model_fields:
                raise MockOptionError(key, f"unknown option; known options are "
                                           f"{', '.join(known)}")
        try:
            return validate(cls, dict(options), what="options")
        except SchemaError as exc:
            raise MockOptionError(str(exc.key_path[0]), exc.detail) from None


class MockAgent(VirtualClockAgent):
    """The mock's state machine; see the module docstring for its behaviour."""

    def __init__(self, settings: MockSettings | None = None) -> None:
        self.settings = settings or MockSettings()
        self._rate = 0
        self._rng = np.random.default_rng(self.settings.seed)
        self._state: Literal["listening", "waiting", "speaking"] = "listening"
        self._turn_ms = 0.0  # loud time in the current user turn (listening)
        self._heard = False  # the current user turn is long enough to answer
        self._onset_s: float | None = None
        self._quiet_ms = 0.0
        self._respond_at = 0.0
        self._replies = 0
        self._turns = 0  # user turns ended so far (indexes the fixture transcripts)
        self._reply = np.zeros(0, dtype=np.int16)
        self._reply_start = 0.0
        self._sent = 0
        self._overlap_ms = 0.0
        self._overlap_gap_ms = 0.0
        self._stop_at: float | None = None

    @property
    def state(self) -> str:
        return self._state

    def start(self, sample_rate: int) -> None:
        self._rate = sample_rate
        if self.settings.greeting_ms > 0:
            self._begin_reply(0.0, self.settings.greeting_ms)

    def process(self, frame: NDArray[np.int16], t_s: float) -> list[AgentEvent]:
        if self._rate == 0:
            raise RuntimeError("MockAgent.process called before start")
        cfg = self.settings
        frame_ms = frame.size * 1000.0 / self._rate
        loud = level_dbfs(frame) >= cfg.threshold_db
        out: list[AgentEvent] = []
        if self._state != "speaking":
            self._listen(loud, frame_ms, t_s, out)
        if self._state == "waiting" and t_s + _EPS_S >= self._respond_at:
            self._begin_reply(t_s, cfg.response_ms)
        if self._state == "speaking":
            self._speak(loud, frame_ms, t_s, out)
        return out

    def _listen(self, loud: bool, frame_ms: float, t_s: float, out: list[AgentEvent]) -> None:
        cfg = self.settings
        if loud:
            if self._state == "waiting":  # the caller went on talking: not the end after all
                self._state = "listening"
            if self._onset_s is None:
                self._onset_s = t_s
            self._turn_ms += frame_ms
            self._quiet_ms = 0.0
            self._heard = self._heard or self._turn_ms + _EPS_S >= cfg.min_turn_ms
        else:
            self._quiet_ms += frame_ms
        endpoint = self._quiet_ms + _EPS_S >= cfg.endpoint_silence_ms
        talk_over = (cfg.talk_over_ms is not None and self._heard and self._onset_s is not None
                     and t_s + _EPS_S >= self._onset_s + cfg.talk_over_ms / 1000.0)
        if self._state == "listening" and self._heard and (endpoint or talk_over):
            self._end_user_turn(out)
            jitter = float(self._rng.uniform(0.0, cfg.jitter_ms)) if cfg.jitter_ms else 0.0
            delay_s = 0.0 if talk_over else (cfg.response_delay_ms + jitter) / 1000.0
            self._respond_at = t_s + frame_ms / 1000.0 * (not talk_over) + delay_s
            self._state = "waiting"
        elif endpoint and not self._heard:
            self._turn_ms = 0.0  # a burst too short to be a turn: forget it
            self._onset_s = None

    def _end_user_turn(self, out: list[AgentEvent]) -> None:
        if self._turns < len(self.settings.transcripts):
            out.append(Transcript(role="user", text=self.settings.transcripts[self._turns],
                                  final=True))
        self._turns += 1
        self._heard = False
        self._turn_ms = 0.0
        self._onset_s = None

    def _begin_reply(self, t_s: float, speech_ms: float) -> None:
        cfg = self.settings
        lead = samples_for_ms(cfg.lead_in_ms, self._rate)
        lead_in = np.full(lead, db_to_amplitude(cfg.lead_in_level_db), dtype=np.float32)
        lead_in[1::2] *= -1.0  # a square wave at half the rate: quiet but not silent
        reply = np.concatenate([lead_in, self._voice(speech_ms)])
        self._reply = to_int16(reply)
        self._replies += 1
        self._reply_start = t_s
        self._sent = 0
        self._overlap_ms = 0.0
        self._overlap_gap_ms = 0.0
        self._stop_at = None
        self._state = "speaking"

    def _voice(self, speech_ms: float) -> NDArray[np.float32]:
        """Reply audio: a slice of one long speech-shaped take, starting where the seed and
        the reply number say, so that replies differ but the take is generated once."""
        n = samples_for_ms(speech_ms, self._rate)
        take = _voice_take(self._rate, self.settings.level_db, self.settings.seed)
        start = (self._replies * 7919 * self._rate // 1000) % take.size
        picked = np.take(take, np.arange(start, start + n), mode="wrap").astype(np.float64)
        fade = min(samples_for_ms(FADE_MS, self._rate), n // 2)
        if fade:
            ramp = np.linspace(0.0, 1.0, fade)
            picked[:fade] *= ramp
            picked[n - fade:] *= ramp[::-1]
        return picked.astype(np.float32)

    def _speak(self, loud: bool, frame_ms: float, t_s: float, out: list[AgentEvent]) -> None:
        cfg = self.settings
        if loud:
            self._overlap_ms += frame_ms + (self._overlap_gap_ms if self._overlap_ms else 0.0)
            self._overlap_gap_ms = 0.0
        elif self._overlap_ms:
            self._overlap_gap_ms += frame_ms
            if self._overlap_gap_ms + _EPS_S >= BARGE_IN_GAP_MS:
                self._overlap_ms, self._overlap_gap_ms = 0.0, 0.0
        if (cfg.interruptible and self._stop_at is None
                and self._overlap_ms + _EPS_S >= cfg.barge_in_min_ms):
            self._stop_at = t_s + (frame_ms + cfg.interrupt_reaction_ms) / 1000.0
            self._heard, self._turn_ms, self._quiet_ms = True, self._overlap_ms, 0.0
        if self._stop_at is not None and t_s + _EPS_S >= self._stop_at:
            if cfg.send_clear:
                out.append(Clear())
            self._state = "listening"
            return
        frame_end = round((t_s - self._reply_start) * self._rate) + samples_for_ms(frame_ms,
                                                                                   self._rate)
        packet = samples_for_ms(cfg.packet_ms, self._rate) if cfg.packet_ms else 0
        while self._sent < min(frame_end, self._reply.size):
            size = packet or frame_end - self._sent
            chunk = self._reply[self._sent:self._sent + size]
            out.append(AudioOut(chunk.astype("<i2").tobytes()))
            self._sent += chunk.size
        if frame_end >= self._reply.size:
            self._state = "listening"
            self._quiet_ms = 0.0


