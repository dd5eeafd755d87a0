"""The command blocks of README.md and the runnable blocks of docs/*.md run as written.

A user copies these blocks into a shell; a block that fails there is a broken promise,
so each one runs here the way a user would run it: in a fresh folder, one file's blocks
in order in the same folder (a later block may read what an earlier one wrote), with the
repository's ``examples/`` reachable and ``speecheval`` on the PATH. Each command must
exit 0, or the code its own comment predicts (``# exit 2``).

Which blocks run is written in the page, on the line just before the fence (the markers
are described in docs/testing.md, "Command blocks in the docs"):

- README.md: every ``bash``/``sh`` block runs unless ``<!-- not run: REASON -->`` says
  why not (it needs the make setup, a server, a full-size dataset, minutes of work).
- docs/*.md: a block runs only when marked ``<!-- runnable -->``.
- On either, ``<!-- runnable; needs PROGRAM -->`` leaves the block out where that program
  is not installed; the page's other blocks still run, then the test skips, naming the
  program and the blocks left out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_PAGES = sorted((ROOT / "docs").glob("*.md"))

_FENCE = re.compile(r"^```(bash|sh)\s*$")
_MARKER = re.compile(r"^<!--\s*(runnable(?:;\s*needs\s+(?P<needs>[\w.+-]+))?"
                     r"|not run:(?P<reason>.*?))\s*-->\s*$")
_ANY_MARKER = re.compile(r"^\s*<!--\s*(runnable|not run)\b")
_EXPECTED_EXIT = re.compile(r"#\s*exit\s+(\d+)\b")
# What a block that runs must never do: it would set up or install on the test machine.
_SETUP = re.compile(r"(^|[\s;&|(])(make\b|pip\s+install\b|apt-get\b|sudo\b)")
BLOCK_TIMEOUT_S = 120


@dataclass(frozen=True)
class Block:
    """One fenced shell block of a page and what its marker says about running it."""

    page: Path
    line: int  # 1-based line of the opening fence
    text: str
    runs: bool
    reason: str | None  # the not-run reason, when the page gives one
    needs: str | None  # a program the block needs, from ``runnable; needs PROGRAM``

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def shell_blocks(page: Path) -> list[Block]:
    """Every ``bash``/``sh`` block of ``page`` with its marker read (README runs by default)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    default_runs = page == README
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            i += 1
            continue
        start = i
        marker = _MARKER.match(lines[i - 1]) if i > 0 else None
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        runs, reason, needs = default_runs, None, None
        if marker is not None:
            reason = marker.group("reason")
            runs = reason is None
            reason = reason.strip() if reason is not None else None
            needs = marker.group("needs")
        blocks.append(Block(page, start + 1, "\n".join(body) + "\n", runs, reason, needs))
        i += 1
    return blocks


def commands(text: str) -> list[tuple[int, str]]:
    """The logical commands of a block (backslash continuations joined), with line offsets."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    first = 0
    for offset, line in enumerate(text.splitlines()):
        if not pending:
            first = offset
        pending.append(line)
        if line.rstrip().endswith("\\"):
            continue
        command = "\n".join(pending)
        pending = []
        if command.strip() and not command.lstrip().startswith("#"):
            out.append((first, command))
    return out


def expected_exit(command: str) -> int:
    """The exit code a command's comment predicts (``# exit 3: ...``), else 0."""
    found = _EXPECTED_EXIT.search(command)
    return int(found.group(1)) if found else 0


def _without_comment(command: str) -> str:
    return re.sub(r"(^|\s)#.*$", "", command, flags=re.MULTILINE).rstrip()


def script(block: Block) -> str:
    """The block as a bash script that stops at the first exit the docs do not predict."""
    parts = ["trap 'kill $(jobs -p) 2>/dev/null' EXIT"]
    for offset, command in commands(block.text):
        parts.append(command)
        if _without_comment(command).endswith("&"):
            continue  # a background server: its exit is not the block's
        want = expected_exit(command)
        line = block.line + 1 + offset
        parts.append(
            f'__rc=$?; if [ "$__rc" -ne {want} ]; then '
            f'echo "{block.page.name}:{line}: exit $__rc, the docs predict {want}" >&2; exit 1; fi')
    return "\n".join(parts) + "\n"


