"""The JSON report: a versioned schema that scripts and CI can rely on.

``schema`` names the document type and ``schema_version`` changes whenever a key is
renamed, removed or changes meaning (adding a key keeps the version). Nothing in it
depends on the wall clock, so the same inputs give the same bytes.

Version 2: ``provenance`` (the one record of :mod:`speecheval.core.provenance`: package
versions, Silero model hashes, the scenario and turn audio hashes, the settings and the
command line) replaces ``versions`` and the scenario's ``sha256`` and ``audio_files``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ...core.provenance import Provenance, collect_provenance
from ...vad.silero_spec import PROVENANCE_PACKAGES
from ..metrics.evaluate import RunResult
from ..scenario.detectors import whole_track_vad
from ..scenario.model import Scenario, TrackVad
from .recording_io import session_dir

SCHEMA = "speecheval.session.report"
SCHEMA_VERSION = 2
# Distributions that can change a session's numbers or its wire traffic.
PACKAGES = ("pyyaml", "websockets")


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
        "sample_rate": scenario.sample_rate,
        "frame_ms": scenario.frame_ms,
        "tail_ms": scenario.tail_ms,
        "max_duration_ms": scenario.max_duration_ms,
        "turns": len(scenario.turns),
        "vad": {"user": _vad(scenario.user_vad), "agent": _vad(scenario.agent_vad)},
        "assert": scenario.assertions,
        **({"conditions": _conditions(scenario)} if scenario.conditions.any else {}),
    }


def _conditions(scenario: Scenario) -> dict[str, Any]:
    """The declared conditions as plain data (only the parts the scenario sets)."""
    parts = {name: getattr(scenario.conditions, name)
             for name in ("echo", "noise", "codec", "network")}
    return {name: asdict(part) for name, part in parts.items() if part is not None}


def provenance(result: RunResult, command: Sequence[str]) -> Provenance:
    """What produced the run: the scenario and its turn audio, the detectors, the agent
    and its options (credentials removed), and ``command`` (passed without secrets)."""
    scenario = result.scenario
    inputs: dict[str, str | Path] = {"scenario": scenario.path}
    inputs.update({f"audio/{turn.id}": turn.audio.file for turn in scenario.turns
                   if turn.audio.file is not None})
    detectors = {track: whole_track_vad(vad).identity()
                 for track, vad in (("user", scenario.user_vad), ("agent", scenario.agent_vad))}
    silero = any(vad.engine == "silero" for vad in (scenario.user_vad, scenario.agent_vad))
    settings: dict[str, Any] = {"agent": result.agent, "options": result.options,
                                "clock": result.clock, "sessions": len(result.sessions),
                                "vad": detectors}
    if result.limits is not None:  # what a real-clock session kept of its agent at most
        settings.update(asdict(result.limits))
    if result.agent_asr is not None:  # what heard the agent's replies (or the judge's call)
        settings["agent_asr"] = result.agent_asr
    if scenario.judge is not None:  # the judge's model, endpoint and key variable (no key)
        settings["judge"] = asdict(scenario.judge)
    record = collect_provenance(
        command=command, inputs=inputs,
        settings=settings,
        packages=PACKAGES + (PROVENANCE_PACKAGES if silero else ()))
    # Silero's identity names its model file with its hash; the record keeps it
    models = {str(identity["model_file"]): str(identity["model_sha256"])
              for identity in detectors.values() if "model_file" in identity}
    return replace(record, models=dict(sorted(models.items())))


def build_report(result: RunResult, record: Provenance) -> dict[str, Any]:
    """The report as plain JSON-ready data; ``record`` is the run's provenance
    (:func:`provenance`)."""
    sessions = []
    for index, (metrics, passed) in enumerate(zip(result.sessions, result.session_passed,
                                                  strict=True)):
        sessions.append({"index": index + 1, "dir": session_dir(index), "passed": passed,
                         **metrics.report_dict()})
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "provenance": record.to_dict(),
        "scenario": _scenario(result.scenario),
        "agent": {"name": result.agent, "options": result.options},
        "clock": result.clock,
        "summary": result.summary.report_dict(),
        "assertions": [a.report_dict() for a in result.assertions],
        "passed": result.passed,
        "sessions": sessions,
    }
