"""v1.5 through ``vllm-omni-duplex``: ``fdb15 record`` -> ``fdb15 export`` -> ``fdb15 asr``
(Whisper tiny.en) -> ``fdb15 score`` against the local vLLM-Omni-protocol agent in its own
process. The agent behind the protocol is the local duplex agent (see
test_capture_end_to_end): it says "sure" once per user turn, twice in ``output.wav``
(context turn and overlap) and once in ``clean_output.wav``, 0.5 s after each turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fdb10.capturekit import agent_process

from speecheval.agents.cascade.reply import words_of
from speecheval.cli import main

from .recording import record, retry_ineligible
from .test_capture_end_to_end import _entries, _words

SCENARIO = "user_interruption"


def test_record_export_asr_score(mini: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    run, tree = tmp_path / "run", tmp_path / "tree"
    with agent_process("duplex", "vllm-omni-duplex") as url:
        record(mini, url, run, "--scenario", SCENARIO, "--max-per-scenario", "1",
               grace_s=0.5, agent="vllm-omni-duplex")
        # a busy machine can still hold a sender past 80 ms (input_pacing): two more
        # attempts of what export would not take, as the docs advise; export reads the
        # latest eligible attempt
        retry_ineligible(run, passes=2)
    transport = json.loads((run / "run.json").read_text())["agent"]["transport"]
    assert transport["transport"] == "vllm-omni-duplex" and transport["server_check"] == "ok"
    assert main(["fdb15", "export", str(run), "--out", str(tree)]) == 0
    entries = _entries(tree)
    assert list(entries) == [f"{SCENARIO}/1"]
    assert main(["fdb15", "asr", "--tree", str(tree), "--jobs", "1"]) == 0
    sample_id = f"{SCENARIO}/1"
    if entries[sample_id]["eligible"]:
        said = [t for t, _, _ in _words(tree, sample_id, "output.json") if words_of(t) == ["sure"]]
        clean = [t for t, _, _ in _words(tree, sample_id, "clean_output.json")
                 if words_of(t) == ["sure"]]
        assert len(said) == 2 and len(clean) == 1, (said, clean)
    # _entries allowed only input_pacing; a full collection of the recording process once
    # held every session's sender ~100 ms here (core.quiet_collector keeps it short)
    assert any(e["eligible"] for e in entries.values()), entries
    assert main(["fdb15", "score", "--tree", str(tree)]) == 0
    rows = [json.loads(line) for line in
            (tree / "fdb15-timing" / "timing-samples.jsonl").read_text().splitlines()]
    assert [r["sample_id"] for r in rows] == [s for s, e in entries.items() if e["eligible"]]
    assert all(r["response_status"] == "responded" for r in rows), rows
    capsys.readouterr()
