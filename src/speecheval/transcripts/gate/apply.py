"""Gate saved raw output: read it, check it, and record what was checked.

The record names every input by SHA-256 (raw, meta) and carries the gate and rules
versions, so a verdict can be traced to the bytes it was decided from.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from .inputs import read_meta
from .reading import RawReading, read_raw
from .rules import GateRules
from .verdict import GATE_VERSION, SampleFacts, gate


def read_raw_file(raw_path: Path, fmt: str) -> tuple[RawReading, dict[str, Any]]:
    """The tolerant reading of one raw file and its description (SHA-256, bytes, format)."""
    try:
        data = raw_path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the raw output: {exc.strerror}", path=raw_path) from None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return read_raw(text, fmt), {"sha256": sha256_bytes(data), "bytes": len(data),
                                 "format": fmt, "undecodable_utf8": _undecodable(data)}


def verdict_record(reading: RawReading, raw: Mapping[str, Any], sample: SampleFacts,
                   meta: Mapping[str, Any] | None, meta_info: Mapping[str, Any] | None,
                   rules: GateRules) -> dict[str, Any]:
    """The verdict record of one reading (``raw`` and ``meta_info`` describe the files)."""
    return {"kind": "transcripts.gate_verdict", "gate_version": GATE_VERSION,
            "rules": rules.identity(), "raw": dict(raw),
            "meta": None if meta_info is None else dict(meta_info),
            **gate(reading, sample, meta, rules).report_dict()}


def gate_file(raw_path: Path, fmt: str, sample: SampleFacts, meta_path: Path | None,
              rules: GateRules) -> dict[str, Any]:
    """The verdict record of one raw file (and its ``meta.json``)."""
    reading, raw = read_raw_file(raw_path, fmt)
    meta = read_meta(meta_path) if meta_path is not None else None
    meta_info = None if meta_path is None else {"path": str(meta_path),
                                                "sha256": sha256_file(meta_path)}
    return verdict_record(reading, {"path": str(raw_path), **raw}, sample, meta, meta_info,
                          rules)


def _undecodable(data: bytes) -> int:
    """How many places are not UTF-8 (a character cut in half at the end shows up here);
    they are read as U+FFFD so the rest of the raw is still gated."""
    return data.decode("utf-8", "replace").count("\ufffd") - data.decode(
        "utf-8", "ignore").count("\ufffd")
