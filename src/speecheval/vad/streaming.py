"""Energy speech detector for live-session tracks (spec: voice-agent-session-metrics).

The detector works on fixed analysis frames (``frame_ms``, 10 ms by default):

1. each frame's RMS level is compared with ``threshold_db`` (default -45 dBFS);
2. a segment opens once the level stays at or above the threshold for ``min_speech_ms``;
3. an open segment stays open while the level stays at or above
   ``threshold_db - hysteresis_db``;
4. it closes after ``min_silence_ms`` below that lower threshold;
5. onsets and offsets are backdated to the first and last active frame.

Why the state machine runs over *runs* of frames rather than frame by frame: an hour of
16 kHz audio is 360 000 frames, and a Python loop over them dominates the cost. Here the
frame energies are computed with numpy, the lengths of the runs of loud and quiet frames
are computed with cumulative maxima, and Python only loops once per detected boundary.
A push of a few frames (a live packet) takes a plain per-frame loop instead, which is
cheaper at that size. State carried between :meth:`StreamingVad.push` calls (the length
of the current loud or quiet run) makes any chunking give the same boundaries as the
whole track; int16 energies are exact integers, so both paths decide identically.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..core.audio import Audio
from ..core.timeline import Span

# Energies are compared against thresholds scaled by full scale squared for int16 input.
_INT16_FULL_SCALE = 32768.0
# Frames are reduced in blocks so a one-hour float track never needs one huge float64 copy.
_BLOCK_FRAMES = 1 << 14
# Blocks of at most this many frames run the plain per-frame loop (numpy overhead wins
# only on longer blocks); both paths implement the same state machine and are tested equal.
_SCALAR_FRAMES = 32
# Tolerance when turning millisecond settings into whole frames (50 ms / 10 ms is 5).
_EPS = 1e-9


@dataclass(frozen=True)
class VadSettings:
    """Detector settings; the defaults are the spec's."""

    threshold_db: float = -45.0
    hysteresis_db: float = 6.0
    frame_ms: float = 10.0
    min_speech_ms: float = 50.0
    min_silence_ms: float = 250.0

    def __post_init__(self) -> None:
        if not self.frame_ms > 0:
            raise ValueError("frame_ms must be positive")
        if self.min_speech_ms < 0 or self.min_silence_ms < 0:
            raise ValueError("min_speech_ms and min_silence_ms must not be negative")
        if self.hysteresis_db < 0:
            raise ValueError("hysteresis_db must not be negative")


@dataclass(frozen=True)
class VadBoundary:
    """A confirmed boundary; ``time_s`` is already backdated to the active frame."""

    kind: Literal["onset", "offset"]
    time_s: float


def _native(samples: NDArray[np.int16] | NDArray[np.floating]) -> NDArray[Any]:
    """int16 PCM as it is (its energies are exact in float64), anything else as float64."""
    if samples.dtype == np.int16:
        return samples
    return samples.astype(np.float64, copy=False)


def _frames_needed(ms: float, frame_ms: float) -> int:
    """Whole frames a run must last to cover ``ms`` (at least one).

    >>> _frames_needed(50, 10), _frames_needed(250, 10), _frames_needed(0, 10)
    (5, 25, 1)
    """
    return max(1, math.ceil(ms / frame_ms - _EPS))


def _run_lengths(flags: NDArray[np.bool_], carry: int) -> NDArray[np.int64]:
    """Length of the run of True ending at each position; ``carry`` extends a leading run.

    >>> _run_lengths(np.array([True, True, False, True]), 2).tolist()
    [3, 4, 0, 1]
    """
    n = flags.size
    positions = np.arange(1, n + 1, dtype=np.int64)
    last_break = np.maximum.accumulate(np.where(flags, 0, positions))
    runs = positions - last_break
    runs[last_break == 0] += carry
    return runs


