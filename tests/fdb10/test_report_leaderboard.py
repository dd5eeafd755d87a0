"""``fdb10 report``: the leaderboard, the systems' names, systems as columns, --baseline.

The page is opened in a real headless Chromium and its leaderboard cells are compared
with ``unified.json`` as ``fdb10 unified-score`` writes it (a separate command and file,
so the page cannot agree with itself by construction); the cell text is worked out here
from the file's numbers with plain f-strings.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.trees import build_mini_tree
from speecheval.fdb.v10.report.leaderboard import Entry, leaderboard

from .browserkit import Browser

TT, UI = "candor_turn_taking", "synthetic_user_interruption"
SP, CP, BC = "synthetic_pause_handling", "candor_pause_handling", "icc_backchannel"
HEADLINES = [(SP, "pause_intrusion_rate"), (CP, "pause_intrusion_rate"),
             (TT, "early_start_rate"), (TT, "response_rate_2s"), (TT, "response_latency_s"),
             (UI, "exercised_rate"), (UI, "speaking_at_end_rate"), (UI, "response_latency_s")]


def _official(tree: Path, subsets: dict[str, dict[str, float]]) -> None:
    summary = {"kind": "fdb-v1.0-reference-summary", "schema_version": 1,
               "inputs": {"manifest_sha256": sha256_file(tree / "manifest.json"),
                          "asr_sha256": sha256_file(tree / "asr.json")},
               "subsets": subsets}
    (tree / "summary.json").write_text(json.dumps(summary))


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The mini tree twice: ``first`` with the official backchannel numbers, ``second``
    (a copy) named in its manifest and without them."""
    root = tmp_path_factory.mktemp("board")
    first = root / "tree"
    build_mini_tree(first)
    second = root / "copy" / "tree"
    shutil.copytree(first, second)
    manifest = json.loads((second / "manifest.json").read_text())
    manifest["system"] = "Named In Manifest"
    (second / "manifest.json").write_text(json.dumps(manifest))
    _official(first, {BC: {"frequency": 0.25, "frequency_std": 0.05, "jsd": 0.5,
                           "take_over_rate": 0.125}})
    return first, second


@pytest.fixture(scope="module")
def unified(trees: tuple[Path, Path]) -> dict[str, object]:
    out = trees[0].parent / "unified"
    assert main(["fdb10", "unified-score", "--tree", str(trees[0]), "--out", str(out),
                 "--jobs", "1"]) == 0
    loaded: dict[str, object] = json.loads((out / "unified.json").read_text())
    return loaded


@pytest.fixture(scope="module")
def page(trees: tuple[Path, Path]) -> Path:
    out = trees[0].parent / "board.html"
    assert main(["fdb10", "report", "--tree", f"moshi={trees[0]}", "--tree", str(trees[1]),
                 "--baseline", "Named In Manifest", "--out", str(out), "--jobs", "1"]) == 0
    return out


def _expected_cell(record: dict[str, object], metric: str) -> str:
    """The leaderboard cell from unified.json's numbers, formatted here by hand."""
    found = record["metrics"][metric]  # type: ignore[index]
    coverage = f"cov {record['coverage']:.3f}"
    if found["kind"] == "share":
        low, high = found["interval"]
        return f"{found['value']:.3f} [{low:.3f}, {high:.3f}] {coverage}"
    median = found["median"]
    bounds = median["interval"]
    shown = [f"{bounds[k]:.3f}" if bounds[f"{k}_reached"] else "not reached"
             for k in ("low", "high")]
    return f"{median['value']:.3f} s [{shown[0]}, {shown[1]}] {coverage}"


def test_leaderboard_in_chromium_equals_unified_json(page: Path, unified: dict[str, object],
                                                     tmp_path: Path) -> None:
    subsets = unified["subsets"]
    assert isinstance(subsets, dict)
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        first_h2, header, rows = browser.evaluate("""(() => {
            const h2 = document.querySelector('h2');
            const table = h2.parentElement.querySelector('table');
            return [h2.textContent, [...table.tHead.rows[0].cells].map(c => c.textContent),
                    [...table.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))];
        })()""")
        assert browser.errors() == []
    assert first_h2 == "Leaderboard"
    # the official backchannel numbers of the first tree: frequency shown with its spread
    names = [f"{s}: {'median ' if m == 'response_latency_s' else ''}{m}" for s, m in HEADLINES]
    assert sorted(header[1:]) == sorted([*names, f"{BC}: frequency (official)",
                                         f"{BC}: jsd (official)",
                                         f"{BC}: take_over_rate (official)"])
    assert [row[0] for row in rows] == ["moshi", "Named In Manifest"]
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        for (subset, metric), name in zip(HEADLINES, names, strict=True):
            # the same tree twice: identical intervals overlap, so no cell is marked best
            assert cells[name] == _expected_cell(subsets[subset], metric), name
    coverage = f"cov {subsets[BC]['coverage']:.3f}"   # 3 of 4 selected: 0.750
    assert coverage == "cov 0.750"
    assert rows[0][header.index(f"{BC}: frequency (official)")] == \
        f"0.250 \u00b1 0.050 official {coverage}"
    assert rows[0][header.index(f"{BC}: jsd (official)")] == f"0.500 official {coverage}"
    assert rows[1][header.index(f"{BC}: jsd (official)")] == "n/a"


