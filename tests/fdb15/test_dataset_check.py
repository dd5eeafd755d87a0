"""check-dataset reads any copy of the official v1.5 layout and lists every problem."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import encode_wav
from speecheval.core.errors import InputError
from speecheval.fdb.v15.dataset.reader import load_dataset


def _sample(root: Path, sample_id: str, *, seconds: float = 2.0,
            window: list[float] | None = None, extra: dict[str, object] | None = None) -> Path:
    folder = root / sample_id
    folder.mkdir(parents=True)
    silence = np.zeros(round(seconds * 16_000), dtype=np.int16)
    (folder / "input.wav").write_bytes(encode_wav(silence, 16_000))
    (folder / "clean_input.wav").write_bytes(encode_wav(silence, 16_000))
    metadata = {"context_text": "hi", "current_turn_text": "wait",
                "timestamps": window or [0.5, 1.0], **(extra or {})}
    (folder / "metadata.json").write_text(json.dumps(metadata, indent=2))
    return folder


def test_problems_are_listed_per_sample(tmp_path: Path) -> None:
    _sample(tmp_path, "user_interruption/1")
    (_sample(tmp_path, "user_interruption/2") / "clean_input.wav").unlink()
    (_sample(tmp_path, "user_interruption/3") / "input.wav").write_bytes(b"not a wav")
    _sample(tmp_path, "user_interruption/5", window=[1.5, 2.5])
    _sample(tmp_path, "user_backchannel/1", extra={"speaker": "x"})
    _sample(tmp_path, "user_backchannel/2", window=[1.0, 0.5])
    folder = _sample(tmp_path, "talking_to_other/1")
    stereo = np.zeros((32_000, 2), dtype=np.int16)
    (folder / "input.wav").write_bytes(encode_wav(stereo, 16_000))
    (_sample(tmp_path, "background_speech/1") / "metadata.json").unlink()

    dataset = load_dataset(tmp_path)
    problems = {s.sample_id: s.problems for s in dataset.samples if not s.absent}
    assert problems["user_interruption/1"] == ()
    assert problems["user_interruption/2"] == ("clean_input.wav is missing",)
    assert problems["user_interruption/3"][0].startswith("input.wav is unreadable: ")
    assert problems["user_interruption/5"] == (
        "metadata.json: timestamps end at 2.5 s, after the end of input.wav (2 s)",)
    assert problems["user_backchannel/1"][0].startswith("metadata.json is invalid: ")
    assert "speaker" in problems["user_backchannel/1"][0]
    assert "0 <= start < end" in problems["user_backchannel/2"][0]
    assert problems["talking_to_other/1"] == ("input.wav has 2 channels, expected mono",)
    assert problems["background_speech/1"] == ("metadata.json is missing",)
    # user_interruption/4 has no folder while the others are numbered: listed as absent
    absent = [s.sample_id for s in dataset.samples if s.absent]
    assert "user_interruption/4" in absent and len(absent) == (200 - 4) + (99 - 2) + 99 + 99
    assert dataset.absent_ranges()["user_interruption"] == "4, 6-200"
    counts = dataset.counts()["user_interruption"]
    assert counts == {"declared": 200, "usable": 1, "with_problems": 3, "absent": 196}


def test_unnumbered_ids_are_counted_not_named(tmp_path: Path) -> None:
    _sample(tmp_path, "user_backchannel/abc")
    dataset = load_dataset(tmp_path)
    assert dataset.counts()["user_backchannel"]["absent"] == 98
    assert [s.sample_id for s in dataset.samples if s.scenario == "user_backchannel"] == [
        "user_backchannel/abc"]


def test_revision_follows_every_byte(tmp_path: Path) -> None:
    folder = _sample(tmp_path, "user_interruption/1")
    before = load_dataset(tmp_path).revision
    assert load_dataset(tmp_path).revision == before
    (folder / "metadata.json").write_text(
        json.dumps({"context_text": "hi", "current_turn_text": "wait!",
                    "timestamps": [0.5, 1.0]}))
    assert load_dataset(tmp_path).revision != before


def test_bad_root_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    with pytest.raises(InputError, match="no Full-Duplex-Bench v1.5 scenario folder"):
        load_dataset(tmp_path)
    assert main(["fdb15", "check-dataset", "--dataset-root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Full-Duplex-Bench v1.5 scenario folder" in err


def test_check_dataset_command_prints_counts_and_problems(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sample(tmp_path, "user_interruption/1")
    (_sample(tmp_path, "user_interruption/2") / "clean_input.wav").unlink()
    assert main(["fdb15", "check-dataset", "--dataset-root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert ("user_interruption    usable   1 of 200  problems   1  absent 198  rates 16000"
            in out)
    assert "user_backchannel     usable   0 of  99  problems   0  absent  99  rates -" in out
    assert "user_interruption/2: clean_input.wav is missing" in out
    assert "absent user_interruption: 3-200" in out
    assert "absent user_backchannel: 1-99" not in out   # no folder at all: count only


def test_existing_output_directories_are_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    assert main(["fdb15", "build-dataset", "--out", str(taken)]) == 2
    assert "exists" in capsys.readouterr().err
    _sample(tmp_path / "tree", "user_interruption/1")
    (tmp_path / "tree" / "fdb15-timing").mkdir()
    assert main(["fdb15", "score", "--tree", str(tmp_path / "tree")]) == 2
    assert "exists" in capsys.readouterr().err


def test_an_input_cut_inside_its_fmt_chunk_is_a_listed_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 26 bytes: the RIFF header (12), the fmt chunk's header (8) and 6 of its 16 bytes;
    # the chunk walk raised struct.error here
    wav = _sample(tmp_path, "user_interruption/1") / "input.wav"
    wav.write_bytes(wav.read_bytes()[:26])
    assert main(["fdb15", "check-dataset", "--dataset-root", str(tmp_path)]) == 0
    assert ("user_interruption/1: input.wav is unreadable: truncated audio: the file ends "
            "after 26 bytes, inside its 'fmt ' chunk (bytes 12 to 36)"
            ) in capsys.readouterr().out