class StreamingVad:
    """Incremental energy detector: :meth:`push` audio in any chunks, then :meth:`flush`.

    Samples are int16 PCM or float in [-1, 1] at ``rate`` Hz. Trailing samples that do
    not fill a whole frame wait for the next push; at :meth:`flush` they are ignored.
    """

    def __init__(self, rate: int, settings: VadSettings | None = None) -> None:
        self.rate = rate
        self.settings = settings or VadSettings()
        self.frame_len = max(1, round(self.settings.frame_ms * rate / 1000.0))
        actual_frame_ms = self.frame_len * 1000.0 / rate  # frame_ms rounded to whole samples
        self._on_frames = _frames_needed(self.settings.min_speech_ms, actual_frame_ms)
        self._off_frames = _frames_needed(self.settings.min_silence_ms, actual_frame_ms)
        # Frame energy (sum of squares) at each threshold, for float samples.
        self._high_energy = self.frame_len * 10.0 ** (self.settings.threshold_db / 10.0)
        self._keep_energy = self.frame_len * 10.0 ** (
            (self.settings.threshold_db - self.settings.hysteresis_db) / 10.0)
        self._int16: bool | None = None
        self._pending = np.zeros(0, dtype=np.float64)
        self._frames = 0
        self._speaking = False
        self._onset_frame = 0
        self._high_run = 0
        self._quiet_run = 0
        self._segments: list[Span] = []

    @property
    def speaking(self) -> bool:
        """True while a confirmed segment is open."""
        return self._speaking

    @property
    def position_s(self) -> float:
        """Seconds of audio consumed into complete frames."""
        return self._time(self._frames)

    @property
    def segments(self) -> list[Span]:
        """Segments closed so far (all of them after :meth:`flush`), rounded to the
        microsecond like every :class:`~speecheval.core.timeline.Span`."""
        return list(self._segments)

    def _time(self, frame: int) -> float:
        return frame * self.frame_len / self.rate

    def push(self, samples: NDArray[np.int16] | NDArray[np.floating]) -> list[VadBoundary]:
        """Consume samples; return the boundaries they confirm, in time order."""
        data = np.asarray(samples)
        self._use_scale(data.dtype == np.int16)
        boundaries: list[VadBoundary] = []
        start = 0
        if not data.size:
            return boundaries
        if self._pending.size:
            start = self.frame_len - self._pending.size
            head = np.concatenate([self._pending, _native(data[:start])])
            if head.size < self.frame_len:
                self._pending = head
                return boundaries
            self._pending = np.zeros(0, dtype=np.float64)
            boundaries.extend(self._frame_block(head.reshape(1, self.frame_len)))
        n_frames = (data.size - start) // self.frame_len
        for first in range(0, n_frames, _BLOCK_FRAMES):
            count = min(_BLOCK_FRAMES, n_frames - first)
            lo = start + first * self.frame_len
            block = _native(data[lo:lo + count * self.frame_len])
            boundaries.extend(self._frame_block(block.reshape(count, self.frame_len)))
        rest = data[start + n_frames * self.frame_len:]
        if rest.size:
            self._pending = _native(rest).copy()  # the caller may reuse its buffer
        return boundaries

    def _use_scale(self, int16: bool) -> None:
        """Fix the sample scale on the first push; mixing int16 and float is a bug."""
        if self._int16 is None:
            self._int16 = int16
            if int16:  # compare int16 energies against thresholds scaled by 2**30 (exact)
                self._high_energy *= _INT16_FULL_SCALE ** 2
                self._keep_energy *= _INT16_FULL_SCALE ** 2
        elif self._int16 != int16:
            raise ValueError("StreamingVad: do not mix int16 and float chunks in one stream")

    def _frame_block(self, frames: NDArray[Any]) -> list[VadBoundary]:
        """Levels of whole frames (one per row), then the state machine over them.

        Energies (sums of squares) are compared with thresholds scaled by the frame
        length, which saves a division per frame and is the same test.
        """
        count = frames.shape[0]
        if count <= _SCALAR_FRAMES and frames.dtype == np.int16:
            # few frames: integer dot products are cheaper than an einsum call, and exact,
            # so the decisions are the same as on the float64 path
            wide = frames.astype(np.int64)
            boundaries = self._advance_frames([int(row @ row) for row in wide])
        else:
            energy = np.einsum("ij,ij->i", frames, frames, dtype=np.float64)
            if count <= _SCALAR_FRAMES:
                boundaries = self._advance_frames(energy.tolist())
            else:
                boundaries = self._advance_runs(energy >= self._high_energy,
                                                energy >= self._keep_energy)
        self._frames += count
        return boundaries

    def _advance_frames(self, energies: list[float] | list[int]) -> list[VadBoundary]:
        """Frame-by-frame state machine; cheaper than numpy for the few frames of a packet."""
        boundaries: list[VadBoundary] = []
        for index, energy in enumerate(energies):
            frame = self._frames + index
            if not self._speaking:
                self._high_run = self._high_run + 1 if energy >= self._high_energy else 0
                if self._high_run == self._on_frames:
                    boundaries.append(self._open(frame - self._on_frames + 1))
                    self._high_run, self._quiet_run = 0, 0
            else:
                self._quiet_run = 0 if energy >= self._keep_energy else self._quiet_run + 1
                if self._quiet_run == self._off_frames:
                    boundaries.append(self._close(frame - self._off_frames + 1))
                    self._high_run, self._quiet_run = 0, 0
        return boundaries

    def flush(self) -> list[VadBoundary]:
        """End the stream: close an open segment at its last active frame.

        That segment is marked ``open_at_end``: the stream ended before an offset was
        confirmed, however many quiet frames (fewer than ``min_silence_ms``) preceded it,
        so its end says nothing about when the speech stopped. Use this flag rather than
        comparing the end with the track length: flush ignores a trailing partial frame,
        so the last active frame ends short of the track whenever the track length is not
        a whole number of frames.
        """
        if not self._speaking:
            return []
        return [self._close(self._frames - self._quiet_run, open_at_end=True)]

    def _open(self, onset_frame: int) -> VadBoundary:
        self._speaking = True
        self._onset_frame = onset_frame
        return VadBoundary("onset", self._time(onset_frame))

    def _close(self, end_frame: int, open_at_end: bool = False) -> VadBoundary:
        self._speaking = False
        self._segments.append(Span.from_seconds(self._time(self._onset_frame),
                                                self._time(end_frame), open_at_end=open_at_end))
        return VadBoundary("offset", self._time(end_frame))

    def _advance_runs(self, high: NDArray[np.bool_],
                      keep: NDArray[np.bool_]) -> list[VadBoundary]:
        """The same state machine over runs of frames, for long blocks.

        A loud run confirms an onset at its ``on_frames``-th frame; a quiet run (below the
        lower threshold) confirms an offset at its ``off_frames``-th frame. Runs cannot
        straddle a state change (a confirming loud frame is never quiet and a closing
        quiet frame is never loud), so the first confirmation at or after the current
        position is always the next boundary.
        """
        base = self._frames
        high_runs = _run_lengths(high, 0 if self._speaking else self._high_run)
        quiet_runs = _run_lengths(~keep, self._quiet_run if self._speaking else 0)
        confirms = np.flatnonzero(high_runs == self._on_frames)
        closes = np.flatnonzero(quiet_runs == self._off_frames)
        boundaries: list[VadBoundary] = []
        pos = 0
        while True:
            points = closes if self._speaking else confirms
            k = int(np.searchsorted(points, pos))
            if k == points.size:
                break
            at = int(points[k])
            if self._speaking:
                boundaries.append(self._close(base + at - self._off_frames + 1))
            else:
                boundaries.append(self._open(base + at - self._on_frames + 1))
            pos = at + 1
        self._high_run = 0 if self._speaking else int(high_runs[-1])
        self._quiet_run = int(quiet_runs[-1]) if self._speaking else 0
        return boundaries


def detect_segments(samples: NDArray[np.int16] | NDArray[np.floating], rate: int,
                    settings: VadSettings | None = None) -> list[Span]:
    """Segments of a whole track (one push, then flush)."""
    vad = StreamingVad(rate, settings)
    vad.push(samples)
    vad.flush()
    return vad.segments


class EnergyVad:
    """The energy detector over whole tracks, as a :class:`speecheval.vad.base.Vad`.

    Float audio in [-1, 1] that came from int16 PCM (``pcm / 32768``) gives the same
    segments as the PCM itself: both scales are exact powers of two, so every frame energy
    and every threshold comparison is the same number.
    """

    def __init__(self, settings: VadSettings | None = None) -> None:
        self.settings = settings or VadSettings()

    def segments(self, audio: Audio) -> list[Span]:
        """Speech in the whole of ``audio``; a segment still open at its end is marked so."""
        return detect_segments(audio.samples, audio.rate, self.settings)

    def identity(self) -> dict[str, object]:
        """Engine and settings, as a run records them."""
        return {"engine": "energy", "settings": asdict(self.settings)}
