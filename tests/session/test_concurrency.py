"""``session run -n N --concurrency K``: K real-clock sessions at once; the same bytes on
the virtual clock whatever K is. Also ``--url``, voicebench's shorthand for ``-o url=``."""

from __future__ import annotations

import json
import time
from pathlib import Path

from speecheval.cli import main

from .helpers import write_scenario
from .test_real_clock import SCENARIO, serving

QUICK = """
name: quick
adapter:
  type: mock
  options: {response_ms: 800, jitter_ms: 300, transcripts: ["hello there"]}
turns:
  - id: hi
    audio: {synth: speech, duration_ms: 600}
    text: "Hello there."
  - id: more
    audio: {synth: speech, duration_ms: 400, seed: 1}
    start: {after: agent_speech_end, delay_ms: 300}
"""


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_virtual_clock_gives_the_same_bytes_at_any_concurrency(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    runs = {}
    for k in ("1", "3"):
        out = tmp_path / f"k{k}"
        assert main(["session", "run", str(scenario), "-n", "4", "--concurrency", k,
                     "--out", str(out)]) == 0
        runs[k] = files(out)
    # four reports plus four files for each of the four sessions
    assert len(runs["1"]) == 4 + 4 * 4
    assert runs["1"] == runs["3"]
    # the jittered sessions really differ from each other (seed + k), so order matters
    first = runs["1"]["sessions/001/agent.wav"]
    assert any(runs["1"][f"sessions/00{k}/agent.wav"] != first for k in (2, 3, 4))


def test_real_clock_sessions_run_at_once(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "run"
    with serving() as url:
        began = time.monotonic()
        code = main(["session", "run", str(scenario), "--agent", "pcm-websocket",
                     "--url", url, "-n", "3", "--concurrency", "3", "--out", str(out)])
        elapsed = time.monotonic() - began
    report = json.loads((out / "report.json").read_text())
    assert code == 0, [s["fault"] for s in report["sessions"]]
    sessions = report["sessions"]
    assert len(sessions) == 3 and all(s["passed"] for s in sessions)
    assert all(s["turns"][0]["responded"] for s in sessions)
    # one after another the three sessions take the sum of their lengths (about 3 x 3.5 s);
    # at once, about the longest of them plus start-up
    total = sum(s["duration_s"] for s in sessions)
    assert elapsed < 0.6 * total, (elapsed, total)
    assert report["agent"]["name"] == "pcm-websocket"


def test_url_wins_over_the_url_option(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "run"
    with serving() as url:
        # nothing listens on port 9 (discard): only --url can make this session work
        code = main(["session", "run", str(scenario), "--agent", "websocket",
                     "-o", "url=ws://127.0.0.1:9", "--url", url, "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, report["sessions"][0]["fault"]
    assert report["sessions"][0]["turns"][0]["responded"] is True
