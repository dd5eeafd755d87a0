"""``session run --agent pcm-websocket`` on the real clock against a local agent.

The local turn-taking agent (``speecheval.agents.local``) is served on 127.0.0.1 from a
background thread; the CLI streams a fixed-timing scenario to it. This checks the wiring
from scenario to the real-clock runner and back to our metrics (a few seconds of real
time), not the agent's behaviour, which its own tests cover.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from speecheval.cli import main

from .helpers import serving, write_scenario

SCENARIO = """
name: real-clock
tail_ms: 2500
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 800, freq_hz: 300}
    start: {after: session_start, delay_ms: 200}
"""


@pytest.fixture
def agent_url() -> Iterator[str]:
    with serving() as url:
        yield url


def test_fixed_timing_scenario_on_the_real_clock(tmp_path: Path, agent_url: str) -> None:
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), "--agent",
                 "pcm-websocket", "-o", f"url={agent_url}", "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, report["sessions"][0]["fault"]
    assert report["clock"] == "real"
    (turn,) = report["sessions"][0]["turns"]
    assert turn["trigger"] == "session_start" and turn["start_s"] == 0.2
    assert turn["responded"] is True and turn["response_latency_ms"] > 0
    assert report["sessions"][0]["agent_speech_ms"] > 0
    events = (out / "sessions" / "001" / "events.jsonl").read_text()
    assert '"type":"turn"' in events and '"type":"audio"' in events


def test_agent_anchored_turn_starts_live_on_the_real_clock(tmp_path: Path,
                                                           agent_url: str) -> None:
    # The second turn waits for the agent's reply to start, then barges in 300 ms later:
    # on the real clock the scheduler sees the reply through the played agent audio.
    body = SCENARIO + """
  - id: barge
    audio: {synth: tone, duration_ms: 600, freq_hz: 500}
    start: {after: agent_speech_start, delay_ms: 300, timeout_ms: 8000}
"""
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, body)), "--agent",
                 "pcm-websocket", "-o", f"url={agent_url}", "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert report["sessions"][0]["fault"] is None
    ask, barge = report["sessions"][0]["turns"]
    assert barge["trigger"] == "agent_speech_start"
    # The reply starts at ask's end (1.0 s) + its latency; the barge-in is the first frame
    # boundary at or after that onset + 0.3 s. Both are read off the same recording, so
    # the only slack is one 20 ms frame (plus the detector's 10 ms analysis frame).
    onset_s = 1.0 + ask["response_latency_ms"] / 1000.0
    assert onset_s + 0.3 - 0.01 <= barge["start_s"] <= onset_s + 0.3 + 0.03
    assert code in (0, 1)


def test_recording_continues_after_the_tail_while_the_agent_talks(tmp_path: Path) -> None:
    # The tone ends at 0.1 + 0.4 = 0.5 s and the tail at 0.5 + 0.7 = 1.2 s. The agent
    # answers after 300 ms of silence + 200 ms delay, at about 1.0 s, with a 1500 ms
    # synthetic reply streamed in real time, so it talks until about 2.5 s: well past
    # the tail. The recording must go on until the agent is silent (its segment closed
    # by 250 ms of silence), not stop at 1.2 s with the reply cut off.
    body = """
name: long-reply
tail_ms: 700
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 400, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
"""
    out = tmp_path / "run"
    with serving({"voice": "synthetic", "reply_ms": "1500"}) as url:
        code = main(["session", "run", str(write_scenario(tmp_path, body)), "--agent",
                     "pcm-websocket", "-o", f"url={url}", "--out", str(out)])
    session = json.loads((out / "report.json").read_text())["sessions"][0]
    assert code == 0, session["fault"]
    (turn,) = session["turns"]
    assert turn["responded"] is True
    ((start, end),) = session["agent_segments"]
    # the whole reply is recorded: 1500 ms of audio, spanning the track from its first
    # packet's place to its last one's end as this run placed them (a packet that came
    # late on a busy machine leaves a gap before it), within one 20 ms frame of packet
    # timing and one 10 ms detector frame at each end
    packets = [json.loads(line) for line in
               (out / "sessions" / "001" / "events.jsonl").read_text().splitlines()]
    packets = [e for e in packets if e["type"] == "audio"]
    rate = 16000  # the scenario's sample rate (the default)
    assert sum(e["samples"] for e in packets) == rate * 1500 // 1000
    placed_ms = (packets[-1]["placed_ms"] + packets[-1]["samples"] * 1000 / rate
                 - packets[0]["placed_ms"])
    assert abs((end - start) * 1000 - placed_ms) <= 40, (start, end, placed_ms)
    # and the recording stopped once the detector had heard 250 ms of silence after it:
    # at the first 20 ms frame start after end + 0.25 s (one more frame if the runner
    # woke just before it, and later by as much as this run's sender was ever late),
    # not at the 1.2 s tail and not at max_duration_ms
    late_s = session["send_lateness_ms"]["max"] / 1000
    assert end > 1.2 and end + 0.25 <= session["duration_s"] <= end + 0.25 + 0.05 + late_s
