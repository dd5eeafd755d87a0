"""``session run`` against a flooding agent: what a session keeps of it is capped (audio
at most ``--max-received-ratio`` times the scenario's scripted length, events at most
``--max-events-per-second`` per second of it); the excess is the session's fault, named
with the cap and what was kept, the next session runs, and the memory stays bounded.

The agent of :mod:`hostile.flood` floods its first connection only; sessions run one at
a time, in order, so that connection is session 001's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostile.flood import FloodAgent, flood_thread, traced_peak

from speecheval.cli import main

from .helpers import write_scenario

# The scripted length: the turn's 600 ms after its longest wait, its 100 ms start
# timeout, then the 300 ms tail: 1.0 s = 16000 samples at 16 kHz.
SCENARIO = """
name: flooded
tail_ms: 300
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 100, timeout_ms: 100}
"""
MIB = 1 << 20
TRANSCRIPT = json.dumps({"type": "transcript", "role": "agent", "text": "la", "final": False})



def _args(scenario: Path, url: str, out: Path, *extra: str) -> list[str]:
    return ["session", "run", str(scenario), "--agent", "pcm-websocket", "-o", f"url={url}",
            "--repeat", "2", "--out", str(out), *extra]


PRELOAD = ('numpy',
           'soundfile',
           'websockets.asyncio.client',
           'speecheval.agents.pcm_websocket',
           'speecheval.session.cli',
           'speecheval.session.run.launch',
           'speecheval.session.report.run_output',
           'speecheval.session.run.real_clock')
"""What the command imports anyway: loaded before its memory is traced."""


def _measured(*argv: str) -> tuple[int, int]:
    """Run ``speecheval argv`` in a child; its exit code and peak traced bytes."""
    return traced_peak(list(argv), PRELOAD)


def _events(out: Path, session: str) -> list[dict[str, Any]]:
    text = (out / "sessions" / session / "events.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_an_audio_flood_is_cut_at_the_cap_and_the_next_session_runs(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "run"
    # 64 MiB offered to the first session in messages of 32768 bytes = 16384 samples
    flood = FloodAgent(total_bytes=64 * MIB, flood_connections=1)
    with flood_thread(flood) as agent:
        code, peak = _measured(*_args(scenario, f"ws://127.0.0.1:{agent.port}/s", out))
    assert code == 3   # the agent failed
    report = json.loads((out / "report.json").read_text())
    # the cap is 10 x 16000 = 160000 samples: nine messages fit (9 x 16384 = 147456),
    # the tenth would make 163840 > 160000 and is not kept
    reason = ("agent sent more audio than the cap of 10 x the scripted session's 16000 "
              "samples (160000 samples); receiving stopped with 147456 samples kept")
    assert [s["fault"] for s in report["sessions"]] == [reason, None]
    events = _events(out, "001")
    assert [e["reason"] for e in events if e["type"] == "fault"] == [reason]
    assert [e["samples"] for e in events if e["type"] == "audio"] == [16384] * 9
    # the second session got one ordinary 3200-byte reply = 1600 samples, and ended as
    # the scenario says (the input's end was sent: the agent did not fault it)
    second = _events(out, "002")
    assert [e["samples"] for e in second if e["type"] == "audio"] == [1600]
    assert [e["type"] for e in second][-1] == "input_end"
    settings = report["provenance"]["settings"]
    assert (settings["max_received_ratio"], settings["max_events_per_s"]) == (10, 1000)
    # what was kept is 147456 samples x 2 bytes = 288 KiB; the command's peak stays a
    # small multiple of that and of the client's receive queue, far under the 64 MiB
    # offered (which the playout buffer kept whole, twice over as int16 copies)
    assert peak < 12 * MIB, peak


def test_a_flood_of_tiny_messages_is_cut_at_the_event_cap(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "run"
    # transcripts of 2 characters, each one event and nearly no audio-cap cost at all
    flood = FloodAgent(total_bytes=4 * MIB, text=TRANSCRIPT, flood_connections=1)
    with flood_thread(flood) as agent:
        code = main(_args(scenario, f"ws://127.0.0.1:{agent.port}/s", out,
                          "--max-events-per-second", "50"))
    assert code == 3
    report = json.loads((out / "report.json").read_text())
    # 50 events per second of the scripted 1.0 s: 50 events; the 51st is not kept
    reason = ("agent sent more events than the cap of 50 per second of the scripted "
              "session's 1 s (50 events); receiving stopped with 50 events kept")
    assert [s["fault"] for s in report["sessions"]] == [reason, None]
    events = _events(out, "001")
    assert [e["reason"] for e in events if e["type"] == "fault"] == [reason]
    assert sum(e["type"] == "transcript" for e in events) == 50
    assert report["provenance"]["settings"]["max_events_per_s"] == 50


def test_the_virtual_clock_records_no_caps(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    assert main(["session", "run", str(scenario), "--out", str(tmp_path / "run")]) in (0, 1)
    settings = json.loads((tmp_path / "run/report.json").read_text())["provenance"]["settings"]
    assert settings["clock"] == "virtual"   # the mock runs here and is not capped
    assert "max_received_ratio" not in settings and "max_events_per_s" not in settings
