"""The local agents' turn-taking, fed audio directly (no sockets, no clock)."""

from __future__ import annotations

import numpy as np
import pytest
from speech_engine import needs_speech

from speecheval.agents.local.policy import Action, TurnPolicy, TurnSettings
from speecheval.agents.local.voice import reply_audio, synthetic_speech

from .helpers import RATE, track

REPLY = synthetic_speech(1500, RATE)


def _feed(policy: TurnPolicy, user: np.ndarray, frame: int = 320) -> list[Action]:
    actions: list[Action] = []
    for start in range(0, user.size, frame):
        actions += policy.feed(user[start : start + frame])
    return actions


def _times(actions: list[Action], kind: str) -> list[int]:
    return [a.at_ms for a in actions if a.kind == kind]


@pytest.mark.parametrize("frame", [160, 320, 1000])  # any chunking gives the same actions
def test_reply_after_endpoint_then_barge_in(frame: int) -> None:
    policy = TurnPolicy(RATE, TurnSettings(), [REPLY], ["first", "second"], "paced")
    user = track(("speech", 500), ("silence", 1000), ("speech", 400), ("silence", 1100))
    actions = _feed(policy, user, frame)
    # speech 0..500; 300 ms of silence ends after [790, 800) -> transcript at 790,
    # reply due 800 + 200 = 1000
    assert _times(actions, "transcript") == [790, 2190]
    assert _times(actions, "reply_start") == [1000, 2400]
    # barge-in at 1500: 100 ms of overlap after [1590, 1600), stop at 1600 + 100 = 1700
    assert _times(actions, "speech_started")[:2] == [0, 1590]
    assert _times(actions, "interrupted") == [1700]
    # paced: one 10 ms slice per 10 ms heard, from 1000 up to (not incl.) 1700: 70 slices,
    # then from 2400 to the end of the 3000 ms track: 60 slices
    audio = [a for a in actions if a.kind == "audio"]
    assert len(audio) == 70 + 60
    first_reply = np.concatenate([a.pcm for a in audio[:70] if a.pcm is not None])
    np.testing.assert_array_equal(first_reply, REPLY[: 70 * 160])


def test_burst_sends_the_whole_reply_at_once_and_ends_it_on_time() -> None:
    policy = TurnPolicy(RATE, TurnSettings(), [REPLY], [], "burst")
    actions = _feed(policy, track(("speech", 500), ("silence", 2500)))
    audio = [a for a in actions if a.kind == "audio"]
    assert len(audio) == 1 and audio[0].at_ms == 1000 and audio[0].pcm is REPLY
    # the 1500 ms reply has played out after [2490, 2500)
    assert _times(actions, "reply_end") == [2490]


def test_not_interruptible_agent_talks_over_the_user() -> None:
    policy = TurnPolicy(RATE, TurnSettings(interruptible=False), [REPLY], [], "paced")
    actions = _feed(policy, track(("speech", 500), ("silence", 1000), ("speech", 400),
                                  ("silence", 700)))
    assert _times(actions, "interrupted") == []
    assert _times(actions, "reply_end") == [2490]  # 1000 + 1500 - 10


def test_duplex_outputs_one_slice_per_slice_heard() -> None:
    policy = TurnPolicy(RATE, TurnSettings(), [REPLY], [], "duplex")
    user = track(("speech", 500), ("silence", 1500))
    actions = _feed(policy, user)
    audio = [a for a in actions if a.kind == "audio"]
    assert len(audio) == 200  # 2000 ms in 10 ms slices, speech or silence
    silent = [a.at_ms for a in audio if a.pcm is not None and not a.pcm.any()]
    assert silent == list(range(0, 1000, 10))  # silent until the reply at 1000 ms


@needs_speech
def test_espeak_reply_is_real_speech_at_the_session_rate() -> None:
    pcm = reply_audio("Sure. I can help you with that today.", RATE, "espeak", None)
    seconds = pcm.size / RATE
    assert 1.0 < seconds < 5.0
    level = 20 * np.log10(np.sqrt(np.mean((pcm / 32768.0) ** 2)))
    assert level > -45  # loud enough for the energy VAD
    assert reply_audio("Sure.", RATE, "espeak", 700).size == RATE * 700 // 1000


@needs_speech
def test_an_espeak_reply_past_the_argument_limit_is_spoken() -> None:
    # 200,005 characters, past Linux's 131,072 bytes for one argument ("Argument list too
    # long"); the trailing spaces add no sound
    long = reply_audio("Sure." + " " * 200_000, RATE, "espeak", None)
    assert long.size > 0 and np.array_equal(long, reply_audio("Sure.", RATE, "espeak", None))
