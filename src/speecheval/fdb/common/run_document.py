"""Reading a record run's ``run.json`` back, for ``--resume``.

A resumed run takes every setting from run.json, so a file cut by a full disk, edited
by hand or written by another tool must be refused before anything runs, with one line
naming the file and the first field that is wrong, not a JSONDecodeError or KeyError
from deep inside the resume. Only the fields a resume reads are checked; the rest of
the document is a record for people and is read by nothing here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ...core.errors import InputError

_MISSING = object()


def read_run_document(path: Path, kind: str) -> dict[str, Any]:
    """The run.json at ``path`` of ``kind``, with every field a resume reads checked."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"run.json is not UTF-8 text: {exc}", path=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"run.json is not JSON (cut or edited?): {exc}", path=path) from None
    if not isinstance(document, dict) or document.get("kind") != kind:
        raise InputError(f"run.json is not a {kind} document", path=path)
    _check(path, document)
    return document


def _check(path: Path, document: dict[str, Any]) -> None:
    text = (str,)
    optional_text = (str, type(None))
    _require(path, document, "agent.name", text)
    options = _require(path, document, "agent.options", (dict,))
    for key, value in options.items():
        if not isinstance(value, str):
            raise InputError(f"run.json: agent.options.{key} must be a string, got "
                             f"{_kind(value)}", path=path)
    _require(path, document, "server.revision", optional_text)
    _require(path, document, "server.model", optional_text)
    _require(path, document, "dataset.root", text)
    _require(path, document, "dataset.revision", text)
    _require(path, document, "dataset.label", optional_text)
    selection = _require(path, document, "selection", (list,))
    if not selection or not all(isinstance(item, str) for item in selection):
        raise InputError("run.json: selection must be a non-empty list of sample ids",
                         path=path)
    for name, low in (("packet_ms", 1), ("concurrency", 1)):
        value = _require(path, document, f"settings.{name}", (int,))
        if isinstance(value, bool) or value < low:
            raise InputError(f"run.json: settings.{name} must be an integer of at least "
                             f"{low}, got {value!r}", path=path)
    for name, positive in (("grace_s", False), ("timeout_s", True),
                           ("max_received_ratio", True), ("max_events_per_s", True)):
        value = _require(path, document, f"settings.{name}", (int, float),
                         optional=name in ("max_received_ratio", "max_events_per_s"))
        if value is not _MISSING and (isinstance(value, bool) or not math.isfinite(value)
                                      or value < 0 or (positive and value == 0)):
            raise InputError(f"run.json: settings.{name} must be a "
                             f"{'positive' if positive else 'non-negative'} number, got "
                             f"{value!r}", path=path)


def _require(path: Path, document: dict[str, Any], dotted: str, types: tuple[type, ...],
             optional: bool = False) -> Any:
    """The value at ``dotted`` (``a.b``), of one of ``types``; an InputError otherwise.

    ``optional``: a field older runs lack; its absence gives ``_MISSING``.
    """
    value: Any = document
    walked: list[str] = []
    for key in dotted.split("."):
        if not isinstance(value, dict):
            raise InputError(f"run.json: {'.'.join(walked)} must be an object, got "
                             f"{_kind(value)}", path=path)
        walked.append(key)
        if key not in value:
            if optional:
                return _MISSING
            raise InputError(f"run.json: {dotted} is missing", path=path)
        value = value[key]
    if not isinstance(value, types):
        raise InputError(f"run.json: {dotted} must be {' or '.join(map(_name, types))}, "
                         f"got {_kind(value)}", path=path)
    return value


def _name(kind: type) -> str:
    return {str: "a string", dict: "an object", list: "a list", int: "an integer",
            float: "a number", type(None): "null"}[kind]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return {str: "a string", dict: "an object", list: "a list", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)
