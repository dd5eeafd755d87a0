"""Fixtures for FDB v1.0 tests: a seam that replaces Silero with hand-written segments.

Scoring logic is tested against segments written in the test, so each expected value can
be worked out by hand; Silero itself is tested in ``tests/vad`` and end to end on built
trees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from speecheval.core.progress import Advance
from speecheval.core.timeline import Spans
from speecheval.fdb.common.speech import Segmented
from speecheval.fdb.v10.scoring import unified as scoring

FAKE_VAD = {"package": "hand-written segments", "settings": {}}


@pytest.fixture
def hand_segments(monkeypatch: pytest.MonkeyPatch
                  ) -> Callable[[dict[str, list[tuple[float, float]]]], None]:
    """Install ``{sample_id: [(start_s, end_s), ...]}`` as the speech segments."""

    def install(table: dict[str, list[tuple[float, float]]]) -> None:
        class FakeRun:
            """Stands in for ``speech.SpeechRun``: the table instead of files and Silero."""

            def __init__(self, jobs: Sequence[scoring.SpeechJob], workers: int,
                         executor: object = None, memo: object = None) -> None:
                self.jobs = list(jobs)

            def __enter__(self) -> FakeRun:
                return self

            def __exit__(self, *exc: object) -> None:
                return None

            def finish(self, advance: Advance) -> list[Segmented]:
                return [Segmented(Spans.from_seconds([a for a, _ in table[job.sample_id]],
                                                     [b for _, b in table[job.sample_id]]))
                        for job in self.jobs]

        monkeypatch.setattr(scoring, "SpeechRun", FakeRun)
        monkeypatch.setattr(scoring, "vad_identity", lambda: FAKE_VAD)

    install({})
    return install


@pytest.fixture
def examples(fixtures_dir: Path, tmp_path: Path) -> Path:
    """The official v1.0 examples converted to a reference tree (needs ../shared)."""
    from .test_official_examples import convert

    tree = tmp_path / "tree"
    tree.mkdir()
    convert(fixtures_dir / "fdb-official-examples" / "example_data", tree)
    return tree
