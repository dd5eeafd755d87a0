"""The gate's verdict from its five statuses (spec: 门禁输出).

In this order, so the strongest evidence names the failure:

1. ``failed_truncated``: the raw tail is cut, the coverage failed, the raw is empty though
   the sample has speech, or the system stopped at its generation limit or aborted;
2. ``failed_repetition_or_timeline``: a severe repeat, an illegal or backwards timestamp, or
   a segment explosion;
3. ``indeterminate_missing_coverage_evidence``: no timestamps or segments, or no frozen
   last-speech boundary, so completeness cannot be shown (never inferred from how the text
   ends);
4. ``engineering_complete``: everything else. Speaker continuity never decides it: a
   structural anomaly is reported beside the verdict, and no verdict extends to "the
   speakers are stable over the whole recording".

What the runner said (``succeeded``, HTTP 2xx, ``completed``) is recorded and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import checks
from .reading import RawReading
from .rules import GateRules

GATE_VERSION = "transcripts-gate-1"
VERDICTS = ("engineering_complete", "failed_truncated", "failed_repetition_or_timeline",
            "indeterminate_missing_coverage_evidence")


@dataclass(frozen=True)
class SampleFacts:
    """What is frozen about the sample: its length and last-speech boundary."""

    duration_s: float
    last_speech_s: float | None
    tolerance_s: float | None = None
    """The sample's registered tolerance; ``None`` uses the rules' default."""
    boundary_source: str | None = None
    """Where the boundary comes from (an independent VAD pass, a human tail listen)."""


def boundary_problem(sample: SampleFacts, rules: GateRules) -> str | None:
    """Why the sample's frozen boundary cannot be right, or ``None``: a last speech later
    than the end of the audio (beyond the legality tolerance, as a timestamp) is bad
    input, not a shortfall of the system's output."""
    last = sample.last_speech_s
    if last is None or last <= sample.duration_s + rules.legal_tolerance_s:
        return None
    return (f"last_speech_s {last:g} s is past the end of the audio ({sample.duration_s:g} s; "
            f"legality tolerance {rules.legal_tolerance_s:g} s)")


@dataclass(frozen=True)
class GateVerdict:
    verdict: str
    reasons: tuple[str, ...]
    checks: Mapping[str, checks.Check] = field(default_factory=dict)

    def report_dict(self) -> dict[str, Any]:
        """The verdict entries of a verdict record: the verdict, its reasons, and each
        check's status beside its facts."""
        out: dict[str, Any] = {"verdict": self.verdict, "verdict_reasons": list(self.reasons)}
        for name, check in self.checks.items():
            out[f"{name}_status"] = check.status
            out[name] = check.facts
        return out


def gate(reading: RawReading, sample: SampleFacts, meta: Mapping[str, Any] | None,
         rules: GateRules) -> GateVerdict:
    """Run the five checks and decide the verdict."""
    tolerance = rules.tolerance_s if sample.tolerance_s is None else sample.tolerance_s
    cover = checks.coverage(reading, sample.duration_s, sample.last_speech_s, tolerance,
                            rules.legal_tolerance_s)
    cover.facts["boundary_source"] = sample.boundary_source
    stop = checks.termination(meta, cover.status == "passed")
    tail = checks.raw_tail(reading)
    timeline = checks.repeat_timeline(reading, sample.duration_s, rules)
    speakers = checks.speaker_continuity(reading, sample.duration_s, rules)
    truncated = []
    if tail.status == "truncated":
        truncated.append(f"the raw output ends in {tail.facts['reason']}")
    if cover.status == "failed":
        truncated.append(_shortfall(cover.facts))
    if tail.status == "empty" and (sample.last_speech_s or 0.0) > tolerance:
        truncated.append(f"the raw output is empty but the sample has speech until "
                         f"{sample.last_speech_s} s")
    if stop.status == "hit_generation_limit":
        truncated.append("generation stopped at its limit")
    if stop.status == "aborted":
        truncated.append(f"generation aborted ({stop.facts['stop_reason']})")
    if truncated:
        verdict, reasons = "failed_truncated", truncated
    elif timeline.status == "failed":
        verdict, reasons = "failed_repetition_or_timeline", _timeline_reasons(timeline.facts)
    elif cover.status in ("unsupported", "missing_evidence"):
        verdict, reasons = ("indeterminate_missing_coverage_evidence",
                            [str(cover.facts["reason"])])
    else:
        verdict, reasons = "engineering_complete", []
    return GateVerdict(verdict, tuple(reasons), {
        "transcript_coverage": cover, "generation_termination": stop, "raw_tail": tail,
        "repeat_timeline": timeline, "speaker_continuity": speakers})


def _shortfall(facts: Mapping[str, Any]) -> str:
    return (f"the last valid timestamp {facts['last_valid_timestamp_s']} s "
            f"({facts['coverage_percent']:.2f} % of the audio) stops short of the last speech at "
            f"{facts['last_speech_s']} s less the {facts['tolerance_s']} s tolerance")


def _timeline_reasons(facts: Mapping[str, Any]) -> list[str]:
    reasons = [f"an exact adjacent repeat of {w} tokens" for w in facts["severe_repeat_windows"]]
    if facts["illegal_timestamps"]:
        reasons.append(f"{facts['illegal_timestamps']} timestamps outside the audio")
    if facts["backwards_timestamps"]:
        reasons.append(f"{facts['backwards_timestamps']} timestamps running backwards")
    if facts.get("segment_explosion"):
        reasons.append(f"{facts['max_segments_in_60_s']} segments start within 60 s")
    return reasons
