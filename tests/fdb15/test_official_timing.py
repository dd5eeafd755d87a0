"""The official whole-file timing, reproduced and checked against get_timing.py itself.

get_timing.py imports torch and torchaudio and loads Silero through torch.hub (network)
at import, so the test does not import it: it compiles the script's pure interval
functions (``_merge``, ``overlaps``, ``response_gaps``) and merge constants out of its
source and runs them on the same segments as :mod:`speecheval.fdb.v15.timing.official`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from speecheval.core.timeline import Span
from speecheval.fdb.v15.timing.official import (
    MODEL_MERGE_GAP_S,
    USER_MERGE_GAP_S,
    merge_close,
    official_timing,
    response_intervals,
    stop_intervals,
)

OFFICIAL_FUNCTIONS = ("_merge", "overlaps", "response_gaps")


@pytest.fixture
def official_fns(fixtures_dir: Path) -> dict[str, Any]:
    """The script's interval functions and merge gaps, compiled from its source."""
    script = fixtures_dir / "fdb-official-evaluator/v1_v1.5/evaluation/get_timing.py"
    tree = ast.parse(script.read_text(encoding="utf-8"), filename=str(script))
    kept: list[ast.stmt] = []
    for node in tree.body:
        function = isinstance(node, ast.FunctionDef) and node.name in OFFICIAL_FUNCTIONS
        gap = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("MERGE_GAP") for t in node.targets)
        if function or gap:
            kept.append(node)
    namespace: dict[str, Any] = {"List": list, "Tuple": tuple}
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(script), "exec"), namespace)
    assert all(name in namespace for name in OFFICIAL_FUNCTIONS)
    return namespace


def test_merge_gaps_are_the_scripts(official_fns: dict[str, Any]) -> None:
    # the comments say 300 ms and 50 ms; the code says 0.6 and 0.5
    assert (official_fns["USER_MERGE_GAP"], official_fns["MODEL_MERGE_GAP"]) == (
        USER_MERGE_GAP_S, MODEL_MERGE_GAP_S) == (0.6, 0.5)


def test_hand_worked_example() -> None:
    # user 1.0-3.0 and 3.5-4.0 merge (gap 0.5 <= 0.6) into 1.0-4.0; 7.0-8.0 stays apart.
    # model 2.0-3.2 and 3.6-5.0 merge (gap 0.4 <= 0.5) into 2.0-5.0; 9.0-10.0 apart.
    user = [Span.from_seconds(1.0, 3.0), Span.from_seconds(3.5, 4.0),
            Span.from_seconds(7.0, 8.0)]
    model = [Span.from_seconds(2.0, 3.2), Span.from_seconds(3.6, 5.0),
             Span.from_seconds(9.0, 10.0)]
    timing = official_timing(user, model)
    # overlap of 1.0-4.0 with 2.0-5.0 is 2.0-4.0; nothing overlaps 7.0-8.0
    assert timing.latency_stop_list == [[2.0, 4.0]]
    # after user end 4.0 the first model start > 4.0 is 9.0; after 8.0 it is 9.0 too,
    # and the later user end (8.0) is kept for model start 9.0
    assert timing.latency_resp_list == [[8.0, 9.0]]


def _random_segments(rng: np.random.Generator, count: int) -> list[tuple[float, float]]:
    """Sorted disjoint segments in Silero's form: sample indices at 16 kHz over 16000."""
    edges = np.sort(rng.choice(16_000 * 30, size=2 * count, replace=False))
    return [(int(a) / 16_000, int(b) / 16_000) for a, b in edges.reshape(-1, 2)]


def test_same_intervals_as_the_script_on_random_segments(official_fns: dict[str, Any]) -> None:
    rng = np.random.default_rng(0)
    for _ in range(400):
        user = _random_segments(rng, int(rng.integers(0, 8)))
        model = _random_segments(rng, int(rng.integers(0, 8)))
        merged_user = official_fns["_merge"](list(user), official_fns["USER_MERGE_GAP"])
        merged_model = official_fns["_merge"](list(model), official_fns["MODEL_MERGE_GAP"])
        assert merge_close(user, USER_MERGE_GAP_S) == merged_user
        assert merge_close(model, MODEL_MERGE_GAP_S) == merged_model
        assert stop_intervals(merged_user, merged_model) == official_fns["overlaps"](
            merged_user, merged_model)
        assert response_intervals(merged_user, merged_model) == official_fns["response_gaps"](
            merged_user, merged_model)


def test_same_intervals_where_the_scripts_ties_matter(official_fns: dict[str, Any]) -> None:
    # Stop: u0 = 0-1.0002 overlaps m0 = 0.5-1.0001 and m1 = 1.00015-2.0; both overlaps end
    # on millisecond 1000, so only the shorter (1.00015-1.0002) is kept -> [1.0, 1.0].
    # Response: u0, u1 and u2 all end before m2 = 6.5; the latest end (6.0) is kept.
    user = [(0.0, 1.0002), (4.0, 4.5), (5.0, 6.0)]
    model = [(0.5, 1.0001), (1.00015, 2.0), (6.5, 7.0)]
    for ours, theirs in ((stop_intervals, "overlaps"), (response_intervals, "response_gaps")):
        assert ours(user, model) == official_fns[theirs](user, model)
    assert stop_intervals(user, model) == [[1.0, 1.0]]
    assert response_intervals(user, model) == [[6.0, 6.5]]


def test_spans_reach_the_official_functions_in_seconds(official_fns: dict[str, Any]) -> None:
    rng = np.random.default_rng(1)
    user = _random_segments(rng, 5)
    model = _random_segments(rng, 6)
    timing = official_timing([Span.from_seconds(a, b) for a, b in user],
                             [Span.from_seconds(a, b) for a, b in model])
    merged_user = official_fns["_merge"](user, 0.6)
    merged_model = official_fns["_merge"](model, 0.5)
    assert timing.latency_stop_list == official_fns["overlaps"](merged_user, merged_model)
    assert timing.latency_resp_list == official_fns["response_gaps"](merged_user, merged_model)
