"""build-dataset writes the official v1.0 layout with annotations true of the audio, and
load_dataset reads any root in that layout without dropping a sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_bytes, sha256_file
from speecheval.fdb.common.dataset import ABSENT, load_dataset, revision_digest
from speecheval.fdb.v10.builder.dataset import INPUT_RATES, build_dataset, dataset_specs

SPEECH_DBFS = -45.0   # the local agents' speech threshold; word tails decay to about -38 dBFS
QUIET_DBFS = -65.0    # the background noise is -4..3 PCM16 steps (about -78 dBFS)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ds") / "v1_0"
    build_dataset(root, "mini")
    return root


def _dbfs(samples: np.ndarray) -> float:
    rms = float(np.sqrt(np.mean(np.square(samples.astype(np.float64)))))
    return 20 * np.log10(max(rms, 1e-12))


def _window(root: Path, sample_id: str, start_s: float, end_s: float) -> float:
    audio = read_mono(root / sample_id / "input.wav")
    return _dbfs(audio.samples[round(start_s * audio.rate):round(end_s * audio.rate)])


def test_layout_and_files_per_subset(built: Path) -> None:
    expected = {
        "synthetic_pause_handling": {"input.wav", "pause.json", "transcription.json"},
        "candor_pause_handling": {"input.wav", "pause.json", "transcription.json"},
        "candor_turn_taking": {"input.wav", "turn_taking.json", "transcription.json"},
        "synthetic_user_interruption": {"input.wav", "interrupt.json", "context.wav",
                                        "interrupt.wav"},
        "icc_backchannel": {"input.wav", "transcription.json"},
    }
    for subset, names in expected.items():
        ids = sorted(p.name for p in (built / subset).iterdir())
        assert ids == sorted(str(i) for i in range(1, 9))
        for local_id in ids:
            assert {p.name for p in (built / subset / local_id).iterdir()} == names


def test_pauses_are_silence_between_speech(built: Path) -> None:
    for subset in ("synthetic_pause_handling", "candor_pause_handling"):
        for local_id in range(1, 9):
            sample_id = f"{subset}/{local_id}"
            pauses = json.loads((built / sample_id / "pause.json").read_text())
            for pause in pauses:
                a, b = pause["timestamp"]
                assert b - a >= 0.8
                # inside the pause: only background noise; 60 ms either side: a word
                assert _window(built, sample_id, a, b) < QUIET_DBFS, (sample_id, a, b)
                assert _window(built, sample_id, a - 0.06, a) > SPEECH_DBFS, (sample_id, a)
                assert _window(built, sample_id, b, b + 0.06) > SPEECH_DBFS, (sample_id, b)


def test_turn_end_is_the_end_of_the_last_user_word(built: Path) -> None:
    for local_id in range(1, 9):
        sample_id = f"candor_turn_taking/{local_id}"
        (annotation,) = json.loads((built / sample_id / "turn_taking.json").read_text())
        e, e2 = annotation["timestamp"]
        audio = read_mono(built / sample_id / "input.wav")
        t = audio.n_samples / audio.rate
        assert e2 == pytest.approx(t, abs=1e-9) and t == pytest.approx(e + 5.0, abs=1e-9)
        assert _window(built, sample_id, e, t) < QUIET_DBFS
        assert _window(built, sample_id, e - 0.06, e) > SPEECH_DBFS
        words = json.loads((built / sample_id / "transcription.json").read_text())[0]["item"]
        assert words[-1]["timestamp"][1] == e


def test_interruption_onset_is_the_clip_start_and_r_its_last_word_end(built: Path) -> None:
    for local_id in range(1, 9):
        sample_id = f"synthetic_user_interruption/{local_id}"
        folder = built / sample_id
        (annotation,) = json.loads((folder / "interrupt.json").read_text())
        s, r = annotation["timestamp"]
        user = read_mono(folder / "input.wav")
        clip = read_mono(folder / "interrupt.wav")
        context = read_mono(folder / "context.wav")
        # interrupt.wav is in input.wav from S: the difference is the background noise only
        start = round(s * user.rate)
        placed = user.samples[start:start + clip.n_samples]
        assert np.max(np.abs(placed - clip.samples)) <= 5 / 32768
        assert clip.n_samples / clip.rate == pytest.approx(r - s, abs=0.004)
        assert _window(built, sample_id, s - 1.0, s) < QUIET_DBFS   # silence before S
        assert _window(built, sample_id, r, r + 6.0) < QUIET_DBFS   # and after R, to T
        assert user.n_samples / user.rate == pytest.approx(r + 6.0, abs=1e-9)
        assert annotation["context"] and annotation["interrupt"]
        assert _dbfs(context.samples) > SPEECH_DBFS


def test_rates_are_recorded_and_a_48_khz_subset_exists(built: Path) -> None:
    dataset = load_dataset(built)
    assert dataset.rates() == {subset: [rate] for subset, rate in sorted(INPUT_RATES.items())}
    assert 48_000 in INPUT_RATES.values() and 16_000 in INPUT_RATES.values()
    sample = dataset.by_id()["synthetic_pause_handling/1"]
    assert sample.input_rate == 48_000 and sample.duration_s == dataset_specs("mini")[0].duration_s


def test_declared_sizes_stay_and_absent_and_broken_samples_are_listed(built: Path,
                                                                      tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(built, root)
    (root / "candor_turn_taking/2/input.wav").unlink()
    (root / "candor_pause_handling/3/pause.json").write_text("[]")
    (root / "icc_backchannel/4/input.wav").write_bytes(b"RIFF")
    dataset = load_dataset(root)
    info = dataset.describe()
    assert info["declared"] == {"synthetic_pause_handling": 137, "candor_pause_handling": 216,
                                "candor_turn_taking": 119, "synthetic_user_interruption": 200,
                                "icc_backchannel": 55}
    # 8 folders of 137: the numbers 9..137 are listed as absent, never dropped
    assert info["counts"]["synthetic_pause_handling"] == {
        "declared": 137, "usable": 8, "with_problems": 0, "absent": 129}
    assert dataset.by_id()["synthetic_pause_handling/137"].problems == (ABSENT,)
    assert info["problems"]["candor_turn_taking/2"] == ["input.wav is missing"]
    assert info["problems"]["candor_pause_handling/3"] == [
        "pause.json: pause.json must be a non-empty list"]
    assert info["problems"]["icc_backchannel/4"][0].startswith("input.wav is unreadable")
    # selection keeps the broken present samples (to list them) but not the absent ones
    chosen = dataset.select(subsets=["candor_turn_taking"])
    assert [s.local_id for s in chosen] == [str(i) for i in range(1, 9)]
    assert not chosen[1].usable


def test_non_numbered_ids_count_the_absent_samples_instead(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "named"
    shutil.copytree(built / "icc_backchannel/1", root / "icc_backchannel/alpha")
    dataset = load_dataset(root)
    assert [s.sample_id for s in dataset.samples] == ["icc_backchannel/alpha"]
    assert dataset.describe()["counts"]["icc_backchannel"]["absent"] == 54
    assert dataset.describe()["counts"]["candor_turn_taking"]["absent"] == 119


def test_revision_is_a_digest_of_the_sorted_file_hashes(built: Path, tmp_path: Path) -> None:
    dataset = load_dataset(built)
    lines = sorted(f"{sha256_file(p)}  {p.relative_to(built).as_posix()}\n"
                   for p in built.glob("*/*/*"))
    assert len(lines) == 8 * (3 + 3 + 3 + 4 + 2)
    assert dataset.revision == sha256_bytes("".join(
        sorted(lines, key=lambda line: line.split("  ", 1)[1])).encode())
    assert revision_digest(dataset.file_hashes()) == dataset.revision
    root = tmp_path / "changed"
    shutil.copytree(built, root)
    assert load_dataset(root).revision == dataset.revision   # same bytes, same revision
    (root / "icc_backchannel/1/transcription.json").write_text("[]\n")
    assert load_dataset(root).revision != dataset.revision


def test_selection_refuses_unknown_names(built: Path) -> None:
    dataset = load_dataset(built)
    with pytest.raises(InputError, match="unknown subset 'nope'"):
        dataset.select(subsets=["nope"])
    with pytest.raises(InputError, match="candor_turn_taking/999: no such sample"):
        dataset.select(sample_ids=["candor_turn_taking/999"])
    assert len(dataset.select(max_per_subset=2)) == 10
    assert [s.sample_id for s in dataset.select(sample_ids=["icc_backchannel/3"])] == [
        "icc_backchannel/3"]


def test_builds_are_byte_identical_and_full_has_declared_sizes(built: Path,
                                                               tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_dataset(again, "mini")
    assert load_dataset(again).revision == load_dataset(built).revision
    full = dataset_specs("full")
    assert len(full) == 727
    assert [s.sample_id for s in full if s.local_id in "12345678" and len(s.local_id) == 1] \
        == [s.sample_id for s in dataset_specs("mini")]


def test_cli_build_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d"
    assert main(["fdb10", "build-dataset", "--out", str(out)]) == 0
    assert "wrote 40 samples" in capsys.readouterr().out
    assert main(["fdb10", "build-dataset", "--out", str(out)]) == 2
    assert "output already exists" in capsys.readouterr().err
    assert main(["fdb10", "check-dataset", "--dataset-root", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"revision {load_dataset(out).revision}" in printed
    assert "usable   8 of 137" in printed and "rates 48000" in printed
    assert main(["fdb10", "check-dataset", "--dataset-root", str(tmp_path)]) == 2
    assert "no Full-Duplex-Bench v1.0 subset folder" in capsys.readouterr().err
