"""Gate one saved raw output: read it, check it, and record what was checked.

The record names every input by SHA-256 (raw, meta) and carries the gate and rules
versions, so a verdict can be traced to the bytes it was decided from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from .inputs import read_meta
from .reading import Format, read_raw
from .rules import GateRules
from .verdict import GATE_VERSION, SampleFacts, gate


def gate_file(raw_path: Path, fmt: Format, sample: SampleFacts, meta_path: Path | None,
              rules: GateRules, shown_as: str | None = None) -> dict[str, Any]:
    """The verdict record of ``raw_path`` (named ``shown_as`` in the record)."""
    try:
        data = raw_path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the raw output: {exc.strerror}", path=raw_path) from None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    meta = read_meta(meta_path) if meta_path is not None else None
    verdict = gate(read_raw(text, fmt), sample, meta, rules)
    return {
        "kind": "transcripts.gate_verdict", "gate_version": GATE_VERSION,
        "rules": rules.identity(),
        "raw": {"path": shown_as or str(raw_path), "sha256": sha256_bytes(data),
                "bytes": len(data), "format": fmt, "undecodable_utf8": _undecodable(data)},
        "meta": None if meta_path is None else {"path": str(meta_path),
                                                "sha256": sha256_file(meta_path)},
        **verdict.to_dict(),
    }


def _undecodable(data: bytes) -> int:
    """How many places are not UTF-8 (a character cut in half at the end shows up here);
    they are read as U+FFFD so the rest of the raw is still gated."""
    return data.decode("utf-8", "replace").count("\ufffd") - data.decode(
        "utf-8", "ignore").count("\ufffd")
