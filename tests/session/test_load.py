"""``session load``: the scenario at each concurrency level over real sockets against the
local agent on loopback, and its reports (JSON, Markdown, a page checked in Chromium)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.report.lines_svg import Line, render_lines
from speecheval.session.load.levels import LevelResult, _percentiles, parse_levels, run_load
from speecheval.session.scenario.load import load_scenario

from .helpers import on_own_loop, serving, write_scenario

# 200 ms of silence, a 600 ms tone, then 1500 ms of tail: (200 + 600) / 20 = 40 frames of
# script and 1500 / 20 = 75 of tail, 115 frames a session. The agent answers 300 ms
# (endpoint_silence_ms) + 200 ms (response_delay_ms) after the tone ends, at 1.3 s, for
# 600 ms (reply_ms): its reply ends at 1.9 s, inside the tail, so nothing extends it.
SCENARIO = """
name: load-probe
tail_ms: 1500
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 200}
"""
FRAMES = 115
TONE_PEAK = 4634  # the tone's default -20 dBFS RMS: 32767 * 0.1 * sqrt(2) = 4633.9
AGENT = {"voice": "synthetic", "reply_ms": "600"}


@pytest.fixture(scope="module")
def load_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``session load`` at concurrency 1 and 3 (its report directory)."""
    root = tmp_path_factory.mktemp("load")
    scenario = write_scenario(root, SCENARIO)
    out = root / "load"
    with serving(AGENT) as url:
        code = main(["session", "load", str(scenario), "--agent", "pcm-websocket",
                     "--url", url, "--concurrency", "1,3", "--out", str(out)])
    assert code == 0
    return out


def test_levels_run_over_real_sockets_and_are_reported(load_run: Path) -> None:
    report = json.loads((load_run / "load.json").read_text())
    assert report["schema"] == "speecheval.session.load"
    rows = report["levels"]
    assert [(r["concurrency"], r["sessions"]) for r in rows] == [(1, 1), (3, 3)]
    for row in rows:
        assert row["faulted_sessions"]["count"] == 0 and row["fault_reasons"] == {}
        assert row["send_lateness_ms"]["count"] == FRAMES * row["sessions"]
        latency = row["response_latency_ms"]
        assert latency["count"] == row["sessions"]
        # 500 ms by the agent's settings, measured on a 10 ms detector grid and a real clock
        assert 480.0 <= latency["p50"] <= 580.0
    markdown = (load_run / "load.md").read_text()
    assert "| 3 | 3 | 0/3 |" in markdown
    assert not any("url" in part for part in report["provenance"]["command"])


def test_the_page_shows_the_table_and_both_plots_in_chromium(load_run: Path,
                                                             tmp_path: Path) -> None:
    from fdb10.browserkit import Browser, find_browser

    find_browser()
    report = json.loads((load_run / "load.json").read_text())
    with Browser(tmp_path / "profile") as browser:
        browser.open(load_run / "load.html")
        plots = browser.evaluate(
            "[...document.querySelectorAll('svg.lines')].map(svg => ["
            " svg.getBoundingClientRect().width,"
            " [...svg.querySelectorAll('path.line')].map(p => p.dataset.series),"
            " svg.querySelectorAll('circle').length])")
        cells = browser.evaluate("[...document.querySelectorAll('table tr')].map("
                                 "tr => [...tr.children].map(c => c.textContent.trim()))")
        assert browser.errors() == []
    # two plots as wide as the page, two lines of two points each
    assert [(names, points) for _, names, points in plots] == [
        (["response latency p50", "response latency p99"], 4),
        (["send lateness p50", "send lateness p99"], 4)]
    assert all(width > 300 for width, _, _ in plots)
    second = report["levels"][1]
    assert ["3", "3", "0/3", f"{second['response_latency_ms']['p50']:.3f}"] == cells[2][:4]


def test_duration_keeps_each_worker_starting_sessions(tmp_path: Path) -> None:
    # one session lasts 115 frames = 2.3 s: with 3 s, a worker starts a second one at
    # about 2.3 s (< 3 s) and no third (the second ends at about 4.6 s > 3 s)
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "load"
    with serving(AGENT) as url:
        code = main(["session", "load", str(scenario), "--agent", "pcm-websocket",
                     "--url", url, "--concurrency", "2", "--duration", "3", "--out", str(out)])
    assert code == 0
    (row,) = json.loads((out / "load.json").read_text())["levels"]
    assert row["sessions"] == 4
    assert row["send_lateness_ms"]["count"] == 4 * FRAMES


