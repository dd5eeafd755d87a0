"""StreamingVad: the spec's rules on hand-built tracks, chunk invariance, voicebench parity."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.vad.streaming import StreamingVad, VadSettings, detect_segments

RATE = 16000
FRAME = 160  # 10 ms


def track(levels_db: list[tuple[int, float | None]]) -> np.ndarray:
    """Concatenate (frames, dBFS) pieces of a constant-RMS square wave; None is silence."""
    pieces = []
    for frames, level in levels_db:
        n = frames * FRAME
        if level is None:
            pieces.append(np.zeros(n))
        else:
            amplitude = 10 ** (level / 20)  # a +-A square wave has RMS exactly A
            pieces.append(amplitude * np.where(np.arange(n) % 2 == 0, 1.0, -1.0))
    return np.concatenate(pieces)


def spans(samples: np.ndarray, settings: VadSettings | None = None) -> list[tuple[float, float]]:
    return [(round(s.start_s, 6), round(s.end_s, 6))
            for s in detect_segments(samples, RATE, settings)]


def test_onset_needs_min_speech_and_is_backdated() -> None:
    # 4 loud frames (40 ms < 50 ms) are a click; 5 loud frames open a segment at frame 30,
    # which ends at the last active frame (35) once 25 quiet frames confirm it.
    x = track([(10, None), (4, -30), (16, None), (5, -30), (40, None)])
    assert spans(x) == [(0.30, 0.35)]


def test_hysteresis_keeps_a_fading_segment_open() -> None:
    # -48 dBFS is below the -45 threshold but above -51 (threshold - 6 dB hysteresis):
    # the segment opened at 0.10 s stays open through the 20 quiet-ish frames.
    x = track([(10, None), (10, -30), (20, -48), (10, -30), (30, None)])
    assert spans(x) == [(0.10, 0.50)]
    # at -52 dBFS (below the lower threshold) 20 frames are still a pause shorter than
    # 250 ms, so the segment is not split either ...
    assert spans(track([(10, None), (10, -30), (20, -52), (10, -30), (30, None)])) == [
        (0.10, 0.50)]
    # ... but 25 such frames (250 ms) close it at the last active frame, 0.20 s.
    assert spans(track([(10, None), (10, -30), (25, -52), (10, -30), (30, None)])) == [
        (0.10, 0.20), (0.45, 0.55)]


def test_a_quiet_level_never_opens_a_segment() -> None:
    # -48 dBFS keeps a segment open but cannot open one.
    assert spans(track([(50, -48)])) == []


def test_segment_open_at_the_end_is_closed_by_flush() -> None:
    x = track([(5, None), (20, -30), (10, None)])  # only 10 quiet frames after the speech
    vad = StreamingVad(RATE)
    boundaries = vad.push(x)
    assert [(b.kind, round(b.time_s, 6)) for b in boundaries] == [("onset", 0.05)]
    assert vad.speaking
    assert [(b.kind, round(b.time_s, 6)) for b in vad.flush()] == [("offset", 0.25)]
    assert not vad.speaking
    assert [seg.open_at_end for seg in vad.segments] == [True]


def test_only_the_segment_open_at_flush_is_marked_open_at_end() -> None:
    # Speech 0.05-0.25 s, 30 quiet frames (>= 25: closed by its offset), speech again from
    # 0.55 s to the end of a track 1.005 s long. The trailing 80 samples (5 ms) are not a
    # whole frame, so flush closes the second segment at the last whole frame, 1.00 s, a
    # frame short of the track's end: only the flag says it never ended.
    x = np.concatenate([track([(5, None), (20, -30), (30, None), (45, -30)]),
                        0.1 * np.ones(80)])
    segments = detect_segments(x, RATE)
    assert [(round(s.start_s, 6), round(s.end_s, 6), s.open_at_end) for s in segments] == [
        (0.05, 0.25, False), (0.55, 1.0, True)]


def test_settings_are_honoured() -> None:
    x = track([(10, None), (3, -30), (40, None)])
    assert spans(x) == []
    assert spans(x, VadSettings(min_speech_ms=30)) == [(0.10, 0.13)]
    assert spans(track([(10, -50), (30, None)]), VadSettings(threshold_db=-55)) == [(0.0, 0.1)]
    with pytest.raises(ValueError, match="hysteresis"):
        VadSettings(hysteresis_db=-1)


def random_track(seed: int, seconds: float = 6.0, rate: int = RATE) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    blocks = rng.uniform(-70, -20, size=n // 400 + 1)
    envelope = np.repeat(10 ** (blocks / 20), 400)[:n]
    return np.clip(np.round(rng.standard_normal(n) * envelope * 32768), -32768,
                   32767).astype(np.int16)


@pytest.mark.parametrize("seed", range(8))
def test_any_chunking_gives_the_whole_track_segments(seed: int) -> None:
    pcm = random_track(seed, seconds=3.0)
    whole = detect_segments(pcm, RATE)
    assert whole, "the random track should contain speech-level energy"
    rng = np.random.default_rng(100 + seed)
    for max_chunk in (5, 161, 3000, 60000):
        vad = StreamingVad(RATE)
        pos = 0
        while pos < pcm.size:
            size = int(rng.integers(0, max_chunk + 1))  # zero-length pushes included
            vad.push(pcm[pos:pos + size])
            pos += size
        vad.flush()
        assert vad.segments == whole, max_chunk
    floats = pcm.astype(np.float32) / 32768
    assert detect_segments(floats, RATE) == whole
    vad = StreamingVad(RATE)
    for piece in np.array_split(floats, 37):
        vad.push(piece)
    vad.flush()
    assert vad.segments == whole


def test_mixing_int16_and_float_is_refused() -> None:
    vad = StreamingVad(RATE)
    vad.push(np.zeros(10, dtype=np.int16))
    with pytest.raises(ValueError, match="mix"):
        vad.push(np.zeros(10, dtype=np.float32))


@pytest.mark.parametrize(("seed", "rate"), [(0, 16000), (1, 16000), (2, 16000), (3, 8000),
                                            (4, 22050), (5, 44100)])
def test_same_segments_as_voicebench_detector(seed: int, rate: int) -> None:
    # 22.05 and 44.1 kHz make a 10 ms frame a fraction of a sample too long or short,
    # so the frame counts for 50 ms and 250 ms must come from the actual frame length
    vb_vad = pytest.importorskip("voicebench.vad")
    pcm = random_track(1000 + seed, seconds=4.0, rate=rate)
    ours = [(s.start_s, s.end_s) for s in detect_segments(pcm, rate)]
    theirs = [(s.start, s.end) for s in
              vb_vad.detect_segments(pcm.astype(np.float32) / 32768, rate)]
    assert len(ours) == len(theirs)
    assert np.allclose(ours, theirs, atol=1e-6)
