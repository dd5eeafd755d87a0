"""reference-export on a real recording and on edited copies of it: the tree a reader
accepts, the eligibility reasons, the playout, shard merging and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_file
from speecheval.fdb.common.export import export_tree
from speecheval.fdb.common.tree_read import load_manifest

from .capturekit import (
    Trace,
    agent_thread,
    edit_trace,
    on_schedule,
    read_status,
    read_trace,
    set_status,
    short_dataset,
)

T = 1.0
SID = "icc_backchannel/1"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two samples recorded from the local duplex agent, as a sender that kept its
    schedule writes them: the tests below edit this capture to make it ineligible in one
    way each, so it must start eligible on any machine. A loaded machine can hold the
    sender past the 80 ms tolerance; such an append is written back at its deadline
    (``capturekit.on_schedule``), which leaves the audio and the receipt times, and so the
    playout, as recorded. The pacing check itself is tested on an edited packet."""
    base = tmp_path_factory.mktemp("export")
    dataset = short_dataset(base / "ds", count=2, duration_s=T)
    run = base / "run-a"
    with agent_thread() as agent:
        assert main(["fdb10", "record", "--dataset-root", str(dataset), "--agent",
                     "native-realtime", "-o", f"url={agent.url}", "--out", str(run),
                     "--grace", "0.3"]) == 0
    for sample_id in (SID, "icc_backchannel/2"):
        edit_trace(run, sample_id, on_schedule)
    return dataset, run


def _copy(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest)
    return dest


def _export(tmp_path: Path, dataset: Path, *runs: Path) -> dict[str, dict[str, Any]]:
    out = tmp_path / "tree"
    export_tree(list(runs), dataset, out)
    load_manifest(out)   # the scorer's own reader accepts it
    manifest = json.loads((out / "manifest.json").read_text())
    return {entry["sample_id"]: entry for entry in manifest["samples"]}


def test_a_clean_capture_exports_eligible_with_exact_length(recorded: tuple[Path, Path],
                                                            tmp_path: Path) -> None:
    dataset, run = recorded
    entries = _export(tmp_path, dataset, run)
    assert list(entries) == ["icc_backchannel/1", "icc_backchannel/2"]
    entry = entries[SID]
    assert entry["eligible"] and entry["reasons"] == [] and entry["input_duration_s"] == T
    output = read_mono(tmp_path / "tree" / SID / "output.wav")
    assert output.rate == 16_000 and output.n_samples == 16_000
    assert entry["files"] == {"output.wav": sha256_file(tmp_path / "tree" / SID / "output.wav")}
    # the duplex agent's chunks arrive every 80 ms: each plays at its receipt sample, or
    # right after the one before; redo that by hand from the trace
    trace = read_trace(run, SID)
    received = np.round(read_mono(run / "samples" / SID / "received.wav").samples * 32768)
    expected = np.zeros(16_000)
    cursor = 0
    for event in (e for e in trace if e["type"] == "audio"):
        start = max(round(event["t_s"] * 16_000), cursor)
        stop = min(start + event["samples"], 16_000)
        if stop > start:
            expected[start:stop] = received[event["offset"]:event["offset"] + stop - start]
        cursor = start + event["samples"]
    np.testing.assert_array_equal(np.round(output.samples * 32768), expected)
    assert entry["playout"]["after_t_s"] == pytest.approx(max(0.0, cursor / 16_000 - T),
                                                          abs=1e-9)
    # the pacing diagnostics: the latest start and completion, from the trace by hand
    appends = [e for e in trace if e["type"] == "append"]
    assert entry["pacing"] == {
        "packets": len(appends), "expected_packets": 13,    # ceil(1 s / 80 ms)
        "max_start_late_s": max(0.0, *(round(e["start_s"] - e["deadline_s"], 6)
                                       for e in appends)),
        "max_end_late_s": max(0.0, *(round(e["end_s"] - e["deadline_s"], 6)
                                     for e in appends))}
    manifest = json.loads((tmp_path / "tree/manifest.json").read_text())
    assert manifest["capture"]["sources"][0]["name"] == "run-a"
    assert manifest["capture"]["playout_policy"]["name"] == "fifo-receipt"
    assert manifest["dataset"]["declared"]["icc_backchannel"] == 55


