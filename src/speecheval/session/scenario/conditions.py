"""Real-world conditions a scenario declares for the user's send path.

A scenario's optional ``conditions`` block says what happens between the scripted
caller's mouth and the agent's ear: the agent's own voice leaking back into the
microphone (``echo``), a noise bed under the caller (``noise``), a telephone codec
(``codec``) and a lossy network (``network``). They are applied live, frame by frame, by
:class:`speecheval.session.run.send.send_path.SendPath` on either clock, because the echo depends
on what the agent has just said. A scenario without the block sends exactly the script,
as before (voicebench's audio, sample for sample).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field
from typing import Any, Literal

NoiseKind = Literal["white", "babble", "music"]
CodecKind = Literal["mulaw", "opus"]

# Opus frame durations (ms) the encoder accepts; the scenario's frame_ms must be one.
OPUS_FRAME_MS = (10, 20, 40, 60)
OPUS_RATES = (8000, 12000, 16000, 24000, 48000)


def limited(default: Any = MISSING, *, low: float | None = None, high: float | None = None,
            positive: bool = False, probability: bool = False) -> Any:
    """A field with the limits the scenario file's reader checks on it: at least ``low``,
    at most ``high``, above 0, a probability; a ``*_ms`` field is also at most an hour.
    :mod:`speecheval.session.scenario.schema` makes the file's schema from these classes,
    so each key is declared here only."""
    limits = {"low": low, "high": high, "positive": positive, "probability": probability}
    if default is MISSING:
        return field(metadata=limits)
    return field(default=default, metadata=limits)


@dataclass(frozen=True)
class Reflection:
    """One extra echo path: ``delay_ms`` after the direct echo, ``level_db`` relative to it."""

    delay_ms: float = limited(positive=True)  # both required: no default given
    level_db: float = limited()


@dataclass(frozen=True)
class EchoSpec:
    """The agent's played audio, ``delay_ms`` later and ``level_db`` dB louder (negative:
    quieter), added to the microphone, plus optional room reflections."""

    delay_ms: float = limited(100.0, positive=True)
    level_db: float = -20.0
    reflections: tuple[Reflection, ...] = ()


@dataclass(frozen=True)
class NoiseSpec:
    """A noise bed under the whole session at ``snr_db`` below the user's speech.

    The speech level is the RMS of all turn audio together; the bed is a loop of
    ``loop_ms`` rendered once per scenario from ``seed``; babble has ``voices`` talkers.
    """

    kind: NoiseKind
    snr_db: float
    seed: int = limited(0, low=0)
    voices: int = limited(4, low=1, high=12)
    loop_ms: float = limited(8000.0, low=1000)


@dataclass(frozen=True)
class CodecSpec:
    """A telephone codec on the send path: G.711 mu-law at 8 kHz, or Opus at ``bitrate``."""

    kind: CodecKind
    bitrate: int | None = limited(None, low=6000, high=510000)


@dataclass(frozen=True)
class NetworkSpec:
    """Packet loss (a Gilbert-Elliott burst model), jitter and reordering, one packet per
    user frame, in front of a jitter buffer ``buffer_ms`` deep.

    The channel is in the good or the bad state; each packet is lost with probability
    ``loss_good`` or ``loss_bad`` in that state, then the state moves good -> bad with
    probability ``p_good_to_bad`` and bad -> good with ``p_bad_to_good``. Each packet is
    delayed by a uniform 0..``jitter_ms`` and, with probability ``reorder``, one frame
    more (it arrives after its successor). A packet not in the buffer when its turn to
    play comes (delay above ``buffer_ms``) is late, and lost like a dropped one: the agent
    hears silence for that frame.
    """

    p_good_to_bad: float = limited(0.0, probability=True)
    p_bad_to_good: float = limited(1.0, probability=True)
    loss_good: float = limited(0.0, probability=True)
    loss_bad: float = limited(1.0, probability=True)
    jitter_ms: float = limited(0.0, low=0)
    reorder: float = limited(0.0, probability=True)
    buffer_ms: float = limited(0.0, low=0)
    seed: int = limited(0, low=0)


@dataclass(frozen=True)
class Conditions:
    """Everything applied to the user's send path; all parts are optional."""

    echo: EchoSpec | None = None
    noise: NoiseSpec | None = None
    codec: CodecSpec | None = None
    network: NetworkSpec | None = None

    @property
    def any(self) -> bool:
        return any(part is not None for part in (self.echo, self.noise, self.codec,
                                                 self.network))
