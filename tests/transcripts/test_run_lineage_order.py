"""The order and content of a ``transcripts run`` lineage, pinned for a small deterministic
run of the command adapter: every input, then the raw folders in job order (sample, then
system, then track, then repeat; samples in manifest order, systems in --system order),
then the transcripts in the same order; the same bytes with --jobs 1 and --jobs 2."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from run_fixtures import blocks_audio, cli, write_manifest

OTHER = f"""  other:
    adapter: command
    command: [{sys.executable}, fake_system.py, "{{input}}", "{{output}}", "{{seed}}", "{{sample}}"]
    output_suffix: .stm
    version: other 1.0
"""
# manifest order "zulu" before "alpha": not sorted by name
SAMPLES = ("  - id: zulu\n    audio: blocks.wav\n"
           "  - id: alpha\n    audio: blocks.wav\n")
TRACK = "production_complete_file"
TRANSCRIPT = "transcript@seglst-1.json"


def _pinned() -> list[tuple[str, str, str | None, str, str | None, int | None]]:
    """(id, kind, parent, path, normalizer_version, seed) of every record, in order."""
    rows: list[tuple[str, str, str | None, str, str | None, int | None]] = [
        ("input:zulu", "input", None, "input/zulu.wav", None, None),
        ("input:alpha", "input", None, "input/alpha.wav", None, None)]
    jobs = [(sample, system) for sample in ("zulu", "alpha") for system in ("other", "fake")]
    for sample, system in jobs:
        key = f"{system}/{TRACK}/{sample}/r1"
        rows.append((f"raw:{key}", "raw", f"input:{sample}", f"raw/{key}", None, 0))
    for sample, system in jobs:
        key = f"{system}/{TRACK}/{sample}/r1"
        rows.append((f"transcript:{key}@seglst/1", "transcript", f"raw:{key}",
                     f"derived/{key}/{TRANSCRIPT}", "seglst/1", 0))
    return rows


def test_lineage_order_and_content_are_pinned_across_jobs(tmp_path: Path) -> None:
    blocks_audio(tmp_path / "blocks.wav", rate=16_000)
    manifest = write_manifest(tmp_path, SAMPLES, OTHER)
    for jobs in ("1", "2"):
        # --system order "other", "fake"; the manifest declares fake first
        assert cli("run", "--manifest", manifest, "--system", "other", "--system", "fake",
                   "--jobs", jobs, "--out", tmp_path / f"run{jobs}") == 0
    one = (tmp_path / "run1" / "lineage.jsonl").read_bytes()
    assert one == (tmp_path / "run2" / "lineage.jsonl").read_bytes()
    records = [json.loads(line) for line in one.decode().splitlines()]
    assert [(r["id"], r["kind"], r["parent"], r["path"], r["normalizer_version"],
             (r["request_config"] or {}).get("seed")) for r in records] == _pinned()
    by_id = {r["id"]: r for r in records}
    for record in records:
        assert record["scorer_version"] is None
        if record["kind"] == "input":
            # the 16 kHz mono PCM every system got, named by its own SHA-256
            assert record["sha256"] == record["input_sha256"]
            continue
        parent = by_id[record["parent"]]
        # each record inherits the input audio and, past the raw, its raw answer
        assert record["input_sha256"] == parent["input_sha256"]
        system = record["id"].split(":", 1)[1].split("/", 1)[0]
        assert record["model_revision"]["version"] == f"{system} 1.0"
        assert record["request_config"]["track"] == TRACK
        if record["kind"] == "raw":
            assert record["raw_sha256"] == record["sha256"] and record["status"] == "succeeded"
        else:
            assert record["raw_sha256"] == parent["sha256"]
            text = (tmp_path / "run1" / record["path"]).read_bytes()
            assert record["sha256"] == hashlib.sha256(text).hexdigest()
    # both samples are the same audio: one PCM, one input SHA-256
    assert by_id["input:zulu"]["sha256"] == by_id["input:alpha"]["sha256"]
