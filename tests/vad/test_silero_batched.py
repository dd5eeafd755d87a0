"""The batched 16 kHz path (matrix products over all windows) against independent evaluations.

Three checks, none of which reuses the code under test:

- an evaluation of Silero's network written here in float64 with explicit convolutions
  and an explicit LSTM loop in PyTorch's gate order (the architecture of silero-vad's
  ``tinygrad_model.py``), on the weights read from ``silero_vad.onnx``;
- silero-vad's ``silero_vad_16k_sequence.onnx`` run as is by onnxruntime (the path that
  was used before, and what ``load_silero_vad(sequence=True)`` runs; these tests skip
  where silero-vad, a test peer of the ``parity`` extra, is not installed):
  probabilities within ``PROB_TOLERANCE`` and identical segments on real speech, the
  committed espeak-ng sentences and the official FDB examples (16 and 48 kHz);
- the ONNX wire format: a graph written by ``onnx_wire`` computes what was worked out by
  hand, and the weights read are the file's own bytes.

Tolerance: both paths are float32 evaluations of the same function that sum in different
orders, so they differ by rounding. Against the float64 evaluation the sequence model is
off by at most 1.5e-5 and the batched path by 2.1e-5 (10 minutes of benchmark audio;
mean 1.6e-7 and 2.4e-7); they differ from each other by at most 1.9e-5. The bound used,
1e-4, is the one the parity tests allow between the ONNX files and the JIT model, which
already differ by up to 5.3e-5 on that audio: the batched path adds no error beyond what
the choice between Silero's own files does.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from numpy.typing import NDArray

from speecheval.core.audio import read_mono
from speecheval.vad import onnx_wire, silero_batched, silero_model
from speecheval.vad.silero import SileroSettings, model_input
from speecheval.vad.silero_segments import speech_segments

from .audio_cases import RATE, join, noise, silence, speech

PROB_TOLERANCE = 1e-4
EXAMPLES = "fdb-official-examples/example_data"


@cache
def onnx() -> silero_model.SileroOnnx:
    return silero_model.SileroOnnx(silero_model.locate_model_files())


def sequence_model_path() -> Path:
    """silero-vad's ``silero_vad_16k_sequence.onnx``, found without importing the package
    (that loads torch); the test skips where silero-vad is not installed."""
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("silero-vad is not installed (the parity extra's test peer)")
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    return data / "silero_vad_16k_sequence.onnx"


@cache
def sequence_session() -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(sequence_model_path()),
                                sess_options=options, providers=["CPUExecutionProvider"])


def sequence_probabilities(samples: NDArray[np.float32]) -> NDArray[np.float32]:
    """The shipped sequence model over the whole clip in one call (state from zero)."""
    rows = np.concatenate(list(silero_model.framed_blocks(samples, RATE, 1 << 30)))
    zeros = np.zeros((1, 1, 128), dtype=np.float32)
    probs = sequence_session().run(["speech_probs"], {"input": rows, "h": zeros, "c": zeros})
    return np.asarray(probs[0], dtype=np.float32).reshape(-1)


def float64_probabilities(samples: NDArray[np.float32]) -> NDArray[np.float64]:
    """Silero's 16 kHz network in float64, layer by layer as the architecture states it."""
    weights = {name: value.astype(np.float64) for name, value in silero_batched.read_weights(
        silero_model.locate_model_files().model_bytes()).items()}
    rows = np.concatenate(list(silero_model.framed_blocks(samples, RATE, 1 << 30)))
    padded = np.pad(rows.astype(np.float64), ((0, 0), (0, 64)), mode="reflect")
    basis = weights["stft.forward_basis_buffer"][:, 0, :]  # (258, 256)
    frames = np.stack([padded[:, 128 * j: 128 * j + 256] for j in range(4)], axis=2)
    spectrum = np.einsum("fs,nsj->nfj", basis, frames)  # (windows, 258, 4)
    feature = np.sqrt(spectrum[:, :129] ** 2 + spectrum[:, 129:] ** 2)
    for layer, stride in enumerate((1, 2, 2, 1)):
        w = weights[f"encoder.{layer}.reparam_conv.weight"]
        b = weights[f"encoder.{layer}.reparam_conv.bias"]
        zero_padded = np.pad(feature, ((0, 0), (0, 0), (1, 1)))
        length = (feature.shape[2] - 1) // stride + 1
        feature = np.maximum(np.stack([
            np.einsum("nck,ock->no", zero_padded[:, :, stride * t: stride * t + 3], w) + b
            for t in range(length)], axis=2), 0.0)
    x = feature[:, :, 0]
    # PyTorch's LSTM gate order: input, forget, cell, output; two bias vectors added.
    w_in, w_rec = weights["decoder.rnn.weight_ih"], weights["decoder.rnn.weight_hh"]
    bias = weights["decoder.rnn.bias_ih"] + weights["decoder.rnn.bias_hh"]
    hidden, cell = np.zeros(128), np.zeros(128)
    outputs = []
    for step in x:
        gates = w_in @ step + w_rec @ hidden + bias
        i, f, g, o = (gates[k * 128: (k + 1) * 128] for k in range(4))
        cell = _sigmoid(f) * cell + _sigmoid(i) * np.tanh(g)
        hidden = _sigmoid(o) * np.tanh(cell)
        outputs.append(hidden)
    decoded = (np.maximum(np.array(outputs), 0.0)
               @ weights["decoder.decoder.2.weight"][0, :, 0])
    return np.asarray(_sigmoid(decoded + weights["decoder.decoder.2.bias"][0]))


