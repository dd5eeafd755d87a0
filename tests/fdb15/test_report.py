"""fdb15 report on the scored espeak-ng tree: the page's numbers, and the page in a real
headless Chromium (filters, timelines, players, no errors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fdb10.browserkit import Browser

from speecheval.cli import main
from speecheval.report.page import page_problems

TRIALS = 5


@pytest.fixture(scope="module")
def page(judged_scored: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree, scored = judged_scored
    out = tmp_path_factory.mktemp("page") / "fdb15.html"
    assert main(["fdb15", "report", "--scored", str(scored), "--tree", f"judged={tree}",
                 "--out", str(out)]) == 0
    return out


def test_page_numbers(page: Path, judged_scored: tuple[Path, Path]) -> None:
    html = page.read_text(encoding="utf-8")
    assert page_problems(page) == []
    # user_interruption: 3 C_RESPOND of 4 labelled -> 75.0%, Wilson [30.1%, 95.4%]
    assert "75.0% [30.1%, 95.4%]" in html
    assert "NOT the official judge" in html
    prosody = json.loads((judged_scored[1] / "prosody.json").read_text())
    assert prosody["statement"] in html
    assert html.count('class="timeline"') >= TRIALS or html.count("svg") > TRIALS


def test_page_in_chromium(page: Path, tmp_path: Path) -> None:
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        rows = browser.evaluate("document.querySelectorAll('.filter tbody tr:not(.detail)')"
                                ".length")
        assert rows == TRIALS
        # loading builds no drill-down; opening them all builds one timeline a trial
        assert browser.evaluate("document.querySelectorAll('svg.timeline, audio').length") == 0
        assert browser.open_drilldowns() == 0
        assert browser.evaluate("document.querySelectorAll('svg.timeline').length") == TRIALS
        # stop and response curves of user_interruption and talking_to_other
        assert browser.evaluate("document.querySelectorAll('svg.curve').length") == 4
        visible = browser.evaluate("""(() => {
            const table = document.getElementById('fdb15-trials-all').closest('.filter');
            [...table.querySelectorAll('label')]
                .find(l => l.textContent.startsWith('C_RESPOND (')).click();
            return [...table.querySelectorAll('tbody tr:not(.detail)')]
                .filter(row => getComputedStyle(row).display !== 'none').length;
        })()""")
        assert visible == 3
        players = browser.load_players("[a.duration, a.error && a.error.code]")
        # per trial: user and model in stereo, the user alone, the model alone, the clean
        # output (Opus in Ogg: the decoded length is within a 20 ms frame of 12 s)
        assert len(players) == 4 * TRIALS
        assert all(error is None and duration == pytest.approx(12.0, abs=0.02)
                   for duration, error in players)
        assert browser.errors() == []


def test_report_refuses_a_folder_that_is_not_a_score(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["fdb15", "report", "--scored", str(tmp_path / "empty"), "--tree",
                 f"x={tmp_path}", "--out", str(tmp_path / "x.html")]) == 2
    assert "timing.json: missing" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()
