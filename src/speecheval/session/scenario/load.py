"""Scenario files: a scripted conversation in YAML, validated strictly.

The format is a superset of voicebench 0.2.0's scenario format, so its scenario files run
unchanged. The file is read by :mod:`speecheval.core.schema` into the models of
:mod:`speecheval.session.scenario.schema`: every unknown key and every bad value is an
:class:`InputError` naming the file, the key path and its line, because a typo in a limit
must not silently fall back to a default and pass. What depends on several keys is checked
here, and the result is the :class:`~speecheval.session.scenario.model.Scenario` the
runners use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ...core.errors import InputError
from ...core.paths import resolve_inside
from ...vad.streaming import VadSettings
from .conditions import OPUS_FRAME_MS, OPUS_RATES, CodecSpec, Conditions
from .judge import JudgeSpec
from .model import (
    DEFAULT_FIRST_DELAY_MS,
    DEFAULT_VOICE,
    MAX_MS,
    AgentSpec,
    AudioSpec,
    ReplySpec,
    Scenario,
    StartRule,
    TrackVad,
    Turn,
)

if TYPE_CHECKING:  # pydantic is imported only when a scenario is read
    from ...core.schema import Document, KeyPath
    from .schema import (
        AgentModel,
        AudioModel,
        ConditionsModel,
        DefaultsModel,
        JudgeModel,
        ReplyModel,
        ScenarioModel,
        TrackVadModel,
        TurnModel,
    )

# Audio keys that only synthesized words (espeak-ng) use.
_TTS_KEYS = ("say", "voice")


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file; any problem is an InputError naming its key
    path and line (see :mod:`speecheval.session.scenario.schema` for the per-key rules)."""
    from ...core.schema import load_document, validate  # pydantic only when a file is read
    from .schema import ScenarioModel

    document = load_document(path, what="scenario")
    model = validate(ScenarioModel, document, what="scenario")
    return _Reader(document).scenario(model)


