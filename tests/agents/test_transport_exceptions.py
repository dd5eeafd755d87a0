"""Whatever a transport raises during a session is the session's recorded fault.

The transport of ``raising_transport`` echoes the user's frames and then raises; the
session must end with a fault naming the exception, keeping what came before it, and
never with an exception lost in a task or escaping the runner.
"""

from __future__ import annotations

import asyncio

import numpy as np

from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.realtime import run_realtime

from .helpers import RATE, SESSION_LIMIT_S, of_type
from .raising_transport import MESSAGE, RaisingTransport

FRAME = RATE * 20 // 1000  # 320 samples


def _run(transport: RaisingTransport) -> SessionRecording:
    user = np.full(RATE, 1000, np.int16)  # 1 s: 50 frames of 20 ms
    return asyncio.run(asyncio.wait_for(
        run_realtime(transport, user, RATE, frame_ms=20, tail_ms=200, max_duration_ms=5000),
        SESSION_LIMIT_S))


def test_an_exception_from_the_events_is_the_fault_and_the_audio_before_it_is_kept() -> None:
    recording = _run(RaisingTransport("RecursionError", "events", after="5"))
    reason = f"the agent's transport failed: RecursionError: {MESSAGE}"
    assert recording.fault == reason
    assert [e["reason"] for e in of_type(recording, "fault")] == [reason]
    # the five echoed frames the transport yielded before it raised, and no more
    assert [p["samples"] for p in of_type(recording, "audio")] == [FRAME] * 5
    assert recording.user.size < RATE  # ended at the fault, not after the track


def test_an_exception_from_send_audio_is_the_fault_not_a_crash() -> None:
    recording = _run(RaisingTransport("RuntimeError", "send_audio", after="10"))
    assert recording.fault == f"the agent's transport failed: RuntimeError: {MESSAGE}"
    # nine frames went out; the tenth raised and is not part of the user track
    assert len(recording.send_lateness_ms) == 10
    assert recording.user.size >= 9 * FRAME and recording.user.size < RATE
