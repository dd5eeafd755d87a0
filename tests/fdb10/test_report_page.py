"""``fdb10 report``: the page of the mini tree (alone and beside itself), in Chromium.

The mini tree's rows are known from the builder: 48 samples, of which 44 are in the four
scored subsets (4 are icc_backchannel) and 39 of those are eligible, so the page has 44
per-sample rows and 39 timelines per system. The expected outcomes and latencies below
are the builder's intended ones (``BuiltSample.intended``), worked into counts by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.spec import BuiltSample
from speecheval.fdb.v10.builder.trees import build_mini_tree
from speecheval.report.page import page_problems

from .browserkit import Browser

ROWS, TIMELINES = 44, 39
SAMPLE_ROWS = "document.querySelectorAll('.filter tbody tr:not(.detail)').length"
TT, UI = "candor_turn_taking", "synthetic_user_interruption"
SP, CP = "synthetic_pause_handling", "candor_pause_handling"
# Outcome bars in the order of the bars, from the builder's intended outcomes:
OUTCOME_COUNTS = {
    # pauses 1 2 6 9 no intrusion, 3 4 5 8 intrusion, 7 ineligible
    SP: {"no intrusion": 4, "intrusion": 4, "ineligible": 1},
    # 6 7 no intrusion, 1 2 3 5 intrusion, 4 ineligible
    CP: {"no intrusion": 2, "intrusion": 4, "ineligible": 1},
    # 3-8 11-13 respond, 1 2 start early, 9 is silent, 10 ineligible
    TT: {"response": 9, "early_start": 2, "no_response": 1, "ineligible": 1},
    # 1 2 not exercised, 3 11 12 speaking at end, 4-8 10 15 respond, 9 silent, 13 14 out
    UI: {"not_exercised": 2, "speaking_at_end": 3, "response": 7, "no_response": 1,
         "ineligible": 2},
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[BuiltSample]]:
    tree = tmp_path_factory.mktemp("report") / "mini"
    samples = build_mini_tree(tree)
    scored = [b for b in samples if b.task != "backchannel"]
    assert len(scored) == ROWS and sum(b.eligible for b in scored) == TIMELINES
    summary = {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
               "inputs": {"manifest_sha256": sha256_file(tree / "manifest.json"),
                          "asr_sha256": sha256_file(tree / "asr.json")},
               "subsets": {"candor_turn_taking": {"take_over_rate": 0.9, "latency_s": 0.8}}}
    (tree / "summary.json").write_text(json.dumps(summary))
    return tree, samples


@pytest.fixture(scope="module")
def mini(built: tuple[Path, list[BuiltSample]]) -> Path:
    return built[0]


@pytest.fixture(scope="module")
def page(mini: Path) -> Path:
    out = mini.parent / "report.html"
    assert main(["fdb10", "report", "--tree", f"mini={mini}", "--out", str(out),
                 "--jobs", "1"]) == 0
    return out


def test_page_is_self_contained_with_every_row_and_timeline(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert page_problems(page) == [] and "This page is self-contained" in html
    assert html.count('<tr class="g') == ROWS
    assert html.count('<svg class="timeline"') == TIMELINES
    # one output player per timeline, every one embedded as Ogg Opus; the mini tree does
    # not record its dataset inputs, so each sample says so beside its reply
    assert html.count("<audio controls") == TIMELINES
    assert html.count('src="data:audio/ogg;base64,T2dnUw') == TIMELINES   # "OggS"
    assert html.count("No input: the tree does not record the dataset inputs") == TIMELINES
    # the reference column beside the metrics, labelled
    assert "<td>latency_s</td><td>0.800 (official)</td>" in html
    assert '<label for="samples-candor-turn-taking-all">all (13)</label>' in html


def test_outcome_bars_count_every_row(built: tuple[Path, list[BuiltSample]],
                                      page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    intended = {b.sample_id: b.intended for b in built[1]}
    for subset, counts in OUTCOME_COUNTS.items():
        section = html[html.index(f"<h2>{subset} ("):]
        section = section[:section.find("<h2>", 1)]
        bars = section[section.index('<svg class="bars"'):]
        bars = bars[:bars.index("</svg>")]
        total = sum(counts.values())
        shown = {name: int(n) for name, n, of in re.findall(
            r"<title>([\w ]+): (\d+) of (\d+)</title>", bars) if int(of) == total}
        assert shown == counts, subset
        # the same counts from the builder's design, independently of the scorer
        designed = [("ineligible" if not i else "intrusion" if i.get("pause_intrusion")
                     else "no intrusion" if "pause_intrusion" in i else str(i["outcome"]))
                    for sid, i in intended.items() if sid.startswith(subset + "/")]
        assert {name: designed.count(name) for name in counts} == counts, subset


def test_latency_curves_mark_the_rates_quantiles_and_horizon(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert html.count('<svg class="curve"') == 2           # turn-taking and interruption
    assert html.count('<path class="curve" data-series="mini"') == 2
    # turn-taking, 12 eligible: latencies 0 0.45 0.8 1.0 1.5 1.7 2.0 3.8 5.5 (9 responses)
    # F(1) = 4/12, F(2) = 7/12, F(5) = 8/12; median rank ceil(6) = 6 -> 1.7 s; p90 rank
    # ceil(10.8) = 11 > 9: not reached; min_observable_s = 11.3 - 6.32 = 4.98 (sample 3)
    row = ("<td>mini</td><td class=\"num\">12</td><td class=\"num\">9</td>"
           "<td class=\"num\">0.333 (4/12)</td><td class=\"num\">0.583 (7/12)</td>"
           "<td class=\"num\">0.667 (8/12)</td><td class=\"num\">1.700 s</td>"
           "<td class=\"num\">not reached</td><td class=\"num\">4.980 s</td>")
    assert row in html
    assert "<title>mini: median latency Q(0.5) = 1.700 s</title>" in html
    assert "<title>mini: response_rate_1s = F(1 s) = 0.333 (4/12)</title>" in html
    assert ">min_observable_s 4.980 s</text>" in html
    # interruption, 11 exercised: latencies 0 0.4 0.8 1.356 1.5 3.0 6.0 (7 responses)
    # F(1) = 3/11, F(2) = 5/11, F(5) = 6/11; median rank 6 -> 3.0 s; p90 rank 10 > 7;
    # min_observable_s = T - R = 12 - 6.5 (sample 11) = 5.5
    assert ("<td class=\"num\">0.273 (3/11)</td><td class=\"num\">0.455 (5/11)</td>"
            "<td class=\"num\">0.545 (6/11)</td><td class=\"num\">3.000 s</td>") in html
    assert ">min_observable_s 5.500 s</text>" in html


def test_page_in_chromium_loads_filters_and_plays(page: Path, tmp_path: Path) -> None:
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        assert browser.evaluate(SAMPLE_ROWS) == ROWS
        # loading builds no drill-down: no timeline and no player until one is opened
        assert browser.evaluate("[document.querySelectorAll('svg.timeline').length, "
                                "document.querySelectorAll('audio').length]") == [0, 0]
        # a click on "early_start (2)" leaves the two early starts; "all" brings back 13
        assert _click_and_count(browser, "samples-candor-turn-taking", "early_start") == 2
        assert _click_and_count(browser, "samples-candor-turn-taking", "all") == 13
        assert _click_and_count(browser, "samples-synthetic-user-interruption",
                                "not_exercised") == 2
        # the toggle of a row opens its timeline and player in a full-width row under it
        assert browser.evaluate("""new Promise(resolve => {
            const row = [...document.querySelectorAll('.filter tbody tr:not(.detail)')]
                .find(r => r.cells[1].textContent === 'synthetic_user_interruption/2');
            const detail = row.nextElementSibling, shown = () => getComputedStyle(detail).display;
            const before = shown();
            row.querySelector('details').addEventListener('toggle', () => resolve(
                [before, shown(), detail.querySelectorAll('svg.timeline').length,
                 detail.querySelectorAll('audio').length,
                 detail.getBoundingClientRect().width >= row.getBoundingClientRect().width]));
            row.querySelector('summary').click();
        })""") == ["none", "table-row", 1, 1, True]
        # opening the other drill-downs builds every timeline
        assert browser.open_drilldowns() == 0
        assert browser.evaluate("document.querySelectorAll('svg.timeline').length") \
            == TIMELINES
        # every curve has one path per system
        assert browser.evaluate("[...document.querySelectorAll('svg.curve')].map(s => "
                                "s.querySelectorAll('path.curve[data-series]').length)") \
            == [1, 1]
        players = _players(browser)
        assert len(players) == TIMELINES
        for ready, duration, error, can_play in players:
            assert error is None and ready >= 1 and duration > 0 and can_play
        # T of the mini tree's first eligible sample (synthetic_pause_handling/1) is 8 s;
        # Chromium counts the Opus encoder's look-ahead (6.5 ms) in, under one 20 ms frame
        assert 8.0 <= players[0][1] < 8.02
        assert browser.errors() == []


def test_audio_past_the_budget_is_linked_in_a_folder_beside_the_page(
        mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages" / "linked.html"
    out.parent.mkdir()
    assert main(["fdb10", "report", "--tree", f"mini={mini}", "--out", str(out),
                 "--audio-budget", "0", "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    folder = out.parent / "linked-audio"
    assert "data:audio" not in html and "is not embedded" not in html
    assert html.count("links 39 audio file(s) in the folder <code>linked-audio/</code>") == 1
    assert f'src="linked-audio/s1/{SP}/1/output.ogg"' in html
    assert page_problems(out) == []
    # every clip once, listed with its SHA-256 as sha256sum writes it
    listed = (folder / "SHA256SUMS").read_text().splitlines()
    assert len(listed) == TIMELINES
    for line in listed:
        digest, name = line.split("  ")
        assert sha256_file(folder / name) == digest
        assert (folder / name).read_bytes()[:4] == b"OggS"
    with Browser(tmp_path / "profile") as browser:
        browser.open(out)
        players = _players(browser)
        assert len(players) == TIMELINES
        assert all(error is None and ready >= 1 for ready, _, error, _ in players)
        assert browser.errors() == []
    # the folder is refused like the page when it exists; --force replaces both
    assert main(["fdb10", "report", "--tree", f"mini={mini}", "--out", str(out),
                 "--audio-budget", "0", "--jobs", "1", "--force"]) == 0
    assert out.read_text(encoding="utf-8") == html


def test_same_tree_gives_the_same_bytes(mini: Path, page: Path, tmp_path: Path) -> None:
    again = page.parent / "again.html"   # the same folder, so relative paths match too
    assert main(["fdb10", "report", "--tree", f"mini={mini}", "--out", str(again),
                 "--jobs", "1"]) == 0
    assert again.read_bytes() == page.read_bytes()


def test_two_systems_side_by_side_with_the_paired_comparison(mini: Path, tmp_path: Path
                                                             ) -> None:
    out = tmp_path / "two.html"
    assert main(["fdb10", "report", "--tree", f"mini (1)={mini}", "--tree",
                 f"mini (2)={mini}", "--out", str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count('<tr class="g') == 2 * ROWS
    assert page_problems(out) == []
    # one paired comparison per subset with outcomes (4), one curve of each system
    assert html.count("<h3>Paired comparison: mini (1) and mini (2)</h3>") == 4
    assert html.count('<path class="curve" data-series="mini (2)"') == 4  # subset + paired
    # interruption: 13 eligible in both, of which 11 exercised in both and 2 in neither
    assert ("<li>of the samples eligible in both, exercised in both: 11; in mini (1) only: "
            "0; in mini (2) only: 0; in neither: 2</li>") in html
    assert "<li>paired samples (exercised in both): 11</li>" in html
    # a system against itself: every response at the same latency (7 interruption ones)
    assert ("Where both responded (7 samples): mini (1) sooner in 0, mini (2) sooner in 0, "
            "the same latency in 7; exact sign test over the ones that differ: p = \u2013.") \
        in html
    with Browser(tmp_path / "profile") as browser:
        browser.open(out)
        assert browser.evaluate(SAMPLE_ROWS) == 2 * ROWS
        assert browser.evaluate("[...document.querySelectorAll('svg.curve')].map(s => "
                                "s.querySelectorAll('path.curve[data-series]').length)") \
            == [2, 2, 2, 2]
        assert browser.errors() == []


def test_an_existing_page_is_refused(page: Path, mini: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = page.read_bytes()
    assert main(["fdb10", "report", "--tree", str(mini), "--out", str(page)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert page.read_bytes() == before


def _click_and_count(browser: Browser, key: str, group: str) -> int:
    """Click the filter button whose label starts with ``group``; count visible rows."""
    count = browser.evaluate(f"""(() => {{
        const table = document.getElementById('{key}-all').closest('.filter');
        const label = [...table.querySelectorAll('label')]
            .find(l => l.textContent.startsWith('{group} ('));
        label.click();
        return [...table.querySelectorAll('tbody tr:not(.detail)')]
            .filter(row => getComputedStyle(row).display !== 'none').length;
    }})()""")
    assert isinstance(count, int)
    return count


def _players(browser: Browser) -> list[list[object]]:
    """(readyState, duration, error code, canPlayType) of every audio element, once every
    drill-down is open and each player is loaded and has its metadata or an error."""
    assert browser.open_drilldowns() == 0
    return browser.load_players("[a.readyState, a.duration, a.error && a.error.code, "
                                "a.canPlayType('audio/ogg; codecs=opus')]")


def test_the_curve_gives_the_scorers_rates_and_quantiles(mini: Path) -> None:
    from speecheval.fdb.v10.scoring.latency_curve import latency_curve
    from speecheval.fdb.v10.scoring.unified import score_tree

    result = score_tree(mini, workers=1)
    rows = [row.report_dict() for row in result.rows]
    for subset in (TT, UI):
        record = result.summary.report_dict()["subsets"][subset]
        metrics = record["metrics"]
        curve = latency_curve(r for r in rows if r["subset"] == subset)
        for k in (1, 2, 5):
            rate = metrics[f"response_rate_{k}s"]
            assert (rate["count"], rate["n"]) == (round(curve.share_within(k) * curve.n),
                                                  curve.n)
        latency = metrics["response_latency_s"]
        assert curve.quantile(0.5) == latency["median"]["value"]
        assert curve.quantile(0.9) == latency["p90"]["value"]
        assert curve.min_observable_s == record["min_observable_s"]
