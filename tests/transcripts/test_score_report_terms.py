"""The HTML report of ``transcripts score`` explains its own terms where they appear.

A reader of the page has no methodology document at hand: a "parity track" table says
what a parity track is and whose evaluation it follows, and a maturity reason that cites
"the spec" is followed by what that spec asks. The Markdown report keeps its pinned bytes
(tests/test_pinned_outputs.py), so these explanations are on the HTML page only.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from speecheval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "manifest.yaml"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("score") / "run"
    assert main(["transcripts", "score", "--manifest", str(EXAMPLE), "--out", str(out)]) == 0
    (report,) = out.glob("*.html")
    return html.unescape(re.sub(r"<[^>]+>", " ", report.read_text(encoding="utf-8")))


def _section(text: str, title: str) -> str:
    start = text.index(title)
    return text[start:start + 1200]


def test_each_parity_table_says_what_a_parity_track_is(page: str) -> None:
    moss = _section(page, "Parity track: MOSS")
    assert "A parity track recomputes a number the way another project's published" in moss
    assert "MOSS speech model's evaluation" in moss
    lattifai = _section(page, "Parity track: LattifAI")
    assert "LattifAI benchmark's diarization scoring" in lattifai
    assert "+-0.1 s" in lattifai and "+-0.25 s" in lattifai


def test_a_reason_citing_the_spec_says_what_the_spec_asks(page: str) -> None:
    # The example asks for 2 repeats, fewer than the 3 the main protocol asks for.
    reason = page.index("the spec prescribes")
    note = page.index('"The spec" is speecheval\'s transcription and diarization methodology')
    assert reason < note < reason + 1500
    assert "asks for 3 repeated runs of each system on each sample" in page
