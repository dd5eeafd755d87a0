"""An agent that floods audio or tiny messages: ``fdb10 record`` (and ``fdb15 record``, on
the same engine) keeps at most ``--max-received-ratio`` times the input and at most
``--max-events-per-second`` events per second of it, faults the session with the reason
and goes on, in bounded memory; a resumed run keeps its caps; and ``reference-export`` of
a run that holds far more audio than the window streams it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fdb15.test_capture import tiny_dataset
from hostile.flood import FloodAgent, flood_thread, traced_peak

from speecheval.cli import main
from speecheval.core.audio import audio_info

from .capturekit import read_status, read_trace, short_dataset

MIB = 1 << 20


PRELOAD = ('numpy',
           'soundfile',
           'websockets.asyncio.client',
           'speecheval.agents.pcm_websocket',
           'speecheval.agents.transport_options',
           'speecheval.fdb.common.record',
           'speecheval.fdb.common.export')
"""What the command imports anyway: loaded before its memory is traced."""


def _measured(*argv: str) -> tuple[int, int]:
    """Run ``speecheval argv`` in a child; its exit code and peak traced bytes."""
    return traced_peak(list(argv), PRELOAD)


def _record_args(dataset: Path, run: Path, url: str, *extra: str) -> list[str]:
    return ["fdb10", "record", "--dataset-root", str(dataset), "--agent", "pcm-websocket",
            "-o", f"url={url}", "--out", str(run), "--grace", "0.3", "--timeout", "3",
            *extra]


def test_a_flood_is_cut_at_the_cap_faulted_and_the_run_goes_on(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=1.0)
    run = tmp_path / "run"
    # 64 MiB offered to sample 1; sample 2 gets one ordinary 3200-byte reply
    flood = FloodAgent(total_bytes=64 * MIB, flood_paths=frozenset({"/icc_backchannel/1"}))
    with flood_thread(flood):
        code, peak = _measured(*_record_args(dataset, run, flood.url,
                                             "--max-received-ratio", "2"))
    assert code == 3   # a sample failed because of the system under test
    flooded = read_status(run, "icc_backchannel/1")
    # the input is 1.0 s at 16 kHz = 16000 samples; the cap is 2 x 16000 = 32000 samples;
    # the flood comes in messages of 32768 bytes = 16384 samples, so the first one fits
    # (16384 <= 32000) and the second would make 32768 > 32000: it is not kept
    reason = ("agent sent more audio than the cap of 2 x the input's 16000 samples "
              "(32000 samples); receiving stopped with 16384 samples kept")
    assert flooded["status"] == "error"
    assert flooded["reasons"] == [reason]
    assert flooded["received_samples"] == 16384
    trace = read_trace(run, "icc_backchannel/1")
    assert [e["reason"] for e in trace if e["type"] == "fault"][0] == reason
    assert audio_info(run / "samples/icc_backchannel/1/received.wav").n_samples == 16384
    ordinary = read_status(run, "icc_backchannel/2")
    assert ordinary["status"] == "complete" and ordinary["received_samples"] == 1600
    document = json.loads((run / "run.json").read_text())
    assert document["status"] == "complete"
    assert document["settings"]["max_received_ratio"] == 2.0
    # what was kept is 2 x 16384 samples x 2 bytes = 64 KiB; the command's peak stays a
    # small multiple of that and of the client's receive queue, far under the 64 MiB offered
    assert peak < 8 * MIB, peak


def test_the_default_cap_is_ten_times_the_input(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    with flood_thread(FloodAgent(total_bytes=4 * MIB)) as flood:
        assert main(_record_args(dataset, run, flood.url)) == 3
    # 0.5 s at 16 kHz = 8000 samples, x 10 = 80000; 4 messages of 16384 samples fit
    # (65536), the fifth would make 81920 > 80000
    assert read_status(run, "icc_backchannel/1")["reasons"] == [
        "agent sent more audio than the cap of 10 x the input's 8000 samples "
        "(80000 samples); receiving stopped with 65536 samples kept"]
    assert json.loads((run / "run.json").read_text())["settings"]["max_received_ratio"] == 10


def test_export_streams_a_capture_far_longer_than_its_window(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=1.0)
    run = tmp_path / "run"
    # a cap high enough to keep the whole flood: 16 MiB = 8 Mi samples, 524 s of audio
    with flood_thread(FloodAgent(total_bytes=16 * MIB)) as flood:
        assert main(_record_args(dataset, run, flood.url, "--grace", "2",
                                 "--max-received-ratio", "1000")) == 0
    assert read_status(run, "icc_backchannel/1")["received_samples"] == 8 * MIB
    code, peak = _measured("fdb10", "reference-export", "--run", str(run), "--dataset-root",
                           str(dataset), "--out", str(tmp_path / "tree"))
    assert code == 0
    entry = json.loads((tmp_path / "tree/manifest.json").read_text())["samples"][0]
    assert entry["playout"]["received_s"] == 8 * MIB / 16000
    # the window is 1.0 s = 16000 samples; reading the 16 MiB file whole as float32 and
    # float64 took over 96 MiB; streamed, the peak is a small multiple of the window
    assert peak < 4 * MIB, peak


def test_resume_keeps_the_runs_cap_and_an_older_run_gets_the_default(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    run = tmp_path / "run"
    # 0.5 s at 16 kHz = 8000 samples; a cap of 3 x 8000 = 24000 samples: one message of
    # 16384 fits, the second would make 32768
    three = ("agent sent more audio than the cap of 3 x the input's 8000 samples "
             "(24000 samples); receiving stopped with 16384 samples kept")
    ten = ("agent sent more audio than the cap of 10 x the input's 8000 samples "
           "(80000 samples); receiving stopped with 65536 samples kept")
    with flood_thread(FloodAgent(total_bytes=4 * MIB)) as flood:
        assert main(_record_args(dataset, run, flood.url, "--max-received-ratio", "3")) == 3
        shutil.rmtree(run / "samples/icc_backchannel/2")   # as if killed before it
        assert main(["fdb10", "record", "--resume", str(run)]) == 3
        assert read_status(run, "icc_backchannel/2")["reasons"] == [three]
        # a run recorded before the cap existed has no max_received_ratio: the default
        document = json.loads((run / "run.json").read_text())
        del document["settings"]["max_received_ratio"]
        (run / "run.json").write_text(json.dumps(document))
        shutil.rmtree(run / "samples/icc_backchannel/2")
        assert main(["fdb10", "record", "--resume", str(run)]) == 3
    assert read_status(run, "icc_backchannel/1")["reasons"] == [three]
    assert read_status(run, "icc_backchannel/2")["reasons"] == [ten]


def test_fdb15_record_caps_each_member_of_a_pair(tmp_path: Path) -> None:
    dataset = tiny_dataset(tmp_path / "ds")
    run = tmp_path / "run"
    flooded = "/user_interruption/1/input"
    with flood_thread(FloodAgent(total_bytes=4 * MIB, flood_paths=frozenset({flooded}))
                      ) as flood:
        assert main(["fdb15", "record", "--dataset-root", str(dataset), "--agent",
                     "pcm-websocket", "-o", f"url={flood.url}", "--out", str(run),
                     "--grace", "0.3", "--sample-id", "user_interruption/1",
                     "--max-received-ratio", "2"]) == 3
    member = run / "samples/user_interruption/1"
    # input.wav is 1.5 s at 16 kHz = 24000 samples, x 2 = 48000: two messages of 16384
    # fit (32768), the third would make 49152
    assert json.loads((member / "input/status.json").read_text())["reasons"] == [
        "agent sent more audio than the cap of 2 x the input's 24000 samples "
        "(48000 samples); receiving stopped with 32768 samples kept"]
    clean = json.loads((member / "clean_input/status.json").read_text())
    assert clean["status"] == "complete" and clean["received_samples"] == 1600


def test_a_flood_of_one_sample_messages_is_cut_at_the_event_cap(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=2, duration_s=0.5)
    run = tmp_path / "run"
    # 50000 messages of one sample each to sample 1: 50000 samples, within the audio
    # cap of 10 x 8000 = 80000, but each one a trace entry
    flood = FloodAgent(total_bytes=100_000, chunk_bytes=2,
                       flood_paths=frozenset({"/icc_backchannel/1"}))
    with flood_thread(flood):
        code, peak = _measured(*_record_args(dataset, run, flood.url))
    assert code == 3
    # 0.5 s of input at the default 1000 events per second: 500 events; the 501st is
    # not kept
    reason = ("agent sent more events than the cap of 1000 per second of the input's "
              "0.5 s (500 events); receiving stopped with 500 events kept")
    flooded = read_status(run, "icc_backchannel/1")
    assert flooded["status"] == "error" and flooded["reasons"] == [reason]
    assert flooded["received_samples"] == 500
    trace = read_trace(run, "icc_backchannel/1")
    assert sum(e["type"] == "audio" for e in trace) == 500
    assert [e["reason"] for e in trace if e["type"] == "fault"] == [reason]
    ordinary = read_status(run, "icc_backchannel/2")
    assert ordinary["status"] == "complete" and ordinary["received_samples"] == 1600
    settings = json.loads((run / "run.json").read_text())["settings"]
    assert settings["max_events_per_s"] == 1000
    # 500 trace entries of about 100 bytes each, and the same again as Python objects:
    # under a MiB with the client's receive queue, where 50000 entries took tens of MiB
    assert peak < 8 * MIB, peak


def test_a_transcript_flood_is_cut_at_the_event_cap_given(tmp_path: Path) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run = tmp_path / "run"
    text = json.dumps({"type": "transcript", "role": "agent", "text": "la", "final": False})
    with flood_thread(FloodAgent(total_bytes=1 * MIB, text=text)) as flood:
        assert main(_record_args(dataset, run, flood.url,
                                 "--max-events-per-second", "40")) == 3
    # 40 per second of the 0.5 s input: 20 events, the 21st is not kept
    assert read_status(run, "icc_backchannel/1")["reasons"] == [
        "agent sent more events than the cap of 40 per second of the input's 0.5 s "
        "(20 events); receiving stopped with 20 events kept"]
    trace = read_trace(run, "icc_backchannel/1")
    assert [e["text"] for e in trace if e["type"] == "transcript"] == ["la"] * 20
    assert json.loads((run / "run.json").read_text())["settings"]["max_events_per_s"] == 40
    # a resumed run keeps the cap it was recorded with
    shutil.rmtree(run / "samples/icc_backchannel/1")
    with flood_thread(FloodAgent(total_bytes=1 * MIB, text=text)) as flood:
        assert main(["fdb10", "record", "--resume", str(run), "-o", f"url={flood.url}"]) == 3
    assert read_status(run, "icc_backchannel/1")["reasons"][0].startswith(
        "agent sent more events than the cap of 40 per second")
