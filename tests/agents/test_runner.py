"""run_realtime's frame schedule, duration cap and argument checks (in-process echo agent)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from speecheval.core.errors import InputError
from speecheval.session.run.realtime import run_realtime
from speecheval.vad.streaming import VadSettings, detect_segments

from .custom_transport import EchoTransport
from .helpers import RATE, stalled_ms, track


def test_duration_cap_truncates_the_session() -> None:
    user = track(("speech", 1000))
    recording = asyncio.run(run_realtime(EchoTransport("0"), user, RATE, frame_ms=20,
                                         tail_ms=500, max_duration_ms=410))
    # 410 ms allows 20 whole 20 ms frames (400 ms); the rest of the track is not sent
    assert recording.user.size == RATE * 400 // 1000
    np.testing.assert_array_equal(recording.user, user[: recording.user.size])
    assert len(recording.send_lateness_ms) == 20
    assert recording.fault is None


def test_track_is_padded_to_whole_frames_then_the_tail_follows() -> None:
    user = track(("speech", 105))  # 1680 samples: 5.25 frames of 320
    recording = asyncio.run(run_realtime(EchoTransport("0"), user, RATE, frame_ms=20,
                                         tail_ms=50))
    # 6 frames of track (the last zero-padded) + ceil(50 / 20) = 3 tail frames = 9 frames
    assert recording.user.size == 9 * 320
    assert not recording.user[user.size :].any()
    assert [e.type for e in recording.events][-1] == "input_end"


def test_frames_leave_on_the_absolute_schedule() -> None:
    recording = asyncio.run(run_realtime(EchoTransport("0"), np.zeros(RATE, np.int16), RATE,
                                         frame_ms=20, tail_ms=0))
    lateness = np.asarray(recording.send_lateness_ms)
    assert lateness.size == 50
    # the runner aims 0.5 ms early (timer grid), so no frame can leave earlier than that
    assert lateness.min() >= -0.5 - 1e-6
    # an echo agent delivers each frame back: the agent track is the user track, delayed
    assert recording.agent.size == recording.user.size


def test_agent_vad_keeps_recording_until_the_agent_is_silent() -> None:
    # The echo agent plays the 600 ms of user speech back at once (a fraction of a ms
    # late), then echoes digital silence, which is not audible audio and holds nothing.
    user = track(("speech", 600))
    plain = asyncio.run(run_realtime(EchoTransport("0"), user, RATE, frame_ms=20,
                                     tail_ms=100))
    # without agent_vad: 30 track frames + 100 / 20 = 5 tail frames, 320 samples each
    assert plain.user.size == 35 * 320
    held = asyncio.run(run_realtime(EchoTransport("0"), user, RATE, frame_ms=20,
                                    tail_ms=100, agent_vad=VadSettings()))
    # with it: the echoed speech ends at 0.60 s (or a hair after, making the 10 ms frame
    # ending at 0.61 s active), later by as much as the loop stalled before it (the echo
    # is placed when it arrives: wall clock, so that allowance is the run's own stalls).
    # (A stall of the loop longer than the detector's 250 ms hangover leaves a gap in the
    # echo, splitting it: the last segment is the one the runner waits for.)
    segment = detect_segments(held.agent, RATE)[-1]
    end_ms = round(segment.end_s * 1000)
    stall = stalled_ms(held, 0, 620)
    assert 600 <= end_ms <= 610 + stall and not segment.open_at_end, (end_ms, stall)
    assert held.user.size // 320 in _hold_ends(end_ms), (held.user.size // 320, end_ms)
    # the hold is capped by max_duration_ms: 700 ms is 35 whole frames, with the agent's
    # segment still open when the recording stops
    capped = asyncio.run(run_realtime(EchoTransport("0"), user, RATE, frame_ms=20,
                                      tail_ms=0, max_duration_ms=700,
                                      agent_vad=VadSettings()))
    last = detect_segments(capped.agent, RATE)[-1]
    if last.open_at_end:
        assert capped.user.size == 35 * 320
    else:  # a stall over 250 ms split the echo (see above): it ended before the cap
        stopped = capped.user.size // 320
        assert stopped < 35 and stopped in _hold_ends(round(last.end_s * 1000)), stopped


def _hold_ends(end_ms: int) -> tuple[int, int]:
    """The frames at which a held session stops when the agent's speech ends at
    ``end_ms`` in the recorded track: the detector closes the segment once 250 ms of
    silence follow it (0.85 or 0.86 s when it ends at 0.60 or 0.61 s). The runner asks
    at frame starts, with the audio played up to then, so it stops at the first frame
    start at or after end + 250 ms (0.86 s: frame 43), or one frame later when it woke a
    fraction of a ms before that start and the last quiet frame was still incomplete:
    positions in the recorded track, whatever the scheduling."""
    closes = -(-(end_ms + 250) // 20)
    return closes, closes + 1


@pytest.mark.parametrize(("rate", "frame_ms", "match"), [(16000, 0, "frame_ms=0"),
                                                         (22050, 10, "frame_ms=10")])
def test_frame_that_is_not_whole_samples_is_refused(rate: int, frame_ms: int,
                                                    match: str) -> None:
    with pytest.raises(InputError, match=match):
        asyncio.run(run_realtime(EchoTransport("0"), np.zeros(100, np.int16), rate,
                                 frame_ms=frame_ms))


def test_stereo_track_is_refused() -> None:
    with pytest.raises(InputError, match="mono"):
        asyncio.run(run_realtime(EchoTransport("0"), np.zeros((100, 2), np.int16), RATE))
