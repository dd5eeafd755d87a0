"""UTMOS scores a lab computed itself, read from a file, to fill the paper's MOS column.

The paper's MOS is UTMOSv2, whose weights cannot be had offline, so speecheval measures
DNSMOS in its place and says so. A lab that runs UTMOSv2 (or another UTMOS) on the same
parts gives the scores as JSON Lines, one object per line:
``{"sample_id": "user_interruption/3", "part": "pre", "utmos": 3.21}`` with ``part`` one
of ``pre``, ``post``, ``clean`` (the parts of ``prosody-samples.jsonl``). They become the
``utmos`` measure and its paired tests; a part the file does not hold is missing with
that reason. A malformed file is one error naming the file, the line and the problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ....core.hashing import sha256_file
from .paired_tests import Measured

PARTS = ("pre", "post", "clean")
KEYS = {"sample_id", "part", "utmos"}

Scores = dict[tuple[str, str], float]


def read_utmos(path: Path) -> Scores:
    """``(sample_id, part) -> score`` from ``path``; InputError on any bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the UTMOS file ({exc})") from None
    scores: Scores = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict) or set(row) != KEYS:
            raise InputError(f"{where}: want exactly the keys sample_id, part, utmos")
        sample_id, part, value = row["sample_id"], row["part"], row["utmos"]
        if not isinstance(sample_id, str):
            raise InputError(f"{where}: sample_id must be text, got {sample_id!r}")
        if part not in PARTS:
            raise InputError(f"{where}: part must be one of {', '.join(PARTS)}, got {part!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                value):
            raise InputError(f"{where}: utmos must be a finite number, got {value!r}")
        if (sample_id, part) in scores:
            raise InputError(f"{where}: a second score for {sample_id} {part}")
        scores[sample_id, part] = float(value)
    return scores


@dataclass(frozen=True)
class UtmosFile:
    """A read UTMOS file: where it came from and its scores."""

    path: Path
    scores: Scores

    @classmethod
    def load(cls, path: Path) -> UtmosFile:
        """Read and check ``path`` (before any work, so a bad file costs nothing)."""
        return cls(path, read_utmos(path))

    def measure(self, sample_id: str, part: str) -> Measured:
        """The score of one part, or missing with the reason."""
        value = self.scores.get((sample_id, part))
        return Measured(None, "not in the UTMOS file") if value is None else Measured(value)

    def identity(self) -> dict[str, Any]:
        return {"source": "the user's file", "file": self.path.name,
                "sha256": sha256_file(self.path), "scores": len(self.scores)}
