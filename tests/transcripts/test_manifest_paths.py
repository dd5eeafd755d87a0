"""A score manifest's relative paths stay inside its folder (``..`` and links refused)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from speecheval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(EXAMPLE, target)
    return target


def score(manifest: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["transcripts", "score", "--manifest", str(manifest), "--out", str(out)])
    return code, capsys.readouterr().err


def rewrite_first_run(example: Path, transcript: str) -> Path:
    """Point samples[0].runs[0].transcript (sample en-standup) at ``transcript``."""
    path = example / "manifest.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["samples"][0]["runs"][0]["transcript"] = transcript
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_dot_dot_path_is_refused(example: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(example / "hyp" / "en-standup.json", tmp_path / "outside.json")
    manifest = rewrite_first_run(example, "../outside.json")
    code, err = score(manifest, tmp_path / "out", capsys)
    assert code == 2 and not (tmp_path / "out").exists()
    assert err.strip() == (
        f"error: sample en-standup: {manifest}: samples[0].runs[0].transcript (line 13): "
        f"'../outside.json' resolves to {(tmp_path / 'outside.json').resolve()}, outside "
        f"the manifest's folder ({example.resolve()}); files must lie inside it (symbolic "
        "links included)")


def test_link_leaving_the_folder_is_refused(example: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    target = example / "hyp" / "en-standup.json"
    shutil.move(target, tmp_path / "en-standup.json")
    os.symlink(tmp_path / "en-standup.json", target)
    code, err = score(example / "manifest.yaml", tmp_path / "out", capsys)
    assert code == 2 and not (tmp_path / "out").exists()
    assert "sample en-standup" in err and "'hyp/en-standup.json' resolves to" in err


def test_link_inside_the_folder_is_followed(example: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    os.symlink("hyp/en-standup.json", example / "alias.json")
    manifest = rewrite_first_run(example, "alias.json")
    code, err = score(manifest, tmp_path / "out", capsys)
    assert (code, err) == (0, "")
