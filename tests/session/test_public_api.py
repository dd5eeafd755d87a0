"""``speecheval.session``: run_scenario gives the numbers ``session run`` writes (the
command calls it, once), bad input is an InputError, the public names are those of
``__all__`` and importing the package stays cheap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from api_numbers import differences, heavy_in, modules_after_import
from speech_engine import needs_speech

import speecheval.session
from speecheval import session
from speecheval.cli import main
from speecheval.core.errors import InputError

BOOKING = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "booking.yaml"


@needs_speech
def test_run_scenario_gives_the_numbers_session_run_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    real = speecheval.session.run_scenario

    def counted(path: Path, agent: str | None, options: Any, **rest: Any) -> Any:
        calls.append((path, agent, options))
        return real(path, agent, options, **rest)

    from speecheval.session import cli

    assert cli.run_scenario is real  # the command's module holds the public function ...
    monkeypatch.setattr(cli, "run_scenario", counted)  # ... and calls it (once)
    assert main(["session", "run", str(BOOKING), "-o", "seed=3", "-n", "2",
                 "--out", str(tmp_path / "run")]) == 0
    assert calls == [(BOOKING, None, ("seed=3",))]
    written = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))

    result = real(BOOKING, options={"seed": "3"}, repeat=2)
    assert (result.agent, result.clock, result.passed) == (written["agent"]["name"],
                                                           written["clock"], written["passed"])
    assert differences(result.summary.report_dict(), written["summary"]) == []
    assert differences([a.report_dict() for a in result.assertions],
                       written["assertions"]) == []
    for ours, theirs in zip(result.sessions, written["sessions"], strict=True):
        assert differences([turn.report_dict() for turn in ours.turns], theirs["turns"]) == []
    assert len(result.sessions) == 2


@needs_speech
def test_options_as_pairs_or_text_mapping_are_the_same_run() -> None:
    by_pairs = session.run_scenario(BOOKING, "mock", ["seed=3", "response_delay_ms=500"])
    by_mapping = session.run_scenario(BOOKING, options={"seed": "3", "response_delay_ms": "500"})
    plain = session.run_scenario(BOOKING)
    assert by_pairs.summary.report_dict() == by_mapping.summary.report_dict()
    assert by_pairs.summary.report_dict() != plain.summary.report_dict()


def test_bad_input_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing.yaml"):  # the scenario is read first
        session.run_scenario(tmp_path / "missing.yaml", options=["seed"])
    with pytest.raises(InputError, match="expects key=value"):
        session.run_scenario(BOOKING, options=["seed"])
    with pytest.raises(InputError, match="give the value as text"):
        session.run_scenario(BOOKING, options={"seed": 3})  # type: ignore[dict-item]
    with pytest.raises(InputError, match="a mapping or a list"):
        session.run_scenario(BOOKING, options="seed=3")
    with pytest.raises(InputError, match="nosuchagent"):
        session.run_scenario(BOOKING, agent="nosuchagent")


def test_public_names_and_a_cheap_import() -> None:
    assert session.__all__ == ["run_scenario"]
    modules = modules_after_import("speecheval.session")
    assert heavy_in(modules) == []
    assert not any(name.startswith("speecheval.session.") for name in modules)
