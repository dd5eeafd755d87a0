"""The official evaluator's three example samples, converted to a reference tree.

The official numbers (PROVENANCE.md) are a take-over in every example, a turn-taking
latency of 1.35 s and an interruption latency of 4.08 s. Ours agree where the
definitions agree and differ, for the reasons the spec gives, where they do not.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import audio_info, read_mono, write_wav
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.scoring.unified import score_tree

EXAMPLES = {
    # official folder: (our subset, task, annotation file)
    "pause_handling_example": ("synthetic_pause_handling", "pause_handling", "pause.json"),
    "smooth_turn_taking_example": ("candor_turn_taking", "smooth_turn_taking",
                                   "turn_taking.json"),
    "user_interruption_example": ("synthetic_user_interruption", "user_interruption",
                                  "interrupt.json"),
}


def convert(example_data: Path, tree: Path) -> None:
    """T is the input.wav length; output.wav is zero-padded to exactly T when shorter
    (the pause example's output is 4.70 s against a 4.72 s input)."""
    samples, transcripts = [], {}
    for folder, (subset, task, annotation) in EXAMPLES.items():
        source = example_data / folder / "1"
        target = tree / subset / "1"
        target.mkdir(parents=True)
        info = audio_info(source / "input.wav")
        duration = info.n_samples / info.rate
        output = read_mono(source / "output.wav")
        want = round(duration * output.rate)
        padded = np.zeros(want, np.float32)
        padded[: min(want, output.n_samples)] = output.samples[:want]
        write_wav(target / "output.wav", padded, output.rate)
        for name in ("output.json", annotation):
            shutil.copyfile(source / name, target / name)
        sample_id = f"{subset}/1"
        transcripts[sample_id] = sha256_file(target / "output.json")
        samples.append({"sample_id": sample_id, "subset": subset, "task": task,
                        "input_duration_s": duration, "eligible": True, "reasons": [],
                        "files": {"output.wav": sha256_file(target / "output.wav"),
                                  annotation: sha256_file(target / annotation)}})
    declared = {s["subset"]: 1 for s in samples}
    (tree / "manifest.json").write_text(json.dumps(
        {"kind": "fdb-v1.0-reference-tree", "schema_version": 1,
         "dataset": {"revision": "d7336bda1385 examples", "declared": declared},
         "samples": samples}))
    (tree / "asr.json").write_text(json.dumps(
        {"kind": "fdb-v1.0-reference-asr", "schema_version": 1,
         "asr": {"name": "official example transcripts"}, "transcripts": transcripts}))


@pytest.fixture
def scored(fixtures_dir: Path, tmp_path: Path) -> dict[str, dict]:
    tree = tmp_path / "tree"
    convert(fixtures_dir / "fdb-official-examples" / "example_data", tree)
    return {row.subset: row.report_dict() for row in score_tree(tree).rows}


def test_pause_example(scored: dict[str, dict]) -> None:
    row = scored["synthetic_pause_handling"]
    # Pause [3.319999999999993, 4.0] -> [3.32, 4.0] after microsecond rounding.
    # Onsets at or after 3.32: got 3.58, a 3.74, question. 3.92, But 4.02, you 4.06,
    # had. 4.18 -> 6 intrusion words (the official rule also finds a take-over).
    assert row["pause_intrusion"] and row["intrusion_words"] == 6
    # got, a and question. start inside [3.32, 4.0)
    assert row["inside_pause_onset"]
    # "actually" runs 3.3-3.58 across the pause start: carry-in.
    assert row["pre_pause_speech"] and row["carry_in"]
    # The words tile 0-4.68 without gaps, so all 0.68 s of the pause is covered.
    assert row["pause_s"] == pytest.approx(0.68)
    assert row["intrusion_s"] == pytest.approx(0.68)
    assert row["words"] == 12


def test_turn_taking_example_matches_the_official_latency(scored: dict[str, dict]) -> None:
    row = scored["candor_turn_taking"]
    # E = 2.0100000000000016 -> 2.01; first word 3.36; 3.36 - 2.01 = 1.35 (official 1.35)
    assert row["outcome"] == "response"
    assert row["latency_s"] == pytest.approx(1.35)


def test_interruption_example_is_not_exercised(scored: dict[str, dict]) -> None:
    row = scored["synthetic_user_interruption"]
    # S = 10.530666666666667 -> 10.530667, R = 13.144. Silero finds speech
    # [10.016, 10.432) and [10.592, 11.2) around S: the model had paused at S, so the
    # interruption did not cut into detected speech. The official evaluator still scores
    # a take-over with latency 17.224 - 13.144 = 4.08 s.
    assert row["S"] == 10.530667 and row["R"] == 13.144
    segments = row["segments"]
    assert not any(a <= row["S"] < b for a, b in segments)
    assert row["outcome"] == "not_exercised" and row["latency_s"] is None
    assert row["first_word_s"] == pytest.approx(17.224)
    assert row["first_word_s"] - row["R"] == pytest.approx(4.08)
    # The segment starting at 10.592 lies inside (S, R): one restart, 0.608 s of speech.
    assert row["restarts"] == 1
    assert row["speech_in_interruption_s"] == pytest.approx(11.2 - 10.592)
    assert row["speech_before_onset"] and not row["speech_at_end"]
