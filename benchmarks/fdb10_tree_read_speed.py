"""Does the plain reader of ``manifest.json`` and ``asr.json`` (``tree_fast``) still pay
against the schema path (``tree_schema``, pydantic), measured in the same run?

Writes a tree's two index files for the full v1.0 set (727 samples, every subset at its
declared size; only ``manifest.json`` and ``asr.json``, the files these readers read), then
reads them in a fresh interpreter each time, as a ``speecheval fdb10 unified-score`` run
does: once through ``tree_read.load_manifest`` and ``load_asr`` (the plain reader, which
imports no pydantic for a well-formed file), once through the schema alone
(``core.schema.load`` of ``ManifestFile`` and ``AsrFile``), alternating run for run.
Each process prints its own reading time (the imports of the reading included); the
whole process's wall and CPU seconds are printed beside it. Then the same two reads
inside this process with pydantic already imported, to show what is left once its
import is paid. The fast path stays only while the plain reader is the faster.

Usage: python benchmarks/fdb10_tree_read_speed.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import speecheval
from speecheval.fdb.common.tree import (
    ANNOTATION_FILES,
    ASR_KIND,
    DECLARED_SIZES,
    MANIFEST_KIND,
    OUTPUT_WAV,
    SUBSET_TASKS,
)

SRC = Path(speecheval.__file__).resolve().parents[1]

FAST = """
import sys, time
started = time.perf_counter()
from pathlib import Path
from speecheval.fdb.common.tree_read import load_asr, load_manifest
manifest, asr = load_manifest(Path(sys.argv[1])), load_asr(Path(sys.argv[1]))
elapsed = time.perf_counter() - started
assert 'pydantic' not in sys.modules
print(elapsed, len(manifest.samples), len(asr.transcripts))
"""

SCHEMA = """
import sys, time
started = time.perf_counter()
from pathlib import Path
from speecheval.core.schema import load
from speecheval.fdb.common.tree_schema import AsrFile, ManifestFile
tree = Path(sys.argv[1])
manifest = load(ManifestFile, tree / 'manifest.json', what='manifest.json',
                sample_key='sample_id')
asr = load(AsrFile, tree / 'asr.json', what='asr.json')
elapsed = time.perf_counter() - started
print(elapsed, len(manifest.samples), len(asr.transcripts))
"""


def write_tree(tree: Path) -> int:
    """``manifest.json`` and ``asr.json`` of every sample of the v1.0 set, as
    ``reference-export`` and ``reference-asr`` write them (the hashes are made up)."""
    samples, transcripts = [], {}
    for subset, size in DECLARED_SIZES.items():
        task = SUBSET_TASKS[subset]
        for index in range(size):
            sample_id = f"{subset}/{index}"
            files = {OUTPUT_WAV: f"{index:064x}"}
            annotation = ANNOTATION_FILES[task]
            if annotation is not None:
                files[annotation] = f"{index + 1:064x}"
            eligible = index % 17 != 0
            samples.append({
                "sample_id": sample_id, "subset": subset, "task": task,
                "input_duration_s": 12.5 + index % 20, "eligible": eligible,
                "reasons": [] if eligible else ["input_pacing"], "files": files,
                "capture": {"started_s": 0.0}, "playout": {"late_s": 0.0},
            })
            transcripts[sample_id] = f"{index + 2:064x}"
    tree.mkdir(parents=True)
    (tree / "manifest.json").write_text(json.dumps({
        "kind": MANIFEST_KIND, "schema_version": 1, "generator": {"name": "benchmark"},
        "dataset": {"revision": "r", "declared": DECLARED_SIZES}, "samples": samples,
    }, indent=2), encoding="utf-8")
    (tree / "asr.json").write_text(json.dumps({
        "kind": ASR_KIND, "schema_version": 1, "asr": {"model": "benchmark"},
        "transcripts": transcripts,
    }, indent=2), encoding="utf-8")
    return len(samples)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_process(program: str, tree: Path) -> tuple[float, float, float]:
    """The reading time the process measured, its wall and CPU seconds."""
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", program, str(tree)], check=True,
                          capture_output=True, text=True, env={"PYTHONPATH": str(SRC)})
    wall = time.perf_counter() - started
    return float(done.stdout.split()[0]), wall, children_cpu() - cpu


def in_process(tree: Path, repeats: int) -> tuple[float, float]:
    """Median seconds of one read of both files by each path, pydantic already imported."""
    from speecheval.core.schema import load
    from speecheval.fdb.common.tree_read import load_asr, load_manifest
    from speecheval.fdb.common.tree_schema import AsrFile, ManifestFile

    def fast() -> None:
        load_manifest(tree), load_asr(tree)

    def schema() -> None:
        load(ManifestFile, tree / "manifest.json", what="manifest.json",
             sample_key="sample_id")
        load(AsrFile, tree / "asr.json", what="asr.json")

    timings: dict[str, list[float]] = {"fast": [], "schema": []}
    for _ in range(repeats):
        for name, read in (("fast", fast), ("schema", schema)):
            started = time.perf_counter()
            read()
            timings[name].append(time.perf_counter() - started)
    return float(np.median(timings["fast"])), float(np.median(timings["schema"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fdb10-tree-read-") as folder:
        tree = Path(folder) / "tree"
        count = write_tree(tree)
        print(f"manifest.json of {count} samples "
              f"({(tree / 'manifest.json').stat().st_size / 1024:.0f} KiB), asr.json of "
              f"{count} transcripts; {args.repeats} fresh processes per path, alternating")
        runs: dict[str, list[tuple[float, float, float]]] = {"plain reader (tree_fast)": [],
                                                             "schema (pydantic)": []}
        for _ in range(args.repeats):
            for name, program in zip(runs, (FAST, SCHEMA), strict=True):
                runs[name].append(one_process(program, tree))
        medians = {}
        for name, measured in runs.items():
            reading, wall, cpu = (float(np.median(column)) for column in zip(*measured,
                                                                             strict=True))
            medians[name] = reading
            print(f"  {name:25} reading {reading * 1000:6.1f} ms (imports included); "
                  f"process {wall * 1000:6.1f} ms wall, {cpu * 1000:6.1f} ms CPU (medians)")
        plain, schema = medians.values()
        print(f"  schema / plain reader, reading in a fresh process: {schema / plain:.1f}x")
        fast, checked = in_process(tree, args.repeats)
        print(f"in this process, pydantic already imported: plain reader "
              f"{fast * 1000:.1f} ms, schema {checked * 1000:.1f} ms per read of both files "
              f"({checked / fast:.1f}x)")
        print(f"the plain reader pays: {'yes' if plain < schema else 'NO'}")


if __name__ == "__main__":
    main()