class _Reader:
    """Turns a validated :class:`ScenarioModel` into a :class:`Scenario`, checking the
    rules that span keys; errors name the key path and line like validation errors."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.path = cast(Path, document.path)
        raw = document.data
        self.raw: dict[str, Any] = raw if isinstance(raw, dict) else {}

    def error(self, where: KeyPath, problem: str) -> InputError:
        from ...core.schema import located_error

        return located_error(self.document, where, problem, what="scenario")

    def given(self, where: KeyPath) -> dict[str, Any]:
        """The mapping at ``where`` as written (empty when absent or null)."""
        node: Any = self.raw
        for step in where:
            node = node.get(step) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else {}

    def scenario(self, model: ScenarioModel) -> Scenario:
        if model.adapter is not None and model.agent is not None:
            raise self.error(("agent",), "set either 'agent' or its voicebench name "
                                         "'adapter', not both")
        turns = self.turns(model)
        agent_vad = self.vad(model.vad.agent, ("vad", "agent"))
        self.check_live_agent_vad(agent_vad, turns, model.sample_rate)
        agent_key = "agent" if model.agent is not None else "adapter"
        frame_ms = self.frame_ms(model.frame_ms, model.sample_rate)
        return Scenario(
            name=model.name,
            description=model.description or "",
            sample_rate=model.sample_rate,
            frame_ms=frame_ms,
            tail_ms=model.tail_ms,
            max_duration_ms=model.max_duration_ms,
            user_vad=self.vad(model.vad.user, ("vad", "user")),
            agent_vad=agent_vad,
            agent=self.agent(model.agent or model.adapter, agent_key),
            turns=turns,
            assertions={key: float(getattr(model.assert_, key))
                        for key in self.given(("assert",))},
            path=self.path,
            conditions=self.conditions(model.conditions, model.sample_rate, frame_ms),
            judge=None if model.judge is None else self.judge(model.judge),
        )

    def judge(self, model: JudgeModel) -> JudgeSpec:
        from ...remote.keys import check_base_url

        try:
            check_base_url(model.base_url)
        except InputError:
            raise self.error(("judge", "base_url"), "must be an http(s) URL without "
                                                    "credentials, query or fragment, such as "
                                                    "http://127.0.0.1:8000/v1") from None
        return JudgeSpec(task=model.task, model=model.model, base_url=model.base_url,
                         api_key_env=model.api_key_env, max_attempts=model.max_attempts,
                         timeout_s=model.timeout_s)

    def frame_ms(self, value: float, sample_rate: int) -> float:
        """The user frame length: whole milliseconds and whole samples, so that the
        virtual clock and the real-clock runner (which paces frames in whole
        milliseconds) send frames of exactly the same length."""
        if value != int(value):
            raise self.error(("frame_ms",), f"must be a whole number of milliseconds, "
                                            f"got {value:g}")
        samples = sample_rate * value / 1000
        if samples != int(samples):
            raise self.error(("frame_ms",), f"{value:g} ms is {samples:g} samples at "
                                            f"sample_rate {sample_rate}; use a frame length "
                                            "that is a whole number of samples")
        return value

    def conditions(self, model: ConditionsModel | None, rate: int,
                   frame_ms: float) -> Conditions:
        """The send-path conditions, checked against the session's rate and frame."""
        from .schema import spec_from

        if model is None:
            return Conditions()
        where: KeyPath = ("conditions",)
        given = model.model_dump(exclude_unset=True)
        conditions = spec_from(Conditions, model)
        echo, noise, codec, network = (conditions.echo, conditions.noise, conditions.codec,
                                       conditions.network)
        if echo is not None and echo.delay_ms < frame_ms:
            raise self.error(where + ("echo", "delay_ms"),
                             f"must be at least frame_ms ({frame_ms:g} ms): the echo of "
                             f"a frame can only reach a later frame, got {echo.delay_ms:g}")
        if noise is not None and "voices" in given["noise"] and noise.kind != "babble":
            raise self.error(where + ("noise", "voices"),
                             f"applies to kind: babble only, not {noise.kind}")
        if codec is not None:
            self.check_codec(codec, rate, frame_ms)
        if network is not None and network.buffer_ms % frame_ms:
            raise self.error(where + ("network", "buffer_ms"),
                             f"must be a whole number of frames ({frame_ms:g} ms each), "
                             f"got {network.buffer_ms:g}")
        return conditions

    def check_codec(self, codec: CodecSpec, rate: int, frame_ms: float) -> None:
        where: KeyPath = ("conditions", "codec")
        bitrate = codec.bitrate
        if codec.kind == "mulaw":
            if bitrate is not None:
                raise self.error(where + ("bitrate",), "G.711 mu-law is always 64 kbit/s; "
                                                       "bitrate applies to opus only")
            if rate % 8000:
                raise self.error(where + ("kind",), f"mu-law runs at 8 kHz and needs a "
                                                    f"sample_rate that is a multiple of 8000, "
                                                    f"got {rate}")
            return
        if bitrate is None:
            raise self.error(where + ("bitrate",), "is required for opus (bits per second, "
                                                   "6000 to 510000)")
        if rate not in OPUS_RATES:
            raise self.error(where + ("kind",), f"opus runs at {', '.join(map(str, OPUS_RATES))} "
                                                f"Hz; sample_rate is {rate}")
        if frame_ms not in OPUS_FRAME_MS:
            raise self.error(where + ("kind",), f"opus frames are "
                                                f"{', '.join(map(str, OPUS_FRAME_MS))} ms; "
                                                f"frame_ms is {frame_ms:g}")

    def turns(self, model: ScenarioModel) -> tuple[Turn, ...]:
        turns: list[Turn] = []
        seen: dict[str, int] = {}
        for index, item in enumerate(model.turns):
            turn = self.turn(item, index, model.defaults)
            if turn.id in seen:
                raise self.error(("turns", index, "id"), f"duplicate turn id {turn.id!r} "
                                                         f"(first used on line {seen[turn.id]})")
            seen[turn.id] = turn.line
            turns.append(turn)
        synthesized = sum(t.audio.duration_ms or 0.0 for t in turns if t.audio.synth is not None)
        if synthesized > MAX_MS:
            raise self.error(("turns",), f"the synthesized turn audio adds up to "
                                         f"{synthesized:g} ms; at most {MAX_MS:.0f} ms "
                                         "(one hour) together")
        return tuple(turns)

    def turn(self, item: TurnModel, index: int, defaults: DefaultsModel) -> Turn:
        where: KeyPath = ("turns", index)
        first = index == 0
        rule = StartRule(
            after=item.start.after or ("session_start" if first else "agent_speech_end"),
            delay_ms=(item.start.delay_ms if item.start.delay_ms is not None
                      else DEFAULT_FIRST_DELAY_MS if first else 0.0),
            timeout_ms=item.start.timeout_ms,
        )
        if item.audio is None:
            raise self.error(where + ("audio",), "is required (a 'file' or a 'synth' signal)")
        response_timeout = item.response_timeout_ms
        max_stop = item.max_stop_ms
        return Turn(
            id=item.id or f"turn-{index + 1}",
            audio=self.audio(item.audio, where + ("audio",)),
            start=rule,
            expect=item.expect,
            text=item.text,
            response_timeout_ms=(defaults.response_timeout_ms if response_timeout is None
                                 else response_timeout),
            max_stop_ms=defaults.max_stop_ms if max_stop is None else max_stop,
            line=self.document.line(where) or 0,
            reply=None if item.reply is None else self.reply(item.reply, where + ("reply",)),
        )

    def reply(self, model: ReplyModel, where: KeyPath) -> ReplySpec:
        checks = (model.says_any, model.says_none, model.matches, model.max_wer, model.text)
        if all(check is None for check in checks):  # none given, or each given as null
            raise self.error(where, "sets no check; use says_any, says_none, matches or "
                                    "text with max_wer")
        if (model.max_wer is None) != (model.text is None):
            raise self.error(where + ("max_wer" if model.max_wer is None else "text",),
                             "is required with " + ("text" if model.max_wer is None
                                                    else "max_wer"))
        return ReplySpec(says_any=model.says_any, says_none=model.says_none,
                         matches=model.matches, text=model.text, max_wer=model.max_wer)

    def audio(self, model: AudioModel, where: KeyPath) -> AudioSpec:
        given = model.model_fields_set
        if ("file" in given) == ("synth" in given):
            raise self.error(where, "set exactly one of 'file' or 'synth'")
        if model.file is not None:
            extra = sorted(given - {"file"})
            if extra:
                raise self.error(where + (extra[0],), "applies to synthesized audio only, "
                                                      "not to a file")
            try:
                path = resolve_inside(self.path.parent, model.file,
                                      root_name="the scenario's folder")
            except InputError as exc:
                raise self.error(where + ("file",),
                                 f"audio file {model.file!r} {exc.problem}") from None
            if not path.is_file():
                raise self.error(where + ("file",), f"audio file {path} does not exist")
            return AudioSpec(file=path)
        synth = model.synth or "speech"
        if synth != "tts":
            for key in _TTS_KEYS:
                if key in given:
                    raise self.error(where + (key,), f"applies to 'synth: tts' (words spoken "
                                                     f"by espeak-ng) only; 'synth: {synth}' "
                                                     "is a signal without words")
        return AudioSpec(synth=synth, duration_ms=model.duration_ms, level_db=model.level_db,
                         freq_hz=model.freq_hz, seed=model.seed, say=model.say,
                         voice=model.voice or DEFAULT_VOICE)

    def vad(self, model: TrackVadModel, where: KeyPath) -> TrackVad:
        if model.engine == "silero":
            tuned = sorted(model.model_fields_set - {"engine"})
            if tuned:
                raise self.error(where + (tuned[0],), "tunes the energy detector; it has no "
                                                      "effect with engine: silero")
        settings = VadSettings(threshold_db=model.threshold_db,
                               hysteresis_db=model.hysteresis_db, frame_ms=model.frame_ms,
                               min_speech_ms=model.min_speech_ms,
                               min_silence_ms=model.min_silence_ms)
        return TrackVad(engine=model.engine, settings=settings)

    def check_live_agent_vad(self, vad: TrackVad, turns: tuple[Turn, ...],
                             sample_rate: int) -> None:
        """Agent-anchored turns start on the declared agent detector while the session
        runs; Silero can follow a live track only at some rates."""
        anchored = [t for t in turns
                    if t.start.after in ("agent_speech_start", "agent_speech_end")]
        if vad.engine != "silero" or not anchored:
            return
        from ...vad.silero_stream import live_rate_problem  # onnxruntime only when used

        problem = live_rate_problem(sample_rate)
        if problem is not None:
            raise self.error(("vad", "agent", "engine"),
                             f"turn {anchored[0].id!r} starts on agent speech, which this "
                             f"detector must find while the session runs: {problem}; use "
                             "engine: energy or another sample_rate")

    def agent(self, model: AgentModel | None, key: str) -> AgentSpec:
        if model is None:
            return AgentSpec(line=self.document.line(()) or 0)
        options = dict(model.options)
        line = self.document.line((key,)) or 0
        return AgentSpec(type=model.type, options=options,
                         option_lines={name: self.document.line((key, "options", name)) or 0
                                       for name in options},
                         line=line, key=key,
                         type_line=self.document.line((key, "type")) or line)
