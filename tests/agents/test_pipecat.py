"""The ``pipecat`` transport against a real Pipecat pipeline, and its frames against
Pipecat's own ProtobufFrameSerializer.

Pipecat pins soxr, soundfile and protobuf below the versions the test environment uses,
so it lives in its own environment, as a deployed bot would: ``make setup-test`` builds
``.venv-pipecat`` (or set ``SPEECHEVAL_PIPECAT_PYTHON`` to a Python that has
``pipecat-ai[websocket]``); without one these tests skip.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from speecheval.agents.pipecat_frames import (
    AUDIO_BYTES,
    AUDIO_CHANNELS,
    AUDIO_RATE,
    TEXT,
    decode,
    encode_audio,
)
from speecheval.agents.registry import open_transport
from speecheval.session.run.realtime import run_realtime

HERE = Path(__file__).parent
RATE = 16000


def pipecat_python() -> str:
    """The Python that has Pipecat, or skip saying how to get one."""
    given = os.environ.get("SPEECHEVAL_PIPECAT_PYTHON")
    candidate = Path(given) if given else HERE.parent.parent / ".venv-pipecat" / "bin" / "python"
    if not candidate.exists():
        pytest.skip(f"pipecat-ai is not installed at {candidate} (make setup-test builds "
                    ".venv-pipecat, or set SPEECHEVAL_PIPECAT_PYTHON)")
    return str(candidate)


def in_pipecat(code: str, *args: str) -> str:
    done = subprocess.run([pipecat_python(), "-c", code, *args], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_our_audio_frame_is_what_pipecat_reads() -> None:
    pcm = np.array([1, -2, 300], dtype="<i2").tobytes()
    read = in_pipecat(
        "import asyncio, sys\n"
        "from pipecat.serializers.protobuf import ProtobufFrameSerializer as S\n"
        "f = asyncio.run(S().deserialize(bytes.fromhex(sys.argv[1])))\n"
        "print(type(f).__name__, f.audio.hex(), f.sample_rate, f.num_channels)",
        encode_audio(pcm, RATE).hex())
    assert read == f"InputAudioRawFrame {pcm.hex()} 16000 1"


def test_pipecats_frames_are_what_we_read() -> None:
    lines = in_pipecat(
        "import asyncio\n"
        "from pipecat.frames.frames import OutputAudioRawFrame as A, TranscriptionFrame as T,"
        " InterruptionFrame as I, TextFrame as X\n"
        "from pipecat.serializers.protobuf import ProtobufFrameSerializer as S\n"
        "s = S()\n"
        "for f in (A(bytes([1, 0, 2, 0]), 24000, 2), T('hello', 'u', ''), I(), X('hi')):\n"
        "    print(asyncio.run(s.serialize(f)).hex())").splitlines()
    audio, transcription, interruption, text = (decode(bytes.fromhex(line)) for line in lines)
    assert audio is not None and audio.kind == "audio"
    assert (audio.data(AUDIO_BYTES), audio.integer(AUDIO_RATE),
            audio.integer(AUDIO_CHANNELS)) == (bytes([1, 0, 2, 0]), 24000, 2)
    assert transcription is not None and transcription.kind == "transcription"
    assert transcription.data(TEXT) == b"hello"
    assert interruption is not None and interruption.kind == "interruption"
    assert text is not None and (text.kind, text.data(TEXT)) == ("text", b"hi")


@pytest.fixture
def bot() -> Iterator[str]:
    python = pipecat_python()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([python, str(HERE / "pipecat_bot.py"), str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line == "ready", f"the Pipecat bot did not start (printed {line!r})"
        yield f"ws://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_pipecat_bot_answers_audio_with_audio(bot: str) -> None:
    # 400 ms of tone from 0.2 s: the user is quiet from 0.6 s; the bot answers once it has
    # heard 200 ms of quiet audio, which it has when the frame [780, 800) ms arrives: a
    # frame leaves at its start, so at 780 ms. Its 600 ms tone (24 kHz, resampled to 16
    # kHz here) starts then, plus the time in flight and Pipecat's output chunking.
    user = np.zeros(RATE, dtype=np.int16)
    t = np.arange(RATE * 400 // 1000) / RATE
    user[RATE // 5 : RATE // 5 + t.size] = (12000 * np.sin(2 * np.pi * 300 * t)).astype(np.int16)
    recording = asyncio.run(run_realtime(open_transport("pipecat", {"url": bot}), user, RATE,
                                         tail_ms=1500))
    assert recording.fault is None, recording.fault
    loud = np.flatnonzero(np.abs(recording.agent.astype(np.int32)) > 2000)
    assert loud.size, "the bot did not answer"
    onset_ms = loud[0] * 1000.0 / RATE
    answer_ms = (loud[-1] - loud[0]) * 1000.0 / RATE
    print(f"pipecat answer at {onset_ms:.1f} ms, {answer_ms:.1f} ms long")
    assert 770.0 <= onset_ms <= 1100.0, onset_ms
    assert 560.0 <= answer_ms <= 620.0, answer_ms  # 600 ms, to a resampler's edge
    # one answer only: nothing else loud on the agent track
    assert np.all(np.diff(loud) < RATE // 50)


def test_text_or_broken_frames_are_faults() -> None:
    transport = open_transport("pipecat", {"url": "ws://127.0.0.1:9"})
    # a text message; an audio field that claims 5 bytes and has 1; 3 bytes of stereo PCM16
    broken = (b"\x12\x05\x1a", b"\x12\x09" + bytes.fromhex("1a03010203") + b"\x20\x10\x28\x02")
    faults = [transport._decode(message) for message in ("hello", *broken)]  # noqa: SLF001
    assert [type(f).__name__ for f in faults] == ["AgentFault"] * 3
    assert "text message" in str(faults[0]) and "truncated" in str(faults[1])
    assert "whole PCM16" in str(faults[2])


def test_one_resampler_per_bot_rate_for_the_whole_session(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each audio frame reuses its rate's resampler: ``dict.setdefault`` built a new one
    (a windowed-sinc design, some 3 ms at 44.1 kHz) for every frame on the event loop and
    threw it away."""
    import speecheval.agents.pipecat as pipecat
    from speecheval.agents.base import AudioOut
    from speecheval.core.stream_resample import StreamResampler

    made: list[int] = []

    class Counted(StreamResampler):
        def __init__(self, rate_in: int, rate_out: int) -> None:
            made.append(rate_in)
            super().__init__(rate_in, rate_out)

    monkeypatch.setattr(pipecat, "StreamResampler", Counted)
    transport = open_transport("pipecat", {"url": "ws://127.0.0.1:9"})
    transport._sample_rate = 16000  # noqa: SLF001 (as connect(16000) sets it)
    frame = np.zeros(441, dtype="<i2").tobytes()  # 10 ms at 44.1 kHz
    events = [transport._decode(encode_audio(frame, 44100)) for _ in range(5)]  # noqa: SLF001
    assert all(isinstance(event, AudioOut) for event in events)
    assert made == [44100]


def test_channels_are_mixed_to_their_mean_rounded_half_to_even() -> None:
    """Stereo frames at the session rate (no resampling): each mono sample is the mean of
    its pair, rounded half to even. Floor division gave -1, 0, 1, -2 for these pairs:
    (-1 + 0) / 2 = -0.5 -> 0; (1 + 0) / 2 = 0.5 -> 0; (3 + 0) / 2 = 1.5 -> 2;
    (-3 + 0) / 2 = -1.5 -> -2; (100 + 201) / 2 = 150.5 -> 150."""
    from speecheval.agents.base import AudioOut

    transport = open_transport("pipecat", {"url": "ws://127.0.0.1:9"})
    transport._sample_rate = 16000  # noqa: SLF001 (as connect(16000) sets it)
    pairs = np.array([[-1, 0], [1, 0], [3, 0], [-3, 0], [100, 201]], dtype="<i2")
    event = transport._decode(encode_audio(pairs.tobytes(), 16000, channels=2))  # noqa: SLF001
    assert isinstance(event, AudioOut)
    assert np.frombuffer(event.pcm16, dtype="<i2").tolist() == [0, 0, 2, -2, 150]
