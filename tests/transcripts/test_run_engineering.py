"""A run's engineering facts (``engineering.json``/``.md``): failure rate, RTF spread, peak
memory per job, character density, and the audio length of jobs that never ran."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from run_fixtures import blocks_audio, cli, write_manifest

from speecheval.transcripts.run.systems.base import own_peak_memory_bytes, start_peak_memory

SAMPLES = ("  - id: blocks\n    audio: blocks.wav\n"
           "  - id: bad1\n    audio: blocks.wav\n")


def test_engineering_facts_of_a_run(tmp_path: Path) -> None:
    blocks_audio(tmp_path / "blocks.wav", rate=16_000)  # 70 s
    manifest = write_manifest(tmp_path, SAMPLES)
    out = tmp_path / "run"
    # the fake system fails on samples named bad*, and declares no native context
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "production_complete_file", "--track", "native_whole_context",
               "--out", out) == 3
    found = json.loads((out / "engineering.json").read_text())
    complete, native = found["groups"]
    assert (complete["track"], complete["jobs"], complete["succeeded"], complete["failed"],
            complete["unsupported"]) == ("production_complete_file", 2, 1, 1, 0)
    assert complete["failure_rate"] == 0.5  # 1 failed of the 2 that ran
    assert complete["audio_s"] == 140.0  # 2 jobs of 70 s
    assert complete["rtf"]["n"] == 1  # the succeeded job only
    # the fake answers 'seed 0 samples 1120000' (70 s at 16 kHz): 4 + 1 + 7 + 7 = 19
    # characters without whitespace over 70 s of audio
    assert complete["chars_per_second"]["characters"] == 19
    assert complete["chars_per_second"]["value"] == round(19 / 70, 9)  # canonical JSON
    # a command's peak is its own process's (wait4), for the failed job too
    peak = complete["peak_memory_bytes"]
    assert (peak["n"], peak["scopes"], peak["unscoped"]) == (2, {"job": 2, "process": 0}, 0)
    assert peak["min"] > 0
    # never ran: no failure, but the 70 s each was given are recorded, not 0.0
    assert (native["unsupported"], native["failure_rate"], native["audio_s"]) == (2, None,
                                                                                  140.0)
    meta = json.loads((out / "raw" / "fake" / "native_whole_context" / "blocks" / "r1" /
                       "meta.json").read_text())
    assert (meta["status"], meta["audio_s"]) == ("unsupported", 70.0)
    report = (out / "engineering.md").read_text()
    assert "| fake | production_complete_file | 2 | 1 | 1 | 0 | 50.00% |" in report
    assert "| fake | native_whole_context | 2 | 0 | 0 | 2 | n/a |" in report


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the high-water mark is reset through Linux's /proc/self/clear_refs")
def test_the_high_water_mark_is_reset_before_each_call() -> None:
    assert start_peak_memory() == "job"
    block = b"\x01" * (200 * 2**20)  # 200 MiB resident
    grown = own_peak_memory_bytes()
    del block
    assert start_peak_memory() == "job"
    # after the reset the peak is what is resident now, 200 MiB less than before
    assert grown - own_peak_memory_bytes() >= 150 * 2**20
