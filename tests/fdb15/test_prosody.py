"""Prosody: Praat measures on tones worked out by hand, the word-aligned split against the
official functions, words per minute by hand, and one trial of espeak-ng speech end to end.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from speech_engine import needs_speech

from speecheval.core.audio import Audio
from speecheval.fdb.common.annotations import Word
from speecheval.fdb.v15.builder import speech
from speecheval.fdb.v15.prosody.measures import (
    MEASURES,
    AudioMeasures,
    partition_words,
    split_time,
    trial_prosody,
    words_per_minute,
)

pytest.importorskip("parselmouth", reason="praat-parselmouth is not installed (extra fdb15)")
pytest.importorskip("speechmos", reason="speechmos is not installed (extra fdb15)")

RATE = 16_000
OFFICIAL_FUNCTIONS = ("_norm_ts", "_choose_split_time_word_aligned",
                      "_partition_chunks_word_aligned")


@pytest.fixture(scope="module")
def measures() -> AudioMeasures:
    return AudioMeasures()


def _tone(seconds: float, *partials: tuple[float, float]) -> np.ndarray:
    t = np.arange(round(seconds * RATE)) / RATE
    return sum((a * np.sin(2 * np.pi * f * t) for f, a in partials),
               np.zeros_like(t)).astype(np.float32)


def test_pitch_and_intensity_of_tones(measures: AudioMeasures) -> None:
    values = measures.measure(_tone(2.0, (200.0, 0.1)), RATE)
    assert values["pitch_mean_hz"].value == pytest.approx(200.0, abs=0.1)
    assert values["pitch_sd_hz"].value == pytest.approx(0.0, abs=0.01)
    # mean square of 0.1 sin: 0.005; Praat dB re (2e-5)^2: 10 log10(0.005 / 4e-10) = 70.969
    assert values["intensity_mean_db"].value == pytest.approx(70.969, abs=0.01)
    # plus 0.05 sin at 400 Hz: 0.005 + 0.00125 = 0.00625 -> 10 log10(1.5625e7) = 71.938
    both = measures.measure(_tone(2.0, (200.0, 0.1), (400.0, 0.05)), RATE)
    assert both["intensity_mean_db"].value == pytest.approx(71.938, abs=0.01)
    # dBFS: a 10 ms frame holds 2 periods of 200 Hz, RMS 0.1 / sqrt 2 -> -23.010 dBFS in
    # every frame (Praat's 70.969 dB less 20 log10(1 / 2e-5) = 93.979)
    assert values["intensity_mean_dbfs"].value == pytest.approx(-23.010, abs=0.001)
    assert values["intensity_sd_dbfs"].value == pytest.approx(0.0, abs=1e-3)
    # 1 s of 0.1 then 1 s of 0.01 (200 Hz): 100 frames at -23.010, 100 at -43.010; mean
    # -33.010, SD 10 * sqrt(200 / 199) = 10.025
    steps = measures.measure(np.concatenate([_tone(1.0, (200.0, 0.1)),
                                             _tone(1.0, (200.0, 0.01))]), RATE)
    assert steps["intensity_mean_dbfs"].value == pytest.approx(-33.010, abs=0.001)
    assert steps["intensity_sd_dbfs"].value == pytest.approx(10.025, abs=0.001)
    # 1 s at 150 Hz then 1 s at 300 Hz: voiced frames split about evenly, mean near 225
    glide = np.concatenate([_tone(1.0, (150.0, 0.1)), _tone(1.0, (300.0, 0.1))])
    pitch = measures.measure(glide, RATE)
    assert pitch["pitch_mean_hz"].value == pytest.approx(225.0, abs=5.0)
    assert pitch["pitch_sd_hz"].value == pytest.approx(75.0, abs=5.0)
    mos = values["dnsmos_ovrl"].value
    assert mos is not None and 1.0 <= mos <= 5.0


def test_missing_values_carry_reasons(measures: AudioMeasures) -> None:
    short = measures.measure(_tone(0.05, (200.0, 0.1)), RATE)
    assert {m.reason for m in short.values()} == {"under 0.1 s of speech"}
    noise = np.random.default_rng(0).normal(0, 0.05, RATE).astype(np.float32)
    unvoiced = measures.measure(noise, RATE)
    assert unvoiced["pitch_mean_hz"].reason == "no voiced frames"
    assert unvoiced["intensity_mean_db"].value is not None
    silent = measures.measure(np.zeros(RATE, dtype=np.float32), RATE)
    assert silent["intensity_mean_db"].reason == "no intensity frames"   # all at -300 dB


def test_a_part_is_trimmed_by_its_own_silero_run_and_kept_whole_without_speech(
        measures: AudioMeasures) -> None:
    # the official script keeps a part in which Silero finds no speech whole: 1 s of a
    # steady 0.01 hum at 1 kHz (no speech for Silero) is measured over its 100 frames
    # (-43.010 dBFS each), not dropped as "under 0.1 s of speech"
    hum = _tone(1.0, (1000.0, 0.01))
    assert measures.trim_vad.segments(Audio(hum, RATE)) == []
    words = [Word("a", 100_000, 300_000)]
    result = trial_prosody("user_interruption/1", 500_000, Audio(hum, RATE), words,
                           Audio(hum, RATE), words, measures)
    assert result.split_us == 300_000   # every word ends by 0.5 s: the last word's end
    for part in ("pre", "post", "clean"):
        assert result.parts[part]["intensity_mean_dbfs"].value == pytest.approx(
            -43.010, abs=0.001), part
    # the trim's settings are the script's: threshold 0.5, 60 ms, 50 ms, Silero's 30 ms pad
    settings = measures.trim_vad.settings
    assert (settings.threshold, settings.min_speech_ms, settings.min_silence_ms,
            settings.speech_pad_ms) == (0.5, 60, 50, 30)


def test_words_per_minute_by_hand() -> None:
    # 4 words covering [0, 1.0] (two overlap by 0.2 s, counted once) and [3.0, 3.5]:
    # 4 / 1.5 s * 60 = 160 (the official span rule would give 4 / 3.5 s * 60 = 68.6)
    words = [Word("a", 0, 600_000), Word("b", 400_000, 1_000_000),
             Word("c", 3_000_000, 3_200_000), Word("d", 3_200_000, 3_500_000)]
    assert words_per_minute(words).value == pytest.approx(160.0)
    assert words_per_minute([]).reason == "no words"
    assert words_per_minute([Word("a", 10, 10)]).reason == "the words cover no time"


@pytest.fixture
def official_fns(fixtures_dir: Path) -> dict[str, Any]:
    """The official split functions, compiled from eval_general_before_after.py's source
    (the script imports torchaudio and utmosv2 at module level, so it is not imported)."""
    script = fixtures_dir / "fdb-official-evaluator/v1_v1.5/evaluation/" \
                            "eval_general_before_after.py"
    tree = ast.parse(script.read_text(encoding="utf-8"), filename=str(script))
    kept = [node for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name in OFFICIAL_FUNCTIONS]
    namespace: dict[str, Any] = {"List": list, "Dict": dict, "Any": Any, "Tuple": tuple,
                                 "Optional": lambda t: t}
    exec("from typing import Any, Dict, List, Optional, Tuple", namespace)
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(script), "exec"), namespace)
    return namespace


def test_split_and_partition_agree_with_the_official_script(
        official_fns: dict[str, Any]) -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        starts = np.sort(rng.integers(0, 100, size=rng.integers(0, 8))) * 100_000
        words = [Word(f"w{i}", int(s), int(s + rng.integers(0, 6) * 100_000))
                 for i, s in enumerate(starts)]
        end = int(rng.integers(0, 110)) * 100_000
        chunks = [{"text": w.text, "timestamp": [w.start_us / 1e6, w.end_us / 1e6]}
                  for w in words]
        expected = official_fns["_choose_split_time_word_aligned"](end / 1e6, chunks)
        expected = max(0.0, min(10.0, expected))                     # the script's clamp
        split = split_time(words, end, 10_000_000)
        assert split / 1e6 == pytest.approx(expected), (words, end)
        pre, post = partition_words(words, split)
        official_pre, official_post = official_fns["_partition_chunks_word_aligned"](
            chunks, split / 1e6)
        assert [w.text for w in pre] == [c["text"] for c in official_pre]
        assert [w.text for w in post] == [c["text"] for c in official_post]


@needs_speech
def test_one_trial_of_espeak_speech(measures: AudioMeasures) -> None:
    first = speech.utterance("Sure, the train leaves at nine.", "en-us", RATE)
    second = speech.utterance("Oh, you mean the later one, that is at ten.", "en-us", RATE)
    output = np.zeros(9 * RATE)
    output[RATE:RATE + first.size] = first                        # 1.0 s to about 2.8 s
    output[5 * RATE:5 * RATE + second.size] = second              # 5.0 s on
    clean = np.zeros(6 * RATE)
    clean[RATE:RATE + first.size] = first
    words = [Word("Sure", 1_000_000, 1_400_000), Word("nine", 2_200_000, 2_600_000),
             Word("Oh", 5_000_000, 5_300_000), Word("ten", 7_000_000, 7_400_000)]
    result = trial_prosody("user_interruption/1", 4_000_000,
                           Audio(output.astype(np.float32), RATE), words,
                           Audio(clean.astype(np.float32), RATE), words[:2], measures)
    assert result.split_us == 5_000_000          # the first word ending after 4.0 s starts
    for part in ("pre", "post", "clean"):
        values = result.parts[part]
        assert list(values) == list(MEASURES)
        pitch = values["pitch_mean_hz"].value
        assert pitch is not None and 60.0 < pitch < 300.0, part
    # pre: 2 words over 0.8 s of word time -> 2 / 0.8 * 60 = 150
    assert result.parts["pre"]["words_per_minute"].value == pytest.approx(150.0)
    # post: 0.3 s + 0.4 s of word time -> 2 / 0.7 * 60 = 171.43
    assert result.parts["post"]["words_per_minute"].value == pytest.approx(120.0 / 0.7)
    assert math.isclose(result.report_dict()["split_s"], 5.0)


def test_no_fallback_when_a_backend_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The official script falls back to librosa or torchaudio without parselmouth; here
    the run stops and names the package."""
    import importlib.metadata

    from speecheval.core.errors import InputError
    from speecheval.fdb.v15.prosody import measures

    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "praat-parselmouth":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    with pytest.raises(InputError, match=r"^prosody \(which has no fallback\) needs "
                       r"praat-parselmouth, which is not installed: install it with pip "
                       r"install 'speecheval\[fdb15\]'$"):
        measures.backends()
