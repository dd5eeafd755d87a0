"""A connect that fails or times out after the transport opened something: both runners
(``session`` real clock, FDB v1.0 capture) call ``close()`` anyway, bounded, its errors
suppressed, and record the connect's fault (they never called it: the socket leaked)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from speecheval.fdb.common.capture import CaptureSettings, capture_session
from speecheval.session.run.realtime import run_realtime

from .custom_transport import HalfOpenTransport

REFUSED = "half-open: the agent refused the session"


@pytest.mark.parametrize(("mode", "close_fails", "fault"), [
    ("fail", "no", REFUSED),
    ("fail", "yes", REFUSED),  # close's own error is suppressed, the connect's fault kept
    ("hang", "no", "could not connect within 0.2 s"),
])
def test_session_runner_closes_a_half_open_transport(mode: str, close_fails: str,
                                                     fault: str) -> None:
    transport = HalfOpenTransport(mode, close_fails)
    recording = asyncio.run(run_realtime(transport, np.zeros(320, dtype=np.int16), 16000,
                                         tail_ms=0, connect_timeout_s=0.2))
    assert recording.fault == fault
    assert transport.socket.fileno() == -1  # closed


@pytest.mark.parametrize(("mode", "close_fails", "fault"), [
    ("fail", "no", REFUSED),
    ("fail", "yes", REFUSED),
    ("hang", "no", "agent stalled: connecting blocked for more than 0.2 s"),
])
def test_fdb_capture_closes_a_half_open_transport(mode: str, close_fails: str,
                                                  fault: str) -> None:
    transport = HalfOpenTransport(mode, close_fails)
    capture = asyncio.run(capture_session(transport, bytes(640), 16000, 0.02,
                                          CaptureSettings(timeout_s=0.2)))
    assert [e["reason"] for e in capture.trace if e["type"] == "fault"] == [fault]
    assert transport.socket.fileno() == -1
