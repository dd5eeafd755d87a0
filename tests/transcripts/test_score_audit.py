"""Data audit keys, synthetic samples kept apart, and the system's declarations (speaker
labels, timestamp provenance) through ``speecheval transcripts score``.

Every transcript is written here; expected values are worked out in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
import yaml
from run_fixtures import cli, write_manifest

from speecheval.cli import main


def stm(folder: Path, name: str, text: str, speaker: str = "A") -> str:
    (folder / name).write_text(f"{name.split('.')[0]} 1 {speaker} 0.0 2.0 {text}\n", "utf-8")
    return name


def sample(folder: Path, name: str, hyp: str, **extra: Any) -> dict[str, Any]:
    return {"id": name, "scenario": "meet", "duration_s": 2.0, "source": f"src-{name}",
            "reference": {"transcript": stm(folder, f"{name}.ref.stm", "hello world")},
            "runs": [{"transcript": stm(folder, f"{name}.hyp.stm", hyp, "X")}], **extra}


def score(folder: Path, capsys: pytest.CaptureFixture[str], samples: list[dict[str, Any]],
          **top: Any) -> tuple[int, str, Path]:
    path = folder / "manifest.yaml"
    path.write_text(yaml.safe_dump({
        "format": "speecheval.transcripts.manifest/1", "system": "s", "required_repeats": 1,
        "scenarios": {"meet": {"unit": "word"}}, **top, "samples": samples},
        sort_keys=False), encoding="utf-8")
    out = folder / "out"
    code = main(["transcripts", "score", "--manifest", str(path), "--out", str(out)])
    return code, capsys.readouterr().err, out


def audited_samples(folder: Path) -> list[dict[str, Any]]:
    # r1: "hello world" exactly, WER 0/2; r2: "hello word", 1 substitution, 1/2;
    # s1 (synthetic reference, so a synthetic sample): "goodbye", 1 sub + 1 del, 2/2.
    return [sample(folder, "r1", "hello world", data_revision="v1", license="CC-BY-4.0",
                   reference_type="human", synthetic=False),
            sample(folder, "r2", "hello word", license="CC-BY-4.0", reference_type="corrected"),
            sample(folder, "s1", "goodbye", data_revision="gen-seed-7", license="CC0-1.0",
                   reference_type="synthetic")]


def test_audit_flows_to_the_tables_and_synthetic_samples_stay_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = score(tmp_path, capsys, audited_samples(tmp_path))
    assert code == 0, err
    doc = json.loads((out / "scenarios.json").read_text("utf-8"))
    # Real meet: macro (0 + 0.5) / 2 = 0.25 over r1, r2; the synthetic group alone: 1.0.
    # Pooled, the three would give (0 + 0.5 + 1) / 3 = 0.5: never reported.
    assert list(doc["scenarios"]) == ["meet", "meet (synthetic)"]
    assert doc["scenarios"]["meet"]["text"]["macro"] == 0.25
    assert doc["scenarios"]["meet (synthetic)"]["text"]["macro"] == 1.0
    assert doc["scenarios"]["meet (synthetic)"]["core"] is False
    by_rate = doc["cross_scenario"]["by_rate"]
    assert by_rate["wer"]["scenarios"] == ["meet"] and by_rate["wer"]["scenario_macro"] == 0.25
    assert by_rate["wer (synthetic)"]["scenarios"] == ["meet (synthetic)"]
    assert by_rate["wer (synthetic)"]["scenario_macro"] == 1.0
    assert doc["data_audit"] == {
        "meet": {"synthetic": False, "reference_types": {"corrected": 1, "human": 1},
                 "licenses": {"CC-BY-4.0": 2}, "data_revisions": {"undeclared": 1, "v1": 1}},
        "meet (synthetic)": {"synthetic": True, "reference_types": {"synthetic": 1},
                             "licenses": {"CC0-1.0": 1},
                             "data_revisions": {"gen-seed-7": 1}}}
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text("utf-8").splitlines()]
    assert [(r["sample_id"], r["scenario"]) for r in rows] == [
        ("r1", "meet"), ("r2", "meet"), ("s1", "meet (synthetic)")]
    assert rows[1]["audit"] == {"data_revision": None, "license": "CC-BY-4.0",
                                "reference_type": "corrected", "synthetic": None}
    md = (out / "scenarios.md").read_text("utf-8")
    assert "| meet (synthetic) | synthetic | synthetic (1) | CC0-1.0 (1) | gen-seed-7 (1) |" in md
    assert "| meet | real | corrected (1), human (1) | CC-BY-4.0 (2) | undeclared (1), v1 (1) |" \
        in md
    assert "# WER (SYNTHETIC) scenario macro 100.00% over meet (synthetic)" in md


@pytest.mark.parametrize(("change", "message"), [
    ({"reference_type": "machine"},
     "samples[0].reference_type (line 16): must be one of 'human', 'corrected' or 'synthetic', "
     "got 'machine'"),
    ({"reference_type": "synthetic", "synthetic": False},
     "reference_type is synthetic, so the sample is synthetic too"),
    ({"license": "  "}, "samples[0].license (line 16): must be a non-empty string, got '  '"),
])
def test_bad_audit_values_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      change: dict[str, Any], message: str) -> None:
    code, err, out = score(tmp_path, capsys, [sample(tmp_path, "r1", "hello world", **change)])
    assert code == 2 and not out.exists()
    assert "error: sample r1: " in err and message in err, err


def test_a_scenario_named_like_a_synthetic_group_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    samples = audited_samples(tmp_path)
    samples[0]["scenario"] = "meet (synthetic)"
    code, err, out = score(tmp_path, capsys, samples, scenarios={
        "meet": {"unit": "word"}, "meet (synthetic)": {"unit": "word"}})
    assert code == 2 and not out.exists()
    assert "error: sample s1: " in err and "'meet (synthetic)' is declared" in err


def test_covers_needs_a_core_scenario(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = score(tmp_path, capsys, [sample(tmp_path, "r1", "hello world")],
                           scenarios={"meet": {"unit": "word", "core": False,
                                               "covers": "business_meeting"}})
    assert code == 2 and not out.exists()
    assert "covers 'business_meeting' but is not core" in err


def ctm(folder: Path, name: str) -> str:
    (folder / name).write_text(f"{name.split('.')[0]} 1 0.0 1.0 hello\n"
                               f"{name.split('.')[0]} 1 1.0 1.0 world\n", "utf-8")
    return name


def test_declarations_are_shown_and_long_samples_are_out_of_range(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two samples with word times; the aligner's official range is 300 s. 'short' lasts
    # 2 s and is scored; 'long' is declared to last 400 s > 300 s: its timestamps are
    # out_of_official_input_range (left out and counted, 1 run), its text still scored.
    samples = [sample(tmp_path, "short", "hello world"), sample(tmp_path, "long", "hello world")]
    samples[1]["duration_s"] = 400.0
    for s in samples:
        s["runs"][0]["words"] = ctm(tmp_path, f"{s['id']}.hyp.ctm")
    code, err, out = score(tmp_path, capsys, samples, speaker_labels="external",
                           timestamp_source="forced_aligner", timestamp_max_input_s=300)
    assert code == 0, err
    doc = json.loads((out / "scenarios.json").read_text("utf-8"))
    support = doc["system_support"]
    assert (support["speaker_labels"], support["timestamp_source"],
            support["timestamp_max_input_s"]) == ("external", "forced_aligner", 300)
    stamps = doc["scenarios"]["meet"]["timestamps"]
    assert stamps["out_of_official_input_range"] == 1
    assert stamps["runs_by_granularity"]["token"] == 1
    rows = {r["sample_id"]: r for r in map(
        json.loads, (out / "samples.jsonl").read_text("utf-8").splitlines())}
    assert rows["long"]["status"]["timestamps"].startswith(
        "out_of_official_input_range: the sample lasts 400 s, longer than the 300 s")
    assert rows["long"]["text"]["errors"] == 0 and rows["short"]["timestamps"] is not None
    md = (out / "scenarios.md").read_text("utf-8")
    assert ("### Diarization (main protocol: collar +-0.25 s, overlap included) [speaker "
            "labels: external diarizer, a track of its own, never ranked with joint "
            "systems]") in md
    assert "### Timestamps (main protocol: token-anchored turns) [timestamps: " \
        "supported_via_forced_aligner]" in md
    assert ("Samples longer than the timestamp provider's official input range (300 s) are "
            "out_of_official_input_range: 1 runs left out, not ranked.") in md


def test_speaker_labels_without_speaker_attribution_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    srt = tmp_path / "r1.hyp.srt"  # a transcript without speakers
    srt.write_text("1\n00:00:00,000 --> 00:00:02,000\nhello world\n\n", "utf-8")
    plain = sample(tmp_path, "r1", "hello world")
    plain["runs"][0]["transcript"] = srt.name
    code, err, out = score(tmp_path, capsys, [plain], speaker_labels="joint",
                           speaker_attribution=False)
    assert code == 2 and not out.exists()
    assert "declares speaker_labels: joint, but speaker_attribution: false" in err


def test_run_records_declarations_and_audit_in_identity_and_lineage(tmp_path: Path) -> None:
    # One run of the fake command system (run_fixtures) on a 1 s sample: the declared
    # keys are in the system's identity (run.json) and in the request configuration of
    # its raw and transcript lineage records; the sample's audit is in its input record.
    sf.write(str(tmp_path / "a.wav"), np.zeros(16_000), 16_000, subtype="PCM_16")
    manifest = write_manifest(tmp_path, "  - id: a\n    audio: a.wav\n"
                              "    license: CC-BY-4.0\n    reference_type: human\n")
    manifest.write_text(manifest.read_text().replace(
        "    version: fake 1.0\n", "    version: fake 1.0\n    speaker_labels: external\n"
        "    timestamp_source: forced_aligner\n    timestamp_max_input_s: 300\n"))
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out",
               tmp_path / "run") == 0
    declared = {"speaker_labels": "external", "timestamp_source": "forced_aligner",
                "timestamp_max_input_s": 300}
    run = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))
    assert declared.items() <= run["systems"]["fake"]["identity"].items()
    records = {r["kind"]: r for r in map(json.loads, (
        tmp_path / "run" / "lineage.jsonl").read_text("utf-8").splitlines())}
    assert records["input"]["audit"] == {"data_revision": None, "license": "CC-BY-4.0",
                                         "reference_type": "human", "synthetic": None}
    for kind in ("raw", "transcript"):
        assert declared.items() <= records[kind]["request_config"]["system"].items()


def test_undeclared_keys_leave_identity_and_config_as_they_were(tmp_path: Path) -> None:
    from speecheval.transcripts.run.manifest import load_run_manifest
    from speecheval.transcripts.run.systems.command import Command

    (tmp_path / "a.wav").write_bytes(b"")  # only its existence is checked here
    manifest = load_run_manifest(write_manifest(tmp_path, "  - id: a\n    audio: a.wav\n"))
    plain = Command("fake", manifest.systems["fake"], tmp_path)  # type: ignore[arg-type]
    assert not {"speaker_labels", "timestamp_source", "timestamp_max_input_s",
                "audit"} & (set(plain.identity()) | set(plain.config()))


def test_a_judgement_on_an_all_synthetic_scenario_is_judged_on_its_group(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # meet holds only s1 (synthetic): scored as 'meet (synthetic)', one sample
    # (pipeline_smoke); a ranking claim about meet is judged there, and refused (exit 2).
    samples = audited_samples(tmp_path)[2:]
    code, err, out = score(tmp_path, capsys, samples, judgements=[
        {"text": "s is better than the last vendor on meetings", "scenario": "meet"}])
    assert code == 2 and not out.exists()
    assert "scenario meet (synthetic) is pipeline_smoke" in err, err
