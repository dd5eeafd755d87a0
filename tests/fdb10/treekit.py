"""Write small FDB v1.0 reference trees by hand for tests.

Each test states its samples' words and annotations literally, so the expected metrics
can be worked out by hand from what is written here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from speecheval.core.audio import write_wav
from speecheval.core.hashing import sha256_file
from speecheval.fdb.common.tree import ANNOTATION_FILES, DECLARED_SIZES, SUBSET_TASKS


@dataclass
class Spec:
    """One sample: words as (text, start, end-or-None); annotation as the official JSON."""

    subset: str
    name: str
    duration_s: float
    words: list[tuple[str, float, float | None]] = field(default_factory=list)
    annotation: Any = None
    eligible: bool = True
    reasons: list[str] = field(default_factory=list)
    rate: int = 16000
    audio: np.ndarray | None = None

    @property
    def sample_id(self) -> str:
        return f"{self.subset}/{self.name}"


def pauses(*spans: tuple[float, float]) -> list[dict[str, Any]]:
    return [{"text": "[PAUSE]", "timestamp": [a, b]} for a, b in spans]


def turn(e: float, e2: float | None = None) -> list[dict[str, Any]]:
    return [{"text": "[TURN-TAKING]", "timestamp": [e, e if e2 is None else e2]}]


def interrupt(s: float, r: float) -> list[dict[str, Any]]:
    return [{"context": "c", "interrupt": "i", "timestamp": [s, r]}]


def write_tree(root: Path, specs: list[Spec], *, with_asr: bool = True) -> Path:
    """Write the samples, manifest.json and asr.json; return the tree path."""
    root.mkdir(parents=True, exist_ok=True)
    samples, transcripts = [], {}
    for spec in specs:
        directory = root / spec.sample_id
        directory.mkdir(parents=True)
        samples_n = round(spec.duration_s * spec.rate)
        audio = spec.audio if spec.audio is not None else np.zeros(samples_n, np.int16)
        write_wav(directory / "output.wav", audio, spec.rate)
        chunks = [{"text": t, "timestamp": [s, e]} for t, s, e in spec.words]
        (directory / "output.json").write_text(json.dumps(
            {"text": " ".join(t for t, _, _ in spec.words), "chunks": chunks}))
        files = {"output.wav": sha256_file(directory / "output.wav")}
        task = SUBSET_TASKS[spec.subset]
        annotation_name = ANNOTATION_FILES[task]
        if annotation_name is not None and spec.annotation is not None:
            (directory / annotation_name).write_text(json.dumps(spec.annotation))
            files[annotation_name] = sha256_file(directory / annotation_name)
        transcripts[spec.sample_id] = sha256_file(directory / "output.json")
        samples.append({"sample_id": spec.sample_id, "subset": spec.subset, "task": task,
                        "input_duration_s": spec.duration_s, "eligible": spec.eligible,
                        "reasons": spec.reasons, "files": files})
    manifest = {"kind": "fdb-v1.0-reference-tree", "schema_version": 1,
                "dataset": {"revision": "test", "declared": DECLARED_SIZES}, "samples": samples}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
    if with_asr:
        asr = {"kind": "fdb-v1.0-reference-asr", "schema_version": 1,
               "asr": {"name": "hand-written"}, "transcripts": transcripts}
        (root / "asr.json").write_text(json.dumps(asr, indent=1))
    return root
