"""build-dataset: the official v1.5 layout, windows true of the audio, the paper's
treatments, every parameter recorded, the same bytes every time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from speech_engine import needs_speech

from speecheval.core.audio import read_mono
from speecheval.core.pcm import to_int16
from speecheval.fdb.v15.builder import speech
from speecheval.fdb.v15.builder.dataset import BUILD_FILE, RATE, SCENARIOS, build_dataset
from speecheval.fdb.v15.builder.texts import BACKCHANNELS
from speecheval.fdb.v15.dataset.reader import load_dataset

pytestmark = needs_speech


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ds15") / "v1_5"
    build_dataset(root, "mini")
    return root


def _pcm(path: Path) -> np.ndarray:
    return to_int16(read_mono(path).samples).astype(np.int32)


def _samples(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*/*") if p.is_dir())


def _dbfs(pcm: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean((pcm / 32768.0) ** 2))))


def test_layout_and_check_dataset(built: Path) -> None:
    dataset = load_dataset(built)
    counts = dataset.counts()
    assert {name: c["usable"] for name, c in counts.items()} == {
        "user_interruption": 6, "user_backchannel": 6, "talking_to_other": 6,
        "background_speech": 6}
    assert counts["user_interruption"]["declared"] == 200
    assert counts["user_backchannel"]["absent"] == 99 - 6
    for folder in _samples(built):
        assert sorted(p.name for p in folder.iterdir()) == [
            "clean_input.wav", "input.wav", "metadata.json"]
        assert sorted(json.loads((folder / "metadata.json").read_text())) == [
            "context_text", "current_turn_text", "timestamps"]


def test_window_is_exactly_where_input_and_clean_differ(built: Path) -> None:
    for folder in _samples(built):
        start, end = json.loads((folder / "metadata.json").read_text())["timestamps"]
        mixed, clean = _pcm(folder / "input.wav"), _pcm(folder / "clean_input.wav")
        assert mixed.size == clean.size
        differs = np.flatnonzero(mixed - clean)
        assert differs[0] == start * RATE, folder
        assert differs[-1] + 1 == end * RATE, folder


def test_about_four_seconds_between_context_and_overlap(built: Path) -> None:
    for folder in _samples(built):
        start = json.loads((folder / "metadata.json").read_text())["timestamps"][0]
        clean = _pcm(folder / "clean_input.wav")
        # The noise floor is -4..3 PCM16 steps; the context's last louder sample ends it.
        context_end = (np.flatnonzero(np.abs(clean) > 8)[-1] + 1) / RATE
        assert 3.5 <= start - context_end <= 4.5, folder


def test_levels_and_spectra_of_the_overlap_turns(built: Path) -> None:
    for folder in _samples(built):
        scenario = folder.parent.name
        overlap = _pcm(folder / "input.wav") - _pcm(folder / "clean_input.wav")
        overlap = overlap[np.flatnonzero(overlap)[0]:np.flatnonzero(overlap)[-1] + 1]
        level = _dbfs(overlap)
        if scenario in ("user_interruption", "user_backchannel"):
            # untouched speech at the builder's level
            assert level == pytest.approx(speech.LEVEL_DBFS, abs=0.05), folder
        elif scenario == "talking_to_other":
            # -26 - 8 = -34 dB, the shelf removes a little, the reflections add up to
            # 10 log10(1 + 0.251 + 0.063) = +1.2 dB
            assert -35.5 < level < -32.5, folder
        else:
            # -26 - 15 = -41 dB, low-passed; the echo adds up to 10 log10(1.1) = +0.4 dB
            assert -43.0 < level < -40.0, folder
            spectrum = np.abs(np.fft.rfft(overlap / 32768.0)) ** 2
            freqs = np.fft.rfftfreq(overlap.size, 1 / RATE)
            above = spectrum[freqs > 4500].sum() / spectrum.sum()
            assert 10 * np.log10(above) < -40, folder


def test_voices_texts_and_parameters_are_recorded(built: Path) -> None:
    record = json.loads((built / BUILD_FILE).read_text())
    assert record["seed"] == 0 and record["rate"] == RATE and record["size"] == "mini"
    assert record["speech"]["engine"].startswith("eSpeak NG")
    other = record["scenarios"]["talking_to_other"]["treatment"]
    assert other["gain_db"] == -8.0
    assert other["high_shelf"] == {"corner_hz": 4000.0, "gain_db": -5.0}
    assert other["reflections"] == [{"delay_ms": 45.0, "level_db": -6.0},
                                    {"delay_ms": 120.0, "level_db": -12.0}]
    background = record["scenarios"]["background_speech"]["treatment"]
    assert (background["gain_db"], background["low_pass_hz"]) == (-15.0, 3000.0)
    assert background["reflections"] == [{"delay_ms": 100.0, "level_db": -10.0}]
    assert len(record["samples"]) == 24
    for sample_id, entry in record["samples"].items():
        metadata = json.loads((built / sample_id / "metadata.json").read_text())
        assert metadata["timestamps"] == entry["timestamps"]
        assert metadata["current_turn_text"] == entry["current_turn_text"]
        same_voice = entry["overlap_voice"] == entry["context_voice"]
        assert same_voice == (not sample_id.startswith("background_speech/")), sample_id
        if sample_id.startswith("user_backchannel/"):
            assert entry["current_turn_text"] in BACKCHANNELS
        assert entry["current_turn_text"] in SCENARIOS[sample_id.split("/")[0]].texts


def test_same_bytes_every_time(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_dataset(again, "mini")
    first = {p.relative_to(built): p.read_bytes() for p in built.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first == second
    assert load_dataset(built).revision == load_dataset(again).revision


def test_an_utterance_past_the_argument_limit_is_spoken() -> None:
    # 200,005 characters, past Linux's 131,072 bytes for one argument ("Argument list too
    # long"); the trailing spaces add no sound
    long = speech.utterance("Sure." + " " * 200_000, "en-us", RATE)
    assert long.size > 0 and np.array_equal(long, speech.utterance("Sure.", "en-us", RATE))
