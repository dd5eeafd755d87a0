"""``fdb10 show`` draws a sample's timeline as PNG or SVG."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.cli import main

from .test_official_examples import convert


@pytest.fixture
def tree(fixtures_dir: Path, tmp_path: Path) -> Path:
    convert(fixtures_dir / "fdb-official-examples" / "example_data", tmp_path / "tree")
    return tmp_path / "tree"


def test_png_and_deterministic_svg(tree: Path, tmp_path: Path) -> None:
    sid = "synthetic_user_interruption/1"
    assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                 str(tmp_path / "a.png")]) == 0
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("b.svg", "c.svg"):
        assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                     str(tmp_path / name)]) == 0
    svg = (tmp_path / "b.svg").read_text()
    assert svg == (tmp_path / "c.svg").read_text()
    assert "not_exercised" in svg and "user interrupts" in svg


def test_show_never_overwrites(tree: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.png").write_bytes(b"keep")
    assert main(["fdb10", "show", "--tree", str(tree), "candor_turn_taking/1", "--out",
                 str(tmp_path / "a.png")]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert (tmp_path / "a.png").read_bytes() == b"keep"


@pytest.mark.parametrize("sid,out,fragment", [
    ("candor_turn_taking/1", "x.pdf", ".png or .svg"),
    ("candor_turn_taking/9", "x.png", "no such sample"),
])
def test_show_errors(tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                     sid: str, out: str, fragment: str) -> None:
    assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                 str(tmp_path / out)]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / out).exists()
