"""``fdb10 reference-asr``: official output.json files, asr.json, the cut at R, refusals.

Most tests put a small recogniser in place of Whisper, whose words follow from the audio
it is given, so the cut at R and the added offset can be checked to the sample; the last
one transcribes part of the mini tree with the real Whisper backend and scores it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from speecheval.asr.base import SAMPLE_RATE, TimedWord
from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.executor import LocalExecutor
from speecheval.core.hashing import sha256_file
from speecheval.core.numeric_env import cpu_flags
from speecheval.fdb.common.reference_asr import reference_asr
from speecheval.fdb.v10.builder.trees import build_mini_tree


class EdgeWords:
    """One word at the start of the audio it hears and one ending at its last sample."""

    def words(self, samples: np.ndarray) -> list[TimedWord]:
        length = samples.size / SAMPLE_RATE
        return [TimedWord("first", 0.0, 0.25), TimedWord("last", length - 0.5, length + 0.3)]

    def identity(self) -> dict[str, object]:
        return {"backend": "edge-words"}


def edge_words() -> EdgeWords:
    return EdgeWords()


def untranscribed(root: Path, keep: set[str] | None = None) -> tuple[Path, list]:
    """The mini tree without asr.json and output.json (as an export leaves it)."""
    tree = root / "tree"
    built = build_mini_tree(tree)
    (tree / "asr.json").unlink()
    for path in tree.glob("*/*/output.json"):
        path.unlink()
    if keep is not None:
        manifest = json.loads((tree / "manifest.json").read_text())
        manifest["samples"] = [s for s in manifest["samples"] if s["sample_id"] in keep]
        (tree / "manifest.json").write_text(json.dumps(manifest))
    return tree, built


def test_writes_official_transcripts_and_the_index(tmp_path: Path) -> None:
    tree, built = untranscribed(tmp_path)
    run = reference_asr(tree, factory=edge_words)
    manifest = json.loads((tree / "manifest.json").read_text())
    eligible = [s for s in manifest["samples"] if s["eligible"]]
    asr = json.loads((tree / "asr.json").read_text())
    assert asr["kind"] == "fdb-v1.0-reference-asr" and asr["schema_version"] == 1
    assert asr["asr"]["backend"] == "edge-words"
    assert "int(R * rate)" in asr["asr"]["interruption_cut"]
    assert sorted(asr["transcripts"]) == sorted(s["sample_id"] for s in eligible)
    for sample in eligible:
        path = tree / sample["sample_id"] / "output.json"
        assert asr["transcripts"][sample["sample_id"]] == sha256_file(path)
        data = json.loads(path.read_text())
        assert data["text"] == "first last"
        assert [c["text"] for c in data["chunks"]] == ["first", "last"]
    ineligible = [s["sample_id"] for s in manifest["samples"] if not s["eligible"]]
    assert ineligible and not any((tree / s / "output.json").exists() for s in ineligible)
    assert len(run.transcripts) == len(eligible)


def test_interruption_audio_is_cut_at_r_and_r_added_back(tmp_path: Path) -> None:
    tree, _ = untranscribed(tmp_path)
    reference_asr(tree, factory=edge_words)
    sample = tree / "synthetic_user_interruption" / "8"
    S, R = json.loads((sample / "interrupt.json").read_text())[0]["timestamp"]
    T = read_mono(sample / "output.wav").duration_s
    chunks = json.loads((sample / "output.json").read_text())["chunks"]
    # The recogniser hears [R, T] (14.0 - 6.4 = 7.6 s): "first" at its 0 s is R, "last"
    # starts 0.5 s before the end of what it heard, T - 0.5, and its end (+0.3 s past the
    # audio) is cut at T.
    assert chunks[0]["timestamp"] == [R, R + 0.25] == [6.4, 6.65]
    assert chunks[1]["timestamp"] == [pytest.approx(T - 0.5), T] == [pytest.approx(13.5), 14.0]
    # A turn-taking sample is not cut: "first" at 0.
    turn = json.loads((tree / "candor_turn_taking" / "1" / "output.json").read_text())
    assert turn["chunks"][0]["timestamp"] == [0.0, 0.25]


def test_the_same_bytes_with_more_workers(tmp_path: Path) -> None:
    one, _ = untranscribed(tmp_path / "a")
    two, _ = untranscribed(tmp_path / "b")
    reference_asr(one, factory=edge_words, executor=LocalExecutor(1))
    reference_asr(two, factory=edge_words, executor=LocalExecutor(2))
    assert (one / "asr.json").read_bytes() == (two / "asr.json").read_bytes()


def test_refuses_a_tree_with_asr_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    tree = tmp_path / "tree"
    build_mini_tree(tree)
    before = (tree / "asr.json").read_bytes()
    assert main(["fdb10", "reference-asr", "--tree", str(tree), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "asr.json" in err and "already has asr.json" in err and "Traceback" not in err
    assert (tree / "asr.json").read_bytes() == before


def test_refuses_stale_transcripts_without_an_index(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "tree"
    build_mini_tree(tree)
    (tree / "asr.json").unlink()
    assert main(["fdb10", "reference-asr", "--tree", str(tree), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "output.json already exists" in err and "sample " in err


def test_a_changed_output_wav_writes_nothing(tmp_path: Path) -> None:
    tree, _ = untranscribed(tmp_path)
    wav = tree / "candor_turn_taking" / "5" / "output.wav"
    data = bytearray(wav.read_bytes())
    data[-1] ^= 1
    wav.write_bytes(bytes(data))
    with pytest.raises(Exception, match="candor_turn_taking/5.*differs from manifest.json"):
        reference_asr(tree, factory=edge_words)
    assert not (tree / "asr.json").exists()
    assert not list(tree.glob("*/*/output.json"))


WHISPER_SAMPLES = {"candor_turn_taking/5", "candor_turn_taking/9",
                   "synthetic_user_interruption/8", "synthetic_pause_handling/1"}


def test_whisper_transcripts_score_as_designed(tmp_path: Path) -> None:
    """Real Whisper on four samples: a reply 1 s after E, silence, a "yeah" exactly at
    R, no speech; unified-score on the transcripts gives the designed outcomes."""
    tree, built = untranscribed(tmp_path, WHISPER_SAMPLES)
    assert main(["fdb10", "reference-asr", "--tree", str(tree), "--jobs", "1"]) == 0
    asr = json.loads((tree / "asr.json").read_text())
    assert asr["asr"]["backend"] == "whisper"
    assert asr["asr"]["model"]["name"] == "tiny.en"
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out",
                 str(tmp_path / "out"), "--jobs", "1"]) == 0
    rows = {json.loads(line)["sample_id"]: json.loads(line) for line in
            (tmp_path / "out" / "unified-samples.jsonl").read_text().splitlines()}
    designed = {b.sample_id: b.intended for b in built if b.sample_id in WHISPER_SAMPLES}
    for sample_id, intended in designed.items():
        row = rows[sample_id]
        for key in ("outcome", "any_speech", "pause_intrusion"):
            if key in intended:
                assert row[key] == intended[key], (sample_id, key)
        if intended.get("latency_s") is not None:
            # Whisper's onset against the exact placement: within 0.1 s.
            assert row["latency_s"] == pytest.approx(intended["latency_s"], abs=0.1)


# OpenBLAS picks its kernel by CPU; OPENBLAS_CORETYPE=Haswell forces the kernel whose
# float32 products round differently with the number of threads (the SkylakeX kernel
# gives the same sums on 1 and 2 threads). It needs AVX2 and FMA.
KERNEL_ENV = {"OPENBLAS_CORETYPE": "Haswell"}
THREAD_SENSITIVE = {"candor_turn_taking/5"}
"""With that kernel, the word at 4.42 s on one BLAS thread is at 4.44 s on two."""
needs_haswell_kernel = pytest.mark.skipif(
    not {"avx2", "fma"} <= cpu_flags() or not any(
        info["internal_api"] == "openblas" for info in threadpool_info()),
    reason="needs OpenBLAS on an x86-64 CPU with AVX2 and FMA")


def tree_files(tree: Path) -> dict[str, bytes]:
    """asr.json and every output.json of ``tree``, by path in the tree."""
    return {p.relative_to(tree).as_posix(): p.read_bytes()
            for p in [tree / "asr.json", *sorted(tree.glob("*/*/output.json"))]}


@needs_haswell_kernel
def test_the_same_words_whatever_the_blas_threads(tmp_path: Path) -> None:
    """One process or two, one BLAS thread or two: the same bytes, since every item
    runs with one thread in each pool; asr.json says which kernel and how many."""
    runs = {"jobs1-omp1": ("1", "1"), "jobs1-omp2": ("1", "2"), "jobs2-omp2": ("2", "2")}
    files = {}
    for name, (jobs, threads) in runs.items():
        tree, _ = untranscribed(tmp_path / name, THREAD_SENSITIVE)
        env = {**os.environ, **KERNEL_ENV, "OMP_NUM_THREADS": threads}
        done = subprocess.run([sys.executable, "-m", "speecheval", "fdb10", "reference-asr",
                               "--tree", str(tree), "--jobs", jobs], env=env,
                              capture_output=True, text=True, timeout=280)
        assert done.returncode == 0, done.stderr
        files[name] = tree_files(tree)
    assert files["jobs1-omp1"] == files["jobs1-omp2"] == files["jobs2-omp2"]
    numeric = json.loads(files["jobs1-omp2"]["asr.json"])["numeric"]
    assert [(b["library"], b["kernel"], b["threads"]) for b in numeric["blas"]] == [
        ("openblas", "Haswell", 1)]
