"""A WAV cut inside its ``fmt `` chunk is a named problem, not a ``struct.error``
traceback: ``check-dataset`` lists it against its sample, ``unified-score`` stops with
exit 2 naming the sample, the file and where the file ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.builder.dataset import build_dataset

from .test_validation import P, good_specs
from .treekit import write_tree

CUT = 26
"""Bytes kept: the 12-byte RIFF header, the fmt chunk's 8-byte header and 6 of its 16."""
PROBLEM = (f"truncated audio: the file ends after {CUT} bytes, inside its 'fmt ' chunk "
           "(bytes 12 to 36)")


def test_check_dataset_lists_the_cut_input(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "v1_0"
    build_dataset(root, "mini")
    wav = root / "candor_turn_taking" / "1" / "input.wav"
    wav.write_bytes(wav.read_bytes()[:CUT])
    assert main(["fdb10", "check-dataset", "--dataset-root", str(root)]) == 0
    captured = capsys.readouterr()
    assert f"candor_turn_taking/1: input.wav is unreadable: {PROBLEM}" in captured.out
    assert "candor_turn_taking             usable   7 of 119  problems   1" in captured.out
    assert captured.err == ""


def test_unified_score_refuses_the_cut_output(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    wav = tree / P / "p" / "output.wav"
    wav.write_bytes(wav.read_bytes()[:CUT])
    manifest = json.loads((tree / "manifest.json").read_text())
    entry = next(s for s in manifest["samples"] if s["sample_id"] == f"{P}/p")
    entry["files"]["output.wav"] = sha256_file(wav)   # the cut file is the one listed
    (tree / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "scores"
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"error: sample {P}/p: {wav}: {PROBLEM}\n"
    assert not out.exists()
