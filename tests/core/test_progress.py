"""Progress shows on a terminal only, and never changes what a command writes."""

from __future__ import annotations

import io

import pytest

from speecheval.core.progress import progress, progress_enabled


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPEECHEVAL_PROGRESS", raising=False)
    monkeypatch.delenv("CI", raising=False)


def test_a_terminal_gets_a_bar_with_label_and_count() -> None:
    stream = Terminal()
    with progress(3, "scoring", stream=stream, redraw_s=0) as advance:
        for _ in range(3):
            advance()
    shown = stream.getvalue()
    assert "scoring" in shown
    assert "2/3" in shown and "3/3" in shown
    assert shown.endswith("\r")  # the bar is erased at the end, leaving the line clean


def test_a_pipe_gets_nothing() -> None:
    stream = io.StringIO()
    with progress(3, "scoring", stream=stream) as advance:
        advance(3)
    assert stream.getvalue() == ""


def test_ci_silences_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert progress_enabled(Terminal()) is False


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("0", False)])
def test_the_environment_forces_it(monkeypatch: pytest.MonkeyPatch, value: str,
                                   expected: bool) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", value)
    assert progress_enabled(io.StringIO()) is expected


def test_no_work_shows_no_bar() -> None:
    stream = Terminal()
    with progress(0, "scoring", stream=stream) as advance:
        advance()
    assert stream.getvalue() == ""
