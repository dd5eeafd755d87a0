"""``fdb10 report``: the user's side of each sample, read from the dataset the tree names.

The mini tree is given a dataset of its own: each sample's input is its output played
backwards (speech-like, the same length T, and unlike the reply, so the two channels of
the stereo clip can be told apart), recorded in the manifest as ``reference-export``
records it (``input_audio``: the dataset folder, each input's path and SHA-256).
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from page_text import released

from speecheval.cli import main
from speecheval.core.audio import resample
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.trees import build_mini_tree
from speecheval.fdb.v10.report.clips import Clip, Reply, encode_clip
from speecheval.fdb.v10.report.user_side import load_inputs

from .browserkit import Browser

SAMPLE = "candor_turn_taking/3"
TIMELINES = 39


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user")
    tree = root / "tree"
    build_mini_tree(tree)
    dataset = root / "dataset"
    manifest = json.loads((tree / "manifest.json").read_text())
    recorded = {}
    for entry in manifest["samples"]:
        if "output.wav" not in entry["files"]:
            continue
        samples, rate = sf.read(tree / entry["sample_id"] / "output.wav", dtype="float32")
        path = dataset / entry["sample_id"] / "input.wav"
        path.parent.mkdir(parents=True)
        sf.write(path, samples[::-1], rate, subtype="PCM_16")
        recorded[entry["sample_id"]] = {"path": f"{entry['sample_id']}/input.wav",
                                        "sha256": sha256_file(path)}
    manifest["input_audio"] = {"dataset_root": str(dataset), "samples": recorded}
    (tree / "manifest.json").write_text(json.dumps(manifest))
    return tree


@pytest.fixture(scope="module")
def page(tree: Path) -> Path:
    out = tree.parent / "user.html"
    assert main(["fdb10", "report", "--tree", f"mini={tree}", "--out", str(out),
                 "--jobs", "1"]) == 0
    return out


def _detail(html: str, sample_id: str) -> str:
    """The sample's row and its drill-down's markup, as opening it gives it back."""
    html = released(html)
    start = html.index(f"<td>{sample_id}</td>")
    return html[start:html.index('<tr class="g', start + 1)]


def _clips(detail: str) -> list[bytes]:
    return [base64.b64decode(data) for data in
            re.findall(r'src="data:audio/ogg;base64,([^"]+)"', detail)]


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    n = min(len(a), len(b))
    return float(np.corrcoef(a[:n], b[:n])[0, 1])


def test_the_stereo_clip_has_the_user_left_and_the_model_right(tree: Path, page: Path
                                                                ) -> None:
    detail = _detail(page.read_text(encoding="utf-8"), SAMPLE)
    assert re.findall(r"<p>([^<]+) <audio", detail) == [
        "both: the user left, the model right",
        "the user alone (input.wav of the dataset, SHA-256 checked)",
        "the model alone (output.wav)"]
    both, alone, model = _clips(detail)
    stereo, rate = sf.read(io.BytesIO(both), dtype="float32")
    assert stereo.ndim == 2 and stereo.shape[1] == 2 and rate == 16000
    reply, reply_rate = sf.read(tree / SAMPLE / "output.wav", dtype="float32")
    user = reply[::-1]
    user16, reply16 = resample(user, reply_rate, 16000), resample(reply, reply_rate, 16000)
    # Opus is lossy, but a channel follows its own source closely and not the other one
    assert _correlation(stereo[:, 0], user16) > 0.8
    assert _correlation(stereo[:, 1], reply16) > 0.8
    assert abs(_correlation(stereo[:, 0], reply16)) < 0.3
    assert abs(_correlation(stereo[:, 1], user16)) < 0.3
    decoded, _ = sf.read(io.BytesIO(alone), dtype="float32")
    assert decoded.ndim == 1 and _correlation(decoded, resample(user, reply_rate, 16000)
                                              if reply_rate != 16000 else user) > 0.8
    assert sf.read(io.BytesIO(model), dtype="float32")[0].ndim == 1


def test_the_input_speech_is_a_lane_with_the_annotation_times(page: Path) -> None:
    detail = _detail(page.read_text(encoding="utf-8"), SAMPLE)
    assert "user speech (Silero on the input)" in detail
    bars = re.findall(r"<title>user (\d+\.\d+)-(\d+\.\d+) s</title>", detail)
    assert bars and all(float(a) < float(b) for a, b in bars)
    assert ">E<" in detail      # the reference time is drawn through every lane


def test_the_page_plays_all_three_in_chromium(page: Path, tmp_path: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert html.count("<audio controls") == 3 * TIMELINES
    assert f"inputs: {TIMELINES} of {TIMELINES} read from" in html
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        assert browser.open_drilldowns() == 0
        channels = browser.evaluate("""Promise.all([...document.querySelectorAll('audio')]
            .slice(0, 3).map(a => fetch(a.src).then(r => r.arrayBuffer())
            .then(b => new OfflineAudioContext(2, 16000, 16000).decodeAudioData(b))
            .then(d => d.numberOfChannels)))""")
        assert channels == [2, 1, 1]
        assert browser.errors() == []


def test_a_dataset_not_at_hand_is_said_and_the_output_shown_alone(tree: Path, tmp_path: Path
                                                                  ) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(tree.parent / "dataset", moved)
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["input_audio"]["dataset_root"] = str(tmp_path / "gone")
    (copy / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "alone.html"
    assert main(["fdb10", "report", "--tree", f"mini={copy}", "--out", str(out),
                 "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count("<audio controls") == TIMELINES
    assert html.count("No input: the dataset is not at hand: ") == TIMELINES
    assert "user speech (Silero" not in html
    # --dataset points at where it went; a changed input is named and left out
    (moved / SAMPLE / "input.wav").write_bytes(
        (moved / SAMPLE / "input.wav").read_bytes()[:-2] + b"\x01\x01")
    again = tmp_path / "again.html"
    assert main(["fdb10", "report", "--tree", f"mini={copy}", "--dataset", str(moved),
                 "--out", str(again), "--jobs", "1"]) == 0
    html = again.read_text(encoding="utf-8")
    assert html.count("<audio controls") == 3 * (TIMELINES - 1) + 1
    assert (f"No input: {moved / SAMPLE / 'input.wav'} is not the input the sample was "
            "captured from (its SHA-256 differs).") in html


def test_an_input_is_read_when_encoded_and_checked_again(tmp_path: Path) -> None:
    # load_inputs keeps only the checked file and its SHA-256, not the decoded samples;
    # the samples come back at encoding time, and an input changed since the check is
    # bad input there, never a clip of other audio
    dataset = tmp_path / "dataset"
    path = dataset / "s" / "input.wav"
    path.parent.mkdir(parents=True)
    sf.write(path, np.linspace(-0.5, 0.5, 1600, dtype=np.float32), 16000, subtype="PCM_16")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "manifest.json").write_text(json.dumps({"input_audio": {
        "dataset_root": str(dataset),
        "samples": {"s": {"path": "s/input.wav", "sha256": sha256_file(path)}}}}))
    inputs = load_inputs(tree, ["s"], None)
    user = inputs.found["s"]
    assert not hasattr(user, "samples")
    heard = user.audio()
    assert heard.rate == 16000 and heard.samples.shape == (1600,)
    sf.write(path, np.zeros(1600, dtype=np.float32), 16000, subtype="PCM_16")
    with pytest.raises(InputError, match="changed while the page was written"):
        user.audio()


def test_the_page_is_the_same_bytes_for_any_number_of_jobs(tree: Path, page: Path,
                                                           tmp_path: Path) -> None:
    # the clips are encoded in --jobs worker processes, collected in the order their
    # players were placed: 3 x 39 clips (both, user, model) embedded, or linked with
    # their SHA256SUMS, the same whatever the number of workers
    again = page.parent / "user-jobs2.html"   # beside the first, so relative paths match
    assert main(["fdb10", "report", "--tree", f"mini={tree}", "--out", str(again),
                 "--jobs", "2"]) == 0
    html = again.read_text(encoding="utf-8")
    assert len(re.findall(r'src="data:audio/ogg;base64,', html)) == 3 * TIMELINES
    assert again.read_bytes() == page.read_bytes()
    linked = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}" / "linked.html"
        out.parent.mkdir()
        assert main(["fdb10", "report", "--tree", f"mini={tree}", "--out", str(out),
                     "--audio-budget", "0", "--jobs", jobs]) == 0
        listed = (out.parent / "linked-audio" / "SHA256SUMS").read_text()
        linked[jobs] = (out.read_bytes(), listed)
    assert len(linked["1"][1].splitlines()) == 3 * TIMELINES
    assert linked["1"] == linked["2"]


def test_a_clip_is_made_of_the_reply_the_input_or_both(tree: Path) -> None:
    # the plain description a worker process encodes from: the reply alone is the
    # output's rate and length, both is the stereo clip at 16 kHz
    manifest = json.loads((tree / "manifest.json").read_text())
    user = load_inputs(tree, [SAMPLE], None).found[SAMPLE]
    reply = Reply(tree / SAMPLE / "output.wav", SAMPLE)
    assert manifest["input_audio"]["samples"][SAMPLE]["sha256"] == user.sha256
    alone = sf.read(io.BytesIO(encode_clip(Clip(reply=reply))), dtype="float32")
    both = sf.read(io.BytesIO(encode_clip(Clip(reply=reply, user=user))), dtype="float32")
    heard = sf.read(io.BytesIO(encode_clip(Clip(user=user))), dtype="float32")
    output, rate = sf.read(tree / SAMPLE / "output.wav", dtype="float32")
    # Opus decodes at 48 kHz; a clip keeps its length to within one 20 ms frame
    assert alone[0].ndim == 1 and heard[0].ndim == 1 and both[0].shape[1] == 2
    assert abs(alone[0].shape[0] / alone[1] - output.size / rate) < 0.02
    assert Clip(user=user).sample_id == SAMPLE == Clip(reply=reply).sample_id
    with pytest.raises(ValueError, match="neither"):
        Clip()
