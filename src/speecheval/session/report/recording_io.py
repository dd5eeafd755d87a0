"""Write a session's recording where people can listen to it.

``user.wav`` and ``agent.wav`` are the two mono tracks (``sent.wav``, when the scenario
declares conditions, is the user track as the agent received it), ``session.wav`` puts the user on
the left and the agent on the right, and ``events.jsonl`` is the event log, one canonical
JSON object per line, so a failed turn can be heard and traced.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ...core.audio import write_wav
from ...core.canonical_json import dumps_lines
from ...core.output import atomic_write_text
from ..record.recording import SessionRecording

USER_WAV = "user.wav"
AGENT_WAV = "agent.wav"
SESSION_WAV = "session.wav"
SENT_WAV = "sent.wav"
EVENTS_JSONL = "events.jsonl"


def session_dir(index: int) -> str:
    """Run-directory-relative folder of session ``index`` (0-based): sessions/001, ..."""
    return f"sessions/{index + 1:03d}"


def stereo_tracks(recording: SessionRecording) -> NDArray[np.int16]:
    """Both tracks as one stereo signal, user left and agent right (``session.wav``)."""
    n = max(recording.user.size, recording.agent.size)
    stereo = np.zeros((n, 2), dtype=np.int16)
    stereo[:recording.user.size, 0] = recording.user
    stereo[:recording.agent.size, 1] = recording.agent
    return stereo


def write_recording(recording: SessionRecording, directory: Path) -> None:
    """Write the four files into ``directory`` (created if needed), and ``sent.wav``
    (what the agent received) when the scenario declared conditions."""
    directory.mkdir(parents=True, exist_ok=True)
    write_wav(directory / USER_WAV, recording.user, recording.sample_rate)
    write_wav(directory / AGENT_WAV, recording.agent, recording.sample_rate)
    write_wav(directory / SESSION_WAV, stereo_tracks(recording), recording.sample_rate)
    if recording.sent is not None:
        write_wav(directory / SENT_WAV, recording.sent, recording.sample_rate)
    lines = dumps_lines(event.report_dict() for event in recording.events)
    atomic_write_text(directory / EVENTS_JSONL, lines)
