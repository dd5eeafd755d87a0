"""Scenario files: a scripted conversation in YAML, validated strictly.

The format is a superset of voicebench 0.2.0's scenario format, so its scenario files run
unchanged. Every unknown key and every bad value is an :class:`InputError` naming the
file, the key path and its line: a typo in a limit must not silently fall back to a
default and pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from ..core.errors import InputError
from ..core.timebase import MAX_AUDIO_MS
from ..vad.streaming import VadSettings
from .yaml_lines import LineDict, load_yaml_with_lines

Anchor = Literal["session_start", "previous_turn_end", "agent_speech_start", "agent_speech_end"]
Expectation = Literal["respond", "stop", "ignore"]
SynthKind = Literal["speech", "tts", "tone", "noise", "silence"]
VadEngine = Literal["energy", "silero"]

ANCHORS: tuple[Anchor, ...] = ("session_start", "previous_turn_end", "agent_speech_start",
                               "agent_speech_end")
EXPECTATIONS: tuple[Expectation, ...] = ("respond", "stop", "ignore")
SYNTH_KINDS: tuple[SynthKind, ...] = ("speech", "tts", "tone", "noise", "silence")
# Audio keys that only synthesized words (espeak-ng) use.
_TTS_KEYS = ("say", "voice")
VAD_ENGINES: tuple[VadEngine, ...] = ("energy", "silero")

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


@dataclass(frozen=True)
class TrackVad:
    """Speech detection for one track: the energy detector's settings, or Silero."""

    engine: VadEngine = "energy"
    settings: VadSettings = field(default_factory=VadSettings)


@dataclass(frozen=True)
class AgentSpec:
    """The agent a scenario names (``adapter`` in voicebench files) and its options."""

    type: str = "mock"
    options: dict[str, Any] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)
    line: int = 0


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


class _Block:
    """One YAML mapping being validated, with its key path for error messages."""

    def __init__(self, data: Any, where: str, path: Path, line: int) -> None:
        self.where = where
        self.path = path
        if data is None:
            data = LineDict()
            data.line, data.key_lines = line, {}
        if not isinstance(data, LineDict):
            raise self.error(None, "must be a mapping", line)
        self.data = data

    def name(self, key: str | None) -> str:
        if key is None:
            return self.where or "scenario"
        return f"{self.where}.{key}" if self.where else key

    def line(self, key: str | None) -> int:
        return self.data.key_lines.get(key, self.data.line) if key else self.data.line

    def error(self, key: str | None, problem: str, line: int | None = None) -> InputError:
        at = line if line is not None else self.line(key)
        return InputError(f"{self.name(key)} (line {at}): {problem}", path=self.path)

    def check_keys(self, allowed: set[str]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.error(key, f"unknown key; allowed keys are {', '.join(sorted(allowed))}")

    def has(self, key: str) -> bool:
        return key in self.data

    def child(self, key: str) -> _Block:
        return _Block(self.data.get(key), self.name(key), self.path, self.line(key))

    def number(self, key: str, default: float, minimum: float | None = None,
               above: float | None = None) -> float:
        """A finite number; a duration (a key ending in ``_ms``) at most :data:`MAX_MS`."""
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number, got {value!r}")
        if not math.isfinite(value):
            raise self.error(key, f"must be a finite number, got {value!r}")
        if key.endswith("_ms") and value > MAX_MS:
            raise self.error(key, f"must be at most {MAX_MS:.0f} ms (one hour), got {value:g}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be >= {minimum:g}, got {value:g}")
        if above is not None and value <= above:
            raise self.error(key, f"must be > {above:g}, got {value:g}")
        return float(value)

    def integer(self, key: str, default: int, minimum: int | None = None,
                maximum: int | None = None) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be a whole number, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be <= {maximum}, got {value}")
        return value

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key, default)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        return value

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        value = self.data.get(key, default)
        if value not in options:
            raise self.error(key, f"must be one of {', '.join(options)}, got {value!r}")
        return cast(str, value)


_ROOT_KEYS = {"name", "description", "sample_rate", "frame_ms", "tail_ms", "max_duration_ms",
              "vad", "adapter", "agent", "defaults", "turns", "assert"}