def test_export_is_deterministic(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, run = recorded
    export_tree([run], dataset, tmp_path / "a")
    export_tree([run], dataset, tmp_path / "b")
    for name in ("manifest.json", f"{SID}/output.wav"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(("fault_t", "eligible"), [(T, False), (T + 1e-6, True)])
def test_a_fault_at_t_is_a_window_error_and_after_t_a_diagnostic(
        recorded: tuple[Path, Path], tmp_path: Path, fault_t: float, eligible: bool) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")
    edit_trace(run, SID,
               lambda trace: [*trace, {"t_s": fault_t, "type": "fault", "reason": "boom"}])
    entry = _export(tmp_path, dataset, run)[SID]
    assert entry["eligible"] is eligible
    if eligible:
        assert entry["faults_after_t"] == [{"t_s": fault_t, "reason": "boom"}]
    else:
        assert entry["reasons"] == ["window_error"]


def test_a_late_packet_fails_pacing(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")

    def late(trace: Trace) -> Trace:
        for event in trace:
            if event["type"] == "append" and event["seq"] == 5:
                event["start_s"] = round(event["deadline_s"] + 0.080001, 6)
                event["end_s"] = event["start_s"]
        return trace

    edit_trace(run, SID, late)
    entry = _export(tmp_path, dataset, run)[SID]
    assert entry["reasons"] == ["input_pacing"]
    assert entry["eligibility_details"][0] == "packet 5 started 80.001 ms after its deadline"
    assert "output.wav" in entry["files"]   # kept for inspection, counted ineligible


def test_a_rate_change_mid_session_is_ineligible(recorded: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")

    def change(trace: Trace) -> Trace:
        audio = [e for e in trace if e["type"] == "audio"]
        audio[len(audio) // 2]["rate"] = 24_000
        return trace

    edit_trace(run, SID, change)
    entry = _export(tmp_path, dataset, run)[SID]
    assert entry["reasons"] == ["output_rate"] and "output.wav" not in entry["files"]


def test_speech_started_drops_queued_audio(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")

    def burst_then_barge_in(trace: Trace) -> Trace:
        # every chunk received at once at 0.1 s (as OpenAI sends a reply), then the
        # server reports speech at 0.3 s: what would play after 0.3 s is dropped
        for event in trace:
            if event["type"] == "audio":
                event["t_s"] = 0.1
        return [*trace, {"t_s": 0.3, "type": "speech_started"}]

    edit_trace(run, SID, burst_then_barge_in)
    entry = _export(tmp_path, dataset, run)[SID]
    received_s = read_status(run, SID)["received_samples"] / 16_000
    assert entry["playout"]["dropped_s"] == pytest.approx(received_s - 0.2, abs=1e-9)
    output = read_mono(tmp_path / "tree" / SID / "output.wav")
    assert not output.samples[:1600].any() and not output.samples[4800:].any()


def test_a_changed_dataset_is_a_hash_mismatch(recorded: tuple[Path, Path],
                                              tmp_path: Path) -> None:
    dataset_original, run = recorded
    dataset = tmp_path / "ds"
    shutil.copytree(dataset_original, dataset)
    (dataset / SID / "transcription.json").write_text("[]\n")
    entries = _export(tmp_path, dataset, run)
    assert entries[SID]["reasons"] == ["dataset_hash_mismatch"]
    assert entries["icc_backchannel/2"]["eligible"]


def test_shards_merge_and_a_later_run_replaces_an_incomplete_capture(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, original = recorded
    first = _copy(original, tmp_path / "run-1")
    second = _copy(original, tmp_path / "run-2")
    set_status(first, SID, status="error", reasons=["agent error event: x"])
    set_status(second, "icc_backchannel/2", status="error", reasons=["agent error event: y"])
    entries = _export(tmp_path, dataset, first, second)
    assert entries[SID]["capture"]["run"] == "run-2"
    assert entries["icc_backchannel/2"]["capture"]["run"] == "run-1"
    assert all(entry["eligible"] for entry in entries.values())


def _late_packet(trace: Trace) -> Trace:
    """Packet 3 started 81 ms after its deadline (1 ms past the tolerance)."""
    for event in trace:
        if event["type"] == "append" and event["seq"] == 3:
            event["start_s"] = event["end_s"] = round(event["deadline_s"] + 0.081, 6)
    return trace


def test_two_complete_captures_take_the_latest_eligible_and_say_so(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, original = recorded
    second = _copy(original, tmp_path / "run-2")
    entries = _export(tmp_path, dataset, original, second)
    # both captures are complete and eligible: the later run's is taken
    assert entries[SID]["capture"] == {
        "run": "run-2", "attempt": 1, "status": "complete", "reasons": [],
        "choice": {"why": "the latest complete and eligible of 2 captures", "captures": [
            {"run": "run-a", "attempt": 1, "status": "complete", "reasons": [],
             "eligible": True, "check_reasons": []},
            {"run": "run-2", "attempt": 1, "status": "complete", "reasons": [],
             "eligible": True, "check_reasons": []}]}}
    # the later one fails the pacing check: the earlier, eligible one is taken
    edit_trace(second, SID, _late_packet)
    shutil.rmtree(tmp_path / "tree")
    entries = _export(tmp_path, dataset, original, second)
    assert entries[SID]["eligible"] and entries[SID]["capture"]["run"] == "run-a"
    assert [c["check_reasons"] for c in entries[SID]["capture"]["choice"]["captures"]] == \
        [[], ["input_pacing"]]
    # a sample with one capture has no choice to record: its entry is as it always was
    shutil.rmtree(tmp_path / "tree")
    entries = _export(tmp_path, dataset, original)
    assert entries[SID]["capture"] == {"run": "run-a", "status": "complete", "reasons": []}


def test_skipped_and_unrecorded_samples_stay_listed(recorded: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")
    shutil.rmtree(run / "samples" / "icc_backchannel/2")   # a killed run never reached it
    set_status(run, SID, status="skipped", reasons=["input.wav is missing"])
    entries = _export(tmp_path, dataset, run)
    assert entries[SID]["reasons"] == ["no_output"] and entries[SID]["files"] == {}
    assert entries["icc_backchannel/2"]["reasons"] == ["no_output"]
    assert entries["icc_backchannel/2"]["eligibility_details"] == ["no run recorded this sample"]


def test_a_tampered_run_file_is_bad_input(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, original = recorded
    run = _copy(original, tmp_path / "run-a")
    path = run / "samples" / SID / "received.wav"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1   # one bit of the last sample
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="received.wav differs from the hash"):
        export_tree([run], dataset, tmp_path / "tree")


def test_cli_bad_run_exits_2_and_writes_nothing(recorded: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    dataset, run = recorded
    out = tmp_path / "tree"
    assert main(["fdb10", "reference-export", "--run", str(tmp_path), "--dataset-root",
                 str(dataset), "--out", str(out)]) == 2
    assert "not a record run directory" in capsys.readouterr().err and not out.exists()
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(out)]) == 0
    assert "2 samples, 2 eligible, 0 ineligible" in capsys.readouterr().out


def test_a_selected_sample_the_dataset_cannot_supply_is_unlisted_not_dropped(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    dataset_original, run = recorded
    dataset = tmp_path / "ds"
    shutil.copytree(dataset_original, dataset)
    (dataset / "icc_backchannel/2/input.wav").unlink()   # its T is now unknown
    counts = export_tree([run], dataset, tmp_path / "tree")
    assert counts == {"samples": 1, "eligible": 1, "ineligible": 0, "unlisted": 1}
    manifest = json.loads((tmp_path / "tree/manifest.json").read_text())
    assert manifest["unlisted"] == [{"sample_id": "icc_backchannel/2",
                                     "reasons": ["input.wav is missing"]}]


def test_the_manifest_records_each_input_with_its_sha256(recorded: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    dataset, run = recorded
    _export(tmp_path, dataset, run)
    manifest = json.loads((tmp_path / "tree" / "manifest.json").read_text())
    record = manifest["input_audio"]
    assert record["dataset_root"] == str(dataset.resolve())
    assert sorted(record["samples"]) == sorted(e["sample_id"] for e in manifest["samples"])
    for sample_id, ref in record["samples"].items():
        assert ref["path"] == f"{sample_id}/input.wav"
        assert ref["sha256"] == sha256_file(dataset / ref["path"])
