"""``transcripts run`` then ``gate`` / ``arbitrate`` on the run: their records join the run's
own lineage, so ``transcripts lineage --artefact`` walks from a verdict to the input audio;
system names that would share a folder with those commands are refused."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from pathlib import Path

import pytest
from run_fixtures import BLOCKS_SAMPLE as SAMPLE
from run_fixtures import blocks_audio, cli, fake_run, write_manifest

SECOND = """  other:
    adapter: command
    command: [{python}, fake_system.py, "{{input}}", "{{output}}", "{{seed}}", "{{sample}}"]
    output_suffix: .stm
    version: other 1.0
"""
RAW = "raw:fake/production_complete_file/blocks/r1"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "lineage.jsonl").read_text().splitlines()]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A finished run of the fake command system (and a second one, ``other``)."""
    blocks_audio(tmp_path / "blocks.wav")
    manifest = write_manifest(tmp_path, SAMPLE, SECOND.format(python=sys.executable))
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest, "--system", "fake", "--system", "other",
               "--out", out) == 0
    return out


def test_gate_verdicts_join_the_run_lineage(run_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = (run_dir / "lineage.jsonl").read_bytes()
    assert cli("gate", run_dir) == 0
    (folder,) = (run_dir / "derived" / "gate").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["gate.json", "verdicts.jsonl"]
    after = (run_dir / "lineage.jsonl").read_bytes()
    assert after.startswith(before)  # appended, nothing before it touched
    added = [json.loads(line) for line in after[len(before):].splitlines()]
    verdict_id = f"gate:fake/production_complete_file/blocks/r1@{folder.name}"
    assert [r["id"] for r in added] == [
        verdict_id, f"gate:other/production_complete_file/blocks/r1@{folder.name}"]
    verdicts = [json.loads(line) for line in (folder / "verdicts.jsonl").read_text().splitlines()]
    # verdicts are in raw folder order: fake (line 1), other (line 2)
    assert [(v["system"], v["verdict"]) for v in verdicts] == [
        ("fake", "engineering_complete"), ("other", "engineering_complete")]
    gate = added[0]
    raw_meta = json.loads((run_dir / "raw" / "fake" / "production_complete_file" / "blocks" /
                           "r1" / "meta.json").read_text())
    assert gate["parent"] == RAW
    assert gate["path"] == f"derived/gate/{folder.name}/verdicts.jsonl#1"
    assert gate["sha256"] == sha(folder / "verdicts.jsonl")
    assert gate["raw_sha256"] == raw_meta["response_files"]["response.stm"]
    assert gate["input_sha256"] == sha(run_dir / "input" / "blocks.wav")
    assert gate["request_config"]["system"]["version"] == "fake 1.0"
    assert gate["verdict"] == "engineering_complete"
    capsys.readouterr()

    assert cli("lineage", run_dir, "--artefact", verdict_id) == 0
    shown = capsys.readouterr().out
    assert [line for line in shown.splitlines() if not line.startswith(" ")] == [
        verdict_id, RAW, "input:blocks"]
    assert f"  parent: {RAW}\n" in shown and "  parent: input:blocks\n" in shown
    assert "  path: input/blocks.wav\n" in shown

    # the same inputs again: the folder is reused and no record is appended twice
    assert cli("gate", run_dir) == 0
    assert (run_dir / "lineage.jsonl").read_bytes() == after
    # a new tolerance: a new folder and two new records after the old ones
    assert cli("gate", run_dir, "--tolerance", "100") == 0
    assert len(list((run_dir / "derived" / "gate").iterdir())) == 2
    later = records(run_dir)
    assert len(later) == len(before.splitlines()) + 4
    assert all(r["id"].startswith("gate:") and not r["id"].endswith(folder.name)
               for r in later[-2:])


def test_gate_mends_records_lost_after_its_folder(run_dir: Path) -> None:
    """A crash between the verdict folder and its records: the next call appends them.

    The records are checked to exist before the crash is simulated: a gate that appended
    nothing at all (verdicts kept only in their folder) would otherwise pass, the lineage
    being equal to itself before and after.
    """
    before = (run_dir / "lineage.jsonl").read_bytes()
    assert cli("gate", run_dir) == 0
    (folder,) = (run_dir / "derived" / "gate").iterdir()
    complete = (run_dir / "lineage.jsonl").read_bytes()
    expected = [f"gate:{system}/production_complete_file/blocks/r1@{folder.name}"
                for system in ("fake", "other")]
    assert [json.loads(line)["id"] for line in complete[len(before):].splitlines()] == expected
    (run_dir / "lineage.jsonl").write_bytes(before)  # the crash: folder made, records lost
    assert cli("gate", run_dir) == 0
    assert list((run_dir / "derived" / "gate").iterdir()) == [folder]  # reused, not remade
    assert (run_dir / "lineage.jsonl").read_bytes() == complete


JUDGE = '''
import json, re, sys
labels = re.findall(r"Candidate ([A-D]):", sys.stdin.read())
criteria = ["semantic_fidelity", "completeness", "entities", "numbers", "hallucination_control"]
print(json.dumps({"scores": {l: {c: 4 for c in criteria} for l in labels}, "best": labels[0],
                  "confidence": 0.9}))
'''


def test_arbitration_records_each_candidate(run_dir: Path, tmp_path: Path) -> None:
    judge = tmp_path / "judge.py"
    judge.write_text(JUDGE, encoding="utf-8")
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"sample": "blocks", "reference": "seed 0 samples 1120000",
                                "independent": True}) + "\n", encoding="utf-8")
    before = len(records(run_dir))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(judge))}"
    assert cli("arbitrate", run_dir, "--references", refs,
               *[a for i in range(3) for a in ("--judge-command", f"j{i}={command}")]) == 0
    (folder,) = (run_dir / "derived" / "arbitration").iterdir()
    added = records(run_dir)[before:]
    assert [(r["id"], r["parent"], r["path"]) for r in added] == [
        (f"arbitration:{system}/production_complete_file/blocks/r1@{folder.name}",
         f"raw:{system}/production_complete_file/blocks/r1",
         f"derived/arbitration/{folder.name}/aggregate.jsonl#1")
        for system in ("fake", "other")]
    assert all(r["sha256"] == sha(folder / "aggregate.jsonl") for r in added)
    assert all(r["input_sha256"] == sha(run_dir / "input" / "blocks.wav") for r in added)
    assert cli("lineage", run_dir, "--artefact", added[1]["id"]) == 0