def test_agent_faults_are_counted_per_level_and_exit_3(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "load"
    with serving({**AGENT, "fault": "disconnect", "fault_after_ms": "100"}) as url:
        code = main(["session", "load", str(scenario), "--agent", "pcm-websocket",
                     "--url", url, "--concurrency", "1,2", "--out", str(out)])
    assert code == 3
    rows = json.loads((out / "load.json").read_text())["levels"]
    assert [r["faulted_sessions"]["count"] for r in rows] == [1, 2]
    assert [sum(r["fault_reasons"].values()) for r in rows] == [1, 2]
    assert "## Faults" in (out / "load.md").read_text()


# the transports' tests give the agent 3 s of tail to answer in (the answer comes within
# about 1 s), so that a loaded machine delays it without cutting it off
SLOW_TAIL = SCENARIO.replace("tail_ms: 1500", "tail_ms: 3000")
SLOW_FRAMES = 40 + 3000 // 20


def check_levels(levels: list[LevelResult], answer_peak: int) -> None:
    """Levels 1 and 2 ran, no faults, and every session heard its own answer."""
    rows = [level.report_dict() for level in levels]
    assert [(r["concurrency"], r["sessions"]) for r in rows] == [(1, 1), (2, 2)]
    for level, row in zip(levels, rows, strict=True):
        assert row["faulted_sessions"]["count"] == 0 and row["fault_reasons"] == {}
        assert row["send_lateness_ms"]["count"] >= SLOW_FRAMES * row["sessions"]
        for recording in level.result.recordings:
            assert np.abs(recording.user.astype(np.int32)).max() == TONE_PEAK
            assert np.abs(recording.agent.astype(np.int32)).max() > answer_peak // 2


def test_load_over_webrtc_runs_sessions_side_by_side(tmp_path: Path) -> None:
    # the echo peer answers every offer with a peer connection of its own: each session
    # hears its own tone back (at its amplitude, well above Opus noise)
    pytest.importorskip("aiortc", reason="aiortc is not installed (pip install "
                                         "'speecheval[webrtc]')")
    from agents.webrtc_echo import echo_peer

    scenario = load_scenario(write_scenario(tmp_path, SLOW_TAIL))
    with on_own_loop(lambda: echo_peer(0)) as url:
        check_levels(run_load(scenario, "webrtc", {"url": url}, [1, 2], 0.0), TONE_PEAK)


def test_load_over_pipecat_runs_sessions_side_by_side(tmp_path: Path) -> None:
    # a real Pipecat pipeline per caller (pipecat_load_bot.py), each answering the tone
    # with its own 8000-peak tone
    from agents.test_pipecat import pipecat_python

    python = pipecat_python()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bot = subprocess.Popen([python, str(Path(__file__).with_name("pipecat_load_bot.py")),
                            str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    try:
        assert bot.stdout is not None and bot.stdout.readline().strip() == "ready"
        scenario = load_scenario(write_scenario(tmp_path, SLOW_TAIL))
        levels = run_load(scenario, "pipecat", {"url": f"ws://127.0.0.1:{port}"}, [1, 2], 0.0)
    finally:
        bot.terminate()
        bot.wait(timeout=10)
    check_levels(levels, 8000)


@pytest.mark.parametrize(("levels", "problem"), [
    ("2,1", "must rise"), ("1,1", "must rise"), ("0,2", "at least 1"), ("1,x", "whole numbers")])
def test_bad_levels_exit_2_before_anything_runs(tmp_path: Path, levels: str, problem: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    scenario = write_scenario(tmp_path, SCENARIO)
    out = tmp_path / "load"
    code = main(["session", "load", str(scenario), "--agent", "pcm-websocket", "--url",
                 "ws://127.0.0.1:9", "--concurrency", levels, "--out", str(out)])
    assert code == 2 and not out.exists()
    assert problem in capsys.readouterr().err
    with pytest.raises(InputError, match=problem):
        parse_levels(levels)


def test_the_mock_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "load"
    code = main(["session", "load", str(write_scenario(tmp_path, SCENARIO)), "--out", str(out)])
    assert code == 2 and not out.exists()
    assert "transport agent" in capsys.readouterr().err


def test_percentiles_interpolate_linearly() -> None:
    # 1, 2, 3, 4: p50 at rank 1.5 -> 2.5; p90 at rank 2.7 -> 3.7; p99 at rank 2.97 -> 3.97
    assert _percentiles(np.array([4.0, 1.0, 3.0, 2.0])) == {
        "count": 4, "p50": 2.5, "p90": 3.7, "p99": 3.97, "max": 4.0}
    assert _percentiles(np.zeros(0)) == {"count": 0, "p50": None, "p90": None, "p99": None,
                                         "max": None}


def test_lines_are_placed_on_evenly_spaced_levels() -> None:
    # 3 levels over the 1112-unit plot (1200 - 64 - 24): slots of 370.667, centres at
    # 64 + 185.333 = 249.3, 620.0, 990.7. Largest value 9 -> tick step 2 (9 / 1 > 6),
    # axis top 10; plot height 360 - 24 - 44 = 292, so 4 sits at 24 + 0.6 * 292 = 199.2,
    # 9 at 24 + 0.1 * 292 = 53.2. The missing middle value breaks the line.
    svg = str(render_lines(["1", "2", "4"], [Line("p99", (4.0, None, 9.0), " ms")],
                           x_label="sessions", y_label="ms", description="d"))
    assert 'data-series="p99" d="M249.3 199.2 M990.7 53.2"' in svg
    assert "p99 at 4: 9 ms" in svg
    with pytest.raises(ValueError, match="one value per level"):
        render_lines(["1"], [Line("a", (1.0, 2.0))], x_label="", y_label="", description="")


def test_a_negative_value_lowers_the_axis_below_zero() -> None:
    # A response latency can be negative (the agent spoke before the user's turn ended).
    # Values -30 and 120 span 150: tick step 30 (150 / 20 = 7.5 > 6 ticks, 150 / 30 = 5),
    # axis from -30 to 120. Plot height 292 from y 24: -30 at the bottom, 24 + 292 = 316,
    # 120 at the top, 24 (unfixed, the axis started at 0 and -30 fell to 389, off the plot).
    # 2 levels over 1112 units: centres 64 + 278 = 342 and 898.
    svg = str(render_lines(["1", "2"], [Line("p50", (-30.0, 120.0), " ms")],
                           x_label="sessions", y_label="ms", description="d"))
    assert 'data-series="p50" d="M342.0 316.0 L898.0 24.0"' in svg
    ticks = re.findall(r'text-anchor="end" dominant-baseline="central" fill="#555">([^<]*)<',
                       svg)
    assert ticks == ["-30", "0", "30", "60", "90", "120"]
