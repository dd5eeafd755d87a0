"""What the public API tests share: a result's file shape compared with what a command
wrote, number by number (the writers round floats to 9 decimal places), and the
modules a fresh interpreter holds after importing a public module."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("numpy", "scipy", "pydantic", "onnxruntime", "jinja2", "torch", "yaml")
"""Imported only when a function of a public module is called."""


def differences(ours: Any, written: Any, where: str = "") -> list[str]:
    """Where ``ours`` (a ``report_dict()``) and ``written`` (the parsed file) differ:
    the same keys, lengths and texts, and numbers equal to 9 decimal places."""
    if isinstance(ours, dict) and isinstance(written, dict):
        if sorted(ours) != sorted(written):
            return [f"{where}: keys {sorted(ours)} != {sorted(written)}"]
        return [d for key in ours for d in differences(ours[key], written[key], f"{where}.{key}")]
    if isinstance(ours, list | tuple) and isinstance(written, list):
        if len(ours) != len(written):
            return [f"{where}: {len(ours)} items != {len(written)}"]
        return [d for i, (a, b) in enumerate(zip(ours, written, strict=True))
                for d in differences(a, b, f"{where}[{i}]")]
    if (isinstance(ours, float | int) and isinstance(written, float | int)
            and not isinstance(ours, bool) and not isinstance(written, bool)):
        same = math.isclose(ours, written, rel_tol=1e-12, abs_tol=5.1e-10) or (
            math.isnan(ours) and math.isnan(written))
        return [] if same else [f"{where}: {ours!r} != {written!r}"]
    return [] if ours == written else [f"{where}: {ours!r} != {written!r}"]


def json_lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def modules_after_import(module: str) -> set[str]:
    """The modules a new interpreter holds after ``import module`` of this checkout."""
    code = f"import json, sys\nimport {module}\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)
