"""Several 16 kHz files scored at once, their LSTM steps run as one batch
(``SileroOnnx.batched_probabilities_many``, ``SileroVad.segments_many``).

The contract is bit identity: every file's probabilities are ``np.array_equal`` to
``batched_probabilities`` of that file alone, whatever its companions, so the grouped path
changes no number and needs no new ``computation_16k``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from speecheval.core.audio import Audio
from speecheval.core.errors import InputError
from speecheval.vad import silero_model
from speecheval.vad.silero import SileroVad

from .audio_cases import RATE, at_rate, join, noise, parity_cases, silence, speech

BLOCK = silero_model.BATCHED_BLOCK_WINDOWS  # 2048


@cache
def onnx() -> silero_model.SileroOnnx:
    return silero_model.SileroOnnx(silero_model.locate_model_files())


@cache
def vad() -> SileroVad:
    return SileroVad()


def long_speech(n_samples: int) -> NDArray[np.float32]:
    """Speech, pauses and noise repeated to ``n_samples`` samples."""
    clip = join(silence(300), speech("a"), silence(400), speech("b"), noise(700, 0.05, seed=5))
    return np.tile(clip, -(-n_samples // clip.size))[:n_samples].copy()


def group() -> dict[str, NDArray[np.float32]]:
    """Files of differing lengths, window counts in the names (ceil(samples / 512))."""
    a = speech("a")
    return {
        "speech_292": long_speech(292 * 512 - 200),   # partial last window
        "silence_63": silence(2000),                  # 32000 / 512 = 62.5 -> 63
        "noise_94": noise(3000, 0.1, seed=1),         # 48000 / 512 = 93.75 -> 94
        "one_window_1": a[4000:4100].copy(),          # 100 samples
        "partial_2": a[4000:4513].copy(),             # 513 samples: 1 + 1 sample
        "exactly_one_block_2048": long_speech(BLOCK * 512),
        "long_2049": long_speech(BLOCK * 512 + 1),    # one sample past the block: alone
        "empty_0": silence(0),
    }


def test_each_file_gets_its_own_probabilities_bit_for_bit() -> None:
    files = group()
    got = onnx().batched_probabilities_many(list(files.values()))
    for (name, samples), probs in zip(files.items(), got, strict=True):
        alone = onnx().batched_probabilities(samples)
        assert probs.size == int(name.rsplit("_", 1)[1]), name
        assert probs.dtype == np.float32, name
        assert np.array_equal(probs, alone), name


@pytest.mark.parametrize("order", [[3, 0, 2, 1], [1, 2], [2], [0, 1, 2, 3, 0, 1, 2, 3]])
def test_companions_and_order_do_not_change_a_files_rows(order: list[int]) -> None:
    """The same file, first or last, with shorter or longer companions, or twice in one
    group, gets the same bits: each file is its own batch row."""
    files = [long_speech(292 * 512 - 200), noise(3000, 0.1, seed=1),
             long_speech(940 * 512), silence(100)]
    alone = [onnx().batched_probabilities(samples) for samples in files]
    got = onnx().batched_probabilities_many([files[index] for index in order])
    for index, probs in zip(order, got, strict=True):
        assert np.array_equal(probs, alone[index]), index


class _Recorder:
    """Wraps the grouped decoder's session and records the shape of each call's input."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.shapes: list[tuple[int, ...]] = []

    def run(self, names: list[str], feeds: dict[str, NDArray[np.float32]]) -> Any:
        self.shapes.append(feeds["features"].shape)
        return self.session.run(names, feeds)


def test_the_short_files_run_one_lstm_and_a_long_file_goes_alone() -> None:
    """940, 3 and 0 windows: one LSTM call of 940 steps over 3 columns; the file of 2049
    windows (two blocks) is not in it."""
    model = silero_model.SileroOnnx(silero_model.locate_model_files())
    encoder, decoder = model._grouped
    recorder = _Recorder(decoder)
    model.__dict__["_grouped"] = (encoder, recorder)
    files = [long_speech(940 * 512), noise(90, 0.1, seed=2), long_speech((BLOCK + 1) * 512),
             silence(0)]  # 90 ms = 1440 samples -> 3 windows
    got = model.batched_probabilities_many(files)
    assert recorder.shapes == [(940, 3, 128)]
    assert [probs.size for probs in got] == [940, 3, BLOCK + 1, 0]


