"""``transcripts run --jobs N`` and ``--executor ray``: the system calls are spread over
worker processes or Ray tasks (one per system x track x sample x repeat), and the run
directory holds the same bytes as with one call at a time, apart from the measured wall
time, real-time factor and peak memory in each ``meta.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from run_fixtures import blocks_audio, calls, cli, write_manifest

SAMPLES = "  - id: blocks\n    audio: blocks.wav\n  - id: bad-one\n    audio: blocks.wav\n"
MEASURED = ("wall_s", "rtf", "peak_memory_bytes")
"""What a meta.json measures about the call rather than records of it."""


def _run(folder: Path, name: str, *options: str) -> Path:
    manifest = write_manifest(folder, SAMPLES)
    out = folder / name
    # 2 samples x 3 tracks x 2 repeats; bad-one fails (exit 3), recorded with its reason;
    # the fake system declares no native context: its native track is unsupported
    assert cli("run", "--manifest", manifest, "--system", "fake", "--repeats", "2",
               "--track", "production_complete_file", "--track", "native_whole_context",
               "--track", "production_complete_file/chunked", "--out", out, *options) == 3
    return out


def _contents(run: Path) -> dict[str, bytes | dict[str, object]]:
    """Every file of a run directory; a meta.json without what it measures."""
    found: dict[str, bytes | dict[str, object]] = {}
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        name = path.relative_to(run).as_posix()
        if path.name == "meta.json":
            meta = json.loads(path.read_text())
            found[name] = {k: v for k, v in meta.items() if k not in MEASURED}
        else:
            found[name] = path.read_bytes()
    return found


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    blocks_audio(tmp_path / "blocks.wav")
    return tmp_path


def test_two_jobs_write_what_one_writes(folder: Path) -> None:
    one, two = _run(folder, "one", "--jobs", "1"), _run(folder, "two", "--jobs", "2")
    # 12 jobs, 4 of them unsupported (native): the same calls in both runs
    made = calls(folder)
    assert len(made) % 2 == 0 and sorted(made[:len(made) // 2]) == sorted(
        made[len(made) // 2:])
    expected = _contents(one)
    metas = [v for n, v in expected.items() if n.endswith("meta.json")]
    assert len(metas) == 12
    assert sorted(str(m["status"]) for m in metas if isinstance(m, dict)) == (
        ["failed"] * 4 + ["succeeded"] * 4 + ["unsupported"] * 4)
    assert _contents(two) == expected
    lineage = [json.loads(line)["id"] for line in
               (two / "lineage.jsonl").read_text().splitlines()]
    # the records follow the job order, never the order the calls finished in
    assert lineage[:5] == ["input:blocks", "input:bad-one",
                           "raw:fake/production_complete_file/blocks/r1",
                           "raw:fake/production_complete_file/blocks/r2",
                           "raw:fake/native_whole_context/blocks/r1"]


def test_resume_with_jobs_finishes_what_is_missing(folder: Path) -> None:
    one = _run(folder, "one")
    partial = _run(folder, "partial", "--jobs", "2")
    removed = sorted(partial.glob("raw/fake/*/bad-one/r2/meta.json"))
    assert len(removed) == 3
    for meta in removed:
        shutil.rmtree(meta.parent)
    assert cli("run", "--resume", partial, "--jobs", "2") == 3
    assert _contents(partial) == _contents(one)


def test_the_same_run_on_ray(ray_cluster: str, folder: Path) -> None:
    one = _run(folder, "one", "--jobs", "2")
    on_ray = _run(folder, "ray", "--executor", "ray")
    assert _contents(on_ray) == _contents(one)
