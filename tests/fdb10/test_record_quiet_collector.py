"""The collector's full passes while a recording sends: what existed when the sessions
started is frozen (a full pass no longer walks it) and unfrozen afterwards."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.core.quiet_collector import collector_frozen
from speecheval.fdb.common import record

from .capturekit import agent_thread, short_dataset


def test_what_exists_is_frozen_then_given_back() -> None:
    held = [[i] for i in range(20_000)]   # 20,000 lists (always tracked) alive on entry
    assert gc.get_freeze_count() == 0
    with collector_frozen() as frozen:
        assert frozen >= len(held)
        before = gc.get_freeze_count()
        made_inside = [[i] for i in range(100)]
        assert gc.get_freeze_count() == before   # new objects stay collectable
    assert gc.get_freeze_count() == 0
    assert len(made_inside) == 100


def test_an_error_inside_still_unfreezes() -> None:
    with pytest.raises(RuntimeError), collector_frozen():
        raise RuntimeError("a session failed")
    assert gc.get_freeze_count() == 0


def test_record_sends_with_the_collector_frozen(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    original = record.record_session

    async def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_freeze_count())
        return await original(*args, **kwargs)

    monkeypatch.setattr(record, "record_session", watched)
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    with agent_thread() as agent:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "native-realtime", "-o", f"url={agent.url}", "--out",
                     str(tmp_path / "run"), "--grace", "0.3", "--timeout", "3",
                     "--concurrency", "2"]) == 0
    # both sessions ran inside collector_frozen; the command gave the objects back
    assert len(seen) == 2 and min(seen) > 0, seen
    assert gc.get_freeze_count() == 0
