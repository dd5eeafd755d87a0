"""The user's send path under the scenario's conditions, one frame at a time.

For each frame the caller sends: the script's samples, plus the noise bed, plus the echo
of the agent audio that has played, make the microphone signal; the codec encodes and
decodes it; the network delivers it, late, or not at all. The agent receives the result.
The order is that of a real call: the room, then the phone, then the network.

Both clocks use this class, so a scenario's conditions mean the same on either. The
recording keeps the clean script as ``user`` (the reference the metrics measure the
caller's speech on) and what the agent received as ``sent``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from . import events as ev
from .codecs import Codec, make_codec
from .conditions import Conditions
from .echo import AgentHistory, Echo
from .network import NetworkModel
from .noise_beds import NoiseBed, render_bed


def speech_rms(clips: list[NDArray[np.int16]]) -> float:
    """RMS of all turn audio together, as int16 sample values (what SNRs refer to)."""
    total = sum(float(np.sum(np.square(clip.astype(np.float64)))) for clip in clips)
    count = sum(clip.size for clip in clips)
    return float(np.sqrt(total / count)) if count else 0.0


class SendPath:
    """Applies ``conditions`` to each user frame; keeps what it sent and its events."""

    def __init__(self, conditions: Conditions, rate: int, frame_ms: float, frame: int,
                 clips: list[NDArray[np.int16]]) -> None:
        self.rate, self.frame, self.frame_ms = rate, frame, frame_ms
        self.agent = AgentHistory()
        self.echo = None if conditions.echo is None else Echo(conditions.echo, rate)
        self.noise = None if conditions.noise is None else NoiseBed(
            render_bed(conditions.noise, rate, speech_rms(clips)))
        self.codec: Codec | None = (None if conditions.codec is None
                                    else make_codec(conditions.codec, rate, frame))
        self.network = (None if conditions.network is None
                        else NetworkModel(conditions.network, frame_ms, frame))
        self.sent: list[NDArray[np.int16]] = []
        self.events: list[ev.Event] = []

    @property
    def agent_played(self) -> int:
        """How much of the agent track the echo has been given."""
        return self.agent.size

    def send(self, index: int, clean: NDArray[np.int16],
             agent_played: NDArray[np.int16]) -> NDArray[np.int16]:
        """Frame ``index`` as the agent receives it. ``agent_played`` is the agent audio
        that played since the previous call (contiguous from sample 0)."""
        self.agent.push(agent_played)
        pos = index * self.frame
        out = clean
        if self.echo is not None or self.noise is not None:
            mic = clean.astype(np.float64)
            if self.noise is not None:
                self.noise.add(mic, pos)
            if self.echo is not None:
                self.echo.add(mic, pos, self.agent)
            out = np.clip(np.round(mic), -32768, 32767).astype(np.int16)
        if self.codec is not None:
            out = self.codec(out)
        if self.network is not None:
            out, fate = self.network.send(out)
            self.events.append(ev.NetworkPacket(
                t_ms=index * self.frame_ms, seq=fate.seq, state=fate.state,
                delay_ms=fate.delay_ms, reordered=fate.reordered, outcome=fate.outcome))
        self.sent.append(out)
        return out

    def track(self) -> NDArray[np.int16]:
        """Everything sent, in order."""
        return (np.concatenate(self.sent) if self.sent
                else np.zeros(0, dtype=np.int16))
