"""fdb15 record, export and asr on short hand-made pairs against local agents over real
sockets: two independent sessions per pair, pair eligibility worked out by hand, a fault in
one member, resume, and transcripts in the official file names."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fdb10.capturekit import agent_thread, late_appends, on_schedule

from speecheval.asr.base import RecognitionFailed, TimedWord
from speecheval.cli import main
from speecheval.core.audio import read_mono, write_wav
from speecheval.core.canonical_json import dumps, dumps_lines
from speecheval.core.errors import SystemUnderTestError
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v15.capture.asr import transcribe_tree

RATE = 16_000
INPUT_S, CLEAN_S = 1.5, 1.2
"""Each member's T: the clean input is made shorter so that each member's own T shows."""
PAIRS = ("user_interruption/1", "user_interruption/2")
Trace = list[dict[str, Any]]


def _tone(duration_s: float, bursts: list[tuple[float, float]]) -> np.ndarray:
    """Silence of ``duration_s`` with a 440 Hz tone at -10 dBFS in each (start, end)."""
    pcm = np.zeros(round(duration_s * RATE))
    t = np.arange(pcm.size) / RATE
    for start, end in bursts:
        inside = (t >= start) & (t < end)
        pcm[inside] = 0.316 * np.sin(2 * np.pi * 440 * t[inside])
    return pcm


def tiny_dataset(root: Path) -> Path:
    """The two pairs of :data:`PAIRS`: input.wav has a turn at 0.1-0.5 s and the overlap at
    0.7-0.9 s; clean_input.wav has only the turn."""
    for sample_id in PAIRS:
        folder = root / sample_id
        folder.mkdir(parents=True)
        write_wav(folder / "input.wav", _tone(INPUT_S, [(0.1, 0.5), (0.7, 0.9)]), RATE)
        write_wav(folder / "clean_input.wav", _tone(CLEAN_S, [(0.1, 0.5)]), RATE)
        (folder / "metadata.json").write_text(json.dumps({
            "context_text": "tell me", "current_turn_text": "wait", "timestamps": [0.7, 0.9]}))
    return root


def _record(dataset: Path, run: Path, url: str, *extra: str) -> int:
    return main(["fdb15", "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", f"url={url}", "--out", str(run), "--grace", "0.3",
                 "--concurrency", "4", *extra])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("capture15")
    dataset = tiny_dataset(base / "ds")
    with agent_thread() as agent:
        assert _record(dataset, base / "run", agent.url + "/{sample_id}") == 0
        paths = sorted(agent.log.paths)
    # four independent sessions, each told which member it plays
    assert paths == [f"/v1/realtime/{sid}/{member}" for sid in PAIRS
                     for member in ("clean_input", "input")]
    return dataset, base / "run"


def _session(run: Path, sample_id: str, member: str) -> Path:
    return run / "samples" / sample_id / member


def _status(run: Path, sample_id: str, member: str) -> dict[str, Any]:
    return dict(json.loads((_session(run, sample_id, member) / "status.json").read_text()))


def _edit(run: Path, sample_id: str, member: str, edit: Callable[[Trace], Trace]) -> None:
    """Rewrite one session's trace and its hash in status.json, as a recorder would have."""
    folder = _session(run, sample_id, member)
    trace = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
    (folder / "trace.jsonl").write_text(dumps_lines(edit(trace)))
    status = _status(run, sample_id, member)
    status["files"]["trace.jsonl"] = sha256_file(folder / "trace.jsonl")
    (folder / "status.json").write_text(dumps(status))


def _late_append(trace: Trace) -> Trace:
    """Packet 2 starts 80.001 ms after its deadline: 1 us past the 80 ms tolerance."""
    for event in trace:
        if event["type"] == "append" and event["seq"] == 2:
            event["start_s"] = event["deadline_s"] + 0.080001
    return trace


def _fault_at(t_s: float) -> Callable[[Trace], Trace]:
    return lambda trace: [*trace, {"t_s": t_s, "type": "fault", "reason": "test fault"}]


