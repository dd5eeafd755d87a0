"""Results brought in with ``transcripts import`` are scored by ``transcripts score`` like
a run's own transcripts, their trust facts shown in the row; an incompatible import is
refused in the main protocol (diagnostic track only), and so is a transcript whose bytes
are not the recorded artefact's."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from run_fixtures import cli, fake_run

from speecheval.cli import main

KEY = "fake/production_complete_file/blocks/r1"
TRANSCRIPT = "transcript@seglst-1.json"


def score_manifest(folder: Path, transcripts: list[str]) -> Path:
    """Score manifest in ``folder``: sample ``blocks`` whose reference is what the fake
    system says (seed 0; 70 s at 16 kHz = 1 120 000 samples), one run per transcript."""
    (folder / "ref.stm").write_text("blocks 1 A 0.5 1.0 seed 0 samples 1120000\n", "utf-8")
    path = folder / "score.yaml"
    path.write_text(yaml.safe_dump({
        "format": "speecheval.transcripts.manifest/1", "system": "fake",
        "required_repeats": len(transcripts),
        "scenarios": {"meet": {"unit": "word"}},
        "samples": [{"id": "blocks", "scenario": "meet", "duration_s": 70.0, "source": "x",
                     "reference": {"transcript": "ref.stm"},
                     "runs": [{"repeat": k, "transcript": t}
                              for k, t in enumerate(transcripts, start=1)]}]}),
        encoding="utf-8")
    return path


def score(manifest: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    out = manifest.parent / "scored"
    capsys.readouterr()
    code = main(["transcripts", "score", "--manifest", str(manifest), "--out", str(out)])
    return code, capsys.readouterr().err, out


def test_an_import_is_scored_like_the_runs_own(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # same PCM, another system version: compatible, identity recorded (not exact)
    older = fake_run(tmp_path / "a", version="fake 0.9")
    current = fake_run(tmp_path / "b")
    digest = hashlib.sha256((older / "run.json").read_bytes()).hexdigest()[:12]
    assert cli("import", current, older) == 0
    imported = current / "imported" / digest / "derived" / KEY / TRANSCRIPT
    own = current / "derived" / KEY / TRANSCRIPT
    # derived from the copied raw by the same rule as the run's own: the same SegLST
    assert imported.read_bytes() == own.read_bytes()
    record = [json.loads(line) for line in
              (current / "lineage.jsonl").read_text().splitlines()][-1]
    assert (record["id"], record["kind"], record["parent"], record["normalizer_version"]) == (
        f"transcript:imported:{digest}/{KEY}@seglst/1", "imported_transcript",
        f"imported:{digest}/{KEY}", "seglst/1")

    manifest = score_manifest(tmp_path, [str(own.relative_to(tmp_path)),
                                         str(imported.relative_to(tmp_path))])
    code, err, out = score(manifest, capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    # 4 reference words, all matched in both runs: WER 0 / 4
    assert [(r["text"]["errors"], r["text"]["length"]) for r in rows] == [(0, 4)] * 2
    assert rows[0]["lineage"] == {"run": "b/run", "artefact": f"transcript:{KEY}@seglst/1",
                                  "imported": False}
    assert rows[1]["lineage"] == {
        "run": "b/run", "artefact": f"transcript:imported:{digest}/{KEY}@seglst/1",
        "imported": True, "exact_input_match": True, "protocol_compatibility": "compatible",
        "incompatibilities": [], "identity_confidence": "recorded",
        "track_use": "production_complete_file"}
    hypotheses = json.loads((out / "scenarios.json").read_text())["wording"]["hypotheses"]
    assert hypotheses[0] == (f"blocks repeat 2: imported (transcript:imported:{digest}/{KEY}"
                             "@seglst/1) with identity recorded: that it is fake's output as "
                             "configured now is not verified")

    md = (out / "scenarios.md").read_text()
    facts = md.split("## Judgements")[0]
    assert "### Transcripts of runs (lineage)" in facts
    assert (f"| blocks | 2 | b/run | transcript:imported:{digest}/{KEY}@seglst/1 | yes | true "
            "| compatible | recorded | production_complete_file |") in facts
    assert f"| blocks | 1 | b/run | transcript:{KEY}@seglst/1 | no | n/a | n/a | n/a | n/a |" \
        in facts

    # importing again derives and appends nothing
    before = (current / "lineage.jsonl").read_bytes()
    assert cli("import", current, older) == 0
    assert (current / "lineage.jsonl").read_bytes() == before


def test_an_incompatible_import_is_refused_by_score(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    older = fake_run(tmp_path / "a", rate=22_050)  # other PCM: incompatible
    current = fake_run(tmp_path / "b")
    digest = hashlib.sha256((older / "run.json").read_bytes()).hexdigest()[:12]
    assert cli("import", current, older) == 0
    imported = current / "imported" / digest / "derived" / KEY / TRANSCRIPT
    manifest = score_manifest(tmp_path, [str(imported.relative_to(tmp_path))])
    code, err, out = score(manifest, capsys)
    assert code == 2 and not out.exists()
    assert err == (f"error: sample blocks: {manifest}: samples[0].runs[0].transcript: "
                   f"transcript:imported:{digest}/{KEY}@seglst/1 is an imported result "
                   "incompatible with its run (the input audio differs): for the diagnostic "
                   "track only, not the main protocol\n")


def test_a_changed_run_transcript_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    current = fake_run(tmp_path / "b")
    own = current / "derived" / KEY / TRANSCRIPT
    own.write_text(own.read_text().replace("seed 0", "seed 7"), encoding="utf-8")
    manifest = score_manifest(tmp_path, [str(own.relative_to(tmp_path))])
    code, err, out = score(manifest, capsys)
    assert code == 2 and not out.exists()
    assert f"is not the artefact transcript:{KEY}@seglst/1 any more" in err
