"""The JSON report: a versioned schema that scripts and CI can rely on.

``schema`` names the document type and ``schema_version`` changes whenever a key is
renamed, removed or changes meaning (adding a key keeps the version). Nothing in it
depends on the wall clock, so the same inputs give the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import __version__
from ..core.hashing import sha256_file
from .bench import RunResult
from .scenario import Scenario, TrackVad

SCHEMA = "speecheval.session.report"
SCHEMA_VERSION = 1


def session_dir(index: int) -> str:
    """Run-directory-relative folder of session ``index`` (0-based): sessions/001, ..."""
    return f"sessions/{index + 1:03d}"


def _vad(vad: TrackVad) -> dict[str, Any]:
    s = vad.settings
    return {"engine": vad.engine, "threshold_db": s.threshold_db,
            "hysteresis_db": s.hysteresis_db, "frame_ms": s.frame_ms,
            "min_speech_ms": s.min_speech_ms, "min_silence_ms": s.min_silence_ms}


def _scenario(scenario: Scenario) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "description": scenario.description,
        "file": scenario.path.name,
        "sha256": sha256_file(scenario.path),
        "audio_files": {turn.id: sha256_file(turn.audio.file) for turn in scenario.turns
                        if turn.audio.file is not None},
        "sample_rate": scenario.sample_rate,
        "frame_ms": scenario.frame_ms,
        "tail_ms": scenario.tail_ms,
        "max_duration_ms": scenario.max_duration_ms,
        "turns": len(scenario.turns),
        "vad": {"user": _vad(scenario.user_vad), "agent": _vad(scenario.agent_vad)},
        "assert": scenario.assertions,
    }


def build_report(result: RunResult) -> dict[str, Any]:
    """The report as plain JSON-ready data."""
    sessions = []
    for index, (metrics, passed) in enumerate(zip(result.sessions, result.session_passed,
                                                  strict=True)):
        sessions.append({"index": index + 1, "dir": session_dir(index), "passed": passed,
                         **metrics.to_dict()})
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "versions": {"speecheval": __version__, "numpy": np.__version__},
        "scenario": _scenario(result.scenario),
        "agent": {"name": result.agent, "options": result.options},
        "clock": result.clock,
        "summary": result.summary,
        "assertions": [a.to_dict() for a in result.assertions],
        "passed": result.passed,
        "sessions": sessions,
    }
