"""Maturity and system support through ``speecheval transcripts score``, on tiny manifests.

Every transcript here is written by the test; the expected levels follow from the
counts in the comments and the rules in ``speecheval.transcripts.maturity``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from speecheval.cli import main

SRT = "1\n00:00:00,000 --> 00:00:02,000\nhello world\n\n"


def write_pair(folder: Path, name: str) -> None:
    """Reference STM (speaker A) and two hypotheses: STM with a speaker, SRT without."""
    (folder / f"{name}.ref.stm").write_text(f"{name} 1 A 0.0 2.0 hello world\n", "utf-8")
    (folder / f"{name}.hyp.stm").write_text(f"{name} 1 X 0.0 2.0 hello world\n", "utf-8")
    (folder / f"{name}.hyp.srt").write_text(SRT, "utf-8")


def sample(name: str, scenario: str, source: str, runs: list[dict[str, Any]]
           ) -> dict[str, Any]:
    return {"id": name, "scenario": scenario, "duration_s": 2.0, "source": source,
            "reference": {"transcript": f"{name}.ref.stm"}, "runs": runs}


def score(folder: Path, manifest: dict[str, Any], capsys: pytest.CaptureFixture[str]
          ) -> tuple[int, str, Path]:
    path = folder / "manifest.yaml"
    path.write_text(yaml.safe_dump({"format": "speecheval.transcripts.manifest/1",
                                    "system": "s", **manifest}), encoding="utf-8")
    out = folder / "out"
    code = main(["transcripts", "score", "--manifest", str(path), "--out", str(out)])
    return code, capsys.readouterr().err, out


def rows(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {(r["sample_id"], r["repeat"]): r for r in map(json.loads, lines)}


def three_runs(name: str) -> list[dict[str, Any]]:
    return [{"repeat": k, "transcript": f"{name}.hyp.stm"} for k in (1, 2, 3)]


def test_cross_scenario_macro_has_its_own_maturity(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # meet, pod and biz stand for the phase-one scenario set (meeting overlap, long
    # podcast, business meeting), which decision_grade needs covered.
    covers = {"meet": "meeting_overlap", "pod": "long_podcast", "biz": "business_meeting"}
    scenarios: dict[str, Any] = {
        name: {"unit": "word", "core": True, "reference_leak_free": True, "covers": set_name}
        for name, set_name in covers.items()}
    scenarios["side"] = {"unit": "mixed", "core": False, "reference_leak_free": True}
    samples = []
    for name in covers:
        for k in (1, 2, 3):
            write_pair(tmp_path, f"{name[0]}{k}")
            samples.append(sample(f"{name[0]}{k}", name, f"src{k}", three_runs(f"{name[0]}{k}")))
    write_pair(tmp_path, "side1")
    samples.append(sample("side1", "side", "src9", three_runs("side1")))
    code, err, out = score(tmp_path, {"scenarios": scenarios, "samples": samples}, capsys)
    assert code == 0, err
    doc = json.loads((out / "scenarios.json").read_text("utf-8"))
    # meet, pod, biz: 3 speech samples, 3 sources, leak-free each: qualified; the core
    # scenarios, covering the phase-one set, all 3 default repeats present: the run is
    # decision_grade.
    assert doc["required_repeats"] == 3
    assert doc["run_maturity"] == {"level": "decision_grade", "reasons": []}
    by_rate = doc["cross_scenario"]["by_rate"]
    assert by_rate["wer"]["maturity"]["level"] == "decision_grade"
    # The MER macro averages only 'side': one sample (pipeline_smoke), not core. Before,
    # it was printed with the run's decision_grade.
    assert by_rate["mer"]["maturity"] == {"level": "pipeline_smoke", "reasons": [
        "scenarios not all qualified: side (pipeline_smoke)", "side is not a core scenario"]}
    summary = (out / "summary.txt").read_text("utf-8")
    assert "over side; duration-weighted 0.00% (separate); maturity pipeline_smoke" in summary
    assert "over side; duration-weighted 0.00% (separate); maturity decision_grade" \
        not in summary


def test_one_required_repeat_blocks_decision_grade(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("m1", "m2", "m3"):
        write_pair(tmp_path, name)
    scenarios = {"meet": {"unit": "word", "reference_leak_free": True}}
    samples = [sample(f"m{k}", "meet", f"src{k}",
                      [{"transcript": f"m{k}.hyp.stm"}]) for k in (1, 2, 3)]
    # Declared 1 repeat, every run present: qualified scenario, but fewer than the spec's 3.
    code, err, out = score(tmp_path, {"required_repeats": 1, "scenarios": scenarios,
                                      "samples": samples}, capsys)
    assert code == 0, err
    run = json.loads((out / "scenarios.json").read_text("utf-8"))["run_maturity"]
    assert run == {"level": "scenario_qualified", "reasons": [
        "phase-one scenario set podcast-meeting-v1 incomplete: no core scenario covers "
        "long_podcast, business_meeting, meeting_overlap",
        "required_repeats is 1, fewer than the 3 repeats per sample the spec prescribes"]}
    # Left at the default of 3, the same single runs are 3 x 2 = 6 missing runs.
    (tmp_path / "out2").mkdir()
    code, err, out = score(tmp_path / "out2", {"scenarios": scenarios, "samples": [
        {**s, "reference": {"transcript": str(tmp_path / s["reference"]["transcript"])},
         "runs": [{"transcript": str(tmp_path / s["runs"][0]["transcript"])}]}
        for s in samples]}, capsys)
    assert code == 0, err
    run = json.loads((out / "scenarios.json").read_text("utf-8"))["run_maturity"]
    assert run["reasons"][1:] == ["6 runs missing for 3 required repeats"]


def test_failed_runs_of_a_system_without_speakers_are_unsupported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a", "b"):
        write_pair(tmp_path, name)
    scenarios = {"meet": {"unit": "word"}}
    samples = [sample("a", "meet", "x", [{"transcript": "a.hyp.srt"}]),
               sample("b", "meet", "y", [{"repeat": 1, "failed": "oom"},
                                         {"repeat": 2, "failed": "timeout"}])]
    code, err, out = score(tmp_path, {"scenarios": scenarios, "samples": samples}, capsys)
    assert code == 0, err
    table = rows(out)
    # No successful run anywhere names a speaker (a's SRT has none), so b's failed runs
    # are unsupported for cp and DER (before: b had no successful run, so support was
    # assumed and both became 1.0).
    for repeat in (1, 2):
        failed = table[("b", repeat)]
        assert failed["cp"] is None and failed["diarization"] is None
        assert failed["status"]["cp"].startswith("unsupported")
        assert failed["status"]["diarization"].startswith("unsupported")
        assert failed["status"]["timestamps"].startswith("unsupported")
        # The text rate still counts the failure: 2 words deleted of 2.
        assert failed["text"]["wer"] == 1.0
    doc = json.loads((out / "scenarios.json").read_text("utf-8"))
    assert doc["system_support"]["speaker_attribution"] is False
    assert doc["scenarios"]["meet"]["cp"]["unsupported_runs"] == 3

    # Declared support: the failed runs are speaker-attribution failures, 2 of 2 words.
    (tmp_path / "declared").mkdir()
    manifest = {"speaker_attribution": True, "scenarios": scenarios, "samples": [
        {**s, "reference": {"transcript": str(tmp_path / s["reference"]["transcript"])},
         "runs": [{k: str(tmp_path / v) if k == "transcript" else v for k, v in r.items()}
                  for r in s["runs"]]} for s in samples]}
    code, err, out = score(tmp_path / "declared", manifest, capsys)
    assert code == 0, err
    assert rows(out)[("b", 1)]["cp"]["cpwer"] == 1.0


def test_declared_no_speakers_contradicted_by_a_run(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    write_pair(tmp_path, "a")
    code, err, out = score(tmp_path, {
        "speaker_attribution": False, "scenarios": {"meet": {"unit": "word"}},
        "samples": [sample("a", "meet", "x", [{"transcript": "a.hyp.stm"}])]}, capsys)
    assert code == 2 and not out.exists()
    assert "sample a" in err and "speaker_attribution: false" in err


def test_turns_past_the_audio_duration_are_counted(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # Reference turn A 0-2 and system turn X 0-2.5, audio duration 2.0 s: the system turn
    # runs 0.5 s past [0, 2] and is cut there; the status says so instead of staying silent.
    (tmp_path / "a.ref.stm").write_text("a 1 A 0.0 2.0 hello world\n", "utf-8")
    (tmp_path / "a.hyp.stm").write_text("a 1 X 0.0 2.5 hello world\n", "utf-8")
    code, err, out = score(tmp_path, {"scenarios": {"meet": {"unit": "word"}}, "samples": [
        sample("a", "meet", "x", [{"transcript": "a.hyp.stm"}])]}, capsys)
    assert code == 0, err
    row = rows(out)[("a", 1)]
    assert row["status"]["diarization_clipped"] == (
        "turns past duration_s 2 s cut there: system 1 (0.5 s)")
    # Inside [0, 2] the system matches: DER 0.
    assert row["diarization"]["der"] == 0.0
