"""The parakeet backend with a small fake ``nemo`` package in place of NeMo.

The fake is a real package on ``sys.path`` (``nemo.collections.asr.models.ASRModel``,
and a ``nemo_toolkit`` distribution so the version lookup finds it). It records how it
was called and answers as NeMo does: ``transcribe([path], timestamps=True)`` returns
hypotheses whose ``timestamp["word"]`` entries hold ``word``, ``start_offset`` and
``end_offset`` in 80 ms encoder frames and ``start``/``end`` in seconds
(offset * window_stride 0.01 * subsampling 8). Its words follow from the WAV it reads:
"first" over frames 0-3, "last" over the last 6 whole frames.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from fdb10.test_reference_asr import untranscribed

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.hashing import sha256_file

FAKE_MODELS = '''
import json, os
import soundfile as sf

LOG = os.environ["FAKE_NEMO_LOG"]
FRAME_S = 0.01 * 8


def log(**entry):
    with open(LOG, "a") as handle:
        handle.write(json.dumps(entry) + "\\n")


class Hypothesis:
    def __init__(self, text, timestamp):
        self.text, self.timestamp = text, timestamp


class ASRModel:
    @classmethod
    def restore_from(cls, restore_path, override_config_path=None, map_location=None,
                     strict=True, return_config=False, save_restore_connector=None,
                     trainer=None):
        if open(restore_path, "rb").read(4) == b"BAD!":
            raise RuntimeError("PytorchStreamReader failed reading zip archive")
        log(call="restore_from", restore_path=restore_path,
            map_location=f"{type(map_location).__module__}.{type(map_location).__name__}"
                         f":{map_location}")
        return cls()

    def transcribe(self, audio, batch_size=4, return_hypotheses=False, num_workers=0,
                   channel_selector=None, augmentor=None, verbose=True, timestamps=None,
                   override_config=None):
        if os.environ.get("FAKE_NEMO_FAIL"):
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        info = sf.info(audio[0])
        log(call="transcribe", files=len(audio), batch_size=batch_size,
            timestamps=timestamps, verbose=verbose, rate=info.samplerate, channels=info.channels,
            subtype=info.subtype, frames=info.frames)
        frames = int(info.frames / info.samplerate / FRAME_S)
        words = [("first", 0, 3), ("last", frames - 6, frames)]
        entries = [{"word": w, "start_offset": a, "end_offset": b,
                    "start": a * FRAME_S, "end": b * FRAME_S} for w, a, b in words]
        return [Hypothesis("first last", {"timestep": [], "char": [], "word": entries,
                                          "segment": []})]
'''


def forget_nemo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop every imported ``nemo`` module (restored after the test), so the next import
    finds what the test put in place."""
    for name in [m for m in sys.modules if m == "nemo" or m.startswith("nemo.")]:
        monkeypatch.delitem(sys.modules, name)


