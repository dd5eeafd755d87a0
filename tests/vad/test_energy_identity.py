"""What a run records about the energy detector it used."""

from __future__ import annotations

from speecheval.vad.streaming import EnergyVad, VadSettings


def test_identity_names_the_engine_and_every_setting() -> None:
    vad = EnergyVad(VadSettings(threshold_db=-40.0, min_silence_ms=300.0))
    assert vad.identity() == {
        "engine": "energy",
        "settings": {"threshold_db": -40.0, "hysteresis_db": 6.0, "frame_ms": 10.0,
                     "min_speech_ms": 50.0, "min_silence_ms": 300.0}}
