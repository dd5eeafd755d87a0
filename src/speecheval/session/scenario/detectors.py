"""The speech detectors of a session's tracks, chosen by the scenario's ``vad`` blocks.

Metrics ask a :class:`speecheval.vad.base.Vad` for the speech of a whole track and the
turn scheduler asks a live detector for agent speech boundaries as the audio plays;
neither cares which engine answers. The engine name is looked up here, once, in
:data:`ENGINES`. Silero loads a model, so one detector per settings serves every track
and session of a run (its whole-track call keeps no state between tracks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from ...core.errors import InputError
from ...vad.base import Vad
from ...vad.streaming import EnergyVad, StreamingVad, VadSettings
from .model import TrackVad, VadEngine


class Boundary(Protocol):
    """A speech onset or offset reported by a live detector."""

    @property
    def kind(self) -> str: ...

    @property
    def time_s(self) -> float: ...


class LiveDetector(Protocol):
    """A detector fed a track as it plays; returns the boundaries that became certain."""

    def push(self, samples: NDArray[np.int16]) -> Sequence[Boundary]: ...


@dataclass(frozen=True)
class _Engine:
    whole_track: Callable[[VadSettings], Vad]
    # a live detector for anchors at ``rate``; None: the energy detector with the track's
    # settings, which the scheduler runs anyway to know when the agent stopped talking
    live: Callable[[int], LiveDetector] | None


@cache
def _silero() -> Vad:
    """Silero with the FDB v1.0 settings, loaded once per process."""
    try:
        from ...vad.silero import SileroVad
    except ImportError as exc:
        raise InputError(f"vad engine 'silero' is not available in this installation ({exc})"
                         ) from exc
    return SileroVad()


def _silero_stream(rate: int) -> LiveDetector:
    from ...vad.silero_stream import SileroStream  # onnxruntime only when used

    return SileroStream(rate)


def _energy(settings: VadSettings) -> Vad:
    return EnergyVad(settings)


ENGINES: dict[VadEngine, _Engine] = {
    "energy": _Engine(whole_track=_energy, live=None),
    # the energy settings of the track do not apply to Silero
    "silero": _Engine(whole_track=lambda _settings: _silero(), live=_silero_stream),
}


def whole_track_vad(track: TrackVad) -> Vad:
    """The detector that finds the speech of a whole recorded track."""
    return ENGINES[track.engine].whole_track(track.settings)


def anchor_detector(track: TrackVad, rate: int, energy: StreamingVad) -> LiveDetector:
    """The live detector whose boundaries start anchored turns: ``energy`` itself unless
    the track declares another engine."""
    live = ENGINES[track.engine].live
    return energy if live is None else live(rate)
