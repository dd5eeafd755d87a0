"""Run a scenario against a virtual-clock agent (the mock) and record both tracks.

Time advances one scenario frame per step and nothing waits, so a ten-minute session
takes well under two seconds and every run gives the same bytes. Each step:

1. decide whether the next turn starts now, from its anchor (agent speech boundaries
   come from a :class:`StreamingVad` fed with the agent audio played so far);
2. send the user frame; the agent answers at the same instant;
3. agent audio goes through a playout buffer: a packet starts at its arrival or where
   the previous packet ends, whichever is later; a clear drops what is buffered beyond
   the current instant (audio that has not been played yet).

The session ends once every turn has played, ``tail_ms`` has passed since the last
one, the agent is silent and its buffer is empty, or when ``max_duration_ms`` is hit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...agents.base import AudioOut, Clear, Transcript, VirtualClockAgent
from ...core.pcm import to_int16
from ...core.synthetic_signals import samples_for_ms
from ..record import events as ev
from ..record.recording import SessionRecording
from ..scenario.model import Scenario
from .send.send_path import SendPath
from .track import Track
from .turn_schedule import TurnScheduler

_EPS_S = 1e-9
# How far the send path may work ahead of the frame it sends, on the script and the agent
# audio known so far (told of every change): its numpy calls then cost per stretch, not
# per frame. A stretch costs about two frames' worth of work in call overheads, and what
# lies past the next change is worked out twice: about 30 frames balance the two for
# turns and pauses of a few seconds.
SEND_AHEAD_FRAMES = 32


def run_virtual(scenario: Scenario, clips: list[NDArray[np.float32]],
                agent: VirtualClockAgent) -> SessionRecording:
    """Play ``clips`` (one per turn, at the scenario rate) into ``agent``; record it all."""
    rate = scenario.sample_rate
    frame = max(1, samples_for_ms(scenario.frame_ms, rate))
    max_samples = samples_for_ms(scenario.max_duration_ms, rate)
    pcm_clips = [to_int16(clip) for clip in clips]
    user = Track(max_samples + frame, np.int16)
    agent_track = Track(max_samples + frame, np.int16)
    schedule = TurnScheduler(scenario, pcm_clips)
    send = (SendPath(scenario.conditions, rate, scenario.frame_ms, frame, pcm_clips,
                     user=user, agent=agent_track, ahead=SEND_AHEAD_FRAMES)
            if scenario.conditions.any else None)
    log: list[ev.Event] = [ev.SessionStart(t_ms=0.0, sample_rate=rate,
                                           frame_ms=scenario.frame_ms, clock="virtual")]
    playout = 0
    vad_pos = 0
    fault: str | None = None
    tail_s = scenario.tail_ms / 1000.0
    agent.start(rate)
    i = 0
    while True:
        pos = i * frame
        t = pos / rate
        if pos >= max_samples:
            if not schedule.finished:
                log.append(ev.Truncated(t_ms=t * 1000.0))
            break
        if not schedule.finished and t + _EPS_S >= schedule.prev_end_s:
            vad_pos = _catch_up(schedule, agent_track, vad_pos, pos)
            clip = schedule.due(pos)
            if clip is not None:
                user.write(pos, clip)
                if send is not None:
                    send.user_changed(pos)
                log.append(schedule.events[-1])
        try:
            if send is None:
                sent = user.view(pos, pos + frame)[:]
            else:  # the scenario's conditions: echo, noise, codec, network
                sent = send.frame_out(i)
                if send.events:
                    log.extend(send.events)
                    send.events.clear()
            sent.flags.writeable = False  # the agent gets a read-only view, not a copy
            replies = agent.process(sent, t)
        except Exception as exc:  # a plug-in agent's failure is the system under test's
            from ...agents.mock import MockAgent  # its options model needs pydantic

            if isinstance(agent, MockAgent):
                raise  # the built-in mock failing is a bug in speecheval: keep the traceback
            fault = f"agent raised {type(exc).__name__}: {exc}"
            log.append(ev.Fault(t_ms=t * 1000.0, reason=fault))
            i += 1
            break
        for reply in replies:
            playout = _handle(reply, pos, rate, playout, agent_track, log)
        if send is not None and replies:  # audio queued or cleared from ``pos`` on (or a
            # transcript alone: that only costs one stretch worked out again)
            send.agent_changed(pos)
        i += 1
        end = i * frame
        if schedule.finished and end / rate + _EPS_S >= schedule.prev_end_s + tail_s:
            vad_pos = _catch_up(schedule, agent_track, vad_pos, end)
            if not schedule.speaking and playout <= end:
                break
    end = i * frame
    log.append(ev.End(t_ms=end * 1000.0 / rate))
    return SessionRecording(sample_rate=rate, user=user.view(0, end).copy(),
                            agent=agent_track.view(0, end).copy(), events=log,
                            send_lateness_ms=[0.0] * i, fault=fault,
                            sent=None if send is None else send.track())


def _catch_up(schedule: TurnScheduler, track: Track[np.int16], vad_pos: int, pos: int) -> int:
    """Feed the agent audio played up to ``pos`` to the detector; return the new position.

    The detector is fed only when a decision needs it (a turn waiting on the agent's
    speech, or the end of the session), in whatever chunk has accumulated: its output
    does not depend on the chunking, so the anchors are the same as feeding every frame,
    for a fraction of the cost.
    """
    if pos > vad_pos:
        schedule.push(track.view(vad_pos, pos))
    return max(pos, vad_pos)


def _handle(reply: object, pos: int, rate: int, playout: int, track: Track[np.int16],
            log: list[ev.Event]) -> int:
    """Apply one agent event to the playout buffer and the log; return the new playout."""
    t_ms = pos * 1000.0 / rate
    if isinstance(reply, AudioOut):
        pcm = np.frombuffer(reply.pcm16, dtype="<i2")
        placed = max(pos, playout)
        track.write(placed, pcm)
        log.append(ev.AgentAudio(t_ms=t_ms, samples=int(pcm.size),
                                 level_dbfs=ev.packet_level_dbfs(pcm),
                                 placed_ms=placed * 1000.0 / rate))
        return placed + pcm.size
    if isinstance(reply, Clear):
        dropped = max(0, playout - pos)
        if dropped:
            track.view(pos, playout)[:] = 0
        log.append(ev.AgentClear(t_ms=t_ms, dropped_ms=dropped * 1000.0 / rate))
        return min(playout, pos)
    if isinstance(reply, Transcript):
        log.append(ev.TranscriptLine(t_ms=t_ms, role=reply.role, text=reply.text,
                                     final=reply.final))
    return playout
