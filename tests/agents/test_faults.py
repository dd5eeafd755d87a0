"""Every fault mode of every local agent ends as a recorded fault with its reason.

The agent misbehaves after 300 ms of heard audio; the session is 3 s long, so a fault
that went unnoticed would show up as a recording without ``fault`` or as a session that
runs to the end, and a hang is caught by the time limit in ``helpers.session``.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest

from .helpers import RATE, of_type, session, track

CASES = {
    "disconnect": "agent dropped the connection without a close frame",
    "malformed": "malformed JSON from agent",
    "stall": "agent stalled",
    "wrong-rate": "wrong sample rate",
}
ERROR_REASON = {
    "pcm-websocket": "agent error event: simulated agent failure",
    "openai-realtime": "agent error event: server_error: simulated: simulated agent failure",
    "native-realtime": "agent error event: server_error: simulated: simulated agent failure",
}
KIND = {"pcm-websocket": "turn", "openai-realtime": "turn", "native-realtime": "duplex"}
FAST_KEEPALIVE = {"ping_interval_s": "0.2", "ping_timeout_s": "0.3"}


@pytest.mark.parametrize("protocol", sorted(KIND))
@pytest.mark.parametrize("fault", [*sorted(CASES), "error"])
def test_fault_is_recorded_with_its_reason(protocol: str, fault: str) -> None:
    user = track(("speech", 500), ("silence", 2500))
    options = dict(FAST_KEEPALIVE)
    if protocol == "openai-realtime":
        options["api_key_env"] = ""
    if protocol == "native-realtime":
        # a native client adopts the granted rates; a wrong one shows only against a rate
        # it asked for, which the agent must then grant or refuse, never replace
        options["output_rate"] = str(RATE)
    started = time.monotonic()
    recording = asyncio.run(session(protocol, user, kind=KIND[protocol],
                                    agent_options={"fault": fault, "fault_after_ms": "300"},
                                    transport_options=options))
    elapsed = time.monotonic() - started
    expected = ERROR_REASON[protocol] if fault == "error" else CASES[fault]
    assert recording.fault is not None and recording.fault.startswith(expected), recording.fault
    assert [e["reason"] for e in of_type(recording, "fault")][0] == recording.fault
    # the session ended at the fault, before the 3.3 s it would otherwise last. A stall
    # is the slowest to show: the agent's library keeps reading until 16 messages are
    # queued (native appends every 80 ms: 1.3 s), then a keepalive ping goes unanswered
    # (0.2 s interval + 0.3 s timeout) and the close handshake times out (0.3 s).
    assert recording.user.size < RATE * 3
    assert elapsed < 5.0  # includes stopping the agent (1 s close timeout when stalled)
    # what was recorded up to the fault is kept, on one timeline for both tracks
    assert recording.agent.size == recording.user.size
    sent = len(recording.send_lateness_ms)
    np.testing.assert_array_equal(recording.user[: min(sent, 25) * 320],
                                  user[: min(sent, 25) * 320])
