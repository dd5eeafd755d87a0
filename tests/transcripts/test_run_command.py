"""``transcripts run`` with the command adapter: layout, input identity, tracks, repeats,
failures, resume, lineage and rule upgrades (a fake system program, no model)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hostile.yaml_bombs import billion_laughs
from run_fixtures import blocks_audio, calls, cli, contents, write_manifest

from speecheval.transcripts import lineage
from speecheval.transcripts.run import runner


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    blocks_audio(tmp_path / "blocks.wav")
    return tmp_path


SAMPLE = "  - id: blocks\n    audio: blocks.wav\n"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def run_fake(folder: Path, *options: str) -> tuple[Path, Path]:
    """(manifest, run directory) of a successful run of the fake system on SAMPLE."""
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", *options, "--out", out) == 0
    return manifest, out


def test_layout_input_identity_repeats_and_lineage(folder: Path) -> None:
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--repeats", "2",
               "--out", out) == 0
    # 70 s at 44.1 kHz -> 16 kHz: ceil(3087000 * 16000 / 44100) = 1120000 samples
    identity = load(out / "input" / "blocks.json")
    assert identity["derived"]["samples"] == 1_120_000
    assert identity["derived"]["sha256"] == sha(out / "input" / "blocks.wav")
    assert identity["source"]["sha256"] == sha(folder / "blocks.wav")
    assert (identity["source"]["rate"], identity["source"]["channels"]) == (44_100, 2)
    data, rate = sf.read(str(out / "input" / "blocks.wav"), dtype="int16")
    assert (rate, data.ndim, data.size) == (16_000, 1, 1_120_000)
    # the program got exactly that PCM, once per repeat, with seeds 0 and 1
    assert calls(folder) == ["blocks 0 1120000", "blocks 1 1120000"]
    for repeat, seed in ((1, 0), (2, 1)):
        raw = out / "raw" / "fake" / "production_complete_file" / "blocks" / f"r{repeat}"
        meta = load(raw / "meta.json")
        assert (meta["status"], meta["reason"], meta["seed"]) == ("succeeded", None, seed)
        assert meta["runner_stop_reason"] == "exit status 0"
        assert meta["response_files"]["response.stm"] == sha(raw / "response.stm")
        assert meta["audio_s"] == 70.0 and meta["peak_memory_bytes"] > 0
        derived = out / "derived" / "fake" / "production_complete_file" / "blocks" / \
            f"r{repeat}" / "transcript@seglst-1.json"
        assert json.loads(derived.read_text()) == [
            {"session_id": "blocks", "speaker": f"spk{seed}", "start_time": 0.5,
             "end_time": 1.0, "words": f"seed {seed} samples 1120000"}]
    run = load(out / "run.json")
    assert run["seeds"] == [0, 1] and run["tracks"] == ["production_complete_file"]
    assert run["systems"]["fake"]["identity"]["version"] == "fake 1.0"
    records = lineage.read_records(out)
    assert [r["id"] for r in records] == [
        "input:blocks", "raw:fake/production_complete_file/blocks/r1",
        "raw:fake/production_complete_file/blocks/r2",
        "transcript:fake/production_complete_file/blocks/r1@seglst/1",
        "transcript:fake/production_complete_file/blocks/r2@seglst/1"]
    assert all(set(lineage.RECORD_KEYS) <= set(r) for r in records)
    chain = lineage.chain(records, "transcript:fake/production_complete_file/blocks/r2@seglst/1")
    assert [r["kind"] for r in chain] == ["transcript", "raw", "input"]
    raw = out / "raw" / "fake" / "production_complete_file" / "blocks" / "r2"
    assert chain[0]["raw_sha256"] == chain[1]["raw_sha256"] == sha(raw / "response.stm")
    assert {r["input_sha256"] for r in chain} == {identity["derived"]["sha256"]}
    assert chain[0]["request_config"]["seed"] == 1


def test_same_inputs_give_the_same_bytes(folder: Path) -> None:
    manifest = write_manifest(folder, SAMPLE)
    for name in ("a", "b"):
        assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
                   "production_complete_file/chunked", "--out", folder / name) == 0
    for relative in ("input/blocks.wav", "input/blocks.json", "input/blocks.chunks.json",
                     "lineage.jsonl", "run.json",
                     "derived/fake/production_complete_file.chunked/blocks/r1/"
                     "transcript@seglst-1.json"):
        assert (folder / "a" / relative).read_bytes() == (folder / "b" / relative).read_bytes()


def test_chunked_track_cuts_in_silence_and_stitches_by_offset(folder: Path) -> None:
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "production_complete_file/chunked", "--out", out) == 0
    plan = load(out / "input" / "blocks.chunks.json")
    chunks = plan["chunks"]
    assert plan["chunker"]["version"] == "silence-aware/1"
    # two cuts, each inside one of the silences (20-25 s and 45-50 s), ends meeting
    assert len(chunks) == 3 and chunks[0][0] == 0 and chunks[-1][1] == 1_120_000
    assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:], strict=False))
    assert 20 * 16000 < chunks[0][1] < 25 * 16000 < 45 * 16000 < chunks[1][1] < 50 * 16000
    assert [c.split()[2] for c in calls(folder)] == [str(b - a) for a, b in chunks]
    raw = out / "raw" / "fake" / "production_complete_file.chunked" / "blocks" / "r1"
    meta = load(raw / "meta.json")
    assert [c["start_s"] for c in meta["chunks"]] == [a / 16000 for a, _ in chunks]
    assert (raw / "chunk-002" / "response.stm").is_file()
    rows = json.loads((out / "derived" / "fake" / "production_complete_file.chunked" /
                       "blocks" / "r1" / "transcript@seglst-1.json").read_text())
    # each chunk's 0.5-1.0 s segment moved by its chunk's start
    assert [(r["start_time"], r["end_time"], r["chunk"]) for r in rows] == [
        (round(a / 16000 + 0.5, 6), round(a / 16000 + 1.0, 6), i)
        for i, (a, _) in enumerate(chunks)]
    # the first segment is far from any cut; the others start 0.5 s after one (< 1 s)
    assert [r["region"] for r in rows] == ["in_segment", "across_cut", "across_cut"]
    record = lineage.read_records(out)[-1]
    assert record["derivation"]["reconciliation"] == {
        "rule": "same-label/1", "chunk_labels": 3, "stitched_labels": 1}
    assert record["derivation"]["regions"] == {"in_segment": 1, "across_cut": 2}
    assert record["request_config"]["chunks_sha256"] == sha(out / "input" /
                                                              "blocks.chunks.json")


def test_failures_are_recorded_and_the_run_goes_on(folder: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    blocks_audio(folder / "other.wav", rate=16_000)
    samples = SAMPLE + ("  - id: bad-one\n    audio: other.wav\n"
                        "  - id: garbled-one\n    audio: other.wav\n")
    manifest = write_manifest(folder, samples)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out", out) == 3
    printed = capsys.readouterr()
    assert "1 succeeded, 2 failed, 0 unsupported" in printed.out
    raw = out / "raw" / "fake" / "production_complete_file"
    bad = load(raw / "bad-one" / "r1" / "meta.json")
    assert bad["status"] == "failed" and bad["runner_stop_reason"] == "exit status 1"
    assert bad["reason"] == "the program exited with status 1: model crashed on this file"
    garbled = load(raw / "garbled-one" / "r1" / "meta.json")
    assert garbled["reason"].startswith("the output is not a valid transcript")
    assert (raw / "garbled-one" / "r1" / "response.stm").read_text() == \
        "this is not an STM line\n"
    assert not (out / "derived" / "fake" / "production_complete_file" / "bad-one").exists()
    assert (out / "derived" / "fake" / "production_complete_file" / "blocks").is_dir()


def test_a_program_past_its_time_limit_is_killed_and_recorded(folder: Path) -> None:
    sf.write(str(folder / "slow.flac"), np.zeros(16_000, np.int16), 16_000)
    manifest = write_manifest(folder, "  - id: slow-one\n    audio: slow.flac\n")
    manifest.write_text(manifest.read_text().replace(
        "    version: fake 1.0\n", "    version: fake 1.0\n    timeout_s: 1.5\n"))
    out = folder / "run"
    started = time.monotonic()
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "production_complete_file", "--track", "production_complete_file", "--out",
               out) == 3
    assert time.monotonic() - started < 30  # killed, not waited for
    meta = load(out / "raw" / "fake" / "production_complete_file" / "slow-one" / "r1" /
                "meta.json")
    assert (meta["status"], meta["runner_stop_reason"], meta["reason"]) == (
        "failed", "timed out after 1.5 s", "the program ran past its 1.5 s limit")
    assert load(out / "input" / "slow-one.json")["source"]["subtype"] == "PCM_16"


def test_resume_runs_only_the_missing_jobs(folder: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    real_run_job = runner.run_job
    done = []

    def crash_after_two(*args: object) -> object:
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(real_run_job(*args))  # type: ignore[arg-type]
        return done[-1]

    monkeypatch.setattr(runner, "run_job", crash_after_two)
    with pytest.raises(KeyboardInterrupt):
        runner.start(runner.Request(manifest, ("fake",), ("production_complete_file",), 4),
                     out)
    monkeypatch.undo()
    first = out / "raw" / "fake" / "production_complete_file" / "blocks" / "r1"
    before = {p.name: p.read_bytes() for p in first.iterdir()}
    assert calls(folder) == ["blocks 0 1120000", "blocks 1 1120000"]
    assert cli("run", "--resume", out) == 0
    assert calls(folder)[2:] == ["blocks 2 1120000", "blocks 3 1120000"]
    assert {p.name: p.read_bytes() for p in first.iterdir()} == before
    ids = [r["id"] for r in lineage.read_records(out)]
    assert len(ids) == len(set(ids)) == 1 + 4 + 4
    assert cli("run", "--resume", out) == 0  # nothing left: no call
    assert len(calls(folder)) == 4


def test_resume_records_a_folder_left_without_its_record_at_its_place(folder: Path) -> None:
    """A run killed between writing a raw folder and appending its record, made without
    any timing: an unbroken run of jobs r1, r2, r3, copied and cut back. A run appends its
    raw records in job order, so the killed one's lineage is a prefix (input, raw r1); r2's
    folder stays (written, not recorded), r3's is gone (never written), nothing derived.
    ``--resume`` calls r3 alone and must append r2's record before r3's (unfixed: r3's
    first, as the resumed jobs were recorded before the folders already there)."""
    manifest = write_manifest(folder, SAMPLE)
    unbroken, killed = folder / "unbroken", folder / "killed"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--repeats", "3",
               "--out", unbroken) == 0
    shutil.copytree(unbroken, killed)
    lines = (killed / "lineage.jsonl").read_bytes().splitlines(keepends=True)
    raw = "raw:fake/production_complete_file/blocks/"
    # 1 input + 3 raw + 3 transcript records; keep the input's and r1's
    assert len(lines) == 7
    assert [json.loads(line)["id"] for line in lines[:4]] == [
        "input:blocks", raw + "r1", raw + "r2", raw + "r3"]
    (killed / "lineage.jsonl").write_bytes(b"".join(lines[:2]))
    shutil.rmtree(killed / "raw" / "fake" / "production_complete_file" / "blocks" / "r3")
    shutil.rmtree(killed / "derived")
    assert cli("run", "--resume", killed) == 0
    # seeds 0, 1, 2 by the unbroken run, then seed 2 (r3) alone by the resume
    assert calls(folder) == [f"blocks {seed} 1120000" for seed in (0, 1, 2, 2)]
    assert (killed / "lineage.jsonl").read_bytes() == (unbroken / "lineage.jsonl").read_bytes()
    assert contents(killed) == contents(unbroken)


def test_resume_refuses_a_system_whose_identity_changed(
        folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    monkeypatch.setattr(runner, "run_job", lambda *args: (_ for _ in ()).throw(
        KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        runner.start(runner.Request(manifest, ("fake",), ("production_complete_file",), 1),
                     out)
    monkeypatch.undo()
    with open(folder / "fake_system.py", "a") as program:
        program.write("# a new version of the program\n")
    assert cli("run", "--resume", out) == 2
    assert "system fake's identity changed since the run started" in capsys.readouterr().err
    assert calls(folder) == []


def test_a_new_rule_version_derives_from_raw_without_calling(
        folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = run_fake(folder)
    derived = out / "derived" / "fake" / "production_complete_file" / "blocks" / "r1"
    old = (derived / "transcript@seglst-1.json").read_bytes()
    (folder / "fake_system.py").write_text("raise SystemExit(9)\n")  # calling would fail
    monkeypatch.setattr(runner, "VERSION", "seglst/2")
    assert cli("run", "--resume", out) == 0
    assert "0 jobs run now" in capsys.readouterr().out
    assert len(calls(folder)) == 1
    assert (derived / "transcript@seglst-1.json").read_bytes() == old
    assert (derived / "transcript@seglst-2.json").read_bytes() == old  # same rule body
    records = {r["id"]: r for r in lineage.read_records(out)}
    new = records["transcript:fake/production_complete_file/blocks/r1@seglst/2"]
    assert new["normalizer_version"] == "seglst/2"
    assert new["parent"] == "raw:fake/production_complete_file/blocks/r1"
    assert "transcript:fake/production_complete_file/blocks/r1@seglst/1" in records


def test_native_and_gold_tracks_unsupported_with_reasons(folder: Path) -> None:
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "native_whole_context", "--track", "gold_diagnostic_window", "--out", out) == 0
    raw = out / "raw" / "fake"
    native = load(raw / "native_whole_context" / "blocks" / "r1" / "meta.json")
    assert (native["status"], native["reason"]) == (
        "unsupported", "system fake declares no native context (native_context_s)")
    gold = load(raw / "gold_diagnostic_window" / "blocks" / "r1" / "meta.json")
    assert (gold["status"], gold["reason"]) == ("unsupported", "the sample has no gold_window")
    assert calls(folder) == []


def test_native_track_within_and_beyond_the_declared_context(folder: Path) -> None:
    sf.write(str(folder / "short.wav"), np.zeros(16_000 * 5, np.int16), 16_000)
    samples = SAMPLE + "  - id: short\n    audio: short.wav\n"
    manifest = write_manifest(folder, samples)
    text = manifest.read_text().replace("    version: fake 1.0\n",
                                        "    version: fake 1.0\n    native_context_s: 10\n")
    manifest.write_text(text)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "native_whole_context", "--out", out) == 0
    raw = out / "raw" / "fake" / "native_whole_context"
    assert load(raw / "blocks" / "r1" / "meta.json")["reason"] == \
        "the sample lasts 70 s, longer than the native context of 10 s"
    assert load(raw / "short" / "r1" / "meta.json")["status"] == "succeeded"
    assert calls(folder) == ["short 0 80000"]


def test_gold_window_is_the_same_physical_crop(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    audio = rng.integers(-3000, 3000, size=16_000 * 540, dtype=np.int16)  # 9 minutes
    sf.write(str(tmp_path / "long.wav"), audio, 16_000, subtype="PCM_16")
    samples = ("  - id: long\n    audio: long.wav\n"
               "    gold_window: {start_s: 30.0, end_s: 510.0}\n")
    manifest = write_manifest(tmp_path, samples)
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--track",
               "gold_diagnostic_window", "--out", out) == 0
    crop = load(out / "input" / "long.gold.json")
    # 30 s and 510 s at 16 kHz: samples 480000 to 8160000, 7680000 samples (480 s)
    assert (crop["start_sample"], crop["end_sample"]) == (480_000, 8_160_000)
    data, _ = sf.read(str(out / "input" / "long.gold.wav"), dtype="int16")
    assert np.array_equal(data, audio[480_000:8_160_000])
    assert crop["derived"]["sha256"] == sha(out / "input" / "long.gold.wav")
    assert calls(tmp_path) == ["long 0 7680000"]
    meta = load(out / "raw" / "fake" / "gold_diagnostic_window" / "long" / "r1" / "meta.json")
    assert meta["offset_s"] == 30.0 and meta["audio_s"] == 480.0
    chain = lineage.chain(lineage.read_records(out),
                          "transcript:fake/gold_diagnostic_window/long/r1@seglst/1")
    assert [r["id"] for r in chain][1:] == ["raw:fake/gold_diagnostic_window/long/r1",
                                            "input:long/gold", "input:long"]


@pytest.mark.parametrize(("samples", "problem"), [
    ("  - id: blocks\n    audio: blocks.wav\n    colour: red\n", "samples[0].colour"),
    ("  - id: blocks\n    audio: missing.wav\n", "file not found"),
    ("  - id: blocks\n    audio: blocks.wav\n    gold_window: {start_s: 0, end_s: 60}\n",
     "must last 8 to 12 minutes"),
    ("  - id: blocks\n    audio: ../blocks.wav\n", "samples[0].audio"),
    ("  - id: blocks\n    audio: blocks.wav\n    gold_window: {start_s: 0, end_s: 600}\n",
     "gold_window ends at 600 s, after the audio's end at 70 s"),
])
def test_bad_manifest_is_one_line_and_writes_nothing(
        folder: Path, capsys: pytest.CaptureFixture[str], samples: str, problem: str) -> None:
    manifest = write_manifest(folder, samples)
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out",
               folder / "run") == 2
    err = capsys.readouterr().err
    assert problem in err and len(err.strip().splitlines()) == 1
    assert "manifest.yaml" in err
    assert not (folder / "run").exists()


def test_unreadable_audio_is_one_line_and_writes_nothing(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "notes.wav").write_text("these are not samples\n")
    manifest = write_manifest(folder, "  - id: notes\n    audio: notes.wav\n")
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out",
               folder / "run") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: sample notes: ") and "notes.wav: cannot read audio" in err
    assert not (folder / "run").exists() and calls(folder) == []


def test_progress_bar_on_request(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", "1")
    run_fake(folder, "--repeats", "2")
    captured = capsys.readouterr()
    # the bar is drawn with its total (2 jobs: one sample, two repeats) when it starts; the
    # later redraws are rate-limited, so whether "2/2" is drawn before the bar is erased
    # depends on how fast the jobs end
    assert "transcribing" in captured.err and "0/2" in captured.err
    assert "transcribing" not in captured.out


def test_bad_invocations_exit_2(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = write_manifest(folder, SAMPLE)
    assert cli("run", "--manifest", manifest, "--system", "nope", "--out",
               folder / "run") == 2
    assert "--system nope: not a system of the manifest; known: fake, whisper-local" in \
        capsys.readouterr().err
    text = manifest.read_text().replace(f"[{sys.executable},", "[no-such-program-xyz,")
    manifest.write_text(text)
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out",
               folder / "run") == 2
    assert "the program 'no-such-program-xyz' is neither on PATH" in capsys.readouterr().err
    assert not (folder / "run").exists()
    assert cli("run", "--resume", folder / "run", "--system", "fake") == 2
    assert "leave out --system" in capsys.readouterr().err


def test_resume_refuses_a_changed_manifest(folder: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    manifest, out = run_fake(folder)
    manifest.write_text(manifest.read_text() + "\n# edited\n")
    assert cli("run", "--resume", out) == 2
    assert "changed since the run started" in capsys.readouterr().err


def test_lineage_command_prints_the_chain(folder: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    manifest, out = run_fake(folder)
    capsys.readouterr()
    assert cli("lineage", out) == 0
    assert capsys.readouterr().out.splitlines() == [
        "input:blocks  <- (source audio)",
        "raw:fake/production_complete_file/blocks/r1  <- input:blocks",
        "transcript:fake/production_complete_file/blocks/r1@seglst/1  <- "
        "raw:fake/production_complete_file/blocks/r1"]
    assert cli("lineage", out, "--artefact",
               "transcript:fake/production_complete_file/blocks/r1@seglst/1") == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if not line.startswith(" ")] == [
        "transcript:fake/production_complete_file/blocks/r1@seglst/1",
        "raw:fake/production_complete_file/blocks/r1", "input:blocks"]
    assert "  normalizer_version: seglst/1" in lines
    assert cli("lineage", out, "--artefact", "metric:nothing") == 2
    assert "no artefact 'metric:nothing'" in capsys.readouterr().err


def test_lineage_never_replaces_a_record(tmp_path: Path) -> None:
    record = {key: None for key in lineage.RECORD_KEYS} | {"id": "input:x", "kind": "input"}
    lineage.append_record(tmp_path, record)
    before = (tmp_path / lineage.LINEAGE_FILE).read_bytes()
    with pytest.raises(Exception, match="already has an artefact 'input:x'"):
        lineage.append_record(tmp_path, record | {"sha256": "other"})
    with pytest.raises(ValueError, match="parent 'raw:y' of 'derived:z' is not recorded"):
        lineage.append_record(tmp_path, record | {"id": "derived:z", "parent": "raw:y"})
    assert (tmp_path / lineage.LINEAGE_FILE).read_bytes() == before


def test_audio_cut_inside_its_fmt_chunk_exits_2_before_any_job(folder: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    # 26 bytes: the RIFF header (12), the fmt chunk's header (8) and 6 of its 16 bytes
    wav = folder / "blocks.wav"
    wav.write_bytes(wav.read_bytes()[:26])
    manifest = write_manifest(folder, SAMPLE)
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out", out) == 2
    assert capsys.readouterr().err == (
        f"error: sample blocks: {wav}: truncated audio: the file ends after 26 bytes, "
        "inside its 'fmt ' chunk (bytes 12 to 36)\n")
    assert calls(folder) == [] and not out.exists()


def test_a_manifest_with_an_alias_bomb_exits_2_before_any_job(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 6 levels of 9 aliases: 9**6 = 531441 strings, which the old reader walked one by one
    # before refusing the unknown keys l0 ... l5 (9 levels grew without end)
    manifest = write_manifest(folder, SAMPLE)
    manifest.write_text(manifest.read_text() + billion_laughs(6))
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out", out) == 2
    assert capsys.readouterr().err == (
        f"error: {manifest}: its YAML aliases (*name) would expand it by more than 100000 "
        "nodes; write the repeated parts out instead\n")
    assert calls(folder) == [] and not out.exists()


def test_lineage_with_a_cycle_of_parents_exits_2_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an edited lineage: "self" is its own parent; a -> b -> c -> a; "leaf" leads into that
    # loop. The old walk followed the parents for ever.
    parents = {"self": "self", "a": "b", "b": "c", "c": "a", "leaf": "a"}
    records = [{key: None for key in lineage.RECORD_KEYS} | {"id": name, "parent": parent}
               for name, parent in parents.items()]
    path = tmp_path / lineage.LINEAGE_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for artefact, loop in (("self", "self -> self"), ("a", "a -> b -> c -> a"),
                           ("leaf", "a -> b -> c -> a")):
        assert cli("lineage", tmp_path, "--artefact", artefact) == 2
        assert capsys.readouterr().err == (
            f"error: {path}: the parents of {artefact!r} lead into a cycle: {loop}\n")
    assert cli("lineage", tmp_path) == 0   # the list names each record's parent, no walk
    assert capsys.readouterr().out.splitlines()[0] == "self  <- self"
