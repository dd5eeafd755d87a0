"""``session run`` against a failing agent: exit 3 and the reason in every report.

The local agent is told to fail after it has heard some audio; the scenario is short, so
a stall is over before any keepalive ping could notice it (pings every 5 s, 5 s to
answer): only the end of the session can.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from speecheval.cli import main
from speecheval.core.audio import read_mono

from .helpers import serving, write_scenario

SHORT = """
name: short
tail_ms: 400
defaults: {response_timeout_ms: 1500, max_stop_ms: 800}
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
  - id: again
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: previous_turn_end, delay_ms: 1200}
"""


def _run(tmp_path: Path, url: str) -> tuple[int, Path]:
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, SHORT)), "--agent",
                 "pcm-websocket", "-o", f"url={url}", "--out", str(out)])
    return code, out


def test_a_stall_in_a_short_session_is_an_agent_fault(tmp_path: Path) -> None:
    # the agent stops reading and writing after 800 ms of audio, inside the first turn's
    # reply window; the session (0.1 + 0.6 + 1.2 + 0.6 + 0.4 = 2.9 s) ends long before a
    # keepalive ping would time out
    with serving({"voice": "synthetic", "fault": "stall", "fault_after_ms": "800"}) as url:
        code, out = _run(tmp_path, url)
    assert code == 3
    report = json.loads((out / "report.json").read_text())
    (session,) = report["sessions"]
    reason = ("agent stalled: it did not answer the closing handshake within 2 s at the end "
              "of the session")
    assert session["fault"] == reason and report["summary"]["faulted_sessions"] == 1
    assert f"fault: {reason}." in (out / "report.md").read_text()
    assert reason in (out / "report.html").read_text()
    events = [json.loads(line)
              for line in (out / "sessions/001/events.jsonl").read_text().splitlines()]
    (fault,) = [e for e in events if e["type"] == "fault"]
    assert fault["reason"] == reason and not [e for e in events if e["type"] == "close_error"]
    # found after the recording: the tracks end where the session ended (2.9 s), not at
    # the fault 2 s later
    assert read_mono(out / "sessions/001/user.wav").n_samples == round(2.9 * 16000)
    assert fault["t_ms"] >= 2900 + 2000
    # the unanswered turn names the stall as the likely reason
    again = session["turns"][1]
    assert not again["passed"]
    assert again["notes"][-1] == f"the agent failed in this session, which may be why: {reason}"


def test_an_agent_dropping_mid_turn_is_named_in_the_cut_turn(tmp_path: Path) -> None:
    # the agent hangs up after 2000 ms of audio, at about 2.0 s: inside "again" (1.9-2.5 s),
    # while the user is still speaking
    with serving({"voice": "synthetic", "fault": "disconnect",
                  "fault_after_ms": "2000"}) as url:
        code, out = _run(tmp_path, url)
    assert code == 3
    session = json.loads((out / "report.json").read_text())["sessions"][0]
    reason = "agent dropped the connection without a close frame"
    assert session["fault"] == reason
    again = session["turns"][1]
    assert again["notes"] == [f"the session ended by an agent fault during the turn, while the "
                              f"user was still speaking: {reason}"]
    user = read_mono(out / "sessions/001/user.wav")
    assert 1.9 < user.n_samples / 16000 < 2.5
    assert np.isfinite(user.samples).all()
