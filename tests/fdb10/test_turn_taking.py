"""Smooth turn-taking outcomes and latency quantiles, worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, turn, write_tree

SUB = "candor_turn_taking"


def test_outcomes_and_quantiles(tmp_path: Path, hand_segments: object) -> None:
    # E = 2.0 s (or 2.01 for the official example), T = 10 s (min observable 10 - 2.01).
    #   a: first word 3.36, E 2.01   -> response, latency 1.35 (the official example)
    #   b: word at 1.9 < E = 2.0     -> early_start (negative latency is not 0)
    #   c: no words                  -> no_response
    #   d: word exactly at E         -> response, latency 0
    #   e: word at 4.5               -> response, latency 2.5 (within 5 s, not 2 s)
    #   f: word at 8.0               -> response, latency 6.0 (beyond 5 s)
    #   g: ineligible (pacing)
    tree = write_tree(tmp_path / "t", [
        Spec(SUB, "a", 10.0, [("Yes,", 3.36, 3.9)], turn(2.0100000000000016, 2.4)),
        Spec(SUB, "b", 10.0, [("yeah", 1.9, 2.2), ("so", 3.0, 3.2)], turn(2.0)),
        Spec(SUB, "c", 10.0, [], turn(2.0)),
        Spec(SUB, "d", 10.0, [("ok", 2.0, 2.3)], turn(2.0)),
        Spec(SUB, "e", 10.0, [("well", 4.5, 4.9)], turn(2.0)),
        Spec(SUB, "f", 10.0, [("hmm", 8.0, 8.4)], turn(2.0)),
        Spec(SUB, "g", 10.0, [], turn(2.0), eligible=False, reasons=["pacing"]),
    ])
    result = score_tree(tree)
    rows = {r.sample_id.split("/")[1]: r.report_dict() for r in result.rows}
    assert [rows[k]["outcome"] for k in "abcdef"] == [
        "response", "early_start", "no_response", "response", "response", "response"]
    assert rows["a"]["latency_s"] == pytest.approx(1.35)
    assert rows["b"]["latency_s"] is None and rows["b"]["first_word_s"] == 1.9
    assert rows["d"]["latency_s"] == 0.0
    record = result.summary.report_dict()["subsets"][SUB]
    assert record["min_observable_s"] == pytest.approx(7.99)   # 10 - 2.01
    m = record["metrics"]
    # n = 6 eligible, 7 selected, 1 unknown
    assert (m["early_start_rate"]["count"], m["early_start_rate"]["n"]) == (1, 6)
    assert m["response_rate_1s"]["count"] == 1    # d (0.0); a is 1.35
    assert m["response_rate_2s"]["count"] == 2    # d, a
    assert m["response_rate_5s"]["count"] == 3    # d, a, e
    assert m["response_rate_5s"]["selected_bounds"] == pytest.approx([3 / 7, 4 / 7])
    assert m["no_response_rate"]["count"] == 1
    latency = m["response_latency_s"]
    # values sorted: 0, 1.35, 2.5, 6.0, inf (b), inf (c); N = 6
    # median rank ceil(0.5 * 6) = 3 -> 2.5; p90 rank ceil(5.4) = 6 -> inf: not reached
    assert latency["median"]["value"] == pytest.approx(2.5)
    assert latency["median"]["reached"] is True
    assert latency["p90"] == {"value": None, "reached": False}
    assert (latency["n"], latency["observed"]) == (6, 4)


def test_median_not_reached_when_most_never_respond(tmp_path: Path,
                                                    hand_segments: object) -> None:
    # 3 samples: one response (0.5 s), two silent. Median rank ceil(1.5) = 2 -> inf.
    tree = write_tree(tmp_path / "t", [
        Spec(SUB, "a", 6.0, [("ok", 2.5, 2.7)], turn(2.0)),
        Spec(SUB, "b", 6.0, [], turn(2.0)),
        Spec(SUB, "c", 6.0, [], turn(2.0)),
    ])
    latency = score_tree(tree).summary.report_dict()["subsets"][SUB]["metrics"][
        "response_latency_s"]
    assert latency["median"]["value"] is None and latency["median"]["reached"] is False
    interval = latency["median"]["interval"]
    # A resample's median is finite only if at least 2 of its 3 draws are sample a:
    # P = 3 * (1/3)^2 * (2/3) + (1/3)^3 = 7/27 = 0.26, below 0.975, so the upper
    # endpoint (1950th of 2000 sorted medians) is infinite: not reached; the lower
    # endpoint (50th) is finite, 0.5 s, because more than 50 resamples are finite.
    assert interval["high"] is None and interval["high_reached"] is False
    assert interval["low"] == pytest.approx(0.5)
