"""The scenario a session plays: a scripted conversation, as the runners and metrics read it.

These frozen dataclasses (and the defaults shared with voicebench 0.2.0) are what
:func:`speecheval.session.scenario.load.load_scenario` makes of a scenario file; every
other room of ``session`` reads them and none imports the file's schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ...core.timebase import MAX_AUDIO_MS
from ...vad.streaming import VadSettings
from .conditions import Conditions
from .judge import JudgeSpec

Anchor = Literal["session_start", "previous_turn_end", "agent_speech_start", "agent_speech_end"]
Expectation = Literal["respond", "stop", "ignore"]
SynthKind = Literal["speech", "tts", "tone", "noise", "silence"]
VadEngine = Literal["energy", "silero"]

# The agent a scenario names by default, and voicebench's names for agents that speecheval
# calls differently (its PCM-over-WebSocket adapter is "websocket").
MOCK = "mock"
AGENT_ALIASES = {"websocket": "pcm-websocket"}

# Defaults shared with voicebench 0.2.0, so its scenarios mean the same thing here.
DEFAULT_SAMPLE_RATE = 16000
DEFAULT_FRAME_MS = 20.0
DEFAULT_TAIL_MS = 3000.0
DEFAULT_MAX_DURATION_MS = 120000.0
DEFAULT_RESPONSE_TIMEOUT_MS = 5000.0
DEFAULT_MAX_STOP_MS = 1000.0
DEFAULT_START_TIMEOUT_MS = 10000.0
DEFAULT_FIRST_DELAY_MS = 500.0
DEFAULT_LEVEL_DB = -20.0
DEFAULT_FREQ_HZ = 440.0
DEFAULT_SYNTH_MS = 1000.0
DEFAULT_VOICE = "en-us"
# Limits that keep a scenario inside memory: every ``*_ms`` value (a turn, a delay, the
# session) and the synthesized turn audio together are at most MAX_MS (one hour), and
# the rate at most 48 kHz (an hour at 48 kHz is 330 MB per int16 track).
MAX_MS = MAX_AUDIO_MS
MAX_SAMPLE_RATE = 48000

# Assertion key -> True when the limit is a minimum (the value must be at least the limit).
ASSERTIONS: dict[str, bool] = {
    "max_response_latency_ms": False,
    "p50_response_latency_ms": False,
    "p90_response_latency_ms": False,
    "p50_ttfa_ms": False,
    "p90_ttfa_ms": False,
    "max_barge_in_stop_ms": False,
    "min_barge_in_success_rate": True,
    "max_false_barge_ins": False,
    "max_spurious_responses": False,
    "max_missed_responses": False,
    "max_talk_over_ms": False,
    "max_wer": False,
    "min_session_pass_rate": True,
    "max_self_interruptions": False,
    "min_task_success_rate": True,
}


@dataclass(frozen=True)
class AudioSpec:
    """A turn's audio: a WAV file, or a synthesized signal of ``synth`` kind.

    ``speech`` is voicebench's speech-shaped signal (no words), ``tts`` real words from
    espeak-ng. ``duration_ms`` is ``None`` when the file did not set it: ``tts`` then
    keeps its natural length and other signals last :data:`DEFAULT_SYNTH_MS`. ``say``
    is the text ``tts`` speaks (default: the turn's ``text``).
    """

    file: Path | None = None
    synth: SynthKind | None = None
    duration_ms: float | None = None
    level_db: float = DEFAULT_LEVEL_DB
    freq_hz: float = DEFAULT_FREQ_HZ
    seed: int = 0
    say: str | None = None
    voice: str = DEFAULT_VOICE


@dataclass(frozen=True)
class StartRule:
    """Start ``delay_ms`` after the ``after`` anchor, or ``timeout_ms`` after waiting began."""

    after: Anchor
    delay_ms: float
    timeout_ms: float


@dataclass(frozen=True)
class ReplySpec:
    """What a turn's reply must say (``says_any``: at least one phrase), must not say
    (``says_none``), must match (``matches``, a regular expression, case-insensitive), and
    how close it must be to ``text`` (``max_wer``), as the agent track's transcript."""

    says_any: tuple[str, ...] | None = None
    says_none: tuple[str, ...] | None = None
    matches: str | None = None
    text: str | None = None
    max_wer: float | None = None


@dataclass(frozen=True)
class Turn:
    """One scripted user utterance and what the agent should do about it."""

    id: str
    audio: AudioSpec
    start: StartRule
    expect: Expectation
    text: str | None
    response_timeout_ms: float
    max_stop_ms: float
    line: int
    reply: ReplySpec | None = None


@dataclass(frozen=True)
class TrackVad:
    """Speech detection for one track: the energy detector's settings, or Silero."""

    engine: VadEngine = "energy"
    settings: VadSettings = field(default_factory=VadSettings)


@dataclass(frozen=True)
class AgentSpec:
    """The agent a scenario names (``adapter`` in voicebench files) and its options."""

    type: str = MOCK
    options: dict[str, Any] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)
    line: int = 0
    key: str = "agent"  # the key it was written under: agent, or voicebench's adapter
    type_line: int = 0


@dataclass(frozen=True)
class Scenario:
    """A parsed, validated scenario. ``path`` is the file it came from."""

    name: str
    description: str
    sample_rate: int
    frame_ms: float
    tail_ms: float
    max_duration_ms: float
    user_vad: TrackVad
    agent_vad: TrackVad
    agent: AgentSpec
    turns: tuple[Turn, ...]
    assertions: dict[str, float]
    path: Path
    conditions: Conditions = field(default_factory=Conditions)
    judge: JudgeSpec | None = None