def test_metric_tables_have_one_column_group_per_system(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    section = html[html.index(f"<h2>{TT} ("):]
    table = section[section.index("<table>"):section.index("</thead>")]
    assert table.count("</th>") == 2 + 2 * 4
    assert "<th class=\"num\">moshi: value</th>" in table
    assert "<th class=\"num\">Named In Manifest: selected bounds</th>" in table
    # early_start_rate: 2 of 12 eligible turn-taking samples start early (test_report_page)
    row = section[section.index("<td>early_start_rate</td>"):]
    row = row[:row.index("</tr>")]
    assert row.count("<td class=\"num\">2/12</td>") == 2
    assert "tree (1)" not in html and "tree (2)" not in html


def test_baseline_sets_every_other_system_against_it(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    # four subsets with outcomes, one comparison each, the baseline first
    assert html.count("<h3>Paired comparison: Named In Manifest and moshi</h3>") == 4
    assert "Paired comparison: moshi and" not in html


def test_every_pair_without_a_baseline(trees: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "three.html"
    assert main(["fdb10", "report", "--tree", f"a={trees[0]}", "--tree", f"b={trees[0]}",
                 "--tree", f"c={trees[1]}", "--out", str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
        assert html.count(f"<h3>Paired comparison: {first} and {second}</h3>") == 4
    assert html.count("<h3>Paired comparison:") == 12


def test_plain_path_takes_the_recorded_name(trees: tuple[Path, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "dup.html"
    # the built tree names its generator; twice the same name is refused before scoring
    assert main(["fdb10", "report", "--tree", str(trees[0]), "--tree", str(trees[0]),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "two trees are both named 'speecheval-builder mini'" in err
    assert "--tree NAME=PATH" in err and not out.exists()
    assert main(["fdb10", "report", "--tree", f"x={trees[0]}", "--tree", f"x={trees[1]}",
                 "--out", str(out)]) == 2
    assert "two trees are both named 'x'" in capsys.readouterr().err and not out.exists()


def test_unknown_baseline_and_bad_names_are_refused(trees: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    out = tmp_path / "bad.html"
    assert main(["fdb10", "report", "--tree", f"a={trees[0]}", "--baseline", "zz",
                 "--out", str(out)]) == 2
    assert "--baseline 'zz' is none of the systems: a" in capsys.readouterr().err
    assert main(["fdb10", "report", "--tree", f"={trees[0]}", "--out", str(out)]) == 2
    assert "write NAME=PATH" in capsys.readouterr().err
    bare = tmp_path / "bare"
    shutil.copytree(trees[0], bare)
    manifest = json.loads((bare / "manifest.json").read_text())
    del manifest["generator"]
    (bare / "manifest.json").write_text(json.dumps(manifest))
    assert main(["fdb10", "report", "--tree", str(bare), "--out", str(out)]) == 2
    assert "does not say which system it is" in capsys.readouterr().err
    assert not out.exists()


def _share(value: float, low: float, high: float) -> dict[str, object]:
    return {"kind": "share", "better": "lower", "value": value, "interval": [low, high]}


def _summary(metric: dict[str, object]) -> dict[str, object]:
    return {"subsets": {SP: {"task": "pause_handling", "coverage": 1.0,
                             "metrics": {"pause_intrusion_rate": metric}}}}


def test_best_is_marked_only_where_intervals_do_not_overlap() -> None:
    # lower is better: a's interval [0.05, 0.15] ends below b's [0.2, 0.4] and c's
    # [0.3, 0.6], so a is marked; then c's [0.12, 0.6] reaches into a's: nothing is.
    apart = leaderboard([Entry("a", _summary(_share(0.1, 0.05, 0.15)), None),
                         Entry("b", _summary(_share(0.3, 0.2, 0.4)), None),
                         Entry("c", _summary(_share(0.45, 0.3, 0.6)), None)])
    assert [row[1] for row in apart.rows] == ["0.100 [0.050, 0.150] cov 1.000 (best)",
                                              "0.300 [0.200, 0.400] cov 1.000",
                                              "0.450 [0.300, 0.600] cov 1.000"]
    assert apart.tones == {"0.100 [0.050, 0.150] cov 1.000 (best)": "pass"}
    close = leaderboard([Entry("a", _summary(_share(0.1, 0.05, 0.15)), None),
                         Entry("c", _summary(_share(0.45, 0.12, 0.6)), None)])
    assert not any("(best)" in cell for row in close.rows for cell in row)
