"""``report.html`` as a browser shows it: fault reason, playable audio, full-width timeline.

The page is opened in headless Chromium (skipped, with the reason, where it is not
installed): ``--dump-dom`` gives the document the browser built, ``--screenshot`` the
pixels it drew.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.report.page import page_problems
from speecheval.session.report import report_html

from .helpers import write_scenario

# The mock answers "ask" (0.1-0.7 s) after 300 ms of silence + 200 ms, with 800 ms of
# speech: 1.2-2.0 s. "cut" barges in at 1.2 + 0.3 = 1.5 s; the mock stops 100 + 120 ms
# into it and clears. The agent fails at 2.6 s: after the last turn's audio (1.5-2.0 s).
SCENARIO = """
name: html
tail_ms: 1500
adapter:
  type: tests.agents.custom_transport:LateFailingAgent
  options: {fail_at_s: 2.6, response_ms: 800, response_delay_ms: 200, barge_in_min_ms: 100,
            interrupt_reaction_ms: 120}
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 600, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
  - id: cut
    audio: {synth: tone, duration_ms: 500, freq_hz: 300}
    start: {after: agent_speech_start, delay_ms: 300}
    expect: stop
"""
REASON = "agent raised RuntimeError: the model server lost its GPU"
SVG_BACKGROUND = (250, 250, 250)  # #fafafa
FAULT_RED = (220, 38, 38)  # #dc2626


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if (path := shutil.which(name)) is not None:
            return path
    pytest.skip("headless Chromium is not installed (apt-get install chromium)")


def _chromium(page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=180, check=True)


class _Page(HTMLParser):
    """Audio sources and the text of the fault paragraphs of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.audio: list[str] = []
        self.faults: list[str] = []
        self._in_fault = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "audio":
            self.audio.append(values.get("src") or "")
        self._in_fault = tag == "p" and values.get("class") == "fault"

    def handle_data(self, data: str) -> None:
        if self._in_fault:
            self.faults.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in_fault = False


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert main(["session", "run", str(write_scenario(tmp_path, SCENARIO)),
                 "--out", str(out)]) == 3
    session = json.loads((out / "report.json").read_text())["sessions"][0]
    assert session["fault"] == REASON
    cut = session["turns"][1]
    assert cut["passed"] and cut["clear_stop_ms"] is not None  # a clear to mark
    assert cut["audio_end_s"] < 2.6 <= session["duration_s"]  # the fault came after it
    return out


def _dom(page: Path) -> _Page:
    parsed = _Page()
    parsed.feed(_chromium(page, "--dump-dom").stdout)
    return parsed


def test_the_browser_shows_the_fault_and_plays_embedded_audio(run_dir: Path) -> None:
    page = _dom(run_dir / "report.html")
    assert f"Agent fault: {REASON}" in page.faults
    assert page.audio and all(src.startswith("data:audio/wav;base64,") for src in page.audio)
    assert page_problems(run_dir / "report.html") == []
    assert "This page is self-contained" in (run_dir / "report.html").read_text()


def test_audio_over_the_cap_is_linked_to_a_file_that_exists(
        run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_html, "EMBED_LIMIT_BYTES", 0)
    out = tmp_path / "linked"
    assert main(["session", "run", str(tmp_path / "scenario.yaml"), "--out", str(out)]) == 3
    html = (out / "report.html").read_text()
    assert "is not embedded" in html and "sessions/001/session.wav" in html
    page = _dom(out / "report.html")
    assert page.audio == ["sessions/001/session.wav"]
    assert all((out / src).is_file() for src in page.audio)
    assert page_problems(out / "report.html") == []


def test_the_timeline_spans_the_page_and_marks_the_fault(run_dir: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "page.png"
    _chromium(run_dir / "report.html", f"--screenshot={shot}", "--window-size=1400,2400")
    pixels = np.asarray(Image.open(shot).convert("RGB"))
    width = pixels.shape[1]
    # rows where the timeline's background shows both 40 px from the left edge and 50 px
    # from the right one: the SVG reaches across the page (the body's margin is 32 px).
    # A fixed 1000 px drawing would leave the right side white
    left, right = pixels[:, 40], pixels[:, width - 50]
    rows = np.flatnonzero((left == SVG_BACKGROUND).all(axis=1)
                          & (right == SVG_BACKGROUND).all(axis=1))
    assert rows.size > 100, rows.size
    band = pixels[rows.min(): rows.max() + 1]
    assert (band == FAULT_RED).all(axis=2).sum() > 50  # the fault line is drawn


def test_agent_and_judge_text_cannot_break_the_markdown() -> None:
    """An agent's transcript and the judge's reason are quoted text: a ``|`` in a table
    cell is escaped and a line break becomes a space (the table writer does both), and
    the judge's reason, a paragraph, has its line breaks collapsed, so ``# ...`` after a
    blank line in it is no heading (unfixed: the reason was written with its newlines)."""
    from speecheval.session.metrics.results import (
        JudgeLedger,
        ReplyFindings,
        SessionMetrics,
        TaskVerdict,
        TurnMetrics,
    )
    from speecheval.session.report.report_md import _extras

    unset = {field.name: None for field in dataclasses.fields(TurnMetrics)}
    turn = TurnMetrics(**{**unset, "id": "ask", "passed": True, "notes": (),
                          "reply": ReplyFindings("two | seven\nok", 0.5, {"says_any": True})})
    session = SessionMetrics(
        turns=(turn,), duration_s=1.0, user_speech_ms=0.0, agent_speech_ms=0.0,
        overlap_ms=0.0, talk_over_ms=0.0, truncated=False, fault=None, user_segments=(),
        agent_segments=(), send_lateness_ms={},
        task=TaskVerdict(model="judge", model_reported=None, success=False, problem=None,
                         reason="not booked.\n\n# Verdict\n| a | b |", attempts=1,
                         ledger=JudgeLedger({}, [], "", "")))
    assert _extras(session) == [
        "", "What the agent said (Whisper tiny.en on the agent track):", "",
        "| Turn | Agent said | WER | Checks |", "|---|---|---|---|",
        "| ask | two \\| seven ok | 0.5 | says_any pass |",
        "", "Task judge (judge): failure; not booked. # Verdict | a | b |"]


def test_an_agent_fault_reason_cannot_break_the_markdown(tmp_path: Path) -> None:
    """The fault reason is the agent's own text: its runs of whitespace (a blank line
    included) become one space in
    ``report.md``, so ``# ...`` or a table row after a blank line in it is no heading or
    row of the report (the HTML page escapes it; the Markdown has no other guard)."""
    message = "lost its GPU\n\n# Verdict: PASS\n| a | b |"
    scenario = SCENARIO.replace("options: {fail_at_s: 2.6,",
                                f"options: {{fail_at_s: 0.3, message: {json.dumps(message)},")
    out = tmp_path / "run"
    assert main(["session", "run", str(write_scenario(tmp_path, scenario)),
                 "--out", str(out)]) == 3
    reason = json.loads((out / "report.json").read_text())["sessions"][0]["fault"]
    assert reason == f"agent raised RuntimeError: {message}"
    lines = (out / "report.md").read_text().splitlines()
    assert not [line for line in lines if line.startswith(("# Verdict", "| a |"))]
    (line,) = [line for line in lines if "fault: " in line]
    assert line.endswith("fault: agent raised RuntimeError: lost its GPU # Verdict: PASS "
                         "| a | b |.")
