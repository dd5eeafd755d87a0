"""Startup cost: the CLI imports a command's heavy dependencies only when that command runs.

Each check runs in a fresh interpreter, because this test process has long since imported
scipy and the rest, and reads that interpreter's ``sys.modules`` after the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from speecheval import cli
from speecheval.cli_lazy import Lazy, LazyGroup
from speecheval.transcripts.cli import transcripts

SRC = Path(__file__).resolve().parents[1] / "src"
# Each costs from 0.1 s (jinja2) to 0.6 s (scipy.signal with scipy.stats) to import.
HEAVY = ("scipy", "scipy.signal", "scipy.stats", "scipy.optimize", "matplotlib",
         "onnxruntime", "faster_whisper", "jinja2", "pydantic", "torch")


def _fresh_modules(code: str) -> dict[str, object]:
    """Run ``code`` in a new interpreter importing this checkout; it prints JSON last."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def _heavy_after(argv: list[str] | None) -> dict[str, object]:
    run = "" if argv is None else f"code = main({argv!r})\n"
    return _fresh_modules(
        "import json, sys\n"
        "from speecheval.cli import main\n"
        f"code = 0\n{run}"
        f"print(json.dumps({{'code': code, 'heavy': [m for m in {HEAVY!r} "
        "if m in sys.modules]}))")


@pytest.mark.parametrize("argv", [None, ["--help"], ["transcripts", "der", "--help"],
                                  ["transcripts", "--help"], ["--version"]])
def test_cli_and_help_import_nothing_heavy(argv: list[str] | None) -> None:
    assert _heavy_after(argv) == {"code": 0, "heavy": []}


def _modules_after(argv: list[str], names: tuple[str, ...]) -> dict[str, object]:
    return _fresh_modules(
        "import json, sys\n"
        "from speecheval.cli import main\n"
        f"code = main({argv!r})\n"
        f"print(json.dumps({{'code': code, 'loaded': [m for m in {names!r} "
        "if m in sys.modules]}))")


ARRAYS = ("numpy", "threadpoolctl", "ctypes")
"""numpy (some 50 ms of import) and what pins its thread pools (threadpoolctl, ctypes)."""


@pytest.mark.parametrize("argv", [["transcripts", "der", "--help"], ["transcripts", "--help"],
                                  ["transcripts", "cp", "--help"], ["--help"]])
def test_help_pages_import_no_numpy(argv: list[str]) -> None:
    assert _modules_after(argv, ARRAYS) == {"code": 0, "loaded": []}


WER_NEEDS_NONE = (*ARRAYS, "speecheval.transcripts.formats.registry",
                  "speecheval.transcripts.formats.segment", "pkgutil", "importlib.metadata")
"""What ``wer`` reads plain text without: arrays, the format registry and the segment
types (``formats._io`` alone), and the installed-package metadata."""


def test_wer_counts_without_numpy(tmp_path: Path) -> None:
    """WER needs no arrays: the reading, the normalising and rapidfuzz's alignment are
    numpy-free, and so must stay every module on the way (timebase, span, results);
    nor does it need the format registry or the segment types."""
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("u1 hello world\n")
    hyp.write_text("u1 hello word\n")
    for unit in ("word", "char", "mixed"):
        outcome = _modules_after(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp),
                                  "--unit", unit], WER_NEEDS_NONE)
        assert outcome == {"code": 0, "loaded": []}, unit


def test_scoring_der_and_cp_imports_no_scipy(tmp_path: Path) -> None:
    """The speaker mapping and pairing use speecheval.core.assignment, not scipy.optimize
    (half a second of import, more than the scoring of an hour)."""
    rttm, stm = tmp_path / "a.rttm", tmp_path / "a.stm"
    rttm.write_text("SPEAKER f 1 0 2 <NA> <NA> a <NA> <NA>\n")
    stm.write_text("s 1 A 0 2 hello world\n")
    for argv in (["transcripts", "der", "--ref", str(rttm), "--hyp", str(rttm)],
                 ["transcripts", "cp", "--ref", str(stm), "--hyp", str(stm)]):
        outcome = _heavy_after(argv)
        assert outcome["code"] == 0, argv
        assert [m for m in outcome["heavy"] if m.startswith("scipy")] == [], argv  # type: ignore[attr-defined]


def test_help_in_a_real_process_lists_every_family() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "speecheval", "--help"], capture_output=True,
                          text=True, env=env, check=True, timeout=120)
    listed = [line.split()[0] for line in done.stdout.split("Commands:\n")[1].splitlines()]
    assert listed == ["agents", "fdb10", "fdb15", "session", "transcripts"]


def test_listing_summaries_are_the_groups_docstrings() -> None:
    """The root lists the families from texts kept beside it; each must be the group's
    own help, so the listing is what it was when it imported them."""
    for name, spec in cli.FAMILIES.items():
        assert spec.summary == spec.load().help, name


def test_a_command_is_imported_on_first_use_and_then_kept() -> None:
    ctx = click.Context(transcripts)
    first = transcripts.get_command(ctx, "der")
    assert first is not None and first.name == "der"
    assert transcripts.get_command(ctx, "der") is first
    assert transcripts.get_command(ctx, "no-such-command") is None


def test_a_target_that_is_not_a_command_is_refused() -> None:
    group = LazyGroup("g", lazy={"x": Lazy("speecheval.cli:main")})
    with pytest.raises(TypeError, match=r"speecheval\.cli:main is not a click command"):
        group.get_command(click.Context(group), "x")


def test_the_program_exits_with_the_commands_code_its_objects_frozen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``speecheval`` (``cli.run``) exits with :func:`cli.main`'s code (here 2: no such
    tree) after freezing what the command left, so that the last collection at exit
    skips it; ``pyproject.toml`` installs this function as the program."""
    import gc
    import tomllib

    monkeypatch.setattr(sys, "argv", ["speecheval", "fdb10", "unified-score", "--tree",
                                      str(tmp_path / "none")])
    gc.unfreeze()  # nothing frozen before: what is frozen after, the program froze
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run()
        assert ended.value.code == 2
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["speecheval"] == "speecheval.cli:run"