def _manifest(tree: Path) -> dict[str, dict[str, Any]]:
    return {e["sample_id"]: e for e in json.loads((tree / "manifest.json").read_text())["samples"]}


def test_each_member_is_its_own_session_with_its_own_input(recorded: tuple[Path, Path]
                                                           ) -> None:
    dataset, run = recorded
    assert json.loads((run / "run.json").read_text())["kind"] == "speecheval-fdb15-run"
    for sample_id in PAIRS:
        for member, seconds in (("input", INPUT_S), ("clean_input", CLEAN_S)):
            status = _status(run, sample_id, member)
            assert (status["status"], status["member"], status["sample_id"]) == (
                "complete", member, sample_id)
            # the session sent exactly the member's file: 1.5 s / 1.2 s at 16 kHz
            assert status["input_samples"] == round(seconds * RATE)
            sent = read_mono(_session(run, sample_id, member) / "input.wav").samples
            assert np.array_equal(sent, read_mono(dataset / sample_id / f"{member}.wav").samples)
            # 1.5 s in 80 ms packets: ceil(1500 / 80) = 19; 1.2 s: 15
            trace = (_session(run, sample_id, member) / "trace.jsonl").read_text().splitlines()
            appends = [json.loads(line) for line in trace if '"append"' in line]
            assert len(appends) == {"input": 19, "clean_input": 15}[member]


