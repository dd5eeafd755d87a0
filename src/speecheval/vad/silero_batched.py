"""Silero's 16 kHz network rewritten as matrix products over every window of a block.

Per 32 ms window Silero computes a 4-frame STFT (a convolution with a 256-sample basis,
stride 128, after reflect-padding the 576-sample input by 64), four small convolutions
(129->128->64->64->128 channels over 4, 4, 2 and 1 frames), one LSTM step, and a 1x1
output convolution with a sigmoid. The streaming model ``silero_vad.onnx`` runs that one
window per call; silero-vad's ``silero_vad_16k_sequence.onnx`` takes a block of windows
but runs each convolution as a batch of 4-frame convolutions, which onnxruntime executes
as thousands of tiny products (about 80 % of its time). Here the weights of the
streaming model's 16 kHz branch (those of the sequence model, bit for bit), read byte
for byte from ``silero_vad.onnx``, run as one matrix product per layer over all windows
of the block:

- the STFT is a product with the basis *folded* about the frame's middle sample: the
  basis is a symmetric-window DFT, so each frame enters as 128 sums ``x[n] + x[256 - n]``
  (real part) and 128 differences ``x[n] - x[256 - n]`` (imaginary part), taken in numpy
  straight from the signal, times two 128 x 129 matrices of the file's basis values:
  half the products of ``frames @ basis`` (which was 30 % of the graph's time);
- a kernel-3 convolution over a few frames becomes the product of the frames laid side by
  side (``im2col``: zero frame, frame, next frame) with the kernel reshaped to a matrix;
  taps that only ever meet zero padding (the 1-frame layers) are left out, which drops
  exact zeros from each sum; the first (and largest) one runs as one product per
  output frame over only the three (at the edges two) input frames it reads, which
  leaves out the dense matrix's zero blocks (165k products a window instead of 264k);
- the LSTM is the same ONNX ``LSTM`` node with the same weights and state, the only part
  that runs window after window; the output layer is one more product.

The sums are the same up to float32 rounding in the order of accumulation: on the 200
outputs of the full-size FDB v1.0 benchmark tree (5,900 s) the probabilities differ from
the sequence model's by at most 1.9e-5 (the unfolded path of ``speecheval-batched-matmul-1``:
1.7e-5), and on 600 s of them from a float64 evaluation by at most 1.8e-5; the tests bound
both at 1e-4, the tolerance already allowed between the ONNX files and the JIT model, and
require identical segments (docs/vad.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import onnx_wire as wire
from .silero_spec import FRAMING, MODEL_RATE, STATE_WIDTH

if TYPE_CHECKING:
    import onnxruntime as ort

WINDOW, CONTEXT = FRAMING[MODEL_RATE]
REFLECT = 64  # Silero reflect-pads each model input by 64 samples on the right
FFT_SIZE, HOP = 256, 128
HALF = FFT_SIZE // 2  # the sample the STFT window is symmetric about
FRAMES = (CONTEXT + WINDOW + REFLECT - FFT_SIZE) // HOP + 1  # 4 STFT frames per window
BINS = FFT_SIZE // 2 + 1
# What a result computed this way records, so a cache never mixes it with another path.
COMPUTATION = "speecheval-batched-matmul-3"


def stft_frames(rows: NDArray[np.float32]) -> NDArray[np.float32]:
    """The STFT frames of framed model inputs (context + window rows), 4 per row.

    >>> rows = np.arange(2 * 576, dtype=np.float32).reshape(2, 576)
    >>> frames = stft_frames(rows)
    >>> # frame 1 starts at sample 128; the last frame ends in the reflection, rows[574 - 63]
    >>> frames.shape, float(frames[1, 0]), float(frames[3, 255])
    ((8, 256), 128.0, 511.0)
    """
    width = rows.shape[1]
    frames = np.empty((rows.shape[0], FRAMES, FFT_SIZE), dtype=np.float32)
    for frame in range(FRAMES - 1):
        frames[:, frame] = rows[:, frame * HOP: frame * HOP + FFT_SIZE]
    inside = width - (FRAMES - 1) * HOP  # the last frame's samples before the padding
    frames[:, -1, :inside] = rows[:, (FRAMES - 1) * HOP:]
    # reflect without repeating the edge sample: padded[576 + k] = rows[574 - k]
    frames[:, -1, inside:] = rows[:, -2: -2 - REFLECT: -1]
    return frames.reshape(-1, FFT_SIZE)


def padded_size(n_samples: int) -> int:
    """Samples in the :func:`padded_signal` of ``n_samples``: the context, then whole
    windows.

    >>> padded_size(513), padded_size(512), padded_size(0)
    (1088, 576, 64)
    """
    return CONTEXT + -(-n_samples // WINDOW) * WINDOW


def padded_signal(samples: NDArray[np.float32], memory: NDArray[np.float32] | None = None
                  ) -> NDArray[np.float32]:
    """The file as the framed rows see it: CONTEXT zeros, the samples, then zeros up to a
    whole number of windows (the zero-padded last window).

    Written at the start of ``memory`` when it is large enough (see :func:`fold_workspace`
    for why memory is reused), else in a new array.

    >>> padded_signal(np.ones(513, dtype=np.float32)).shape
    (1088,)
    >>> memory = np.full(2000, 7, dtype=np.float32)
    >>> reused = padded_signal(np.ones(513, dtype=np.float32), memory)
    >>> reused.shape, float(reused.sum()), bool(np.shares_memory(reused, memory))
    ((1088,), 513.0, True)
    """
    size = padded_size(samples.size)
    if memory is None or memory.size < size:
        padded = np.zeros(size, dtype=np.float32)
    else:
        padded = memory[:size]
        padded[:CONTEXT] = 0
        padded[CONTEXT + samples.size:] = 0
    padded[CONTEXT: CONTEXT + samples.size] = samples
    return padded


def folded_frames(frames: NDArray[np.float32]
                  ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """STFT frames folded about their middle sample: the inputs of the halved STFT.

    Silero's basis is a windowed DFT whose window is symmetric with a zero first sample
    (checked by :func:`folded_basis`), so a frame ``x`` enters the real part only as
    ``x[n] + x[256 - n]`` and the imaginary part only as ``x[n] - x[256 - n]``
    (n = 1..128): each basis value then multiplies a sum or a difference of two
    samples, half the products of the unfolded STFT. Column ``n - 1`` holds pair n;
    the middle sample is its own partner (sum ``2 * x[128]``, difference 0), which
    :func:`folded_basis` allows for.

    >>> sums, differences = folded_frames(np.arange(256, dtype=np.float32).reshape(1, 256))
    >>> # x[1] + x[255] = 256, x[128] + x[128] = 256, x[1] - x[255] = -254, x[128] - x[128]
    >>> float(sums[0, 0]), float(sums[0, 127]), float(differences[0, 0]), float(differences[0, 127])
    (256.0, 256.0, -254.0, 0.0)
    """
    head, tail = frames[:, 1: HALF + 1], frames[:, FFT_SIZE - 1: HALF - 1: -1]
    return np.add(head, tail), np.subtract(head, tail)


def folded_basis(basis: NDArray[np.float32]) -> tuple[NDArray[np.float32],
                                                      NDArray[np.float32]]:
    """The model's (258, 256) STFT basis as the two (128 x 129) matrices that the
    :func:`folded_frames` sums and differences multiply, for the real and the imaginary
    part: the file's own values at samples 1..128 (not recomputed), the middle sample's
    halved (exact in binary) because its sum counts it twice.

    The fold is exact only for a basis with real rows even (``b[k, n] == b[k, 256 - n]``)
    and imaginary rows odd about sample 128, and a zero column 0; Silero's is, to the
    bit, and any other basis is refused rather than folded wrongly.
    """
    real, imag = basis[:BINS], basis[BINS:]
    mirrored = FFT_SIZE - np.arange(1, HALF)
    if not (np.array_equal(real[:, 1:HALF], real[:, mirrored])
            and np.array_equal(imag[:, 1:HALF], -imag[:, mirrored])
            and not basis[:, 0].any() and not imag[:, HALF].any()):
        raise ValueError("the STFT basis is not a symmetric-window DFT; it cannot be folded")
    folded_real = real[:, 1: HALF + 1].T.copy()
    folded_real[-1] /= 2
    return folded_real, np.ascontiguousarray(imag[:, 1: HALF + 1].T)


def fold_workspace(windows: int) -> NDArray[np.float32]:
    """Memory for :func:`signal_folded` on up to ``windows`` windows, to be reused from
    call to call. Fresh arrays of this size cost their page faults again and again: in a
    VAD worker (files read, decoded and padded one after another) the C allocator hands
    such arrays back to the system when they are freed, and the page faults of a new
    folded and padded file each time took about three times the folding's arithmetic
    (200,000 faults on the 196 files of the full-size tree against 16,000 before the fold;
    12,000 with the memory reused)."""
    return np.empty((3, windows * FRAMES, HALF), dtype=np.float32)


def signal_folded(padded: NDArray[np.float32], first: int, count: int,
                  workspace: NDArray[np.float32] | None = None
                  ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """:func:`folded_frames` of the :func:`stft_frames` of windows ``first`` to ``first +
    count`` of a :func:`padded_signal`, computed from it with whole-array operations
    instead of building the framed rows and cutting and folding their frames.

    Frames start every 128 samples (``HOP``), so with the signal cut into hops ``H``,
    frame ``m`` (window ``m // 4``, frame ``m % 4``) is ``H[m]`` then ``H[m + 1]``, and its
    partner samples ``x[256 - n]`` (n = 1..128) are ``H[m + 1]`` read backwards: with
    every hop reversed once, the sums and differences of all frames are one contiguous
    addition and subtraction. Frame 3 of each window, which ends in the reflection
    (its sample ``192 + k`` is window sample ``510 - k``), is then redone from the
    window: ``x[n]`` is window sample ``320 + n``, and its partner window sample
    ``446 + n`` for n <= 64 and ``576 - n`` beyond.

    With a ``workspace`` (:func:`fold_workspace`), the sums and differences returned are
    views of it, valid until the next call that uses it.

    >>> from speecheval.vad.silero_model import framed_blocks
    >>> x = np.random.default_rng(0).standard_normal(2000).astype(np.float32)  # 4 windows
    >>> rows = np.concatenate(list(framed_blocks(x, 16_000, 1 << 20)))
    >>> padded, want = padded_signal(x), folded_frames(stft_frames(rows[1:4]))
    >>> got = signal_folded(padded, 1, 3)
    >>> all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
    True
    >>> reused = signal_folded(padded, 1, 3, np.full((3, 40, 128), 7, dtype=np.float32))
    >>> all(np.array_equal(a, b) for a, b in zip(reused, want, strict=True))
    True
    """
    positions = count * FRAMES
    span = padded[first * WINDOW: first * WINDOW + CONTEXT + count * WINDOW]
    if workspace is None:
        workspace = fold_workspace(count)
    reversed_hops, sums, differences = workspace[:, :positions]
    np.copyto(reversed_hops, span[: positions * HOP].reshape(positions, HOP)[:, ::-1])
    head = span[1: 1 + (positions - 1) * HOP]
    tail = reversed_hops[1:].reshape(-1)  # row m + 1 reversed: x[256 - n] of frame m
    np.add(head, tail, out=sums[:-1].reshape(-1))
    np.subtract(head, tail, out=differences[:-1].reshape(-1))
    head_3, tail_3 = _last_frame_pairs(span[CONTEXT:].reshape(count, WINDOW))
    np.add(head_3, tail_3, out=sums.reshape(count, FRAMES, HALF)[:, -1])
    np.subtract(head_3, tail_3, out=differences.reshape(count, FRAMES, HALF)[:, -1])
    return sums, differences


def _last_frame_pairs(windows: NDArray[np.float32]
                      ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Frame 3's ``x[n]`` and ``x[256 - n]`` (n = 1..128) for each row of ``windows``.

    Frame 3 is the window's last 192 samples (from window sample 320), then their
    reflection (its sample ``192 + k`` is window sample ``510 - k``), so ``x[n]`` is
    window sample ``320 + n`` and its partner is window sample ``446 + n`` for n <= 64
    (in the reflection) and ``576 - n`` beyond: slices, not a gather (numpy gathers
    columns several times slower).
    """
    start = WINDOW - (CONTEXT + WINDOW - (FRAMES - 1) * HOP)  # 320
    reflected = FFT_SIZE - (WINDOW - start)  # pairs 1..64 meet the reflection
    partner = np.empty((windows.shape[0], HALF), dtype=np.float32)
    partner[:, :reflected] = windows[:, WINDOW - 1 - reflected: WINDOW - 1]
    partner[:, reflected:] = windows[:, WINDOW - 1: start + HALF - 1: -1]
    return windows[:, start + 1: start + HALF + 1], partner


def _ints(name: str, *values: int) -> bytes:
    return wire.tensor(name, np.array(values, dtype=np.int64))


def conv_matrix(weight: NDArray[np.float32], frames_in: int, stride: int
                ) -> NDArray[np.float32]:
    """A kernel-3, padding-1 convolution over ``frames_in`` frames as one dense matrix.

    Inputs and outputs are laid out channel after channel (index ``channel * frames +
    frame``), so a window's whole feature map is one row and the layer is one product;
    channel-major rows also sum each output in the order a convolution does (channel,
    then tap), which keeps the rounding as small as the sequence model's (frame-major
    rows measured about 1.5x larger errors). Output frame t, tap k reads input frame
    ``stride * t + k - 1``; taps that fall in the padding get no entry (they only ever
    multiply zeros).

    Rows are input frames, columns output frames; with taps 1, 2, 3, entry (s, t) is
    tap ``s - stride * t + 1`` plus one:

    >>> w = np.arange(1, 4, dtype=np.float32).reshape(1, 1, 3)
    >>> conv_matrix(w, 4, 1).astype(int).tolist()
    [[2, 1, 0, 0], [3, 2, 1, 0], [0, 3, 2, 1], [0, 0, 3, 2]]
    >>> conv_matrix(w, 4, 2).astype(int).tolist()
    [[2, 0], [3, 1], [0, 2], [0, 3]]
    """
    out_channels, in_channels, taps = weight.shape
    frames_out = (frames_in + 2 - taps) // stride + 1
    matrix = np.zeros((in_channels, frames_in, out_channels, frames_out), dtype=np.float32)
    for t in range(frames_out):
        for k in range(taps):
            source = stride * t + k - 1
            if 0 <= source < frames_in:
                matrix[:, source, :, t] = weight[:, :, k].T
    return matrix.reshape(in_channels * frames_in, out_channels * frames_out)


# The input frames each output frame of the first convolution reads (kernel 3, padding 1,
# stride 1): frames t - 1 to t + 1 that exist, as a range of frames.
ENC0_INPUTS = tuple((max(t - 1, 0), min(t + 2, FRAMES)) for t in range(FRAMES))


def frame_major_rows(matrix: NDArray[np.float32], channels: int, frames: int
                     ) -> NDArray[np.float32]:
    """A :func:`conv_matrix` whose input comes frame after frame (index ``frame *
    channels + channel``) instead of channel after channel: the same rows, reordered.

    >>> m = np.arange(4, dtype=np.float32).reshape(4, 1)  # rows c0f0, c0f1, c1f0, c1f1
    >>> frame_major_rows(m, 2, 2)[:, 0].tolist()  # f0c0, f0c1, f1c0, f1c1
    [0.0, 2.0, 1.0, 3.0]
    """
    return np.ascontiguousarray(
        matrix.reshape(channels, frames, -1).transpose(1, 0, 2).reshape(channels * frames, -1))


def enc0_per_frame(weight: NDArray[np.float32]) -> dict[str, NDArray[np.float32]]:
    """The first convolution as one matrix per output frame t, over the spectrum's
    frames ``ENC0_INPUTS[t]`` laid frame after frame (``enc0_w{t}``): the dense
    :func:`conv_matrix` less its zero blocks (10 of its 16 frame pairs are used: 165k
    products a window instead of 264k), each product a contiguous slice of the
    spectrum.
    """
    out_channels, in_channels, _ = weight.shape
    dense = frame_major_rows(conv_matrix(weight, FRAMES, 1), in_channels, FRAMES)
    by_output = dense.reshape(FRAMES * in_channels, out_channels, FRAMES)
    return {f"enc0_w{t}": np.ascontiguousarray(by_output[low * in_channels: high * in_channels,
                                                         :, t])
            for t, (low, high) in enumerate(ENC0_INPUTS)}


def _dense(source: str, layer: str) -> list[bytes]:
    """``relu(source @ {layer}_w + {layer}_b)``."""
    return [wire.node("MatMul", [source, f"{layer}_w"], [f"{layer}_product"]),
            wire.node("Add", [f"{layer}_product", f"{layer}_b"], [f"{layer}_biased"]),
            wire.node("Relu", [f"{layer}_biased"], [layer])]


def batched_model(model: bytes) -> bytes:
    """The batched graph, as ONNX bytes, with the 16 kHz weights of ``model`` (the bytes
    of ``silero_vad.onnx``).

    Inputs: ``sums`` and ``differences`` (4 folded STFT frames per window, from
    :func:`signal_folded` or :func:`folded_frames`), ``h`` and ``c`` (1, 1, 128).
    Outputs: ``speech_probs`` (one per window), ``hn``, ``cn``.

    It is :func:`encoder_nodes`, then the windows' features as a sequence of batch 1 for
    :func:`decoder_nodes`: the nodes of :func:`encoder_model` and
    :func:`grouped_decoder_model`, which run it in two parts over several files.
    """
    file_weights = read_weights(model)
    weights = encoder_weights(file_weights) | decoder_weights(file_weights)
    nodes = [*encoder_nodes(),
             wire.node("Reshape", ["enc3", "sequence"], ["lstm_in"]),
             *decoder_nodes("lstm_in"),
             wire.node("Reshape", ["probs", "flat"], ["speech_probs"])]
    return wire.model("silero_batched_16k", nodes,
                      [*_initializers(weights), *encoder_shapes(),
                       _ints("sequence", -1, 1, STATE_WIDTH), *decoder_shapes(), _ints("flat", -1)],
                      ["sums", "differences", "h", "c"], ["speech_probs", "hn", "cn"])


def encoder_model(model: bytes) -> bytes:
    """Everything before the LSTM (:func:`encoder_nodes`), as ONNX bytes: inputs ``sums``
    and ``differences``, output ``enc3``, the (windows, 128) features the LSTM reads."""
    return wire.model("silero_encoder_16k", encoder_nodes(),
                      [*_initializers(encoder_weights(read_weights(model))),
                       *encoder_shapes()],
                      ["sums", "differences"], ["enc3"])


def grouped_decoder_model(model: bytes) -> bytes:
    """The LSTM and output layer (:func:`decoder_nodes`) over several files at once, as
    ONNX bytes: input ``features`` (windows, files, 128), each file's :func:`encoder_model`
    rows in its own batch column, and ``h`` and ``c`` (1, files, 128); output ``probs``
    (windows * files, 1), window after window, file after file within a window.

    Each step's recurrent product then has a row per file (a small matrix product
    instead of a vector product per file); a row's sums are the same as alone, so each
    file's probabilities are bit for bit those of :func:`batched_model` (tested).
    """
    return wire.model("silero_grouped_decoder_16k", decoder_nodes("features"),
                      [*_initializers(decoder_weights(read_weights(model))),
                       *decoder_shapes()],
                      ["features", "h", "c"], ["probs"])


def encoder_weights(w: dict[str, NDArray[np.float32]]) -> dict[str, NDArray[np.float32]]:
    """The STFT and convolution matrices :func:`encoder_nodes` multiplies by.

    The first convolution runs per output frame (:func:`enc0_per_frame`); its outputs
    come frame after frame, so the second one's rows are put in that order.
    """
    real, imag = folded_basis(w["stft.forward_basis_buffer"][:, 0, :])
    weights = {"basis_real": real, "basis_imag": imag}
    weights |= enc0_per_frame(w["encoder.0.reparam_conv.weight"])
    weights["enc0_b"] = np.tile(w["encoder.0.reparam_conv.bias"], FRAMES)
    frames, stride = FRAMES, (1, 2, 2, 1)
    for index in range(1, 4):
        weight = w[f"encoder.{index}.reparam_conv.weight"]
        matrix = conv_matrix(weight, frames, stride[index])
        weights[f"enc{index}_w"] = (frame_major_rows(matrix, weight.shape[1], frames)
                                    if index == 1 else matrix)
        frames = (frames - 1) // stride[index] + 1
        weights[f"enc{index}_b"] = np.repeat(w[f"encoder.{index}.reparam_conv.bias"], frames)
    return weights


def decoder_weights(w: dict[str, NDArray[np.float32]]) -> dict[str, NDArray[np.float32]]:
    """The LSTM's and the output layer's weights, the LSTM's as the ONNX ``LSTM`` node
    takes them: :func:`onnx_gate_order`, one direction, both biases in one row."""
    return {"out_w": w["decoder.decoder.2.weight"][:, :, 0].T,
            "out_b": w["decoder.decoder.2.bias"],
            "lstm_w": onnx_gate_order(w["decoder.rnn.weight_ih"])[None],
            "lstm_r": onnx_gate_order(w["decoder.rnn.weight_hh"])[None],
            "lstm_b": np.concatenate([onnx_gate_order(w["decoder.rnn.bias_ih"]),
                                      onnx_gate_order(w["decoder.rnn.bias_hh"])])[None]}


def onnx_gate_order(stacked: NDArray[np.float32]) -> NDArray[np.float32]:
    """PyTorch's LSTM gate blocks (input, forget, cell, output) in the order of the ONNX
    ``LSTM`` node (input, output, forget, cell): the same rows, moved, not recomputed.

    >>> onnx_gate_order(np.arange(4, dtype=np.float32)).tolist()
    [0.0, 3.0, 1.0, 2.0]
    """
    gate_in, forget, cell, gate_out = np.split(stacked, 4)
    return np.concatenate([gate_in, gate_out, forget, cell])


def _initializers(weights: dict[str, NDArray[np.float32]]) -> list[bytes]:
    return [wire.tensor(name, np.ascontiguousarray(value)) for name, value in weights.items()]


def encoder_shapes() -> list[bytes]:
    """The shape and slice constants of :func:`encoder_nodes`."""
    return [_ints("by_window", -1, FRAMES * BINS), _ints("columns", 1),
            *(_ints(f"enc0_{edge}{t}", (at * BINS))
              for t, span in enumerate(ENC0_INPUTS)
              for edge, at in zip(("from", "to"), span, strict=True))]


def decoder_shapes() -> list[bytes]:
    """The shape constant of :func:`decoder_nodes`."""
    return [_ints("hidden", -1, STATE_WIDTH)]


def encoder_nodes() -> list[bytes]:
    """From ``sums`` and ``differences`` to ``enc3``: the folded STFT's magnitude, then
    the four convolutions, one row of features per window."""
    return [
        wire.node("MatMul", ["sums", "basis_real"], ["real"]),
        wire.node("MatMul", ["differences", "basis_imag"], ["imag"]),
        wire.node("Mul", ["real", "real"], ["real2"]),
        wire.node("Mul", ["imag", "imag"], ["imag2"]),
        wire.node("Add", ["real2", "imag2"], ["power"]),
        wire.node("Sqrt", ["power"], ["magnitude"]),
        wire.node("Reshape", ["magnitude", "by_window"], ["spectrum"]),
        *(node for t in range(FRAMES) for node in (
            wire.node("Slice", ["spectrum", f"enc0_from{t}", f"enc0_to{t}", "columns"],
                      [f"enc0_in{t}"]),
            wire.node("MatMul", [f"enc0_in{t}", f"enc0_w{t}"], [f"enc0_out{t}"]))),
        wire.node("Concat", [f"enc0_out{t}" for t in range(FRAMES)], ["enc0_product"], axis=1),
        wire.node("Add", ["enc0_product", "enc0_b"], ["enc0_biased"]),
        wire.node("Relu", ["enc0_biased"], ["enc0"]),
        *_dense("enc0", "enc1"),
        *_dense("enc1", "enc2"), *_dense("enc2", "enc3"),
    ]


def decoder_nodes(source: str) -> list[bytes]:
    """From the LSTM's input sequence ``source`` (windows, batch, 128) and state ``h``,
    ``c`` to ``probs`` (windows * batch, 1), and the last state ``hn``, ``cn``."""
    return [
        wire.node("LSTM", [source, "lstm_w", "lstm_r", "lstm_b", "", "h", "c"],
                  ["lstm_out", "hn", "cn"], hidden_size=STATE_WIDTH),
        wire.node("Reshape", ["lstm_out", "hidden"], ["lstm_flat"]),
        wire.node("Relu", ["lstm_flat"], ["decoder_in"]),
        wire.node("MatMul", ["decoder_in", "out_w"], ["logit_product"]),
        wire.node("Add", ["logit_product", "out_b"], ["logit"]),
        wire.node("Sigmoid", ["logit"], ["probs"]),
    ]


# Where the exported streaming model keeps its 16 kHz weights: the constants of the then
# branch of its top-level ``If`` on the sample rate (the else branch holds the 8 kHz ones).
BRANCH_16K = "If_0_then_branch__Inline_0__"


def read_weights(model: bytes) -> dict[str, NDArray[np.float32]]:
    """The float weights of the 16 kHz branch of ``silero_vad.onnx`` (``model``, its
    bytes), by their PyTorch names (``encoder.0.reparam_conv.weight``, ...).

    The branch is recognised by its STFT basis: 258 rows (129 bins, real and imaginary)
    of 256 samples; a model without it is refused rather than misread.
    """
    weights = {name.removeprefix(BRANCH_16K): value.astype(np.float32, copy=False)
               for name, value in wire.read_constants(model).items()
               if name.startswith(BRANCH_16K) and value.dtype == np.float32}
    basis = weights.get("stft.forward_basis_buffer")
    if basis is None or basis.shape != (2 * BINS, 1, FFT_SIZE):
        raise ValueError("the model has no 16 kHz Silero branch with a 258 x 256 STFT basis")
    return weights


def batched_session(model: bytes, options: ort.SessionOptions) -> ort.InferenceSession:
    """An onnxruntime session of the batched graph built from ``model``."""
    return _session(batched_model(model), options)


def grouped_sessions(model: bytes, options: ort.SessionOptions
                     ) -> tuple[ort.InferenceSession, ort.InferenceSession]:
    """Sessions of :func:`encoder_model` and :func:`grouped_decoder_model` built from
    ``model``."""
    return (_session(encoder_model(model), options),
            _session(grouped_decoder_model(model), options))


def _session(model: bytes, options: ort.SessionOptions) -> ort.InferenceSession:
    import onnxruntime as ort

    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
