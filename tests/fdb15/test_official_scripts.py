"""The official v1.5 evaluation scripts, run unchanged in a subprocess with this
interpreter, against what speecheval computes from the same files.

* ``get_timing.py`` on a tree that ``fdb15 export`` wrote from the mini set and the local
  duplex agent (real sockets, real clock: the audio differs from run to run, but both
  sides read the same files, so they must agree exactly). The script runs through
  ``official_runner.py``, which only answers its ``torch.hub`` download with the Silero
  model shipped in the silero-vad wheel and, where torchaudio is absent, reads the wav
  files with soundfile.
* ``significance_test.py`` on our prosody measures of the hand-made judged tree, written
  as its ``general_split.json`` and ``content_tag.json``, both with their default outlier
  trimming (MAD): its printed conclusions against ``prosody.json``.
* ``evaluate.py --task behavior`` (``eval_behavior.py``) and ``fdb15 score --judge
  openai`` against the same local OpenAI-compatible server: the same labels, the same
  shares.

``eval_general_before_after.py`` imports torchaudio's SQUIM pipelines and utmosv2 at
module level, and UTMOSv2 downloads its weights; it does not run here (see docs/fdb15.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from speech_engine import require_speech

from speecheval.cli import main

from . import judged_tree

EVALUATION = "fdb-official-evaluator/v1_v1.5/evaluation"
RUNNER = Path(__file__).with_name("official_runner.py")


def _run_official(script: Path, *args: str, cwd: Path,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One official script in a subprocess of this interpreter (through the runner); the
    timeout stops eval_behavior.py, which retries a failed request forever."""
    done = subprocess.run([sys.executable, str(RUNNER), str(script), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.timeout(600)     # recording 8 sessions and starting torch on a busy host
def test_get_timing_gives_our_official_column(duplex_capture: tuple[Path, Path],
                                              fixtures_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch is not installed (extra fdb15): "
                                        "get_timing.py runs Silero through it")
    pytest.importorskip("silero_vad", reason="silero-vad is not installed")
    tree = tmp_path / "tree"
    shutil.copytree(duplex_capture[1], tree)
    assert main(["fdb15", "score", "--tree", str(tree), "--jobs", "2"]) == 0
    ours = {row["sample_id"]: row["official"] for row in map(
        json.loads, (tree / "fdb15-timing" / "timing-samples.jsonl").read_text().splitlines())}
    assert ours             # input_pacing can make a pair ineligible on a busy host
    # the script times the sample folders directly under --root_dir: one folder of links
    # to every pair lets one run (one torch start) time them all, writing beside each wav
    flat = tmp_path / "flat"
    flat.mkdir()
    for sample_id in ours:
        (flat / sample_id.replace("/", "__")).symlink_to(tree / sample_id)
    _run_official(fixtures_dir / EVALUATION / "get_timing.py", "--root_dir", str(flat),
                  cwd=tmp_path)
    for sample_id, official in ours.items():
        theirs = json.loads((tree / sample_id / "latency_intervals.json").read_text())
        assert official == theirs, sample_id
    # the local agent answers every turn: at least the context turn's reply is there
    assert all(official["latency_resp_list"] for official in ours.values()), ours


OFFICIAL_METRICS = {"pitch_mean_hz": "mean_pitch", "pitch_sd_hz": "std_pitch",
                    "intensity_mean_db": "mean_intensity", "intensity_sd_db": "std_intensity",
                    "intensity_mean_dbfs": "mean_intensity_dbfs",
                    "intensity_sd_dbfs": "std_intensity_dbfs",
                    "words_per_minute": "wpm", "dnsmos_ovrl": "dnsmos_ovrl"}
"""Our measure -> the script's metric name (it takes any name; ours has DNSMOS for MOS)."""


def _official_p(p: float) -> str:
    """A p-value as the script prints it."""
    return "<.001" if p < 0.001 else f"{p:.3f}"


def test_significance_test_gives_our_paired_tests(judged_scored: tuple[Path, Path],
                                                   fixtures_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("statsmodels", reason="statsmodels is not installed (extra test): "
                                              "the official significance_test.py needs it "
                                              "and pandas, which it brings")
    tree, scored = judged_scored
    labels = {row["sample_id"]: row["label"] for row in map(
        json.loads, (scored / "behaviour-samples.jsonl").read_text().splitlines())}
    root = tmp_path / "user_interruption"
    for sample_id, label in labels.items():
        if sample_id.startswith("user_interruption/"):
            folder = root / sample_id.split("/")[1]
            folder.mkdir(parents=True)
            (folder / "content_tag.json").write_text(json.dumps({"behaviour": [label]}))
    for row in map(json.loads, (scored / "prosody-samples.jsonl").read_text().splitlines()):
        split = {part: {OFFICIAL_METRICS[k]: v for k, v in values.items()}
                 for part, values in row["parts"].items()}
        folder = root / row["sample_id"].split("/")[1]
        (folder / "general_split.json").write_text(json.dumps({"split_t": row["split_s"],
                                                               **split}))
    done = _run_official(fixtures_dir / EVALUATION / "significance_test.py", "--root_dir",
                         str(root), "--metrics", *OFFICIAL_METRICS.values(),
                         "--out_csv", str(tmp_path / "pair_t.txt"), cwd=tmp_path)
    printed = (tmp_path / "pair_t.txt").read_text().splitlines()
    tests = json.loads((scored / "prosody.json").read_text())["tests"]
    assert len(printed) == len(tests) == 16, done.stdout
    # both trim outliers by default (MAD on the differences, k 3.5): the same pairs
    expected = []
    for test in tests:       # the script's order: per metric, pre->post then clean->post
        before, after = test["comparison"].split("->")
        n = test["n"]
        expected.append(
            f"{before}_vs_{after}:{OFFICIAL_METRICS[test['measure']]}: "
            f"{'a' if test['p'] < 0.05 else 'no'} statistically reliable change was observed; "
            f"After {'increased' if test['mean_difference'] > 0 else 'decreased'} relative "
            f"to Before (M_before={test['mean_before']:.2f}, M_after={test['mean_after']:.2f}, "
            f"Δ={test['mean_difference']:.2f}")
        line = printed[len(expected) - 1]
        assert f"paired t({n - 1})={test['t']:.2f}, p={_official_p(test['p'])}, " \
               f"d_z={test['d_z']:.2f})." in line, printed
        outliers = sum(d["reason"].startswith("outlier") for d in test["dropped"])
        assert (f"Outlier trimming (mad) removed {outliers}/{n + outliers} pairs." in line
                ) == (outliers > 0), (line, test["dropped"])
    assert [line.split(", 95% CI")[0] for line in printed] == expected


def _label_by_reply(request: dict[str, Any]) -> str:
    """The test server's judge: a label from what the system said in output.json."""
    said = request["messages"][1]["content"].split('"output_noisy":')[1]
    label = ("C_UNCERTAIN_HANDLING" if "Sorry" in said
             else "C_RESPOND" if "restaurant" in said else "C_RESUME")
    return json.dumps({"behaviour": [label]})


def test_evaluate_py_behavior_gives_our_shares(fixtures_dir: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai", reason="openai is not installed (extra test)")
    pytest.importorskip("dotenv", reason="python-dotenv is not installed (extra test)")
    require_speech()
    monkeypatch.setenv("SPEECHEVAL_TEST_JUDGE_KEY", "sk-test")
    with ChatServer(answer=_label_by_reply) as server:
        tree = judged_tree.build(tmp_path / "tree")
        instruction = fixtures_dir / EVALUATION / "instruction" / "behavior.txt"
        assert main(["fdb15", "score", "--tree", str(tree), "--out", str(tmp_path / "scored"),
                     "--judge", "openai", "--judge-base-url", server.base_url,
                     "--judge-api-key-env", "SPEECHEVAL_TEST_JUDGE_KEY", "--judge-instruction",
                     str(instruction)]) == 0
        ours = json.loads((tmp_path / "scored" / "behaviour.json").read_text())["scenarios"]
        # evaluate.py reads ./instruction/behavior.txt and writes its log into the working
        # folder: it runs from a copy of the evaluation folder
        evaluation = tmp_path / "evaluation"
        shutil.copytree(fixtures_dir / EVALUATION, evaluation)
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.base_url}
        for scenario in ("user_interruption", "talking_to_other"):
            done = _run_official(evaluation / "evaluate.py", "--task", "behavior",
                                 "--root_dir", str(tree / scenario), cwd=evaluation, env=env)
            assert "Error" not in done.stdout, done.stdout
            log = (evaluation / f"{scenario}_behavior.log").read_text()
            shares = ours[scenario]["shares"]
            counted = {label: round(share["value"], 2) for label, share in shares.items()
                       if share["count"]}
            assert log == f"Ratios (C-axis): {dict(sorted(counted.items()))}\n"
    # user_interruption: 3 replies name restaurants, 1 says sorry; talking_to_other says
    # nothing new (its output.json holds only the answer)
    assert ours["user_interruption"]["shares"]["C_RESPOND"]["count"] == 3
    assert ours["user_interruption"]["shares"]["C_UNCERTAIN_HANDLING"]["count"] == 1
    assert ours["talking_to_other"]["shares"]["C_RESUME"]["count"] == 1
