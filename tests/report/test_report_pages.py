"""The pages the families write are self-contained and render in a real browser."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.report.page import page_problems

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "transcripts" / "manifest.yaml"


@pytest.fixture(scope="module")
def transcripts_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("asr") / "run"
    assert main(["transcripts", "score", "--manifest", str(EXAMPLE), "--out", str(out)]) == 0
    return out / "report.html"


def test_transcripts_page_needs_nothing_else(transcripts_page: Path) -> None:
    html = transcripts_page.read_text(encoding="utf-8")
    assert page_problems(transcripts_page) == []
    assert "This page is self-contained" in html and "http" not in html


def test_transcripts_page_in_chromium(transcripts_page: Path) -> None:
    browser = next((p for n in ("chromium", "chromium-browser", "google-chrome")
                    if (p := shutil.which(n))), None)
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", transcripts_page.as_uri()], capture_output=True,
                         text=True, timeout=180, check=True).stdout
    # the browser built every run's timeline (10 runs) and the tables with number columns
    assert dom.count('<svg class="timeline"') == 10
    assert '<th class="num">macro</th>' in dom
    assert "<title>ref alice 0.000-3.000 s</title>" in dom
