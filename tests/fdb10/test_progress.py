"""``unified-score`` shows progress over the files it runs the VAD on, on a terminal only."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.fdb.v10.scoring import unified as scoring

from .treekit import Spec, interrupt, pauses, write_tree

UI, P = "synthetic_user_interruption", "synthetic_pause_handling"


def tree(tmp_path: Path) -> Path:
    # Two interruption samples need the VAD; the pause sample does not: the bar counts 2.
    silence = np.zeros(round(2.0 * 16000), np.float32)
    return write_tree(tmp_path / "t", [
        Spec(UI, "a", 2.0, [], interrupt(0.5, 1.0), audio=silence),
        Spec(UI, "b", 2.0, [], interrupt(0.5, 1.0), audio=silence),
        Spec(P, "p", 2.0, [], pauses((0.5, 1.0))),
    ])


@pytest.mark.parametrize("forced, shown", [("1", True), ("0", False)])
def test_vad_progress_on_a_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str], forced: str,
                                         shown: bool) -> None:
    source = tree(tmp_path)
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", forced)  # "1" stands for a terminal
    assert main(["fdb10", "unified-score", "--tree", str(source), "--out",
                 str(tmp_path / "out"), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert ("speech (Silero VAD)" in captured.err) is shown
    assert ("0/2" in captured.err) is shown  # the total: the two files the VAD reads
    assert "speech (Silero VAD)" not in captured.out
    assert (tmp_path / "out" / "unified.json").is_file()


def test_the_bar_advances_once_per_vad_file(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, int]] = []

    @contextmanager
    def recording(total: int, label: str) -> Iterator[object]:
        def advance(units: int = 1) -> None:
            calls.append((label, total, units))
        yield advance

    monkeypatch.setattr(scoring, "progress", recording)
    scoring.score_tree(tree(tmp_path), workers=1)
    assert calls == [("speech (Silero VAD)", 2, 1)] * 2
