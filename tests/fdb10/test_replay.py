"""The replay agent round trip: outputs streamed back through record and reference-export
come out as they went in, late by at most one packet plus the measured network delay."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from session.helpers import on_own_loop

from speecheval.agents.replay import ReplayServer
from speecheval.cli import main
from speecheval.core.audio import read_mono, write_wav
from speecheval.core.errors import InputError

from .capturekit import short_dataset

T = 1.5
N = 24_000          # round(1.5 * 16000)
BLOCK = 1280        # one 80 ms packet at 16 kHz


def _outputs(root: Path, count: int) -> dict[str, np.ndarray]:
    """A distinct random signal per sample, so a block can only match at its own place."""
    signals = {}
    for index in range(1, count + 1):
        rng = np.random.default_rng(index)
        signal = rng.integers(-8000, 8000, N).astype(np.int16)
        write_wav(root / f"icc_backchannel/{index}/output.wav", signal, 16_000)
        signals[f"icc_backchannel/{index}"] = signal
    return signals


def _lag_of(block: np.ndarray, exported: np.ndarray, start: int, limit: int) -> int | None:
    """The smallest lag (in samples, 0..limit) at which ``block`` sits in ``exported``."""
    for lag in range(limit + 1):
        if np.array_equal(exported[start + lag:start + lag + block.size], block):
            return lag
    return None


def test_replayed_outputs_come_back_through_record_and_export(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=T)
    signals = _outputs(tmp_path / "outputs", 2)
    run, tree = tmp_path / "run", tmp_path / "tree"
    with on_own_loop(lambda: ReplayServer(tmp_path / "outputs")) as server:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "pcm-websocket", "-o", f"url={server.url}/{{sample_id}}",
                     "-o", "agent_sample_rate=16000", "--out", str(run),
                     "--grace", "0.3"]) == 0
        assert sorted(server.served) == sorted(signals)
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    manifest = json.loads((tree / "manifest.json").read_text())
    for entry in manifest["samples"]:
        sample_id = entry["sample_id"]
        exported = np.round(read_mono(tree / sample_id / "output.wav").samples * 32768)
        source = signals[sample_id]
        # the measured network delay: the first audio's receipt, after the first packet
        delay_s = entry["playout"]["first_audio_s"]
        assert 0 < delay_s < 0.08
        limit = BLOCK + round(delay_s * 16_000)   # one packet plus the measured delay
        lags = []
        for start in range(0, N - limit - BLOCK, BLOCK):
            lag = _lag_of(source[start:start + BLOCK], exported, start, limit)
            assert lag is not None, (sample_id, start)
            lags.append(lag)
        assert lags == sorted(lags)   # FIFO: a block never plays before the one before it
        assert lags[0] == round(delay_s * 16_000)


def test_a_sample_without_output_is_an_error_event(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    (tmp_path / "outputs").mkdir()
    run = tmp_path / "run"
    with on_own_loop(lambda: ReplayServer(tmp_path / "outputs")) as server:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "pcm-websocket", "-o", f"url={server.url}/{{sample_id}}",
                     "--out", str(run), "--grace", "0.2"]) == 3
    status = json.loads((run / "samples/icc_backchannel/1/status.json").read_text())
    assert "no output.wav to replay" in status["reasons"][0]


def test_outputs_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a directory"):
        ReplayServer(tmp_path / "missing")