@pytest.mark.parametrize(("name", "command"), [("gate", "gate"), ("arbitration", "arbitrate")])
def test_a_system_named_like_a_command_folder_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str) -> None:
    blocks_audio(tmp_path / "blocks.wav")
    manifest = write_manifest(tmp_path, SAMPLE, SECOND.replace("other", name).format(
        python=sys.executable))
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out",
               tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert err == (f"error: {manifest}: systems (line 2): '{name}' names the folder "
                   f"RUN/derived/{name}/ of `transcripts {command}`, which would clash with "
                   "this system's transcripts there; give the system another name\n")
    assert not (tmp_path / "run").exists()


def test_gate_refuses_a_run_with_a_system_named_gate(run_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A run directory written by another program (or an older speecheval)."""
    (run_dir / "raw" / "other").rename(run_dir / "raw" / "gate")
    before = (run_dir / "lineage.jsonl").read_bytes()
    assert cli("gate", run_dir) == 2
    err = capsys.readouterr().err
    assert "system 'gate' has the name of a command's folder under derived/" in err
    assert "raw/gate/production_complete_file/blocks/r1" in err
    assert not (run_dir / "derived" / "gate").exists()
    assert (run_dir / "lineage.jsonl").read_bytes() == before


def test_import_of_a_compatible_older_run(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    older, current = fake_run(tmp_path / "a"), fake_run(tmp_path / "b")
    digest = sha(older / "run.json")[:12]
    before = (current / "lineage.jsonl").read_bytes()
    capsys.readouterr()
    assert cli("import", current, older) == 0
    record_id = f"imported:{digest}/fake/production_complete_file/blocks/r1"
    assert capsys.readouterr().out == (f"{record_id}: compatible, identity exact, use "
                                       "production_complete_file\n")
    after = (current / "lineage.jsonl").read_bytes()
    assert after.startswith(before)
    # the imported raw answer, then the transcript derived from it (test_score_imported.py)
    record, derived = [json.loads(line) for line in after[len(before):].splitlines()]
    assert (derived["kind"], derived["parent"]) == ("imported_transcript", record_id)
    copied = current / "imported" / digest / "raw" / "fake" / "production_complete_file" / \
        "blocks" / "r1"
    original = older / "raw" / "fake" / "production_complete_file" / "blocks" / "r1"
    assert sorted(p.name for p in copied.iterdir()) == sorted(p.name for p in original.iterdir())
    assert all((copied / p.name).read_bytes() == p.read_bytes() for p in original.iterdir())
    assert record["path"] == str(copied.relative_to(current))
    assert (record["exact_input_match"], record["protocol_compatibility"],
            record["identity_confidence"], record["track_use"], record["parent"]) == (
        True, "compatible", "exact", "production_complete_file", "input:blocks")
    assert record["raw_sha256"] == sha(original / "response.stm")
    capsys.readouterr()
    assert cli("lineage", current, "--artefact", record_id) == 0
    assert [line for line in capsys.readouterr().out.splitlines()
            if not line.startswith(" ")] == [record_id, "input:blocks"]
    # again: nothing copied, nothing appended
    assert cli("import", current, older) == 0
    assert (current / "lineage.jsonl").read_bytes() == after


def test_an_incompatible_older_run_is_diagnostic_only(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    older = fake_run(tmp_path / "a", rate=22_050, version="fake 0.9")
    current = fake_run(tmp_path / "b")
    capsys.readouterr()
    assert cli("import", current, older) == 0
    assert capsys.readouterr().out.endswith(
        ": incompatible (the input audio differs), identity recorded, use diagnostic\n")
    record = records(current)[-2]  # the last is the transcript derived from it
    assert (record["exact_input_match"], record["protocol_compatibility"],
            record["parent"]) == (False, "incompatible", None)
    assert record["input_sha256"] == sha(older / "input" / "blocks.wav")


def test_import_needs_run_directories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    current = fake_run(tmp_path / "b")
    (tmp_path / "empty").mkdir()
    before = (current / "lineage.jsonl").read_bytes()
    assert cli("import", current, tmp_path / "empty") == 2
    assert capsys.readouterr().err == (f"error: {tmp_path / 'empty'}: not a run directory: it "
                                       "has no run.json\n")
    assert cli("import", current, current) == 2
    assert not (current / "imported").exists()
    assert (current / "lineage.jsonl").read_bytes() == before


def test_an_older_run_with_a_broken_meta_json_is_refused_before_any_copy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A meta.json that is not JSON is bad input named by its path (exit 2), found before
    anything is copied into the run or appended to its lineage."""
    older, current = fake_run(tmp_path / "a"), fake_run(tmp_path / "b")
    broken = older / "raw" / "fake" / "production_complete_file" / "blocks" / "r1" / \
        "meta.json"
    broken.write_text('{"status": "succeeded",', encoding="utf-8")
    before = (current / "lineage.jsonl").read_bytes()
    capsys.readouterr()
    assert cli("import", current, older) == 2
    assert capsys.readouterr().err == (f"error: {broken}: not JSON: Expecting property name "
                                       "enclosed in double quotes at line 1\n")
    assert not (current / "imported").exists()
    assert (current / "lineage.jsonl").read_bytes() == before
    (older / "run.json").write_text("[]", encoding="utf-8")
    assert cli("import", current, older) == 2
    assert capsys.readouterr().err == (f"error: {older / 'run.json'}: run.json must be a "
                                       "JSON object\n")


def gate_lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "verdicts.jsonl").read_text().splitlines()]


