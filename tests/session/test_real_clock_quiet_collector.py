"""Real-clock sessions send their user frames with the collector frozen: what existed
when the sessions started is not walked by a full pass while they run, and is given
back to the collector afterwards (as ``fdb10 record`` does,
tests/fdb10/test_record_quiet_collector.py)."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.session.run import real_clock

from .helpers import write_scenario
from .test_real_clock import SCENARIO, serving


def test_real_clock_sessions_send_with_the_collector_frozen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    original = real_clock.run_scenario_session

    async def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_freeze_count())
        return await original(*args, **kwargs)

    monkeypatch.setattr(real_clock, "run_scenario_session", watched)
    out = tmp_path / "run"
    with serving() as url:
        code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), "--agent",
                     "pcm-websocket", "--url", url, "-n", "2", "--concurrency", "2",
                     "--out", str(out)])
    report = json.loads((out / "report.json").read_text())
    assert code == 0, [s["fault"] for s in report["sessions"]]
    # both sessions ran inside collector_frozen; the command gave the objects back
    assert len(seen) == 2 and min(seen) > 0, seen
    assert gc.get_freeze_count() == 0
