"""fdb15 score with --judge offline --prosody on a tree of espeak-ng pairs: the labels, the
shares, the prosody of the respond trials, the paired tests and the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from speecheval.cli import main

from . import judged_tree


@pytest.fixture(scope="module")
def scored(judged_scored: tuple[Path, Path]) -> Path:
    return judged_scored[1]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_labels_and_shares(scored: Path) -> None:
    labels = {row["sample_id"]: row["label"] for row in _lines(scored /
                                                               "behaviour-samples.jsonl")}
    assert labels == {"user_interruption/1": "C_RESPOND", "user_interruption/2": "C_RESPOND",
                      "user_interruption/3": "C_RESPOND",
                      "user_interruption/4": "C_UNCERTAIN_HANDLING",
                      "talking_to_other/1": "C_UNKNOWN"}
    behaviour = json.loads((scored / "behaviour.json").read_text())
    assert behaviour["judge"]["official"] is False
    shares = behaviour["scenarios"]["user_interruption"]["shares"]
    assert (shares["C_RESPOND"]["count"], shares["C_RESPOND"]["n"]) == (3, 4)
    assert shares["C_RESPOND"]["value"] == 0.75
    assert not (scored / "behaviour-ledger.jsonl").exists()      # the offline judge asks no one


def test_prosody_of_the_respond_trials(scored: Path) -> None:
    rows = _lines(scored / "prosody-samples.jsonl")
    assert [row["sample_id"] for row in rows] == [f"user_interruption/{i}" for i in (1, 2, 3)]
    for row in rows:
        assert row["split_s"] == 7.0      # the first word ending after 6.0 s starts at 7.0 s
        for part in ("pre", "post", "clean"):
            pitch = row["parts"][part]["pitch_mean_hz"]
            assert isinstance(pitch, float) and 60 < pitch < 300
    prosody = json.loads((scored / "prosody.json").read_text())
    assert prosody["n_trials"] == 3 and prosody["correction"] == "holm"
    assert prosody["backends"]["pitch"]["backend"] == "praat-parselmouth"
    tests = {(t["measure"], t["comparison"]): t for t in prosody["tests"]}
    assert len(tests) == 16                                   # 8 measures x 2 comparisons
    # what stands in for the paper's UTMOSv2 is named, and so is the outlier rule
    assert "in place of UTMOSv2" in prosody["backends"]["mos"]["substitution"]
    assert prosody["outliers"].startswith("outliers trimmed as the official default")
    assert prosody["backends"]["intensity_dbfs"]["unit"] == "dBFS"
    wpm = tests[("words_per_minute", "pre->post")]
    assert wpm["n"] == 3 and wpm["p"] is not None and wpm["p_corrected"] >= wpm["p"]
    # the mean difference is the mean of post minus pre over the three trials
    by_hand = sum(r["parts"]["post"]["words_per_minute"] - r["parts"]["pre"]["words_per_minute"]
                  for r in rows) / 3
    assert wpm["mean_difference"] == pytest.approx(by_hand)
    assert "Holm" in prosody["statement"]


def test_utmos_scores_from_a_file_are_tested(judged_scored: tuple[Path, Path],
                                             tmp_path: Path) -> None:
    tree, _ = judged_scored
    scores = {("1", "pre"): 3.0, ("2", "pre"): 3.5, ("3", "pre"): 4.0,
              ("1", "post"): 2.5, ("2", "post"): 3.5, ("3", "post"): 3.0,
              ("1", "clean"): 4.0, ("2", "clean"): 3.0}          # no clean score for 3
    utmos = tmp_path / "utmos.jsonl"
    utmos.write_text("".join(json.dumps({"sample_id": f"user_interruption/{n}", "part": part,
                                         "utmos": value}) + "\n"
                             for (n, part), value in scores.items()))
    out = tmp_path / "scored"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "offline",
                 "--prosody", "--mos", "none", "--utmos-file", str(utmos), "--jobs", "1"]) == 0
    prosody = json.loads((out / "prosody.json").read_text())
    tests = {(t["measure"], t["comparison"]): t for t in prosody["tests"]}
    # pre -> post: differences -0.5, 0, -1.0, mean -0.5 (MAD 0.5: bounds -0.5 +- 2.59, none out)
    pre_post = tests[("utmos", "pre->post")]
    assert pre_post["n"] == 3 and pre_post["mean_difference"] == pytest.approx(-0.5)
    assert pre_post["p"] == pytest.approx(
        float(stats.ttest_rel([2.5, 3.5, 3.0], [3.0, 3.5, 4.0]).pvalue))
    # clean -> post: trial 3 has no clean score; differences -1.5 and 0.5, mean -0.5
    clean_post = tests[("utmos", "clean->post")]
    assert clean_post["n"] == 2 and clean_post["mean_difference"] == pytest.approx(-0.5)
    assert clean_post["dropped"] == [{"sample_id": "user_interruption/3",
                                      "reason": "clean: not in the UTMOS file"}]
    assert prosody["backends"]["utmos"]["file"] == "utmos.jsonl"
    rows = _lines(out / "prosody-samples.jsonl")
    assert rows[0]["parts"]["pre"]["utmos"] == 3.0


@pytest.mark.parametrize(("line", "problem"), [
    ('{"sample_id": "user_interruption/1", "part": "middle", "utmos": 3.0}', "part must be"),
    ('{"sample_id": "user_interruption/1", "part": "pre", "utmos": "3.0"}', "finite number"),
    ('{"sample_id": "user_interruption/1", "part": "pre"}', "want exactly the keys"),
    ("not json", "not JSON"),
])
def test_a_bad_utmos_file_is_bad_input(judged_scored: tuple[Path, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str], line: str,
                                       problem: str) -> None:
    tree, _ = judged_scored
    utmos = tmp_path / "utmos.jsonl"
    utmos.write_text('{"sample_id": "user_interruption/2", "part": "pre", "utmos": 3.0}\n'
                     + line + "\n")
    out = tmp_path / "scored"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "offline",
                 "--prosody", "--mos", "none", "--utmos-file", str(utmos)]) == 2
    err = capsys.readouterr().err
    assert f"{utmos}:2: " in err and problem in err, err
    assert not out.exists()
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out),
                 "--utmos-file", str(utmos)]) == 2
    assert "add --prosody" in capsys.readouterr().err


def test_prosody_needs_a_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "tree"
    (tree / "user_interruption").mkdir(parents=True)
    assert main(["fdb15", "score", "--tree", str(tree), "--prosody"]) == 2
    assert "give --judge offline or --judge openai" in capsys.readouterr().err


def test_a_missing_transcript_is_bad_input(tmp_path: Path, scored: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    tree = judged_tree.build(tmp_path / "tree")
    (tree / "talking_to_other/1/clean_output.json").unlink()
    assert main(["fdb15", "score", "--tree", str(tree), "--judge", "offline"]) == 2
    err = capsys.readouterr().err
    assert "talking_to_other/1" in err and "clean_output.json is missing" in err
    assert not (tree / "fdb15-timing").exists()


def test_one_worker_writes_the_same_bytes(judged_scored: tuple[Path, Path],
                                          tmp_path: Path) -> None:
    tree, scored = judged_scored            # scored in two worker processes (--jobs 2)
    out = tmp_path / "one"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "offline",
                 "--prosody", "--correction", "holm", "--jobs", "1"]) == 0
    for name in ("prosody-samples.jsonl", "prosody.json", "behaviour-samples.jsonl",
                 "behaviour.json", "timing-samples.jsonl"):
        assert (out / name).read_bytes() == (scored / name).read_bytes(), name
    # timing.json differs only in the recorded command (its --out); --jobs is not in it
    one, two = (json.loads((folder / "timing.json").read_text()) for folder in (out, scored))
    commands = [one["provenance"].pop("command"), two["provenance"].pop("command")]
    assert all("--jobs" not in command for command in commands)
    assert one == two


def test_the_openai_judge_needs_the_instruction(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "tree"
    (tree / "user_interruption").mkdir(parents=True)
    assert main(["fdb15", "score", "--tree", str(tree), "--judge", "openai"]) == 2
    assert "--judge openai needs --judge-instruction" in capsys.readouterr().err