def test_no_file_and_only_empty_files_need_no_lstm() -> None:
    assert onnx().batched_probabilities_many([]) == []
    got = onnx().batched_probabilities_many([silence(0), silence(0)])
    assert [probs.size for probs in got] == [0, 0]


def test_segments_many_equals_segments_file_by_file() -> None:
    """Every parity clip with the default settings, 8 kHz and resampled rates mixed in
    (8 kHz goes the streaming way, the rest is grouped), plus two long speech files."""
    audios = [case.audio for case in parity_cases()]
    audios += [Audio(long_speech(BLOCK * 512), RATE), Audio(long_speech(BLOCK * 512 + 1), RATE)]
    assert {audio.rate for audio in audios} >= {8_000, 16_000, 22_050, 48_000}
    one_by_one = [vad().segments(audio) for audio in audios]
    assert any(one_by_one) and not all(one_by_one)
    assert vad().segments_many(audios) == one_by_one


def test_a_group_with_an_8k_file_keeps_each_files_segments() -> None:
    talk = join(silence(300), speech("a"), silence(400), speech("b"), silence(500))
    audios = [Audio(talk, RATE), at_rate(talk, 8_000), Audio(talk[::-1].copy(), RATE)]
    got = vad().segments_many(audios, paths=["a.wav", "b.wav", "c.wav"])
    assert got == [vad().segments(audio) for audio in audios]
    assert all(got)


def test_a_bad_file_raises_what_segments_raises_naming_its_path() -> None:
    bad = speech("a").copy()
    bad[70] = np.nan
    audios = [Audio(speech("b"), RATE), Audio(bad, RATE)]
    with pytest.raises(InputError) as alone:
        vad().segments(audios[1], path="bad.wav")
    with pytest.raises(InputError) as grouped:
        vad().segments_many(audios, paths=["good.wav", "bad.wav"])
    assert str(grouped.value) == str(alone.value)
    assert "bad.wav" in str(grouped.value) and "sample 70" in str(grouped.value)


def test_paths_must_match_the_audios() -> None:
    with pytest.raises(ValueError, match="2 audios but 1 paths"):
        vad().segments_many([Audio(silence(10), RATE)] * 2, paths=["one.wav"])


def test_sessions_are_made_when_first_needed() -> None:
    """A VAD worker that only segments groups makes the encoder's and the grouped
    decoder's sessions, not the single batched graph's (some 45 ms each); a live stream
    makes that one up front, so that its first window does not wait for it."""
    from speecheval.vad import silero_stream

    fresh = silero_model.SileroOnnx(silero_model.locate_model_files())
    fresh.batched_probabilities_many([speech("a"), speech("b")])
    assert "_grouped" in vars(fresh) and "_batched" not in vars(fresh)
    silero_stream._shared_model.cache_clear()
    silero_stream.SileroStream(RATE)
    assert "_batched" in vars(silero_stream._shared_model())


def test_the_graphs_are_pinned_with_their_computation_label() -> None:
    """The three graphs built from the pinned ``silero_vad.onnx``, by SHA-256 of their
    ONNX bytes. The tests above compare the graphs with one another; this pins them, so
    that a change to how they are built cannot pass unnoticed: a changed hash means new
    arithmetic, and with it a new ``COMPUTATION`` (the VAD cache keys on it), not a new
    hash here alone. These are the digests the graphs had when they were built from
    silero-vad 6.2.3's ``silero_vad_16k_sequence.onnx``: the same bytes from the
    streaming model's 16 kHz branch, so the same numbers."""
    import hashlib

    from speecheval.vad import silero_batched

    model = silero_model.locate_model_files().model_bytes()
    assert hashlib.sha256(model).hexdigest().startswith("1a153a22f4509e29")
    built = {build.__name__: hashlib.sha256(build(model)).hexdigest()[:16]
             for build in (silero_batched.batched_model, silero_batched.encoder_model,
                           silero_batched.grouped_decoder_model)}
    assert built == {"batched_model": "4a3c2a001b119caf", "encoder_model": "4dce30eceee6954d",
                     "grouped_decoder_model": "ab34fed6be1ff213"}
    assert silero_batched.COMPUTATION == "speecheval-batched-matmul-3"