def _sigmoid(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(1.0 / (1.0 + np.exp(-x)))


def speech_clip() -> NDArray[np.float32]:
    """Both sentences, a 120 ms pause, speech in noise and silence: 9.3 s, 292 windows."""
    return join(silence(300), speech("a"), silence(120), speech("b"), silence(700),
                speech("a") + noise(len(speech("a")) / 16, 0.02, seed=3), silence(200))


def test_batched_path_matches_a_float64_evaluation() -> None:
    clip = speech_clip()
    exact = float64_probabilities(clip)
    batched = onnx().batched_probabilities(clip)
    shipped = sequence_probabilities(clip)
    assert batched.shape == exact.shape == (-(-clip.size // 512),)
    assert float(np.max(np.abs(batched - exact))) <= PROB_TOLERANCE
    # the shipped model is no closer to the exact values than the tolerance either
    assert float(np.max(np.abs(shipped - exact))) <= PROB_TOLERANCE
    assert exact.max() > 0.9 and exact.min() < 0.1  # speech and silence both scored


def _segments(probs: NDArray[np.float32], n_samples: int) -> list[tuple[int, int]]:
    return speech_segments(probs.tolist(), SileroSettings().rule(RATE), n_samples)


def test_batched_path_gives_the_sequence_models_segments_on_the_espeak_sentences() -> None:
    clip = speech_clip()
    batched, shipped = onnx().batched_probabilities(clip), sequence_probabilities(clip)
    assert float(np.max(np.abs(batched - shipped))) <= PROB_TOLERANCE
    found = _segments(batched, clip.size)
    assert found == _segments(shipped, clip.size)
    # the 120 ms pause is bridged (Silero keeps it inside speech), the 700 ms one splits
    assert len(found) == 2


@pytest.mark.parametrize("task", ["pause_handling_example", "smooth_turn_taking_example",
                                  "user_interruption_example"])
@pytest.mark.parametrize("name", ["input.wav", "output.wav"])
def test_batched_path_gives_the_sequence_models_segments_on_official_examples(
        fixtures_dir: Path, task: str, name: str) -> None:
    audio = read_mono(fixtures_dir / EXAMPLES / task / "1" / name)
    prepared = model_input(audio)  # the 48 kHz input is decimated to 16 kHz, as Silero does
    assert prepared.rate == RATE
    batched = onnx().batched_probabilities(prepared.samples)
    shipped = sequence_probabilities(prepared.samples)
    assert float(np.max(np.abs(batched - shipped))) <= PROB_TOLERANCE
    assert _segments(batched, prepared.samples.size) == _segments(shipped,
                                                                 prepared.samples.size)


def test_every_official_example_has_speech(fixtures_dir: Path) -> None:
    """The examples above compare real segments, not empty lists."""
    for path in sorted((fixtures_dir / EXAMPLES).glob("*/1/*.wav")):
        prepared = model_input(read_mono(path))
        assert _segments(onnx().batched_probabilities(prepared.samples),
                         prepared.samples.size), path


def test_a_hand_written_graph_computes_what_was_worked_out() -> None:
    # relu(x @ w + b) with x = [[1, 2], [-3, 1]], w = [[1, 0, 2], [0, 1, -1]], b = [0, -1, 0]:
    # row 1: [1, 2, 0] + b = [1, 1, 0]; row 2: [-3, 1, -7] + b = [-3, 0, -7] -> [0, 0, 0]
    w = np.array([[1, 0, 2], [0, 1, -1]], dtype=np.float32)
    b = np.array([0, -1, 0], dtype=np.float32)
    model = onnx_wire.model(
        "dense", [onnx_wire.node("MatMul", ["x", "w"], ["p"]),
                  onnx_wire.node("Add", ["p", "b"], ["q"]),
                  onnx_wire.node("Relu", ["q"], ["y"])],
        [onnx_wire.tensor("w", w), onnx_wire.tensor("b", b)], ["x"], ["y"])
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    x = np.array([[1, 2], [-3, 1]], dtype=np.float32)
    assert session.run(["y"], {"x": x})[0].tolist() == [[1, 1, 0], [0, 0, 0]]


def test_weights_are_read_byte_for_byte_from_the_16k_branch() -> None:
    data = silero_model.locate_model_files().model_bytes()
    weights = silero_batched.read_weights(data)
    assert weights["stft.forward_basis_buffer"].shape == (258, 1, 256)  # 16 kHz, not 8
    assert weights["encoder.0.reparam_conv.weight"].shape == (128, 129, 3)
    assert weights["decoder.rnn.weight_hh"].shape == (512, 128)
    for value in weights.values():
        assert value.tobytes() in data  # raw_data, little-endian float32, not re-derived
    # the 8 kHz branch's basis, (130, 1, 128), is not among them
    assert not any(value.shape == (130, 1, 128) for value in weights.values())


def test_a_model_without_a_16k_branch_is_refused() -> None:
    graph = onnx_wire.model("empty", [], [], ["x"], ["x"])
    with pytest.raises(ValueError, match="no 16 kHz Silero branch"):
        silero_batched.read_weights(graph)



@pytest.mark.parametrize("n_samples", [1, 511, 512, 513, 575, 577, 1024, 5000])
def test_folded_signal_is_the_framed_rows_frames_folded(n_samples: int) -> None:
    """``signal_folded`` takes the sums and differences straight from the signal; each must
    be the one :func:`folded_frames` makes from the rows' own frames, to the bit."""
    samples = np.random.default_rng(n_samples).standard_normal(n_samples).astype(np.float32)
    rows = np.concatenate(list(silero_model.framed_blocks(samples, RATE, 1 << 30)))
    padded = silero_batched.padded_signal(samples)
    windows = rows.shape[0]
    for first, count in ((0, windows), (windows - 1, 1)):
        got = silero_batched.signal_folded(padded, first, count)
        want = silero_batched.folded_frames(silero_batched.stft_frames(rows[first:]))
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))


def test_folded_frames_pair_each_sample_with_its_mirror() -> None:
    # frame x[i] = i: pair n sums to n + (256 - n) = 256, the middle one is 2 * 128 = 256,
    # and the differences are n - (256 - n) = 2n - 256: -254 for n = 1, 0 for n = 128
    frames = np.arange(256, dtype=np.float32).reshape(1, 256)
    sums, differences = silero_batched.folded_frames(frames)
    assert sums.tolist() == [[256.0] * 128]
    assert differences.tolist() == [[2.0 * n - 256 for n in range(1, 129)]]


def test_the_folded_stft_is_the_models_stft() -> None:
    """In float64 the folded basis gives the unfolded STFT of the file's basis (up to
    float64 rounding): the fold is algebra, not an approximation."""
    basis = silero_batched.read_weights(
        silero_model.locate_model_files().model_bytes())["stft.forward_basis_buffer"]
    basis = basis[:, 0, :]
    real, imag = silero_batched.folded_basis(basis)
    assert real.shape == imag.shape == (128, 129)
    # whole-number samples: their sums and differences are exact in float32
    frames = np.random.default_rng(5).integers(-1000, 1000, (64, 256)).astype(np.float32)
    sums, differences = silero_batched.folded_frames(frames)
    unfolded = frames.astype(np.float64) @ basis.T.astype(np.float64)
    np.testing.assert_allclose(sums.astype(np.float64) @ real, unfolded[:, :129], atol=1e-9)
    np.testing.assert_allclose(differences.astype(np.float64) @ imag, unfolded[:, 129:],
                               atol=1e-9)
    assert float(np.abs(unfolded).max()) > 1e3  # sizeable values, not a vacuous match


def test_the_first_convolution_per_output_frame_is_the_dense_one() -> None:
    """The per-frame matrices, applied to their slices of a frame-major spectrum, give
    the dense convolution of the same spectrum laid channel after channel (float64:
    the two differ only in which exact zeros they add)."""
    weight = silero_batched.read_weights(
        silero_model.locate_model_files().model_bytes())["encoder.0.reparam_conv.weight"]
    per_frame = silero_batched.enc0_per_frame(weight)
    spectrum = np.random.default_rng(7).random((16, 4, 129))  # windows, frames, bins
    dense = silero_batched.conv_matrix(weight, 4, 1).astype(np.float64)
    want = spectrum.transpose(0, 2, 1).reshape(16, -1) @ dense  # columns: channel, frame
    flat = spectrum.reshape(16, -1)
    for t, (low, high) in enumerate(silero_batched.ENC0_INPUTS):
        got = flat[:, low * 129: high * 129] @ per_frame[f"enc0_w{t}"].astype(np.float64)
        np.testing.assert_allclose(got, want[:, t::4], rtol=0, atol=1e-10)
    # the edge frames read two input frames, the middle ones three
    assert [per_frame[f"enc0_w{t}"].shape for t in range(4)] == [
        (258, 128), (387, 128), (387, 128), (258, 128)]


def test_a_basis_that_is_not_symmetric_is_not_folded() -> None:
    basis = silero_batched.read_weights(
        silero_model.locate_model_files().model_bytes())["stft.forward_basis_buffer"]
    lopsided = basis[:, 0, :].copy()
    lopsided[5, 10] += 1e-3  # real row 5 no longer even about sample 128
    with pytest.raises(ValueError, match="not a symmetric-window DFT"):
        silero_batched.folded_basis(lopsided)


@pytest.mark.parametrize("reused_padded", [silero_model.REUSED_PADDED_SAMPLES, 1000])
def test_reused_fold_memory_leaves_nothing_behind(reused_padded: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of two blocks (the second one short), scored right after a longer file has
    filled the reused memory with other values, gets the framed rows' probabilities bit
    for bit, block by block as the rows path cuts it; the same when the file is too long
    for the reused padding memory (1000 samples: it gets its own)."""
    monkeypatch.setattr(silero_model, "REUSED_PADDED_SAMPLES", reused_padded)
    block = silero_model.BATCHED_BLOCK_WINDOWS
    rng = np.random.default_rng(11)
    onnx().batched_probabilities(rng.standard_normal((2 * block + 7) * 512).astype(np.float32))
    clip = np.tile(speech_clip(), 8)[: (block + 37) * 512 - 100]  # 2085 windows
    probs, state, parts = onnx().batched_probabilities(clip), None, []
    for rows in silero_model.framed_blocks(clip, RATE, block):
        part, state = onnx().block_probabilities(rows, RATE, state)
        parts.append(part)
    assert [part.size for part in parts] == [block, 37]
    assert np.array_equal(probs, np.concatenate(parts))


def test_whole_file_probabilities_equal_the_framed_rows_path() -> None:
    """Bit for bit on one block of 292 windows (block boundaries:
    ``test_reused_fold_memory_leaves_nothing_behind``)."""
    clip = speech_clip()
    by_rows = np.concatenate([onnx().block_probabilities(block, RATE, None)[0]
                              for block in silero_model.framed_blocks(clip, RATE, 1 << 30)])
    assert np.array_equal(onnx().batched_probabilities(clip), by_rows)
