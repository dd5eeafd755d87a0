"""Helpers shared by the session tests: scenario files and the voicebench examples."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest


def write_scenario(directory: Path, body: str, name: str = "scenario.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(body).lstrip(), encoding="utf-8")
    return path


def voicebench_examples() -> Path:
    """The example scenarios shipped inside the voicebench 0.2.0 wheel (test-only dep)."""
    voicebench = pytest.importorskip("voicebench")
    folder = Path(voicebench.__file__).parent / "examples"
    if not folder.is_dir():
        pytest.skip("voicebench is installed without its examples")
    return folder


def require_espeak() -> None:
    """Skip a test whose scenario speaks with espeak-ng when it is not installed."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
