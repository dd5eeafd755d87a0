"""--force on ``transcripts run``, ``gate --raw --out`` and ``arbitrate --out``: refused
without it (nothing changed), a replacement with it, refused with --resume."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from run_fixtures import blocks_audio, cli, write_manifest
from test_arbitrate import JUDGE_SCRIPT, write_inputs

from speecheval.cli import main

SAMPLE = "  - id: blocks\n    audio: blocks.wav\n"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_run_again_with_force_and_never_with_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks_audio(tmp_path / "blocks.wav")
    manifest = write_manifest(tmp_path, SAMPLE)
    out = tmp_path / "run"
    args = ("run", "--manifest", manifest, "--system", "fake", "--out", out)
    assert cli(*args) == 0
    first = _snapshot(out)
    capsys.readouterr()
    assert cli(*args) == 2
    assert "give --force to replace it" in capsys.readouterr().err
    assert _snapshot(out) == first
    (out / "left-by-the-old-run").write_text("old")
    assert cli(*args, "--force") == 0
    assert not (out / "left-by-the-old-run").exists()
    assert json.loads((out / "run.json").read_text()) == json.loads(first["run.json"])
    assert capsys.readouterr().out.splitlines()[-1] == f"run directory: {out}"
    assert cli("run", "--resume", out, "--force") == 2
    assert "--force" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_gate_out_file_again_with_force(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "out.txt"
    raw.write_text("[0.00 - 9.50] all of it\n", encoding="utf-8")
    out = tmp_path / "verdict.json"
    args = ("gate", "--raw", raw, "--duration", "10", "--last-speech", "9", "--out", out)
    assert cli(*args) == 0
    first = out.read_bytes()
    capsys.readouterr()
    assert cli(*args) == 2 and "give --force" in capsys.readouterr().err
    out.write_text("{}")
    assert cli(*args, "--force") == 0
    assert out.read_bytes() == first
    assert cli(*args[:-1], raw, "--force") == 2     # the raw input is not a .json verdict
    assert raw.read_text(encoding="utf-8") == "[0.00 - 9.50] all of it\n"


def test_arbitrate_out_again_with_force_and_a_failed_force_keeps_the_old(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "judge.py"
    script.write_text(JUDGE_SCRIPT, encoding="utf-8")
    refs, cands = write_inputs(tmp_path)
    out = tmp_path / "arb"
    args = ["transcripts", "arbitrate", "--references", str(refs), "--candidates", str(cands),
            "--out", str(out)]
    judge = ["--judge-command", f"ok={shlex.quote(sys.executable)} {script} ok"]
    assert main([*args, *judge]) == 0
    first = _snapshot(out)
    capsys.readouterr()
    assert main([*args, *judge]) == 2 and "give --force" in capsys.readouterr().err
    assert main([*args, "--judge-command", "x=/no/such/judge-program", "--force"]) == 2
    assert _snapshot(out) == first
    assert main([*args, *judge, "--force"]) == 0
    assert _snapshot(out).keys() == first.keys()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