def test_export_writes_the_official_files_with_each_members_length(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, run = recorded
    assert main(["fdb15", "export", str(run), "--out", str(tmp_path / "tree")]) == 0
    entries = _manifest(tmp_path / "tree")
    assert list(entries) == list(PAIRS)
    for sample_id in PAIRS:
        folder = tmp_path / "tree" / sample_id
        assert sorted(p.name for p in folder.iterdir()) == [
            "clean_input.wav", "clean_output.wav", "input.wav", "metadata.json", "output.wav"]
        assert entries[sample_id]["eligible"] and entries[sample_id]["reasons"] == []
        # 16 kHz, round(T * 16000) of each member's own input: 24000 and 19200 samples
        assert read_mono(folder / "output.wav").n_samples == 24_000
        assert read_mono(folder / "clean_output.wav").n_samples == 19_200
        for name in ("input.wav", "clean_input.wav", "metadata.json"):
            assert (folder / name).read_bytes() == (dataset / sample_id / name).read_bytes()
            assert entries[sample_id]["files"][name] == sha256_file(folder / name)
        # each session heard only its own input: the local agent keeps audio time (10 ms
        # of reply or silence sent per 10 ms heard), so where its reply starts in
        # received.wav depends only on what it heard. It replies 300 ms (endpoint) +
        # 200 ms (delay) after the last speech: the clean input ends at 0.5 s, a reply
        # from 1.0 s; in input.wav the 0.2 s gap before the overlap is too short to end
        # the turn, the overlap ends at 0.9 s: a reply from 1.4 s; up to one 10 ms
        # analysis frame and the frame that holds the edge later.
        for member, wav, reply_s in (("clean_input", "clean_output.wav", 1.0),
                                     ("input", "output.wav", 1.4)):
            session = _session(run, sample_id, member)
            received = read_mono(session / "received.wav")
            reply_offset = int(np.flatnonzero(np.abs(received.samples) > 0.01)[0])
            assert reply_s <= reply_offset / received.rate < reply_s + 0.02, (
                sample_id, member, reply_offset)
            # where the export plays it comes from the run's own timeline, not the wall
            # clock: the chunk that holds it starts at the later of its receipt and the
            # end of the chunk before it (fifo-receipt), so a busy machine that received
            # it late moves it later in output.wav, and only by what the trace says
            expected_s = _played_at_s(_trace(session), reply_offset, received.rate)
            assert expected_s >= reply_s   # never played before the agent said it
            audio = read_mono(folder / wav).samples
            first_s = np.flatnonzero(np.abs(audio) > 0.01)[0] / RATE
            # the agent speaks at the input's 16 kHz, the tree's rate: no resampling
            assert received.rate == RATE
            assert first_s == expected_s, (sample_id, wav, first_s, expected_s)


def _trace(session: Path) -> Trace:
    return [json.loads(line) for line in (session / "trace.jsonl").read_text().splitlines()]


def _played_at_s(trace: Trace, offset: int, rate: int) -> float:
    """When received sample ``offset`` plays, by the fifo-receipt rule worked from the
    trace's audio events (each chunk starts at max(round(t_s * rate), the end of the
    one before it); the native protocol sends no clears)."""
    cursor = 0
    for event in trace:
        if event["type"] != "audio":
            continue
        start = max(round(event["t_s"] * rate), cursor)
        if event["offset"] <= offset < event["offset"] + event["samples"]:
            return (start + offset - event["offset"]) / rate
        cursor = start + event["samples"]
    raise AssertionError(f"received sample {offset} is in no audio event of the trace")


def test_a_pair_is_eligible_only_when_both_members_are(recorded: tuple[Path, Path],
                                                       tmp_path: Path) -> None:
    dataset, recorded_run = recorded
    run = tmp_path / "run"
    shutil.copytree(recorded_run, run)
    # pair 1: the input member is fine, the clean member sent packet 2 too late
    _edit(run, PAIRS[0], "clean_input", _late_append)
    # pair 2: a fault 0.1 s after the input member's T is only a diagnostic, not a reason
    _edit(run, PAIRS[1], "input", _fault_at(INPUT_S + 0.1))
    export = tmp_path / "tree"
    assert main(["fdb15", "export", str(run), "--dataset-root", str(dataset), "--out",
                 str(export)]) == 0
    entries = _manifest(export)
    first, second = entries[PAIRS[0]], entries[PAIRS[1]]
    assert (first["eligible"], first["reasons"]) == (False, ["input_pacing"])
    assert first["members"]["input"]["eligible"] and first["members"]["input"]["reasons"] == []
    assert first["members"]["clean_input"]["reasons"] == ["input_pacing"]
    assert first["members"]["clean_input"]["eligibility_details"] == [
        "packet 2 started 80.001 ms after its deadline"]
    assert first["files"] == {} and not (export / PAIRS[0]).exists()
    assert (second["eligible"], second["reasons"]) == (True, [])
    assert [f["t_s"] for f in second["members"]["input"]["faults_after_t"]] == [1.6]
    assert (export / PAIRS[1] / "output.wav").is_file()

    # both members failing: the pair's reasons are the union, the input member's first
    _edit(run, PAIRS[0], "input", _fault_at(INPUT_S))   # at T exactly: inside the window
    export = tmp_path / "tree-both"
    assert main(["fdb15", "export", str(run), "--out", str(export)]) == 0
    both = _manifest(export)[PAIRS[0]]
    assert both["reasons"] == ["window_error", "input_pacing"]
    assert both["members"]["input"]["reasons"] == ["window_error"]


def test_a_fault_in_one_member_fails_that_session_and_the_pair(tmp_path: Path) -> None:
    dataset = tiny_dataset(tmp_path / "ds")
    run = tmp_path / "run"
    with agent_thread() as healthy, agent_thread(
            options={"fault": "disconnect", "fault_after_ms": "240"}) as faulty:
        code = main(["fdb15", "record", "--dataset-root", str(dataset), "--agent",
                     "fdb15.routed_agent:CleanMemberElsewhere",
                     "-o", f"url={healthy.url}/{{sample_id}}", "-o", f"clean_url={faulty.url}",
                     "--out", str(run), "--grace", "0.3", "--timeout", "1",
                     "--sample-id", PAIRS[0]])
    assert code == 3   # the system failed a session; the run is complete and says which
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    assert _status(run, PAIRS[0], "input")["status"] == "complete"
    clean = _status(run, PAIRS[0], "clean_input")
    assert clean["status"] == "error" and "dropped the connection" in clean["reasons"][0]
    assert main(["fdb15", "export", str(run), "--out", str(tmp_path / "tree")]) == 0
    entry = _manifest(tmp_path / "tree")[PAIRS[0]]
    # the connection dropped after 240 ms of heard audio, inside the window, so the rest
    # of the 15 packets was never sent: v1.0's two reasons, on the clean member only
    assert (entry["eligible"], entry["reasons"]) == (False, ["input_pacing", "window_error"])
    assert entry["members"]["clean_input"]["reasons"] == ["input_pacing", "window_error"]
    assert entry["members"]["clean_input"]["pacing"]["packets"] < 15
    assert entry["members"]["input"]["eligible"]
    assert entry["members"]["clean_input"]["capture"]["status"] == "error"

    # --retry failed records the failed member again, and only it, beside its first
    # attempt; export takes the new attempt and records the choice
    kept = {p: p.read_bytes() for p in (run / "samples").rglob("*") if p.is_file()}
    with agent_thread() as healthy:
        assert main(["fdb15", "record", "--resume", str(run), "--retry", "failed",
                     "-o", f"url={healthy.url}/{{sample_id}}", "-o",
                     f"clean_url={healthy.url}/elsewhere"]) == 0
        assert healthy.log.paths == ["/v1/realtime/elsewhere"]
    assert {p: p.read_bytes() for p in kept} == kept
    retried = _session(run, PAIRS[0], "clean_input") / "attempts" / "2"
    assert json.loads((retried / "status.json").read_text())["status"] == "complete"
    assert not (_session(run, PAIRS[0], "input") / "attempts").exists()
    assert main(["fdb15", "export", str(run), "--out", str(tmp_path / "tree-2")]) == 0
    clean = _manifest(tmp_path / "tree-2")[PAIRS[0]]["members"]["clean_input"]
    on_time = not late_appends(_trace(retried))
    assert (clean["capture"]["attempt"], clean["eligible"]) == (2, on_time)
    assert [(c["attempt"], c["status"], c["check_reasons"])
            for c in clean["capture"]["choice"]["captures"]] == [
        (1, "error", ["input_pacing", "window_error"]),
        (2, "complete", [] if on_time else ["input_pacing"])]


def test_two_complete_runs_of_a_pair_export_the_latest_eligible(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, recorded_run = recorded
    first, second = tmp_path / "run1", tmp_path / "run2"
    shutil.copytree(recorded_run, first)
    shutil.copytree(recorded_run, second)
    for run in (first, second):   # both start eligible, whatever this machine's load did
        for sid in PAIRS:
            for member in ("input", "clean_input"):
                _edit(run, sid, member, on_schedule)
    _edit(second, PAIRS[0], "clean_input", _late_append)
    assert main(["fdb15", "export", str(first), str(second), "--out",
                 str(tmp_path / "tree")]) == 0
    entries = _manifest(tmp_path / "tree")
    members = entries[PAIRS[0]]["members"]
    # run2's input member is taken; its late clean member is not, run1's is
    assert members["input"]["capture"]["run"] == "run2"
    assert members["clean_input"]["capture"]["run"] == "run1"
    assert members["clean_input"]["capture"]["choice"]["why"] == \
        "the latest complete and eligible of 2 captures"
    assert [c["check_reasons"] for c in members["clean_input"]["capture"]["choice"][
        "captures"]] == [[], ["input_pacing"]]
    assert entries[PAIRS[0]]["eligible"] and entries[PAIRS[1]]["eligible"]
    assert {m["capture"]["run"] for m in entries[PAIRS[1]]["members"].values()} == {"run2"}


def test_resume_records_only_the_missing_session(recorded: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    dataset, recorded_run = recorded
    run = tmp_path / "run"
    shutil.copytree(recorded_run, run)
    # as a run killed while recording the last session: its folder not yet renamed into
    # place (a staging folder left behind), run.json still running
    missing = _session(run, PAIRS[1], "clean_input")
    shutil.rmtree(missing)
    (missing.parent / ".clean_input.x1y2.partial").mkdir()
    document = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(dumps({**document, "status": "running"}))
    kept = {p: p.read_bytes() for p in (run / "samples").rglob("*") if p.is_file()}
    with agent_thread() as agent:
        # the agent moved: the new URL is given again with -o
        assert main(["fdb15", "record", "--resume", str(run), "-o",
                     f"url={agent.url}/{{sample_id}}"]) == 0
        assert agent.log.paths == [f"/v1/realtime/{PAIRS[1]}/clean_input"]
    assert {p: p.read_bytes() for p in kept} == kept
    assert _status(run, PAIRS[1], "clean_input")["status"] == "complete"
    assert not list((run / "samples").rglob(".*.partial"))
    assert json.loads((run / "run.json").read_text())["status"] == "complete"


def test_bad_input_exits_2_and_writes_nothing(recorded: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    dataset, run = recorded
    assert main(["fdb15", "record", "--dataset-root", str(dataset), "--agent",
                 "native-realtime", "-o", "url=ws://127.0.0.1:9", "--out",
                 str(tmp_path / "r"), "--scenario", "user_interuption"]) == 2
    assert "unknown scenario 'user_interuption'" in capsys.readouterr().err
    v10_run = tmp_path / "v10"
    v10_run.mkdir()
    (v10_run / "run.json").write_text(json.dumps({"kind": "speecheval-fdb10-run"}))
    assert main(["fdb15", "export", str(v10_run), "--dataset-root", str(dataset), "--out",
                 str(tmp_path / "t")]) == 2
    assert "run.json is not a speecheval-fdb15-run document" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not (tmp_path / "t").exists()


class _OneWord:
    """A recogniser that hears one word at 0.1-0.3 s, and fails on 1.2 s tracks when told."""

    fail_clean = False

    def words(self, samples: np.ndarray) -> list[TimedWord]:
        if self.fail_clean and samples.shape[0] == round(CLEAN_S * RATE):
            raise RecognitionFailed("server said 500")
        return [TimedWord("word", 0.1, 0.3)]

    def identity(self) -> dict[str, object]:
        return {"backend": "one-word test recogniser"}


class _FailsOnClean(_OneWord):
    fail_clean = True


def test_asr_writes_the_four_official_transcripts_or_nothing(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, run = recorded
    tree = tmp_path / "tree"
    assert main(["fdb15", "export", str(run), "--out", str(tree)]) == 0
    with pytest.raises(SystemUnderTestError, match="failed on 4 of 8"):
        transcribe_tree(tree, workers=1, factory=_FailsOnClean)
    assert sorted(p.name for p in tree.rglob("*.json")) == ["manifest.json"] + [
        "metadata.json"] * 2
    asr_path, transcripts, _ = transcribe_tree(tree, workers=1, factory=_OneWord)
    names = ["clean_input.json", "clean_output.json", "input.json", "output.json"]
    assert sorted(transcripts) == sorted(f"{sid}/{name}" for sid in PAIRS for name in names)
    index = json.loads(asr_path.read_text())
    assert index["kind"] == "fdb-v1.5-asr" and index["asr"] == {
        "backend": "one-word test recogniser"}
    for key, digest in index["transcripts"].items():
        assert sha256_file(tree / key) == digest
        assert json.loads((tree / key).read_text()) == {
            "text": "word", "chunks": [{"text": "word", "timestamp": [0.1, 0.3]}]}
    assert main(["fdb15", "asr", "--tree", str(tree)]) == 2   # never overwritten


def test_asr_refuses_a_manifest_it_did_not_write(recorded: tuple[Path, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dataset, run = recorded
    tree = tmp_path / "tree"
    assert main(["fdb15", "export", str(run), "--out", str(tree)]) == 0
    manifest = json.loads((tree / "manifest.json").read_text())
    del manifest["samples"][1]["members"]
    (tree / "manifest.json").write_text(json.dumps(manifest))
    assert main(["fdb15", "asr", "--tree", str(tree)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json" in err and "samples[1] lacks or mistypes 'members'" in err
    assert "Traceback" not in err and not (tree / "asr.json").exists()
