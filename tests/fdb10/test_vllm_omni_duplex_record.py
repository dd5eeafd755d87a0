"""``fdb10 record --agent vllm-omni-duplex`` against the local vLLM-Omni-protocol agent:
the mini dataset end to end (record, export, transcripts, score) with every sample
eligible, the server's capabilities in run.json and its turn events in the traces, and
settings the server denies refused before the first sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.fdb.v10.builder.dataset import build_dataset

from .capturekit import agent_process, agent_thread, export_on_schedule, read_trace, short_dataset
from .test_capture_end_to_end import SUBSETS, _segment_words

AGENT = "vllm-omni-duplex"


def test_mini_dataset_record_export_score(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "ds"
    build_dataset(dataset, "mini")
    run = tmp_path / "run"
    with agent_process("duplex", AGENT) as url:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", AGENT,
                     "-o", f"url={url}", "--out", str(run), "--concurrency", "8",
                     "--grace", "0.5"]) == 0
    document = json.loads((run / "run.json").read_text())
    transport = document["agent"]["transport"]
    assert transport["server_check"] == "ok"
    assert transport["capabilities"]["supports_barge_in"] is True
    assert transport["capabilities"]["supports_multi_session"] is True
    selection = document["selection"]
    assert len(selection) == 40
    turn = next(sid for sid in selection if sid.startswith("candor_turn_taking/"))
    notes = [e for e in read_trace(run, turn) if e["type"] == "server_event"]
    names = [e["name"] for e in notes]
    assert names.index("response.created") < names.index("response.speak") \
        < names.index("response.done") < names.index("response.listen")
    done = next(e for e in notes if e["name"] == "response.done")
    # the server's default commit policy commits everything it sent on done
    assert done["status"] == "completed" and done["committed_ms"] == done["sent_ms"] > 0
    # the server echoes its cursor on every acknowledgement: committed follows what the
    # client played until done, then stays at everything sent while playback catches up
    acked = [e for e in notes if e["name"] == "playback.acknowledged"
             and e["response_id"] == done["response_id"]]
    after = [e for e in acked if e["t_s"] > done["t_s"]]
    assert acked and all(e["committed_ms"] >= e["played_ms"] for e in acked)
    assert after and all(e["committed_ms"] == done["sent_ms"] for e in after)
    # a loaded machine may hold the sender past 80 ms; export_on_schedule checks that
    # nothing else made a sample ineligible and scores what the agent did
    tree = export_on_schedule(run, dataset, tmp_path / "tree")
    manifest = json.loads((tree / "manifest.json").read_text())
    assert len(manifest["samples"]) == 40 and all(e["eligible"] for e in manifest["samples"])


def test_record_export_score_of_pauses_and_turns(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Scored with Silero segments as words (see test_capture_end_to_end), which is what
    the pause and turn-taking subsets read: the agent talks in every pause and answers
    every turn, as its design says."""
    dataset = tmp_path / "ds"
    build_dataset(dataset, "mini")
    run = tmp_path / "run"
    with agent_process("duplex", AGENT) as url:
        subsets = [arg for subset in SUBSETS for arg in ("--subset", subset)]
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", AGENT,
                     "-o", f"url={url}", "--out", str(run), *subsets, "--max-per-subset",
                     "4", "--concurrency", "8", "--grace", "0.5"]) == 0
    tree = export_on_schedule(run, dataset, tmp_path / "tree")
    _segment_words(tree)
    capsys.readouterr()
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--jobs", "1"]) == 0
    rows = [json.loads(line) for line in
            (tree / "unified" / "unified-samples.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and all(r["eligible"] for r in rows)
    assert all(r["pause_intrusion"] for r in rows if r["subset"] == SUBSETS[0])
    assert all(r["outcome"] == "response" for r in rows if r["subset"] == SUBSETS[1])


@pytest.mark.parametrize(("deny", "extra", "capability"), [
    ("supports_barge_in", ["-o", "overlap_policy=barge_in_on_speech"], "supports_barge_in"),
    ("supports_multi_session", ["--concurrency", "2"], "supports_multi_session"),
])
def test_a_denied_setting_is_refused_before_the_first_sample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], deny: str, extra: list[str],
        capability: str) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    run = tmp_path / "run"
    with agent_thread("duplex", AGENT, {"deny": deny}) as agent:
        code = main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", AGENT,
                     "-o", f"url={agent.url}", "--out", str(run), *extra])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{capability} is false" in err, err
    assert not run.exists()
    assert agent.log.connections == 1   # the capability check alone: no sample ran
    assert agent.log.appends == []


def test_an_allowed_setting_runs_and_the_reply_is_cut_by_barge_in(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=1.0)
    run = tmp_path / "run"
    with agent_thread("duplex", AGENT, {"deny": "supports_multi_session"}) as agent:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent", AGENT,
                     "-o", f"url={agent.url}", "-o", "overlap_policy=barge_in_on_speech",
                     "--out", str(run), "--grace", "0.3"]) == 0
    transport = json.loads((run / "run.json").read_text())["agent"]["transport"]
    assert transport["overlap_policy"] == "barge_in_on_speech"
    assert transport["capabilities"]["supports_multi_session"] is False
    update = agent.log.controls[0]
    assert update["type"] == "session.update"
    assert update["session"]["overlap_policy"] == "barge_in_on_speech"
    assert update["session"]["turn_detection"] is None
