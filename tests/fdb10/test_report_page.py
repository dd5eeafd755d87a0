"""``fdb10 report``: the page of the mini tree (alone and beside itself), in Chromium.

The mini tree's rows are known from the builder: 48 samples, of which 44 are in the four
scored subsets (4 are icc_backchannel) and 39 of those are eligible, so the page has 44
per-sample rows and 39 timelines per system.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder import build_mini_tree
from speecheval.report.page import page_problems

ROWS, TIMELINES = 44, 39


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("report") / "mini"
    built = build_mini_tree(tree)
    scored = [b for b in built if b.task != "backchannel"]
    assert len(scored) == ROWS and sum(b.eligible for b in scored) == TIMELINES
    summary = {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
               "inputs": {"manifest_sha256": sha256_file(tree / "manifest.json"),
                          "asr_sha256": sha256_file(tree / "asr.json")},
               "subsets": {"candor_turn_taking": {"take_over_rate": 0.9, "latency_s": 0.8}}}
    (tree / "summary.json").write_text(json.dumps(summary))
    return tree


@pytest.fixture(scope="module")
def page(mini: Path) -> Path:
    out = mini.parent / "report.html"
    assert main(["fdb10", "report", "--tree", str(mini), "--out", str(out),
                 "--jobs", "1"]) == 0
    return out


def test_page_is_self_contained_with_every_row_and_timeline(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert page_problems(page) == [] and "This page is self-contained" in html
    assert html.count('<tr class="g') == ROWS
    assert html.count('<svg class="timeline"') == TIMELINES
    # the reference column beside the metrics, labelled
    assert "<td>latency_s</td><td class=\"num\">0.800</td><td>official</td>" in html
    # the turn-taking outcomes of the mini tree: 2 early starts, 9 responses, 1 no response,
    # 1 ineligible (13 samples)
    assert '<label for="samples-candor-turn-taking-all">all (13)</label>' in html
    assert 'title="early_start: 2 of 13"' in html
    assert 'title="response: 9 of 13"' in html


def test_page_in_chromium_has_no_console_errors(page: Path) -> None:
    browser = next((p for n in ("chromium", "chromium-browser", "google-chrome")
                    if (p := shutil.which(n))), None)
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=180, check=True)
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert console == []
    dom = done.stdout
    assert dom.count('<tr class="g') == ROWS
    assert dom.count('<svg class="timeline"') == TIMELINES


def test_two_systems_side_by_side(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "two.html"
    assert main(["fdb10", "report", "--tree", str(mini), "--tree", str(mini), "--out",
                 str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count('<tr class="g') == 2 * ROWS
    assert "mini (1)" in html and "mini (2)" in html      # the same name, numbered
    assert page_problems(out) == []


def test_an_existing_page_is_refused(page: Path, mini: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = page.read_bytes()
    assert main(["fdb10", "report", "--tree", str(mini), "--out", str(page)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert page.read_bytes() == before
