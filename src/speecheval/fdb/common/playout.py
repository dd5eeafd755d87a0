"""The playout of a capture: the received audio as a listener at the client would hear it.

Policy ``fifo-receipt`` (version 1):

* Chunks play in the order received, each starting at the later of its receipt time and
  the end of the chunk before it (first in, first out; never moved earlier than it
  arrived). Times are taken at the output rate: a chunk received at ``t`` seconds may
  start at sample ``round(t * rate)``.
* A ``clear`` (pcm-websocket) or ``speech_started`` (OpenAI Realtime, server VAD with
  interruptions on) at ``c`` drops every queued sample that would play at or after
  ``c``: the turn-based protocols' barge-in, as the spec's playout paragraph describes.
  Native full-duplex traces have no such event, so everything received plays.
* The window is ``[0, T]``: audio placed at or after T is excluded and its seconds are
  recorded. The result is resampled from the output rate to 16 kHz with soxr (``VHQ``)
  and has exactly ``round(T * 16000)`` samples.

Everything here is integer sample arithmetic at the output rate, so a hand-worked trace
gives exact positions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.extras import require
from ...core.provenance import package_version

POLICY = {"name": "fifo-receipt", "version": 1,
          "drops_queued_audio_on": ["clear", "speech_started"]}
TREE_RATE = 16_000
SOXR_QUALITY = "VHQ"


@dataclass(frozen=True)
class Arrival:
    """A trace event that matters to playout: audio (``samples`` from ``offset`` of the
    received stream) or a drop (``samples`` 0, ``drop`` True), at ``t_s``."""

    t_s: float
    offset: int = 0
    samples: int = 0
    drop: bool = False


@dataclass(frozen=True)
class Placed:
    """Received samples ``[offset, offset + length)`` placed at output sample ``start``."""

    start: int
    offset: int
    length: int

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True)
class Playout:
    """Where every kept chunk plays, and what was dropped or fell after T."""

    placed: tuple[Placed, ...]
    rate: int
    window_samples: int
    dropped_samples: int

    @property
    def after_t_samples(self) -> int:
        return sum(max(0, p.end - max(p.start, self.window_samples)) for p in self.placed)

    @property
    def after_t_s(self) -> float:
        return self.after_t_samples / self.rate

    @property
    def dropped_s(self) -> float:
        return self.dropped_samples / self.rate


def schedule(arrivals: Sequence[Arrival], rate: int, duration_s: float) -> Playout:
    """Place the arrivals (in receipt order) by the policy of the module docstring.

    >>> p = schedule([Arrival(0.0, 0, 100), Arrival(0.001, 100, 100)], 16000, 1.0)
    >>> [(x.start, x.length) for x in p.placed]   # the second waits for the first
    [(0, 100), (100, 100)]
    """
    placed: list[Placed] = []
    cursor = 0
    dropped = 0
    for arrival in arrivals:
        at = round(arrival.t_s * rate)
        if arrival.drop:
            kept: list[Placed] = []
            for chunk in placed:
                keep = max(0, min(chunk.length, at - chunk.start))
                dropped += chunk.length - keep
                if keep:
                    kept.append(Placed(chunk.start, chunk.offset, keep))
            placed = kept
            cursor = min(cursor, at)
            continue
        if arrival.samples <= 0:
            continue
        start = max(at, cursor)
        placed.append(Placed(start, arrival.offset, arrival.samples))
        cursor = start + arrival.samples
    return Playout(placed=tuple(placed), rate=rate, window_samples=round(duration_s * rate),
                   dropped_samples=dropped)


def render(playout: Playout, received: NDArray[np.int16]) -> NDArray[np.int16]:
    """The window ``[0, T]`` at the output rate, silence where nothing plays."""
    return render_from(playout, lambda offset, length: received[offset:offset + length])


def render_from(playout: Playout, read: Callable[[int, int], NDArray[np.int16]]
                ) -> NDArray[np.int16]:
    """:func:`render` with the received samples read piece by piece: ``read(offset,
    length)`` gives received samples ``[offset, offset + length)``, and only the pieces
    that play inside the window are asked for."""
    out = np.zeros(playout.window_samples, dtype=np.int16)
    for chunk in playout.placed:
        stop = min(chunk.end, playout.window_samples)
        if stop > chunk.start:
            out[chunk.start:stop] = read(chunk.offset, stop - chunk.start)
    return out


def to_tree_rate(audio: NDArray[np.int16], rate: int, duration_s: float) -> NDArray[np.int16]:
    """Resample to 16 kHz with soxr and fix the length to exactly ``round(T * 16000)``.

    soxr's output length can differ from the exact product by a sample at the end; the
    difference is cut or padded with silence there.
    """
    target = round(duration_s * TREE_RATE)
    if rate == TREE_RATE:
        resampled = audio
    else:
        soxr = require("soxr", needed_for="resampling the received audio", extra="fdb")

        floats = soxr.resample(audio.astype(np.float32) / 32768.0, rate, TREE_RATE,
                               quality=SOXR_QUALITY)
        resampled = np.clip(np.round(floats * 32768.0), -32768, 32767).astype(np.int16)
    fixed = np.zeros(target, dtype=np.int16)
    fixed[:min(target, resampled.shape[0])] = resampled[:target]
    return fixed


def resampler(rate: int) -> dict[str, object]:
    """The resampler a playout at ``rate`` used, for the manifest."""
    if rate == TREE_RATE:
        return {"name": "none", "from_rate": rate, "to_rate": TREE_RATE}
    return {"name": "soxr", "version": package_version("soxr"), "quality": SOXR_QUALITY,
            "from_rate": rate, "to_rate": TREE_RATE}
