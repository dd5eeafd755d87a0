"""Every number speecheval reports on the bundled inputs, gathered into one pinned record.

Why: the shared-layer refactor (issue 9) must not change a metric value, a per-sample row
or a report number. This module runs each family's command as a user does (in-process,
through ``speecheval.cli.main``) on the demo tree, the example scenarios, the example
transcripts manifest and seeded random diarization pairs like the benchmarks', and keeps
what they report with the provenance records removed (those may change shape once).

``python tests/golden/pins.py`` rewrites ``pins.json``; do that only for a deliberate,
reviewed change of a number, and say which in the commit message.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
PINS = Path(__file__).with_name("pins.json")
sys.path.insert(0, str(REPO / "tests" / "transcripts"))

from random_rttm import random_speaker_lines  # noqa: E402

from speecheval.cli import main  # noqa: E402

# Keys that describe where a number came from rather than the number itself.
PROVENANCE_KEYS = frozenset({
    "speecheval_version", "versions", "vad", "inputs", "inputs_sha256", "manifest_sha256",
    "sha256", "file", "agent", "manifest", "manifest_format", "audio_files", "provenance",
})


def strip_provenance(value: Any) -> Any:
    """``value`` with every provenance key removed at any depth."""
    if isinstance(value, dict):
        return {k: strip_provenance(v) for k, v in value.items() if k not in PROVENANCE_KEYS}
    if isinstance(value, list):
        return [strip_provenance(v) for v in value]
    return value


def run_cli(args: list[str]) -> tuple[int, str]:
    """Exit code and standard output of ``speecheval ARGS``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    return code, out.getvalue()


def read_jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def fdb10_demo(work: Path) -> dict[str, Any]:
    tree, unified = work / "tree", work / "unified"
    assert run_cli(["fdb10", "build-tree", "--out", str(tree)])[0] == 0
    assert run_cli(["fdb10", "unified-score", "--tree", str(tree), "--out", str(unified)])[0] == 0
    return {
        "unified": strip_provenance(json.loads((unified / "unified.json").read_text())),
        "samples": read_jsonl(unified / "unified-samples.jsonl"),
    }


def session_example(work: Path, scenario: str) -> dict[str, Any]:
    out = work / scenario
    code, _ = run_cli(["session", "run", str(REPO / "examples" / "scenarios" / scenario),
                       "--out", str(out)])
    events = sorted((out / "sessions").glob("*/events.jsonl"))
    return {
        "exit_code": code,
        "report": strip_provenance(json.loads((out / "report.json").read_text())),
        "events": [read_jsonl(path) for path in events],
    }


def transcripts_example(work: Path) -> dict[str, Any]:
    out = work / "asr"
    code, _ = run_cli(["transcripts", "score", "--manifest",
                       str(REPO / "examples" / "transcripts" / "manifest.yaml"),
                       "--out", str(out)])
    pinned: dict[str, Any] = {"exit_code": code}
    for path in sorted(out.iterdir()):
        if path.name == "run.json" or path.suffix in {".html", ".csv"}:
            continue  # a .csv is its .jsonl's rows again (tests/core/test_csv_rows.py)
        if path.suffix == ".json":
            pinned[path.name] = strip_provenance(json.loads(path.read_text()))
        elif path.suffix == ".jsonl":
            pinned[path.name] = read_jsonl(path)
        else:
            pinned[path.name] = path.read_text(encoding="utf-8")
    return pinned


def diarization_pairs(work: Path) -> list[Any]:
    """``der --json`` on seeded random pairs, plain and with self-overlapping turns."""
    results = []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        ref, hyp = work / f"ref{seed}.rttm", work / f"hyp{seed}.rttm"
        ref.write_text("\n".join(random_speaker_lines(rng, "f", "r", self_overlap=seed >= 2)))
        hyp.write_text("\n".join(random_speaker_lines(rng, "f", "h")))
        for extra in ([], ["--collar", "0"], ["--exclude-overlap"]):
            code, text = run_cli(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                                  "--json", *extra])
            results.append({"seed": seed, "options": extra, "exit_code": code,
                            "result": strip_provenance(json.loads(text))})
    return results


def collect(work: Path) -> dict[str, Any]:
    """The pinned record, computed afresh under the empty folder ``work``."""
    return {
        "fdb10_demo": fdb10_demo(work / "fdb10"),
        "session_booking": session_example(work / "session", "booking.yaml"),
        "session_fixed_timing": session_example(work / "session", "fixed-timing.yaml"),
        "transcripts_example": transcripts_example(work / "transcripts"),
        "der_random": diarization_pairs(work),
    }


def canonical(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        PINS.write_text(canonical(collect(Path(tmp))), encoding="utf-8")
    print(f"wrote {PINS}")
