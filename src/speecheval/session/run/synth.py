"""Render a turn's audio at the session rate: a WAV file or a synthesized signal.

``synth: speech``, ``tone``, ``noise`` and ``silence`` are voicebench 0.2.0's signals,
sample for sample (:mod:`speecheval.core.synthetic_signals`): a scenario written for
voicebench sends the same audio here, so an agent reacts to it the same way and the
numbers agree. ``speech`` has no words, though; agents with speech recognizers and neural
VADs need ``synth: tts``, real synthesized speech from espeak-ng (run as a subprocess by
:mod:`speecheval.core.espeak`).
When a scenario sets ``duration_ms`` for ``tts``, the speaking rate is chosen so the
utterance fills about that long, and the clip is then cut or padded to exactly that
length, because turn timing is written against the declared duration.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ...core.audio import audio_info, read_mono, resample
from ...core.errors import InputError
from ...core.espeak import speak_to_wav
from ...core.log import get_logger
from ...core.pcm import to_int16
from ...core.synthetic_signals import (
    FADE_MS,
    db_to_amplitude,
    harmonic_speech,
    samples_for_ms,
    tone,
    white_noise,
)
from ..scenario.model import DEFAULT_SYNTH_MS, AudioSpec, Scenario, Turn

_log = get_logger(__name__)

DEFAULT_SAY = "Hello, this is a scripted test caller speaking."
ESPEAK_WPM = 175
ESPEAK_MIN_WPM = 80
ESPEAK_MAX_WPM = 450
# Samples quieter than this fraction of the peak count as espeak's leading/trailing silence.
_TRIM_FRACTION = 0.01


Notice = Callable[[str], None]


def stderr_notice(message: str) -> None:
    """Tell the user about an input that was adapted to be usable (the run goes on)."""
    _log.info("notice: %s", message)


def render_turns(scenario: Scenario,
                 notice: Notice = stderr_notice) -> list[NDArray[np.float32]]:
    """Every turn's clip at the scenario rate, as float32 in [-1, 1].

    A noise bed's level is ``snr_db`` below the user's speech, so turns that are all
    silent (as int16, which the send path measures: their ``send_path.speech_rms`` is 0,
    the level ``render_bed`` would divide by) leave it undefined: refused here,
    before any session (every command renders the turns first), rather than a bed
    silently scaled to nothing."""
    clips = [render_turn(index, scenario, notice) for index in range(len(scenario.turns))]
    noise = scenario.conditions.noise
    if noise is not None and not any(np.any(to_int16(clip)) for clip in clips):
        turns = ", ".join(f"{turn.id!r} (line {turn.line})" for turn in scenario.turns[:3])
        more = f" and {len(clips) - 3} more" if len(clips) > 3 else ""
        raise InputError(f"conditions.noise: snr_db {noise.snr_db:g} is measured against the "
                         f"user's speech, but the audio of every turn is silent ({turns}"
                         f"{more}): the noise level is undefined; give a turn with sound or "
                         "remove the noise", path=scenario.path)
    return clips


def render_turn(index: int, scenario: Scenario,
                notice: Notice = stderr_notice) -> NDArray[np.float32]:
    """The clip of turn ``index``.

    Any problem (an unreadable WAV, espeak-ng failing) is an InputError naming the
    scenario file, the turn and its line, so the user knows which entry to fix. A WAV
    with several channels is mixed down to mono, as voicebench does, with a ``notice``
    naming the same place.
    """
    turn = scenario.turns[index]
    where = f"turns[{index}] (id {turn.id!r}, line {turn.line})"
    try:
        if turn.audio.file is not None:
            return _read_file(turn.audio.file, scenario.sample_rate,
                              lambda message: notice(f"{scenario.path}: {where}: {message}"))
        return _render(turn, scenario.sample_rate)
    except InputError as exc:
        problem = exc.problem
        if turn.audio.file is not None:
            problem = f"audio file {turn.audio.file}: {problem}"
        raise InputError(f"{where}: {problem}", path=scenario.path) from exc


def _read_file(path: Path, rate: int, notice: Notice) -> NDArray[np.float32]:
    channels = audio_info(path).channels
    audio = read_mono(path, downmix=True)
    if channels > 1:
        notice(f"audio file {path} has {channels} channels; using their mean (mono)")
    return resample(audio.samples, audio.rate, rate)


def _render(turn: Turn, rate: int) -> NDArray[np.float32]:
    spec = turn.audio
    if spec.synth == "tts":
        text = spec.say or turn.text or DEFAULT_SAY
        return _speech(text, spec, rate)
    duration = spec.duration_ms if spec.duration_ms is not None else DEFAULT_SYNTH_MS
    if spec.synth == "speech":
        return harmonic_speech(duration, rate, spec.level_db, spec.seed)
    if spec.synth == "tone":
        return tone(duration, rate, spec.freq_hz, spec.level_db)
    if spec.synth == "noise":
        return white_noise(duration, rate, spec.level_db, spec.seed)
    return np.zeros(samples_for_ms(duration, rate), dtype=np.float32)


def espeak(text: str, voice: str, rate: int) -> NDArray[np.float32]:
    """``text`` spoken by espeak-ng's ``voice`` at its usual pace, at ``rate`` (for noise
    beds of several talkers)."""
    clip, clip_rate = _espeak_cached(text, voice, ESPEAK_WPM)
    return resample(clip, clip_rate, rate)


def _speech(text: str, spec: AudioSpec, rate: int) -> NDArray[np.float32]:
    clip, clip_rate = _espeak_cached(text, spec.voice, ESPEAK_WPM)
    if spec.duration_ms is not None:
        natural_ms = clip.size * 1000.0 / clip_rate
        wpm = round(ESPEAK_WPM * natural_ms / spec.duration_ms)
        wpm = min(ESPEAK_MAX_WPM, max(ESPEAK_MIN_WPM, wpm))
        if wpm != ESPEAK_WPM:
            clip, clip_rate = _espeak_cached(text, spec.voice, wpm)
    out = resample(clip, clip_rate, rate).astype(np.float64)
    rms = float(np.sqrt(np.mean(np.square(out)))) if out.size else 0.0
    if rms > 0:
        out *= db_to_amplitude(spec.level_db) / rms
    if spec.duration_ms is not None:
        out = _fit(out, samples_for_ms(spec.duration_ms, rate), rate)
    return np.clip(out, -1.0, 1.0).astype(np.float32)


def _fit(signal: NDArray[np.float64], n: int, rate: int) -> NDArray[np.float64]:
    """Cut (with a short fade-out) or zero-pad ``signal`` to exactly ``n`` samples."""
    if signal.size <= n:
        return np.concatenate([signal, np.zeros(n - signal.size)])
    out = signal[:n].copy()
    fade = min(samples_for_ms(FADE_MS, rate), n)
    if fade:
        out[n - fade:] *= np.linspace(1.0, 0.0, fade)
    return out


@lru_cache(maxsize=256)
def _espeak_cached(text: str, voice: str, wpm: int) -> tuple[NDArray[np.float32], int]:
    """espeak-ng output with leading and trailing silence trimmed (cached per process)."""
    with tempfile.TemporaryDirectory(prefix="speecheval-espeak-") as tmp:
        wav = Path(tmp) / "say.wav"
        result = speak_to_wav(text, wav, voice=voice, wpm=wpm, timeout_s=60)
        if result.returncode != 0 or not wav.is_file():
            detail = " ".join(result.stderr.split()) or f"exit status {result.returncode}"
            raise InputError(f"espeak-ng could not speak with voice {voice!r}: {detail}")
        audio = read_mono(wav)
    samples = audio.samples
    loud = np.flatnonzero(np.abs(samples) > _TRIM_FRACTION * float(np.max(np.abs(samples),
                                                                           initial=0.0)))
    if loud.size == 0:
        raise InputError(f"espeak-ng produced silence for {text!r}")
    trimmed = samples[loud[0]:loud[-1] + 1].copy()
    trimmed.setflags(write=False)
    return trimmed, audio.rate
