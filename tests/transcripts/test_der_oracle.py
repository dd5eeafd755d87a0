"""Differential test: the scorer gives, to the last digit, what it gave before the rewrite
that made it scale (columnar parsing, sort-based unique, the change-point sweep).

The expected values were produced by the per-turn implementation and frozen in
``data/der_oracle.json`` (see :mod:`der_oracle`); here the current code scores the same
random inputs under every compat mode and collar, and the ``der`` command runs on some.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from der_oracle import ORACLE, SETTINGS, der_command, random_case, score_case

from speecheval.cli import main
from speecheval.transcripts.diarization import (
    compat,
    in_parallel,
    interval_sets,
    metrics,
    partition,
    pieces,
)

CASES: list[dict[str, Any]] = json.loads(ORACLE.read_text())


def test_the_frozen_inputs_are_the_generated_ones() -> None:
    """The generator still makes the frozen inputs (else regenerate from a trusted commit)."""
    for case in CASES:
        assert random_case(case["seed"]) == {k: case[k] for k in ("ref", "hyp", "uem")}


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"seed{case['seed']}")
def test_scores_match_the_frozen_implementation(case: dict[str, Any]) -> None:
    assert len(case["scores"]) == len(SETTINGS)
    assert score_case(case) == case["scores"]


@pytest.mark.parametrize("case", [c for c in CASES if "commands" in c],
                         ids=lambda case: f"seed{case['seed']}")
def test_der_command_matches_the_frozen_implementation(case: dict[str, Any], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """Every case's system names a file ``c`` the reference does not: the command refuses
    it now, and with ``--partial`` scores files ``a`` and ``b`` as the frozen command did
    (each file is scored on its own, so leaving ``c`` out changes only the totals)."""
    for options, expected in case["commands"].items():
        ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
        ref.write_text(case["ref"])
        hyp.write_text(case["hyp"])
        code = main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                     *options.split()])
        out, err = capsys.readouterr()
        assert code == 2 and out == "", options
        assert err == (f"error: {hyp}: file ids differ from those of the reference {ref}: "
                       "missing in the reference (1): 'c' (--partial scores only the ids "
                       "both name)\n"), options
        partial = der_command(case, tmp_path, [*options.split(), "--partial"])
        if expected["code"] != 0:  # a refusal of the input (dscore's zero-length turns)
            assert (partial["code"], partial["stdout"]) == (expected["code"], ""), options
            continue
        frozen, now = json.loads(expected["stdout"]), json.loads(partial["stdout"])
        assert now["partial"] == {"kind": "file", "scored_ids": 2, "missing_in_hypothesis": [],
                                  "missing_in_reference": ["c"]}
        for track in ("main", "lattifai_parity"):
            frozen_files = (frozen if track == "main" else frozen.get(track, {})).get("files")
            now_files = (now if track == "main" else now.get(track, {})).get("files")
            assert frozen_files is None or set(frozen_files) == {"a", "b", "c"}, options
            assert now_files == (None if frozen_files is None else
                                 {k: frozen_files[k] for k in ("a", "b")}), (options, track)


@pytest.mark.parametrize("case", CASES[:8], ids=lambda case: f"seed{case['seed']}")
def test_chunked_passes_match_the_frozen_implementation(case: dict[str, Any],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The passes that run a chunk at a time (to bound memory on millions of turns), with
    chunks of a few elements, still give the frozen results."""
    for module in (compat, interval_sets, metrics, partition):
        monkeypatch.setattr(module, "_CHUNK", 3)
    assert score_case(case) == case["scores"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"seed{case['seed']}")
def test_pieces_in_threads_match_the_frozen_implementation(case: dict[str, Any],
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Files cut into pieces of about 3 turns (cuts inside turns, UEM regions and collar
    zones), scored two pieces at a time, and every step that can run in a second thread
    run there: still the frozen results, to the last digit."""
    monkeypatch.setattr(pieces, "TURNS_PER_PIECE", 3)
    monkeypatch.setattr(in_parallel, "FROM_TURNS", 0)
    assert score_case(case) == case["scores"]
