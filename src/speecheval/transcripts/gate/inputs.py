"""The gate's inputs from files: raw outputs, ``meta.json`` and the samples file.

The samples file carries what is frozen per sample before any system runs: the last-speech
boundary from an independent VAD pass (or a human tail listen), optionally the sample's
registered tolerance and its duration. JSON Lines, one object per sample::

    {"sample": "ep1", "last_speech_s": 2859.2, "boundary_source": "silero-vad 5.1 + listen",
     "tolerance_s": 2.0, "duration_s": 2861.5}

(a JSON array of such objects is read too). ``last_speech_s`` may be ``null`` when no
boundary was frozen: the verdict is then at best indeterminate.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..formats._io import read_text
from ..formats.registry import suffixes as registered_suffixes
from .reading import FORMATS

_SUFFIX_FORMATS = {".txt": "raw", ".srt": "srt", ".vtt": "vtt", ".json": "json"}


@dataclass(frozen=True)
class SampleBoundary:
    """One line of the samples file."""

    last_speech_s: float | None
    tolerance_s: float | None
    duration_s: float | None
    boundary_source: str | None


def format_for(path: Path, declared: str | None) -> str:
    """The raw format: as declared, else by the file's suffix (one the gate reads itself,
    or the suffix of another format the project reads, such as ``.stm``)."""
    if declared is not None:
        if declared not in FORMATS:
            raise InputError(f"unknown raw format {declared!r}; expected one of "
                             f"{', '.join(FORMATS)}", path=path)
        return declared
    suffix = path.suffix.lower()
    if suffix in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffix]
    if suffix in registered_suffixes():
        return suffix
    raise InputError(f"cannot tell the raw format from the suffix {suffix or '(none)'}; "
                     f"name it ({', '.join(FORMATS)})", path=path)


def read_meta(path: Path) -> dict[str, Any]:
    """A ``meta.json`` object (status, stop reason, token counts, generation config, EOS)."""
    try:
        data = json.loads(read_text(path, "meta"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} at line {exc.lineno}", path=path) from None
    if not isinstance(data, dict):
        raise InputError("meta must be a JSON object", path=path)
    return data


def read_samples(path: Path) -> dict[str, SampleBoundary]:
    """The samples file, by sample id; a bad line is an InputError naming it."""
    text = read_text(path, "samples")
    if text.lstrip().startswith("["):
        try:
            rows = list(enumerate(json.loads(text), start=1))
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg} at line {exc.lineno}", path=path) from None
        where = "entry"
    else:
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append((number, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise InputError(f"line {number}: not JSON: {exc.msg}", path=path) from None
        where = "line"
    samples: dict[str, SampleBoundary] = {}
    for number, row in rows:
        at = f"{where} {number}"
        if not isinstance(row, Mapping) or not isinstance(row.get("sample"), str):
            raise InputError(f"{at}: expected an object with a string \"sample\"", path=path)
        if row["sample"] in samples:
            raise InputError(f"{at}: sample {row['sample']!r} is listed twice", path=path)
        source = row.get("boundary_source")
        samples[row["sample"]] = SampleBoundary(
            _seconds(row, "last_speech_s", at, path), _seconds(row, "tolerance_s", at, path),
            _seconds(row, "duration_s", at, path), None if source is None else str(source))
    return samples


def _seconds(row: Mapping[str, Any], key: str, at: str, path: Path) -> float | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value) or value < 0:
        raise InputError(f"{at}: {key} must be a number of seconds >= 0, got {value!r}",
                         path=path)
    return float(value)
