"""The conditioned send path gives the same bytes as before it worked in large blocks.

The SHA-256 digests below were computed with main's code at commit 2aadc80, before the
send path learned to work out the room and the codec far ahead while the agent is
silent (issue 14, speed), by running these very sessions; espeak-ng 1.51 rendered the
babble. A change to how the conditions are computed must leave every byte of the
recorded tracks and of ``events.jsonl`` as it was.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from speech_engine import require_pinned_engine

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.core.canonical_json import dumps_lines
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario

from .helpers import write_scenario

# 30 turns of 2 s, each 500 ms after the agent's speech ends: two minutes of talk
TURNS = "\n".join(
    f"  - {{id: t{i}, audio: {{synth: speech, duration_ms: 2000, seed: {i}}}, "
    f"start: {{after: agent_speech_end, delay_ms: 500}}}}" for i in range(30))
MOCK = {"response_ms": 4000, "jitter_ms": 200}

# echo -20 dB: the mock hears itself and clears, 30 times (a clear changes the echo
# ahead of the frame being sent); echo -30 dB: full 4 s replies, echoed throughout;
# echo -25 dB without a bed: 29 clears, and silence between turns for the codec
ECHO_BABBLE_MULAW = """\
  echo: {delay_ms: 60, level_db: -20, reflections: [{delay_ms: 7, level_db: -6},
                                                    {delay_ms: 19, level_db: -12}]}
  noise: {kind: babble, snr_db: 40, seed: 1, voices: 2, loop_ms: 3000}
  codec: {kind: mulaw}
"""
ECHO_WHITE_MULAW = """\
  echo: {delay_ms: 60, level_db: -30, reflections: [{delay_ms: 7, level_db: -6}]}
  noise: {kind: white, snr_db: 30, seed: 2}
  codec: {kind: mulaw}
"""
ECHO_MULAW = """\
  echo: {delay_ms: 40, level_db: -25}
  codec: {kind: mulaw}
"""
NETWORK = """\
  network: {p_good_to_bad: 0.05, p_bad_to_good: 0.5, jitter_ms: 30, buffer_ms: 40,
            reorder: 0.02, seed: 3}
"""

PINNED = {  # user, agent, sent, events.jsonl
    "echo+babble+mulaw": (
        ECHO_BABBLE_MULAW,
        "4b5d913a0a60f621ec251a685a9f3323ec1b1785b5dce33eb2a89a70706ab504",
        "84ea8af6d7788b8e776210104d68502fef7ff27da7080a7ab52e8baf250a4ce0",
        "2553611f567440bbe99a7db9bf83d518d7d0b3fc5b63a9c57d76bede682e9103",
        "905506e092fa0a8bbdc6371e7a41afadeb2e970365bd91bafe7f26845167d97e"),
    "echo+white+mulaw": (
        ECHO_WHITE_MULAW,
        "2e61d0f50510cc1faa0d251e7dd3c493c078dfaaafca68a896ddc8952de0e143",
        "112abdda78b7b83e01027b6337fb9dd2a5edb2cb1501365d3e8551635472c22c",
        "007d346c2509e6fc23dca43532319d3eceb1d7e479935f40f802a4d13eb078e4",
        "b01054d5285f928c45a1ecac19aa36adfec3afeef553ff2aa0ad1d95bf38f7dd"),
    "echo+mulaw": (  # silence between the turns and the replies, no bed under it
        ECHO_MULAW,
        "6fbb149b423c26ec5f9a9735e7e47a5cc1d286658d54ad835c96c3a4ad13a415",
        "d2d66c36d3346954cd340a69acfd2c39d32a3719b0bb645cfd5b2f7415299bb4",
        "619dc68164d634327826110f4d61fcf9eabec132a6ec55b0a93da5060d2fe46b",
        "2993cbd755e211bc53dbe2c051ba854886f3c4f7bbd285d23860c4ea84cf7a45"),
    "network": (
        NETWORK,
        "ef2fb5c592c4aa2ae89ef33afb2df397ee04e1ad73e100fdf3c89611e088d1dc",
        "6ed1e548e547f8dfe4d56f9d932bec6175ebf245dda2fdcbb019d0314a10cec0",
        "637012486b1bc3e65b782e416afc1626b2226036e71e1863e2c71d28d53ff8be",
        "b8e813befccf85ec170578ed024e2d537a88f4b12896559436385c57bedfc2bb"),
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_two_minute_session_bytes_equal_mains(tmp_path: Path, name: str) -> None:
    conditions, *digests = PINNED[name]
    if "babble" in conditions:
        require_pinned_engine()   # the babble is spoken; its digests are 1.51's audio
    path = write_scenario(tmp_path, f"name: pinned\nmax_duration_ms: 120000\nturns:\n"
                                    f"{TURNS}\nconditions:\n{conditions}")
    scenario = load_scenario(path)
    agent = MockAgent(MockSettings.from_options(MOCK))
    recording = run_virtual(scenario, render_turns(scenario), agent)
    assert recording.sent is not None
    events = dumps_lines(event.report_dict() for event in recording.events).encode()
    assert [sha256(recording.user.tobytes()), sha256(recording.agent.tobytes()),
            sha256(recording.sent.tobytes()), sha256(events)] == digests
