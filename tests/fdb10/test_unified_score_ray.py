"""``fdb10 unified-score --executor ray``: Silero on a real local Ray cluster scores the
mini tree to the same bytes as local worker processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.fdb.v10.builder.trees import build_mini_tree


def _score(tree: Path, place: Path, monkeypatch: pytest.MonkeyPatch, *options: str) -> Path:
    place.mkdir()
    monkeypatch.chdir(place)  # the same relative --out everywhere: the same recorded command
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out", "out",
                 "--vad-cache", "off", *options]) == 0
    return place / "out"


def test_the_same_scores_on_ray(ray_cluster: str, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "tree"
    build_mini_tree(tree)
    outputs = {name: _score(tree, tmp_path / name, monkeypatch, *options)
               for name, options in {
        "local": [], "ray": ["--executor", "ray"], "jobs1": ["--jobs", "1"],
        "jobs2": ["--jobs", "2"]}.items()}
    names = sorted(p.name for p in outputs["local"].iterdir())
    assert "unified-samples.jsonl" in names and "unified.json" in names
    for name in names:  # the command line is recorded: no --jobs in either
        assert (outputs["local"] / name).read_bytes() == (outputs["ray"] / name).read_bytes()
    rows = (outputs["local"] / "unified-samples.jsonl").read_bytes()
    assert (outputs["jobs1"] / "unified-samples.jsonl").read_bytes() == rows
    assert (outputs["jobs2"] / "unified-samples.jsonl").read_bytes() == rows
