"""The user pages (README.md, docs/*.md) stand on their own and hold no development history.

A user has the repository and nothing beside it: a page that sends them to a spec folder
or a fixture file they do not have explains nothing. And a user reads what the tool does
now; which issue, stop or work session changed it is developer history, kept in
docs/dev/ (and docs/adr/ for decisions), which these checks leave alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Files a user does not have: the spec folder, the fixtures folder beside the repository,
# and the spec documents by name.
_OUTSIDE_POINTER = re.compile(
    r"\.\./shared|shared/specs|shared/fixtures|PROVENANCE\.md"
    r"|fdb-v1\.0-unified-metrics|fdb-v1\.5-overlap-paper|voice-agent-session-metrics"
    r"|transcription-diarization-methodology")
# "issue 15", "stop 20", "Session 23", "sessions 22 and 23": a numbered piece of the
# project's own history. Inline code is left out first, so a command or a value
# (`session 2`, `--sessions 16`) is not history.
_HISTORY = re.compile(r"(?<![\w-])(issues?|stops?|sessions?)\s+#?\d+\b", re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def _prose_lines(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, with inline code removed."""
    out: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, _INLINE_CODE.sub("", line)))
    return out


def history_mentions(text: str) -> list[str]:
    """The development-history mentions in one line of prose."""
    return [m.group(0) for m in _HISTORY.finditer(_INLINE_CODE.sub("", text))]


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_user_page_points_at_nothing_outside_the_repository(page: Path) -> None:
    found = [f"{page.name}:{n}: {m.group(0)}"
             for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
             for m in _OUTSIDE_POINTER.finditer(line)]
    assert not found, "state it in the page's own words instead:\n" + "\n".join(found)


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_user_page_tells_no_development_history(page: Path) -> None:
    found = [f"{page.name}:{n}: {mention}"
             for n, line in _prose_lines(page) for mention in history_mentions(line)]
    assert not found, "move it to docs/dev/ or drop it:\n" + "\n".join(found)


def test_the_history_pattern_tells_history_from_use() -> None:
    assert history_mentions("before the trims (stop 20), see issue 15 and Session 23") == [
        "stop 20", "issue 15", "Session 23"]
    assert history_mentions("sessions 22 and 23 measured it; issue #7") == [
        "sessions 22", "issue #7"]
    # the words in their user sense, and numbers in code, are not history
    assert history_mentions("a session run writes 3 files; stop latency 2 s") == []
    assert history_mentions("by its session number (`session 2`), `--sessions 16`") == []
    assert history_mentions("the stop-2 rule, session-3 folder") == []


def test_the_checks_see_the_pages() -> None:
    # The glob must find the pages, or the checks above pass on nothing.
    names = {p.name for p in USER_PAGES}
    assert {"README.md", "testing.md", "fdb10-unified.md", "vad.md"} <= names
    assert not any("dev" in p.relative_to(ROOT).parts or "adr" in p.relative_to(ROOT).parts
                   for p in USER_PAGES)
