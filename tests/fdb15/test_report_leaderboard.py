"""fdb15 report with two systems in a real headless Chromium: the leaderboard's cells
against the two score outputs, the best mark, systems as columns, the scenarios in the
paper's order, the paired comparisons (p text, the <10 pairs warning), the user's side of
each trial (the input lane and the stereo player), and the names.

System "early" is the judged tree (silent input, the system stops 0.44 s after the
onset). System "late" is a copy whose input holds real espeak-ng speech (the context
from 0.2 s and the interruption from 5.0 s) and whose output keeps talking 0.6, 0.8, 1.0
and 1.2 s longer in the four interruption samples, scored for timing alone; it is named
by its manifest's ``system``.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fdb10.browserkit import Browser
from scipy import stats

from speecheval.cli import main
from speecheval.core.audio import read_mono, write_wav
from speecheval.fdb.v15.builder import speech
from speecheval.report.page import page_problems

RATE = 16_000
LONGER_S = {"user_interruption/1": 0.6, "user_interruption/2": 0.8,
            "user_interruption/3": 1.0, "user_interruption/4": 1.2}


def _late_tree(early: Path, root: Path) -> Path:
    tree = root / "late-tree"
    shutil.copytree(early, tree)
    context = speech.utterance("What are some good places to visit in the city?", "en-us", RATE)
    overlap = speech.utterance("Oh, before I forget, could you suggest a restaurant?",
                               "en-us", RATE)
    going_on = speech.utterance("and then a long walk along the old river promenade",
                                "en-us", RATE)
    for folder in sorted(p.parent for p in tree.glob("*/*/metadata.json")):
        heard = np.zeros(12 * RATE)
        heard[round(0.2 * RATE):round(0.2 * RATE) + context.size] = context[:round(4.5 * RATE)]
        heard[5 * RATE:5 * RATE + overlap.size] = overlap[:3 * RATE]
        write_wav(folder / "input.wav", heard, RATE)
        sample_id = f"{folder.parent.name}/{folder.name}"
        if sample_id in LONGER_S:
            output = read_mono(folder / "output.wav").samples.copy()
            start, stop = round(4.8 * RATE), round((5.44 + LONGER_S[sample_id]) * RATE)
            output[start:stop] = going_on[:stop - start]
            write_wav(folder / "output.wav", output, RATE)
    (tree / "manifest.json").write_text(json.dumps({"system": "late"}), encoding="utf-8")
    return tree


@pytest.fixture(scope="module")
def systems(judged_scored: tuple[Path, Path],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """name -> (tree, score folder); the early tree is a copy with one input removed."""
    tree, scored = judged_scored
    root = tmp_path_factory.mktemp("two")
    early = root / "early-tree"
    shutil.copytree(tree, early, ignore=shutil.ignore_patterns("fdb15-timing"))
    (early / "talking_to_other" / "1" / "input.wav").unlink()
    late = _late_tree(tree, root)
    assert main(["fdb15", "score", "--tree", str(late), "--out", str(root / "late-scored"),
                 "--jobs", "1"]) == 0
    return {"early": (early, scored), "late": (late, root / "late-scored")}


@pytest.fixture(scope="module")
def page(systems: dict[str, tuple[Path, Path]],
         tmp_path_factory: pytest.TempPathFactory) -> Path:
    (early, early_scored), (late, late_scored) = systems["early"], systems["late"]
    out = tmp_path_factory.mktemp("page2") / "two.html"
    assert main(["fdb15", "report", "--scored", str(early_scored), "--tree", f"early={early}",
                 "--scored", str(late_scored), "--tree", str(late), "--out", str(out)]) == 0
    return out


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _share(share: dict[str, Any]) -> str:
    low, high = share["interval"]
    return f"{100 * share['value']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"


def _median(record: dict[str, Any]) -> str:
    median = record["median"]
    if record["n"] == 0:
        return "n/a"
    ends = ["inf" if not median["interval"][f"{e}_reached"] else f"{median['interval'][e]:.3f}"
            for e in ("low", "high")]
    value = f"{median['value']:.3f} s" if median["reached"] else "not reached"
    return f"{value} [{ends[0]}, {ends[1]}]"


TABLES = """[...document.querySelectorAll('table')].map(t => ({
    heading: t.closest('section').querySelector('h2,h3').textContent,
    header: [...t.querySelectorAll('thead th')].map(c => c.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => ({
        text: c.textContent, cls: c.className})))}))"""


@pytest.fixture(scope="module")
def tables(page: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    with Browser(tmp_path_factory.mktemp("profile")) as browser:
        browser.open(page)
        found = browser.evaluate(TABLES)
        assert browser.errors() == []
    return list(found)


def test_leaderboard_cells_are_the_score_outputs(tables: list[dict[str, Any]],
                                                 systems: dict[str, tuple[Path, Path]]
                                                 ) -> None:
    board = tables[0]
    assert board["heading"] == "Leaderboard"
    assert [row[0]["text"] for row in board["rows"]] == ["early", "late"]
    cells = {name: dict(zip(board["header"][1::2], row[1::2], strict=True))
             for name, row in zip(("early", "late"), board["rows"], strict=True)}
    for name, (_, scored) in systems.items():
        timing = _json(scored / "timing.json")["scenarios"]
        for scenario, summary in timing.items():
            for key, what in (("stop_latency", "median stop"),
                              ("response_latency", "median response")):
                cell = cells[name][f"{scenario} {what}"]["text"]
                assert cell.removesuffix(" \u25b2 best") == _median(summary[key])
        if name == "early":
            behaviour = _json(scored / "behaviour.json")["scenarios"]
            # user_interruption: 3 C_RESPOND of 4 labelled -> 75.0%, Wilson [30.1%, 95.4%]
            assert cells[name]["user_interruption C_RESPOND"]["text"] == "75.0% [30.1%, 95.4%]"
            for scenario, result in behaviour.items():
                for label, share in result["shares"].items():
                    assert cells[name][f"{scenario} {label}"]["text"] == _share(share)
        else:  # scored without a judge
            assert cells[name]["user_interruption C_RESPOND"]["text"] == "-"
    # coverage beside each value: 4 of the 4 interruption trials have a stop latency
    column = board["header"].index("user_interruption median stop")
    assert board["header"][column + 1] == "coverage"
    assert [row[column + 1]["text"] for row in board["rows"]] == ["4/4", "4/4"]


def test_best_is_marked_only_where_the_intervals_are_apart(
        tables: list[dict[str, Any]], systems: dict[str, tuple[Path, Path]]) -> None:
    board = tables[0]
    stop = {name: _json(systems[name][1] / "timing.json")["scenarios"]["user_interruption"]
            ["stop_latency"]["median"] for name in ("early", "late")}
    # early stops 0.44 s after the onset every time; late 0.6-1.2 s later: apart
    assert stop["early"]["interval"]["high"] < stop["late"]["interval"]["low"]
    marked = [(board["header"][i], row[0]["text"]) for row in board["rows"]
              for i, cell in enumerate(row) if cell["text"].endswith("\u25b2 best")]
    assert ("user_interruption median stop", "early") in marked
    marked_cells = [cell for row in board["rows"] for cell in row
                    if cell["text"].endswith("\u25b2 best")]
    assert all("pass" in cell["cls"] for cell in marked_cells)
    # talking_to_other's latencies get no mark (carrying on is wanted there), and no
    # share column is marked: only one system was judged
    assert all(header.startswith("user_interruption median") for header, _ in marked)


def test_systems_are_columns_and_scenarios_in_the_papers_order(
        tables: list[dict[str, Any]], systems: dict[str, tuple[Path, Path]]) -> None:
    latency = [t for t in tables if t["header"][0] == "metric"]
    # the paper's order: user interruption before talking to others (not alphabetical)
    assert [t["heading"] for t in latency] == ["user interruption", "talking to other"]
    assert latency[0]["header"] == ["metric", "early", "early official get_timing",
                                    "late", "late official get_timing"]
    rows = {row[0]["text"]: [c["text"] for c in row[1:]] for row in latency[0]["rows"]}
    late_rows = [json.loads(line) for line in (systems["late"][1] / "timing-samples.jsonl")
                 .read_text(encoding="utf-8").splitlines()]
    gaps = sorted(end - start for row in late_rows if row["scenario"] == "user_interruption"
                  for start, end in row["official"]["latency_resp_list"])
    assert gaps, "the late input has speech, so get_timing finds response gaps"
    median = (gaps[(len(gaps) - 1) // 2] + gaps[len(gaps) // 2]) / 2
    assert rows["response latency: median [95%]"][3].startswith(f"median {median:.3f} s")
    assert rows["response latency: median [95%]"][1] == "no interval (0/4 files)"
    late = _json(systems["late"][1] / "timing.json")["scenarios"]["user_interruption"]
    assert rows["stop latency: p90"][2] == f"{late['stop_latency']['p90']['value']:.3f} s"
    assert rows["stop status stopped"][2] == _share(late["stop_statuses"]["stopped"])
    headings = [t["heading"] for t in tables]
    assert headings.index("user interruption") < headings.index("talking to other")


def test_comparisons_p_text_and_the_few_pairs_warning(
        page: Path, tables: list[dict[str, Any]],
        systems: dict[str, tuple[Path, Path]]) -> None:
    between = [t for t in tables if t["header"][:2] == ["measure", "systems"]]
    assert [t["heading"] for t in between] == ["user interruption", "talking to other"]
    row = next(r for r in between[0]["rows"] if r[0]["text"] == "stop latency")
    values = {}
    for name in ("early", "late"):
        lines = (systems[name][1] / "timing-samples.jsonl").read_text().splitlines()
        values[name] = {r["sample_id"]: r["stop_latency_s"] for r in map(json.loads, lines)
                        if r["scenario"] == "user_interruption"}
    ids = sorted(values["early"])
    test = stats.ttest_rel([values["late"][i] for i in ids], [values["early"][i] for i in ids])
    p = float(test.pvalue)
    expected = "<.001" if p < 0.001 else f"{p:.3f}".removeprefix("0")
    assert math.isfinite(p) and row[7]["text"] == expected
    # the scenario's family is the stop and the response latency of early vs late: with
    # m = 2 the smaller p doubles (capped at 1) and the larger is at least that
    response = next(r for r in between[0]["rows"] if r[0]["text"] == "response latency")
    other = response[7]["text"]
    if other == "\u2013":  # no response-latency test: a family of one
        assert row[8]["text"] == expected
    else:
        lines = (systems["early"][1] / "timing-samples.jsonl").read_text().splitlines()
        early = {r["sample_id"]: r["response_latency_s"] for r in map(json.loads, lines)
                 if r["scenario"] == "user_interruption"}
        lines = (systems["late"][1] / "timing-samples.jsonl").read_text().splitlines()
        late = {r["sample_id"]: r["response_latency_s"] for r in map(json.loads, lines)
                if r["scenario"] == "user_interruption"}
        both = sorted(i for i in early if early[i] is not None and late.get(i) is not None)
        q = float(stats.ttest_rel([late[i] for i in both], [early[i] for i in both]).pvalue)
        low, high = sorted((p, q))
        first = min(1.0, 2 * low)
        adjusted = {p: first if p == low else max(first, high),
                    q: first if q == low else max(first, high)}
        shown = ["<.001" if v < 0.001 else f"{v:.3f}".removeprefix("0")
                 for v in (adjusted[p], adjusted[q])]
        assert [row[8]["text"], response[8]["text"]] == shown
    assert between[0]["header"][7:9] == ["p", "p Holm"]
    assert row[2]["text"] == "4 \u26a0 fewer than 10 pairs"
    html = page.read_text(encoding="utf-8")
    assert "\u26a0 fewer than 10 pairs: 2 of the tests below" in html
    assert "0.0000" not in html
    prosody = next(t for t in tables if t["header"][:2] == ["measure", "comparison"])
    assert prosody["header"][2:] == ["early"]  # late has no prosody
    assert all("\u26a0 fewer than 10 pairs" in r[2]["text"] for r in prosody["rows"])


def test_the_users_side_of_each_trial(page: Path, tmp_path: Path) -> None:
    assert page_problems(page) == []
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        assert browser.open_drilldowns() == 0
        lanes = browser.evaluate("""[...document.querySelectorAll('svg.timeline')].map(s =>
            [s.textContent.includes('user speech (Silero)'),
             s.querySelectorAll('title').length,
             [...s.querySelectorAll('title')].filter(t =>
                 t.textContent.startsWith('input speech')).length])""")
        # 5 early trials (one without input.wav: no lanes) and 5 late ones with speech
        assert [lane[0] for lane in lanes] == [True] * 4 + [False] + [True] * 5
        assert all(lane[2] == 0 for lane in lanes[:5])
        assert all(lane[2] >= 2 for lane in lanes[5:])  # the context and the interruption
        notes = browser.evaluate("""[...document.querySelectorAll('p.note')].filter(p =>
            p.textContent.startsWith('The input (input.wav) is not')).length""")
        assert notes == 1
        channels = browser.evaluate("""Promise.all([...document.querySelectorAll('audio')]
            .filter(a => a.closest('p').textContent.startsWith('user (left)'))
            .map(a => fetch(a.src).then(r => r.arrayBuffer())
                .then(b => new OfflineAudioContext(1, 1, 48000).decodeAudioData(b))
                .then(d => [d.numberOfChannels, d.duration,
                            d.getChannelData(0).reduce((m, v) => Math.max(m, Math.abs(v)), 0),
                            d.getChannelData(1).reduce((m, v) => Math.max(m, Math.abs(v)), 0)
                           ])))""")
        assert len(channels) == 9
        assert all(c[0] == 2 and c[1] == pytest.approx(12.0, abs=0.03) for c in channels)
        # left is the user: silent in the early trials, speech in the late ones
        assert all(c[2] < 0.01 < c[3] for c in channels[:4])
        assert all(c[2] > 0.05 for c in channels[4:])
        assert browser.errors() == []
    html = page.read_text(encoding="utf-8")
    assert "data:audio/ogg;base64," in html and "data:audio/wav" not in html


def test_names_come_from_the_manifest_or_the_option_never_the_folder(
        page: Path, systems: dict[str, tuple[Path, Path]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    html = page.read_text(encoding="utf-8")
    assert "<title>Full-Duplex-Bench v1.5: early, late</title>" in html
    assert ">late-tree<" not in html and ">early-tree<" not in html
    (early, early_scored), (late, late_scored) = systems["early"], systems["late"]
    out = tmp_path / "x.html"
    # the manifest calls the late tree "late": naming the early one "late" too is refused
    assert main(["fdb15", "report", "--scored", str(early_scored), "--tree", f"late={early}",
                 "--scored", str(late_scored), "--tree", str(late), "--out", str(out)]) == 2
    assert "two systems are called 'late'" in capsys.readouterr().err
    # the early tree has no manifest: it must be named
    assert main(["fdb15", "report", "--scored", str(early_scored), "--tree", str(early),
                 "--out", str(out)]) == 2
    assert "give --tree NAME=PATH" in capsys.readouterr().err
    assert not out.exists()


def test_baseline_is_compared_with_every_other_system(
        page: Path, systems: dict[str, tuple[Path, Path]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (early, early_scored), (late, late_scored) = systems["early"], systems["late"]
    # without --baseline every pair in the order given: early first
    assert "early vs late" in page.read_text(encoding="utf-8")
    out = tmp_path / "base.html"
    assert main(["fdb15", "report", "--scored", str(early_scored), "--tree", f"early={early}",
                 "--scored", str(late_scored), "--tree", str(late), "--baseline", "late",
                 "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "late vs early" in html and "early vs late" not in html
    unknown = tmp_path / "unknown.html"
    assert main(["fdb15", "report", "--scored", str(early_scored), "--tree", f"early={early}",
                 "--scored", str(late_scored), "--tree", str(late), "--baseline", "moshi",
                 "--out", str(unknown)]) == 2
    assert "--baseline 'moshi' is none of the systems: early, late" in capsys.readouterr().err
    assert not unknown.exists()
