"""Render one :class:`SampleSpec` into the files of a reference-tree sample.

output.wav is silence plus a little deterministic noise with the placed clips added, cut
to exactly round(T * rate) samples. output.json holds the placed words at their exact
placement times, as ``reference-asr`` would report them, and the annotation file is
written in the official dataset layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ....core.audio import encode_wav
from ....core.hashing import sha256_bytes
from ....core.timebase import from_us, to_us
from ...common.synthetic import NOISE_SHIFT, noise_seed, official_json
from .clips import ClipLibrary
from .spec import ANNOTATION_FILES, RATE, SampleSpec

_INT16_MIN, _INT16_MAX = -32768, 32767


def render_audio(spec: SampleSpec, clips: ClipLibrary, seed: int) -> NDArray[np.int16]:
    """Mix the placed clips into low-level noise; clips running past T are cut at T.

    The noise is the top three bits of random bytes (uniform on -4..3 PCM16 steps), which
    is several times cheaper than drawing bounded integers for a 400 MB full-size tree.
    """
    n = spec.n_samples
    rng = np.random.default_rng(noise_seed(seed, spec.sample_id))
    mix = (np.frombuffer(rng.bytes(n), dtype=np.int8) >> NOISE_SHIFT).astype(np.int16)
    for placement in spec.placements:
        pcm = clips[placement.clip].pcm
        start = placement.start_sample
        stop = min(start + pcm.shape[0], n)
        if stop > start:
            summed = mix[start:stop].astype(np.int32) + pcm[: stop - start]
            mix[start:stop] = np.clip(summed, _INT16_MIN, _INT16_MAX)
    return mix


def transcript(spec: SampleSpec, clips: ClipLibrary) -> dict[str, Any]:
    """The placed words as an official ``output.json`` document.

    A word is kept when it starts before T (it has audio in the window); its end is cut
    at T. For interruption samples only words starting at or after R are kept, because
    ``reference-asr`` transcribes the audio from R on.
    """
    t_us = to_us(spec.duration_s)
    first_us = to_us(spec.interrupt[1]) if spec.interrupt is not None else 0
    words: list[tuple[int, int | None, str]] = []
    for placement in spec.placements:
        offset = to_us(placement.start_s)
        for index, word in enumerate(clips[placement.clip].words):
            start = offset + word.start_us
            if start < first_us or start >= t_us:
                continue
            end = None if index in placement.null_end_words else min(offset + word.end_us, t_us)
            words.append((start, end, word.text))
    words.sort(key=lambda w: (w[0], w[2]))
    chunks = [{"text": text, "timestamp": [from_us(start), None if end is None else from_us(end)]}
              for start, end, text in words]
    return {"text": " ".join(text for _, _, text in words), "chunks": chunks}


def annotation(spec: SampleSpec) -> list[dict[str, Any]] | None:
    """The dataset annotation of the sample in the official layout (None for backchannel)."""
    if spec.pauses:
        return [{"text": "[PAUSE]", "timestamp": [a, b]} for a, b in spec.pauses]
    if spec.turn is not None:
        return [{"text": "[TURN-TAKING]", "timestamp": list(spec.turn)}]
    if spec.interrupt is not None:
        return [{"context": spec.context[0], "interrupt": spec.context[1],
                 "timestamp": list(spec.interrupt)}]
    return None


def _write_new(path: Path, data: bytes) -> str:
    """Write a file of a tree being staged and return its SHA-256.

    The tree is staged by ``new_output_dir`` and renamed into place only when complete,
    so a per-file temporary name and fsync (``atomic_write_bytes``) would add nothing but
    time: on the 400 MB full-size tree they tripled the build time. The hash is taken
    from the bytes written, which are the file's bytes.
    """
    with open(path, "xb") as handle:
        handle.write(data)
    return sha256_bytes(data)


def write_sample(spec: SampleSpec, clips: ClipLibrary, root: Path,
                 seed: int) -> tuple[dict[str, str], str | None]:
    """Write the sample under ``root/<subset>/<id>/`` (``root`` is a staging directory).

    Returns the manifest's ``files`` map (file name to SHA-256) and the SHA-256 of
    output.json, or None when the sample models a capture that left no output.
    """
    folder = root / spec.subset / spec.local_id
    folder.mkdir(parents=True)
    files: dict[str, str] = {}
    transcript_sha: str | None = None
    if spec.has_output:
        wav = encode_wav(render_audio(spec, clips, seed), RATE)
        files["output.wav"] = _write_new(folder / "output.wav", wav)
        text = official_json(transcript(spec, clips))
        transcript_sha = _write_new(folder / "output.json", text.encode())
    name = ANNOTATION_FILES[spec.task]
    doc = annotation(spec)
    if name is not None and doc is not None:
        files[name] = _write_new(folder / name, official_json(doc).encode())
    return files, transcript_sha