def _pages_with_runs() -> list[Path]:
    return [p for p in [README, *USER_PAGES] if any(b.runs for b in shell_blocks(p))]


@pytest.fixture()
def user_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh folder with ``examples/`` and a ``speecheval`` command running this checkout."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "speecheval"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m speecheval "$@"\n')
    launcher.chmod(0o755)
    env = dict(os.environ)
    env.pop("SPEECHEVAL_VAD_CACHE", None)
    env.update({
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")])),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # the VAD cache stays in the test's folder
        "MPLBACKEND": "Agg",
    })
    return work, env


@pytest.mark.parametrize("page", _pages_with_runs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_command_blocks_run_as_written(
        page: Path, user_folder: tuple[Path, dict[str, str]]) -> None:
    work, env = user_folder
    missing: dict[str, list[str]] = {}
    for block in (b for b in shell_blocks(page) if b.runs):
        if block.needs and shutil.which(block.needs) is None:
            missing.setdefault(block.needs, []).append(block.where)
            continue
        done = subprocess.run(["bash", "-c", script(block)], cwd=work, env=env, text=True,
                              capture_output=True, timeout=BLOCK_TIMEOUT_S, check=False)
        assert done.returncode == 0, (
            f"the block at {block.where} does not run as written:\n{block.text}\n"
            f"--- stdout (end)\n{done.stdout[-3000:]}\n--- stderr (end)\n{done.stderr[-3000:]}")
    if missing:  # every other block ran and passed; say which could not run, and why
        pytest.skip("; ".join(f"{program} is not installed (apt-get install {program}): "
                              f"{', '.join(where)} not run" for program, where in missing.items()))


def test_readme_runs_most_of_its_blocks() -> None:
    # The README's own flows are the first thing a user copies: at least its build-tree,
    # scoring, session and transcripts blocks must stay in the run set.
    runs = [b for b in shell_blocks(README) if b.runs]
    text = "".join(b.text for b in runs)
    for command in ("fdb10 build-tree", "fdb10 unified-score", "session run",
                    "transcripts der", "transcripts wer", "transcripts score"):
        assert command in text, f"no README block that runs contains `speecheval {command}`"


def test_a_block_left_out_says_why() -> None:
    for block in shell_blocks(README):
        if not block.runs:
            assert block.reason, f"{block.where}: `<!-- not run: REASON -->` needs a reason"


def test_a_block_that_runs_sets_nothing_up() -> None:
    for page in [README, *USER_PAGES]:
        for block in shell_blocks(page):
            if block.runs:
                for _, command in commands(block.text):
                    assert not _SETUP.search(_without_comment(command)), (
                        f"{block.where}: `{command.strip()}` sets up or installs; mark the "
                        "block `<!-- not run: REASON -->`")


def test_every_marker_sits_on_a_shell_block() -> None:
    for page in [README, *USER_PAGES]:
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if _ANY_MARKER.search(line):
                where = f"{page.relative_to(ROOT)}:{number}"
                assert _MARKER.match(line), f"{where}: malformed marker {line!r}"
                following = lines[number] if number < len(lines) else ""
                assert _FENCE.match(following), f"{where}: a marker must be the line before ```bash"


def test_the_script_checks_each_command_against_its_predicted_exit() -> None:
    # The runner itself: a command predicted to exit 2 passes only on 2, and an
    # unpredicted failure stops the block. Run on tiny made-up blocks.
    def run(text: str) -> int:
        block = Block(README, 1, text, True, None, None)
        return subprocess.run(["bash", "-c", script(block)], capture_output=True,
                              check=False).returncode

    assert run("true\n") == 0
    assert run("false\n") == 1
    assert run("sh -c 'exit 2'   # exit 2: refused\n") == 0
    assert run("sh -c 'exit 3'   # exit 2: refused\n") == 1
    assert run("true \\\n  && false\ntrue\n") == 1
    assert commands("a \\\n  b\n# note\nc\n") == [(0, "a \\\n  b"), (3, "c")]
