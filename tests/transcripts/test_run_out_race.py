"""Two ``transcripts run`` on one ``--out`` at once: both pass the up-front check that the
folder is new, and the one whose creation comes second is refused with exit 2 and one
line naming the folder, while what the first wrote stays as it wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_fixtures import blocks_audio, calls, cli, write_manifest

from speecheval.transcripts.run import runner


def test_a_run_whose_out_another_run_created_first_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    blocks_audio(tmp_path / "blocks.wav")
    manifest = write_manifest(tmp_path, "  - id: blocks\n    audio: blocks.wav\n")
    out = tmp_path / "run"
    winner = '{"format": "the other run"}'
    checked = runner.check_new_output_dir

    def checked_then_taken(path: Path) -> Path:
        """The check passes; then the other run started on the same --out creates it,
        before this one's own creation."""
        target = checked(path)
        target.mkdir()
        (target / "run.json").write_text(winner)
        return target

    monkeypatch.setattr(runner, "check_new_output_dir", checked_then_taken)
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out", out) == 2
    assert capsys.readouterr().err == (
        f"error: {out}: output already exists: another run created it first; outputs are "
        "never shared or overwritten, choose a new path\n")
    assert [p.name for p in out.iterdir()] == ["run.json"]
    assert (out / "run.json").read_text() == winner
    assert calls(tmp_path) == []   # no system was called for the refused run