def test_gate_judges_a_compatible_import_like_the_runs_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    older, current = fake_run(tmp_path / "a"), fake_run(tmp_path / "b")
    digest = sha(older / "run.json")[:12]
    assert cli("import", current, older) == 0
    capsys.readouterr()
    assert cli("gate", current) == 0
    out = capsys.readouterr().out.splitlines()
    (folder,) = (current / "derived" / "gate").iterdir()
    own, imported = gate_lines(folder)
    key = "fake/production_complete_file/blocks/r1"
    assert "imported" not in own
    # same PCM, same adapter and track, same identity: held to the same boundary (0.9 s)
    assert imported["imported"] == {
        "id": f"imported:{digest}/{key}", "exact_input_match": True,
        "protocol_compatibility": "compatible", "incompatibilities": [],
        "identity_confidence": "exact", "track_use": "production_complete_file"}
    assert (own["verdict"], imported["verdict"]) == ("engineering_complete",) * 2
    assert imported["transcript_coverage"]["last_speech_s"] == 0.9
    assert out[1] == (f"fake/production_complete_file/blocks/r1: engineering_complete "
                      f"[imported:{digest}: compatible, identity exact, use "
                      "production_complete_file]")
    entry = records(current)[-1]
    assert (entry["id"], entry["parent"], entry["imported"]["track_use"]) == (
        f"gate:imported:{digest}/{key}@{folder.name}", f"imported:{digest}/{key}",
        "production_complete_file")
    assert entry["raw_sha256"] == sha(older / "raw" / key / "response.stm")


def test_gate_keeps_an_incompatible_import_off_this_runs_boundary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Other PCM (22.05 kHz source) and another system version: the older answer is gated
    on its own length without this run's boundary (which belongs to other audio), so it
    cannot be engineering_complete, and its verdict is for the diagnostic track only."""
    older = fake_run(tmp_path / "a", rate=22_050, version="fake 0.9")
    current = fake_run(tmp_path / "b")
    assert cli("import", current, older) == 0
    capsys.readouterr()
    assert cli("gate", current) == 0
    (folder,) = (current / "derived" / "gate").iterdir()
    own, imported = gate_lines(folder)
    assert own["verdict"] == "engineering_complete"
    assert {k: imported["imported"][k] for k in (
        "exact_input_match", "protocol_compatibility", "identity_confidence", "track_use")} == {
        "exact_input_match": False, "protocol_compatibility": "incompatible",
        "identity_confidence": "recorded", "track_use": "diagnostic"}
    assert imported["transcript_coverage_status"] == "missing_evidence"
    assert imported["verdict"] == "indeterminate_missing_coverage_evidence"
    assert capsys.readouterr().out.splitlines()[1].endswith(
        ": incompatible, identity recorded, use diagnostic]")
    assert records(current)[-1]["imported"]["track_use"] == "diagnostic"
