"""The user's send path under the scenario's conditions.

For each frame the caller sends: the script's samples, plus the noise bed, plus the echo
of the agent audio that has played, make the microphone signal; the codec encodes and
decodes it; the network delivers it, late, or not at all. The agent receives the result.
The order is that of a real call: the room, then the phone, then the network.

Both clocks use this class, so a scenario's conditions mean the same on either. The
recording keeps the clean script as ``user`` (the reference the metrics measure the
caller's speech on) and what the agent received as ``sent``.

The room and the codec are worked out a stretch of frames at a time (numpy's cost is per
call, not per sample). The virtual clock lets the path run up to ``ahead`` frames past
the frame being sent, on what is known so far: the script (a turn that starts later says
so through :meth:`SendPath.user_changed`) and the agent audio queued for playout (new
audio or a clear says so through :meth:`SendPath.agent_changed`, and changes the echo
from the echo's delay after it). Either works that stretch out again, so the bytes are
those of one frame at a time. After a change the stretch starts at the echo's delay (the
furthest the echo is final) and doubles up to ``ahead`` for as long as nothing changes:
while the agent is silent, the room and the codec run in stretches of ``ahead`` frames;
while it talks, it queues audio every frame, and the stretch stays at the echo's delay.
The network's fates are drawn from its seed for whole blocks of packets.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...record import events as ev
from ...scenario.conditions import Conditions
from ..track import Track
from .codecs import Codec, OpusPath, make_codec, saturate
from .echo import Echo
from .network import NetworkModel
from .noise_beds import NoiseBed, render_bed

CAPACITY = 1 << 16


def speech_rms(clips: list[NDArray[np.int16]]) -> float:
    """RMS of all turn audio together, as int16 sample values (what SNRs refer to)."""
    total = sum(float(np.sum(np.square(clip.astype(np.float64)))) for clip in clips)
    count = sum(clip.size for clip in clips)
    return float(np.sqrt(total / count)) if count else 0.0


class SendPath:
    """Applies ``conditions`` to the user's frames; keeps what it sent and its events.

    ``user`` and ``agent`` are the clean script and the agent audio as played, by sample
    (the virtual runner's own tracks; on the real clock :meth:`send` fills fresh ones).
    """

    def __init__(self, conditions: Conditions, rate: int, frame_ms: float, frame: int,
                 clips: list[NDArray[np.int16]], user: Track[np.int16] | None = None,
                 agent: Track[np.int16] | None = None, ahead: int = 1) -> None:
        self.rate, self.frame, self.frame_ms = rate, frame, frame_ms
        self.user = user if user is not None else Track(CAPACITY, np.int16)
        self.agent = agent if agent is not None else Track(CAPACITY, np.int16)
        self.agent_played = 0  # how much of ``agent`` :meth:`send` has been given
        self.echo = None if conditions.echo is None else Echo(conditions.echo, rate)
        self.noise = None if conditions.noise is None else NoiseBed(
            render_bed(conditions.noise, rate, speech_rms(clips)))
        self.codec: Codec | None = (None if conditions.codec is None
                                    else make_codec(conditions.codec, rate, frame))
        self.network = (None if conditions.network is None
                        else NetworkModel(conditions.network, frame_ms))
        if isinstance(self.codec, OpusPath):  # libopus cannot work a frame out again
            ahead = 1
        self.ahead = max(ahead, 1)
        # the first stretch after a change: as far as the echo is final (its delay is at
        # least a frame: the scenario reader checks), then twice as far each time
        self.first_stretch = (self.ahead if self.echo is None
                              else max(1, min(self.ahead, self.echo.direct // frame)))
        self.stretch = self.first_stretch
        self.coded: Track[np.int16] = Track(CAPACITY, np.int16)  # after room and codec
        self.done = 0  # samples of ``coded`` worked out
        self.out: Track[np.int16] = Track(CAPACITY, np.int16)  # after the network
        self.frames = 0
        self.events: list[ev.Event] = []

    def send(self, index: int, clean: NDArray[np.int16],
             agent_played: NDArray[np.int16]) -> NDArray[np.int16]:
        """Frame ``index`` as the agent receives it, given its script ``clean``, and
        ``agent_played``, the agent audio that played since the previous call."""
        self.user.write(index * self.frame, clean)
        self.agent.write(self.agent_played, agent_played)
        self.agent_played += agent_played.size
        return self.frame_out(index)

    def user_changed(self, pos: int) -> None:
        """The script changed from sample ``pos`` on (a turn started): work it out again."""
        self.done = min(self.done, pos)
        self.stretch = self.first_stretch

    def agent_changed(self, pos: int) -> None:
        """The agent track changed from sample ``pos`` on (audio queued for playout, or a
        clear): the echo changes from its delay after ``pos``, work that out again."""
        if self.echo is not None:
            self.done = min(self.done, pos + self.echo.direct)
            self.stretch = self.first_stretch

    def frame_out(self, index: int) -> NDArray[np.int16]:
        """Frame ``index`` as the agent receives it, from ``user`` and ``agent``."""
        start = index * self.frame
        end = start + self.frame
        if self.done < end:
            self._work_out(start, (index + self.stretch) * self.frame)
            self.stretch = min(2 * self.stretch, self.ahead)
        self.frames = index + 1
        if self.network is None:
            return self.coded.view(start, end)  # never worked out again: it is sent
        fate = self.network.fate(index)
        self.events.append(ev.NetworkPacket(
            t_ms=index * self.frame_ms, seq=fate.seq, state=fate.state,
            delay_ms=fate.delay_ms, reordered=fate.reordered, outcome=fate.outcome))
        played = self.network.played(index)
        if played is not None:
            self.out.write(start, self.coded.view(played * self.frame,
                                                  (played + 1) * self.frame))
        return self.out.view(start, end)

    def _work_out(self, now: int, horizon: int) -> None:
        """Room and codec from ``done`` up to ``horizon``; the frame being sent starts at
        sample ``now``, and no turn can start before it any more."""
        start = self.done
        out = self.user.view(start, horizon)
        if self.echo is not None or self.noise is not None:
            mic = out.astype(np.float64)
            if self.noise is not None:
                self.noise.add(mic, start)
            if self.echo is not None:
                self.echo.add(mic, start, self.agent)
            out = saturate(mic)
        if self.codec is not None:
            self.codec.forget(now)
            out = self.codec.block(start, out)
        self.coded.write(start, out)
        self.done = horizon

    def track(self) -> NDArray[np.int16]:
        """Everything sent, in order."""
        sent = self.coded if self.network is None else self.out
        return sent.view(0, self.frames * self.frame).copy()
