"""``transcripts score --out``: refused before any scoring, in one line, nothing written.

Issue 10 item 12: an ``--out`` whose parent is a file, or that cannot be created, or that
exists, used to be found only after the whole manifest had been scored (and the first two
gave a traceback). The output directory is now claimed first.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from speecheval.cli import main

EXAMPLE_MANIFEST = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / \
    "manifest.yaml"


def score(manifest: Path, out: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["transcripts", "score", "--manifest", str(manifest), "--out", out])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def broken_manifest(tmp_path: Path) -> Path:
    """A manifest that fails as soon as it is scored: a refusal of ``--out`` that names
    ``--out`` (not this manifest) shows that the output was checked first."""
    path = tmp_path / "broken.yaml"
    path.write_text("format: nonsense\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("out", "reason"), [
    ("/dev/null/x", "/dev/null is not a directory"),
    ("/dev/null/x/y", "/dev/null is not a directory"),
    ("/proc/x", "cannot create the output directory"),
])
def test_uncreatable_out_refused_first(broken_manifest: Path, out: str, reason: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    top = Path("/", out.split("/")[1])
    if not top.exists():
        pytest.skip(f"{top} does not exist on this system")
    code, stdout, err = score(broken_manifest, out, capsys)
    assert (code, stdout) == (2, "")
    assert err.startswith(f"error: {out}: cannot create the output directory")
    assert reason in err and err.count("\n") == 1, err


def test_parent_is_a_file(broken_manifest: Path, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, stdout, err = score(broken_manifest, str(blocker / "run"), capsys)
    assert (code, stdout) == (2, "")
    assert err == (f"error: {blocker / 'run'}: cannot create the output directory: "
                   f"{blocker} is not a directory\n")
    assert blocker.read_text() == "x"


def test_existing_out_refused_before_scoring(broken_manifest: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    existing = tmp_path / "done"
    existing.mkdir()
    (existing / "keep.txt").write_text("mine")
    code, stdout, err = score(broken_manifest, str(existing), capsys)
    assert (code, stdout) == (2, "")
    assert err == (f"error: {existing}: output already exists; outputs are never overwritten, "
                   "choose a new path or give --force to replace it\n")
    assert [p.name for p in existing.iterdir()] == ["keep.txt"]


def test_failed_run_leaves_no_parents_behind(broken_manifest: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "deeper" / "run"
    code, _, err = score(broken_manifest, str(out), capsys)
    assert code == 2 and "broken.yaml" in err
    # The parents created to hold the staging directory are gone again.
    assert not (tmp_path / "new").exists()
    assert sorted(os.listdir(tmp_path)) == ["broken.yaml"]


def test_successful_run_creates_parents(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "run"
    code, stdout, _ = score(EXAMPLE_MANIFEST, str(out), capsys)
    assert code == 0 and stdout.startswith("%")
    assert (out / "run.json").is_file()
    assert [p.name for p in (tmp_path / "new").iterdir()] == ["run"]


@pytest.mark.parametrize("forced", ["1", "0"])
def test_progress_goes_to_stderr_only_when_shown(tmp_path: Path, forced: str,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", forced)
    code, stdout, err = score(EXAMPLE_MANIFEST, str(tmp_path / "run"), capsys)
    assert code == 0 and stdout.startswith("%WER 21.74")
    # the example has 5 samples; the bar counts them on stderr, never on stdout
    assert ("transcripts score" in err and "/5 " in err) == (forced == "1")
    assert err == "" or forced == "1"


def test_transcripts_help_does_not_import_pydantic() -> None:
    """The manifest schema is imported where ``score`` runs, not at CLI start-up."""
    code = ("import sys\nfrom speecheval.cli import main\n"
            "main(['transcripts', 'der', '--help'])\nmain(['transcripts', 'score', '--help'])\n"
            "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "--manifest" in out and out.strip().splitlines()[-1] == "False"