_TURN_KEYS = {"id", "audio", "start", "expect", "text", "response_timeout_ms", "max_stop_ms"}
_AUDIO_KEYS = {"file", "synth", "duration_ms", "level_db", "freq_hz", "seed", "say", "voice"}
_VAD_KEYS = {"engine", "threshold_db", "hysteresis_db", "frame_ms", "min_speech_ms",
             "min_silence_ms"}


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file; any problem is an InputError naming its line."""
    source = Path(path)
    data = load_yaml_with_lines(source)
    root = _Block(data, "", source, 1)
    root.check_keys(_ROOT_KEYS)
    if root.has("adapter") and root.has("agent"):
        raise root.error("agent", "set either 'agent' or its voicebench name 'adapter', not both")
    name = root.text("name")
    if name is None:
        raise root.error("name", "is required")
    defaults = root.child("defaults")
    defaults.check_keys({"response_timeout_ms", "max_stop_ms"})
    vad = root.child("vad")
    vad.check_keys({"user", "agent"})
    turns = _parse_turns(root, defaults)
    sample_rate = root.integer("sample_rate", DEFAULT_SAMPLE_RATE, minimum=8000,
                               maximum=MAX_SAMPLE_RATE)
    agent_vad = _parse_vad(vad.child("agent"))
    _check_live_agent_vad(vad.child("agent"), agent_vad, turns, sample_rate)
    return Scenario(
        name=name,
        description=root.text("description") or "",
        sample_rate=sample_rate,
        frame_ms=_frame_ms(root, sample_rate),
        tail_ms=root.number("tail_ms", DEFAULT_TAIL_MS, minimum=0),
        max_duration_ms=root.number("max_duration_ms", DEFAULT_MAX_DURATION_MS, above=0),
        user_vad=_parse_vad(vad.child("user")),
        agent_vad=agent_vad,
        agent=_parse_agent(root.child("agent" if root.has("agent") else "adapter")),
        turns=turns,
        assertions=_parse_assertions(root.child("assert")),
        path=source,
    )


def _frame_ms(root: _Block, sample_rate: int) -> float:
    """The user frame length: whole milliseconds and whole samples, so that the virtual
    clock and the real-clock runner (which paces frames in whole milliseconds) send
    frames of exactly the same length."""
    value = root.number("frame_ms", DEFAULT_FRAME_MS, minimum=5)
    if value != int(value):
        raise root.error("frame_ms", f"must be a whole number of milliseconds, got {value:g}")
    samples = sample_rate * value / 1000
    if samples != int(samples):
        raise root.error("frame_ms", f"{value:g} ms is {samples:g} samples at sample_rate "
                                     f"{sample_rate}; use a frame length that is a whole "
                                     "number of samples")
    return value


def _parse_turns(root: _Block, defaults: _Block) -> tuple[Turn, ...]:
    raw = root.data.get("turns")
    if not isinstance(raw, list) or not raw:
        raise root.error("turns", "must be a non-empty list of turns")
    turns: list[Turn] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(raw):
        block = _Block(item, f"turns[{index}]", root.path, root.line("turns"))
        turn = _parse_turn(block, index, defaults)
        if turn.id in seen:
            raise block.error("id", f"duplicate turn id {turn.id!r} (first used on line "
                                    f"{seen[turn.id]})")
        seen[turn.id] = turn.line
        turns.append(turn)
    synthesized = sum(t.audio.duration_ms or 0.0 for t in turns if t.audio.synth is not None)
    if synthesized > MAX_MS:
        raise root.error("turns", f"the synthesized turn audio adds up to {synthesized:g} ms; "
                                  f"at most {MAX_MS:.0f} ms (one hour) together")
    return tuple(turns)


def _parse_turn(block: _Block, index: int, defaults: _Block) -> Turn:
    block.check_keys(_TURN_KEYS)
    start = block.child("start")
    start.check_keys({"after", "delay_ms", "timeout_ms"})
    first = index == 0
    rule = StartRule(
        after=cast(Anchor, start.choice("after", ANCHORS,
                                        "session_start" if first else "agent_speech_end")),
        delay_ms=start.number("delay_ms", DEFAULT_FIRST_DELAY_MS if first else 0.0, minimum=0),
        timeout_ms=start.number("timeout_ms", DEFAULT_START_TIMEOUT_MS, minimum=0),
    )
    if not block.has("audio"):
        raise block.error("audio", "is required (a 'file' or a 'synth' signal)")
    return Turn(
        id=block.text("id", f"turn-{index + 1}") or f"turn-{index + 1}",
        audio=_parse_audio(block.child("audio")),
        start=rule,
        expect=cast(Expectation, block.choice("expect", EXPECTATIONS, "respond")),
        text=block.text("text"),
        response_timeout_ms=block.number(
            "response_timeout_ms",
            defaults.number("response_timeout_ms", DEFAULT_RESPONSE_TIMEOUT_MS, minimum=0),
            minimum=0),
        max_stop_ms=block.number(
            "max_stop_ms", defaults.number("max_stop_ms", DEFAULT_MAX_STOP_MS, minimum=0),
            minimum=0),
        line=block.data.line,
    )


def _parse_audio(block: _Block) -> AudioSpec:
    block.check_keys(_AUDIO_KEYS)
    if block.has("file") == block.has("synth"):
        raise block.error(None, "set exactly one of 'file' or 'synth'")
    duration = block.number("duration_ms", 0, above=0) if block.has("duration_ms") else None
    if block.has("file"):
        extra = sorted(set(block.data) - {"file"})
        if extra:
            raise block.error(extra[0], "applies to synthesized audio only, not to a file")
        name = block.text("file")
        assert name is not None
        path = Path(name)
        if not path.is_absolute():
            path = block.path.parent / path
        if not path.is_file():
            raise block.error("file", f"audio file {path} does not exist")
        return AudioSpec(file=path)
    synth = cast(SynthKind, block.choice("synth", SYNTH_KINDS, "speech"))
    if synth != "tts":
        for key in _TTS_KEYS:
            if block.has(key):
                raise block.error(key, f"applies to 'synth: tts' (words spoken by espeak-ng) "
                                       f"only; 'synth: {synth}' is a signal without words")
    return AudioSpec(
        synth=synth,
        duration_ms=duration,
        level_db=block.number("level_db", DEFAULT_LEVEL_DB),
        freq_hz=block.number("freq_hz", DEFAULT_FREQ_HZ, above=0),
        seed=block.integer("seed", 0, minimum=0),
        say=block.text("say"),
        voice=block.text("voice", DEFAULT_VOICE) or DEFAULT_VOICE,
    )


def _parse_vad(block: _Block) -> TrackVad:
    block.check_keys(_VAD_KEYS)
    engine = cast(VadEngine, block.choice("engine", VAD_ENGINES, "energy"))
    if engine == "silero":
        tuned = sorted(set(block.data) - {"engine"})
        if tuned:
            raise block.error(tuned[0], "tunes the energy detector; it has no effect with "
                                        "engine: silero")
    base = VadSettings()
    settings = VadSettings(
        threshold_db=block.number("threshold_db", base.threshold_db),
        hysteresis_db=block.number("hysteresis_db", base.hysteresis_db, minimum=0),
        frame_ms=block.number("frame_ms", base.frame_ms, above=0),
        min_speech_ms=block.number("min_speech_ms", base.min_speech_ms, minimum=0),
        min_silence_ms=block.number("min_silence_ms", base.min_silence_ms, minimum=0),
    )
    return TrackVad(engine=engine, settings=settings)


def _check_live_agent_vad(block: _Block, vad: TrackVad, turns: tuple[Turn, ...],
                          sample_rate: int) -> None:
    """Agent-anchored turns start on the declared agent detector while the session runs;
    Silero can follow a live track only at some rates."""
    anchored = [t for t in turns if t.start.after in ("agent_speech_start", "agent_speech_end")]
    if vad.engine != "silero" or not anchored:
        return
    from ..vad.silero_stream import live_rate_problem  # onnxruntime only when used

    problem = live_rate_problem(sample_rate)
    if problem is not None:
        raise block.error("engine", f"turn {anchored[0].id!r} starts on agent speech, which "
                                    f"this detector must find while the session runs: "
                                    f"{problem}; use engine: energy or another sample_rate")


def _parse_agent(block: _Block) -> AgentSpec:
    block.check_keys({"type", "options"})
    options = block.child("options")
    return AgentSpec(type=block.text("type", "mock") or "mock", options=dict(options.data),
                     option_lines=dict(options.data.key_lines), line=block.data.line)


def _parse_assertions(block: _Block) -> dict[str, float]:
    block.check_keys(set(ASSERTIONS))
    return {key: block.number(key, 0.0) for key in block.data}