@pytest.fixture
def fake_nemo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Put the fake package first on sys.path; yield the log of its calls."""
    root = tmp_path / "fake-site"
    package = root / "nemo" / "collections" / "asr"
    package.mkdir(parents=True)
    for folder in (root / "nemo", root / "nemo" / "collections", package):
        (folder / "__init__.py").write_text("")
    (package / "models.py").write_text(textwrap.dedent(FAKE_MODELS))
    dist = root / "nemo_toolkit-2.4.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: nemo_toolkit\nVersion: 2.4.0\n")
    log = tmp_path / "nemo-calls.jsonl"
    monkeypatch.setenv("FAKE_NEMO_LOG", str(log))
    monkeypatch.syspath_prepend(str(root))
    forget_nemo(monkeypatch)
    yield log
    for name in [m for m in sys.modules if m == "nemo" or m.startswith("nemo.")]:
        del sys.modules[name]  # the fake's modules, imported during the test


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def checkpoint(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "parakeet-tdt-0.6b-v2.nemo"
    path.write_bytes(b"a stand-in for the 2.4 GB checkpoint archive")
    return path, sha256_file(path)


KEEP = {"synthetic_user_interruption/8", "candor_turn_taking/1"}


def command(tree: Path, nemo: Path, sha256: str, *extra: str) -> list[str]:
    return ["fdb10", "reference-asr", "--tree", str(tree), "--backend", "parakeet",
            "--nemo", str(nemo), "--nemo-sha256", sha256, *extra]


def test_transcripts_in_the_official_format_cut_at_r(
        tmp_path: Path, fake_nemo: Path, checkpoint: tuple[Path, str]) -> None:
    pytest.importorskip("torch", reason="torch is not installed (it comes with NeMo)")
    tree, _ = untranscribed(tmp_path, KEEP)
    nemo, sha = checkpoint
    assert main(command(tree, nemo, sha, "--nemo-device", "cpu")) == 0
    sample = tree / "synthetic_user_interruption" / "8"
    S, R = json.loads((sample / "interrupt.json").read_text())[0]["timestamp"]
    T = read_mono(sample / "output.wav").duration_s
    assert (R, T) == (6.4, 14.0)
    # NeMo heard [R, T] = 7.6 s = 95 frames of 0.08 s. "first": frames 0-3 = 0 to 0.24 s,
    # + R = 6.4 to 6.64. "last": frames 89-95 = 7.12 to 7.6 s, + R = 13.52 to 14.0 (the
    # float sum 14.000000000000002 is held to T = 14.0).
    chunks = json.loads((sample / "output.json").read_text())["chunks"]
    assert [c["text"] for c in chunks] == ["first", "last"]
    assert chunks[0]["timestamp"] == [6.4, pytest.approx(6.64)]
    assert chunks[1]["timestamp"] == [pytest.approx(13.52), 14.0]
    turn = tree / "candor_turn_taking" / "1"
    t_turn = read_mono(turn / "output.wav").duration_s
    frames = int(t_turn / 0.08)
    data = json.loads((turn / "output.json").read_text())
    assert data["text"] == "first last"
    assert data["chunks"][1]["timestamp"] == [pytest.approx((frames - 6) * 0.08),
                                              pytest.approx(frames * 0.08)]
    # Loaded once, from the pinned file, on the chosen device; one 16 kHz mono 16-bit
    # WAV per call, as the official script sends.
    made = calls(fake_nemo)
    assert made[0] == {"call": "restore_from", "restore_path": str(nemo.resolve()),
                       "map_location": "torch.device:cpu"}
    assert [c["call"] for c in made] == ["restore_from", "transcribe", "transcribe"]
    heard = {c["frames"] for c in made[1:]}
    assert heard == {round(7.6 * 16000), round(t_turn * 16000)}
    for call in made[1:]:
        assert (call["files"], call["batch_size"], call["timestamps"], call["verbose"],
                call["rate"], call["channels"], call["subtype"]
                ) == (1, 1, True, False, 16000, 1, "PCM_16")
    identity = json.loads((tree / "asr.json").read_text())["asr"]
    assert identity["backend"] == "parakeet"
    assert identity["model"] == {"name": "nvidia/parakeet-tdt-0.6b-v2",
                                 "file": "parakeet-tdt-0.6b-v2.nemo", "sha256": sha}
    assert identity["packages"]["nemo_toolkit"] == "2.4.0"
    assert identity["decoding"] == {"device": "cpu", "batch_size": 1, "timestamps": True}


@pytest.mark.parametrize("case", ["mismatch", "missing", "not hex"])
def test_a_wrong_checkpoint_exits_2_before_loading(
        tmp_path: Path, fake_nemo: Path, checkpoint: tuple[Path, str], case: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path, KEEP)
    nemo, sha = checkpoint
    if case == "mismatch":
        sha = "0" * 64
    elif case == "missing":
        nemo = tmp_path / "absent.nemo"
    else:
        sha = "abc"
    assert main(command(tree, nemo, sha)) == 2
    err = capsys.readouterr().err
    expected = {"mismatch": f"{nemo}: the .nemo checkpoint has SHA-256 {checkpoint[1]}, not "
                            f"the pinned {'0' * 64}",
                "missing": f"{nemo}: the .nemo checkpoint is missing",
                "not hex": "--nemo-sha256 must be 64 hex digits"}[case]
    assert expected in err and "Traceback" not in err
    assert calls(fake_nemo) == [] and not (tree / "asr.json").exists()


def test_without_nemo_exit_2_names_the_extra(
        tmp_path: Path, checkpoint: tuple[Path, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    forget_nemo(monkeypatch)
    monkeypatch.setitem(sys.modules, "nemo", None)  # import nemo raises ImportError
    nemo, sha = checkpoint
    assert main(command(tmp_path / "tree", nemo, sha)) == 2
    err = capsys.readouterr().err
    assert "the parakeet backend needs NeMo" in err
    assert "pip install 'speecheval[parakeet]'" in err and "Traceback" not in err


@pytest.mark.parametrize(("args", "message"), [
    (("--jobs", "2"), "runs one model in this process"),
    (("--base-url", "http://127.0.0.1:1/v1"), "--backend parakeet takes no --base-url"),
])
def test_settings_it_does_not_take(tmp_path: Path, fake_nemo: Path,
                                   checkpoint: tuple[Path, str], args: tuple[str, ...],
                                   message: str, capsys: pytest.CaptureFixture[str]) -> None:
    nemo, sha = checkpoint
    assert main(command(tmp_path / "tree", nemo, sha, *args)) == 2
    assert message in capsys.readouterr().err


def test_parakeet_needs_its_checkpoint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fdb10", "reference-asr", "--tree", "t", "--backend", "parakeet"]) == 2
    assert "--backend parakeet needs --nemo and --nemo-sha256" in capsys.readouterr().err


def test_a_checkpoint_nemo_cannot_load_and_a_missing_gpu_exit_2(
        tmp_path: Path, fake_nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed (it comes with NeMo)")
    tree, _ = untranscribed(tmp_path, KEEP)
    nemo = tmp_path / "broken.nemo"
    nemo.write_bytes(b"BAD! not a tar archive")
    sha = sha256_file(nemo)
    assert main(command(tree, nemo, sha, "--nemo-device", "cpu")) == 2
    err = capsys.readouterr().err
    assert f"{nemo.resolve()}: NeMo could not load the checkpoint: RuntimeError: " \
           "PytorchStreamReader failed" in err and "Traceback" not in err
    assert not (tree / "asr.json").exists()
    if not torch.cuda.is_available():  # the default device is cuda, as the official script
        assert main(command(tree, nemo, sha)) == 2
        assert "--nemo-device cuda, but torch finds no CUDA device" in capsys.readouterr().err


def test_nemo_failing_on_a_track_fails_that_sample(
        tmp_path: Path, fake_nemo: Path, checkpoint: tuple[Path, str],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="torch is not installed (it comes with NeMo)")
    tree, _ = untranscribed(tmp_path, KEEP)
    nemo, sha = checkpoint
    monkeypatch.setenv("FAKE_NEMO_FAIL", "1")
    assert main(command(tree, nemo, sha, "--nemo-device", "cpu")) == 3
    err = capsys.readouterr().err
    assert "failed on 2 of 2 samples, nothing was written: sample candor_turn_taking/1: " \
           "NeMo failed on this track: RuntimeError: CUDA out of memory" in err
    assert "Traceback" not in err and not (tree / "asr.json").exists()
