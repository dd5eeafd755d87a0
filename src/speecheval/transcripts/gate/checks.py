"""The gate's five checks, each a status with the facts it was decided from.

Every check reads the tolerant raw reading (:mod:`.reading`) and the sample's frozen facts;
none looks at a reference, so the gate works on whole recordings without gold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..text.normalize import normalize
from ..text.tokenize import mixed_tokens
from .reading import RawReading
from .repeats import repeat_regions, token_ids
from .rules import REPEAT_WINDOWS, GateRules

Facts = dict[str, Any]
EXAMPLES = 5
"""How many instances of one irregularity a verdict lists (all are counted)."""


@dataclass(frozen=True)
class Check:
    """One status and the evidence behind it."""

    status: str
    facts: Facts


def coverage(reading: RawReading, duration_s: float, last_speech_s: float | None,
             tolerance_s: float, legal_tolerance_s: float) -> Check:
    """``transcript_coverage_status``: does the last valid timestamp reach the sample's
    last-speech boundary (less the tolerance)?

    Valid: legal, i.e. at most ``legal_tolerance_s`` past the end of the audio.
    ``unsupported`` without timestamps or segments; ``missing_evidence`` without a frozen
    boundary (the facts are still measured); else ``passed`` or ``failed``.
    """
    valid = [t for t in reading.timestamps if _legal(t, duration_s, legal_tolerance_s)]
    facts: Facts = {"duration_s": duration_s, "last_speech_s": last_speech_s,
                    "tolerance_s": tolerance_s, "last_valid_timestamp_s": None}
    if not reading.has_timestamps or not valid:
        facts["reason"] = ("the output has no timestamps" if not reading.has_timestamps
                           else "the output has no valid timestamp")
        return Check("unsupported", facts)
    last = valid[-1]
    facts.update(last_valid_timestamp_s=last, coverage_of_audio=last / duration_s,
                 coverage_percent=round(100 * last / duration_s, 2),
                 trailing_unsegmented_s=max(0.0, duration_s - last))
    if last_speech_s is None:
        facts["reason"] = "the sample has no frozen last-speech boundary"
        return Check("missing_evidence", facts)
    required = max(0.0, last_speech_s - tolerance_s)
    facts.update(required_from_s=required, shortfall_s=max(0.0, required - last))
    return Check("passed" if last >= required else "failed", facts)


_LIMIT_REASONS = frozenset({"length", "max_tokens", "max_new_tokens", "max_length",
                            "max_time", "max_output_tokens"})
_ABORT_REASONS = frozenset({"error", "abort", "aborted", "timeout", "cancelled", "canceled",
                            "content_filter"})
_EOS_REASONS = frozenset({"stop", "eos", "eos_token", "end_turn", "stop_sequence", "finished"})


def termination(meta: Mapping[str, Any] | None, coverage_passed: bool) -> Check:
    """``generation_termination_status`` from what the system reported: ``meta``'s
    ``generation`` object (``token_count``, ``config``, ``eos``, ``stop_reason``, as
    ``transcripts run`` writes it), or the same keys at its top level.

    ``hit_generation_limit`` (a length stop, or as many tokens as the limit allowed) and
    ``aborted`` mean the output was cut; an EOS is ``normal_end`` only when the coverage
    passed too (an EOS alone proves nothing, spec), else ``eos_unconfirmed``; a system
    that reports none of it is ``not_reported``.
    """
    meta = meta or {}
    nested = meta.get("generation")
    generation: Mapping[str, Any] = nested if isinstance(nested, Mapping) else meta
    config = generation.get("config", generation.get("generation_config"))
    config = config if isinstance(config, Mapping) else {}
    limit = next((v for v in (generation.get("max_new_tokens"), config.get("max_new_tokens"),
                              config.get("max_tokens")) if _count(v) is not None), None)
    generated = _count(generation.get("token_count", generation.get("generated_tokens")))
    reason = generation.get("stop_reason")
    reason_key = str(reason).strip().lower() if reason is not None else None
    facts: Facts = {"runner_status": meta.get("status"),
                    "runner_stop_reason": meta.get("runner_stop_reason"),
                    "stop_reason": reason, "eos": generation.get("eos"),
                    "generated_tokens": generated, "max_new_tokens": limit,
                    "generation_config": dict(config) or None,
                    "stopping_criterion": generation.get("stopping_criterion")}
    if reason_key in _LIMIT_REASONS or (generated is not None and limit is not None
                                        and generated >= int(limit)):
        return Check("hit_generation_limit", facts)
    if reason_key in _ABORT_REASONS:
        return Check("aborted", facts)
    if generation.get("eos") is True or reason_key in _EOS_REASONS:
        return Check("normal_end" if coverage_passed else "eos_unconfirmed", facts)
    return Check("not_reported", facts)


def raw_tail(reading: RawReading) -> Check:
    """``raw_tail_status``: how the raw ends, with the uncleaned tail and parser errors."""
    return Check(reading.tail_status, {"reason": reading.tail_reason,
                                       "tail": reading.tail_excerpt,
                                       "parser_errors": list(reading.parser_errors)})


def repeat_timeline(reading: RawReading, duration_s: float, rules: GateRules) -> Check:
    """``repeat_timeline_status``: exact adjacent repeats, illegal (more than
    ``rules.legal_tolerance_s`` past the end of the audio, or negative) or backwards
    timestamps, segment explosions.

    ``failed`` on an illegal or backwards timestamp, an explosion, or a repeat at a window
    of ``rules.severe_repeat_window`` or more; ``repeats_flagged`` when only shorter
    windows repeat; else ``passed``.
    """
    repeats = _repeats(reading)
    illegal = [t for t in reading.timestamps
               if not _legal(t, duration_s, rules.legal_tolerance_s)]
    backwards = _backwards(reading)
    explosion = _explosion(reading, rules)
    severe = [w for w in REPEAT_WINDOWS
              if w >= rules.severe_repeat_window and repeats[str(w)]["regions"]]
    facts: Facts = {"repeats": repeats, "severe_repeat_windows": severe,
                    "illegal_timestamps": len(illegal), "illegal_examples": illegal[:EXAMPLES],
                    "backwards_timestamps": len(backwards),
                    "backwards_examples": backwards[:EXAMPLES], "segments": len(reading.segments),
                    "granularity": reading.granularity, **explosion}
    if illegal or backwards or explosion.get("segment_explosion") or severe:
        return Check("failed", facts)
    if any(repeats[str(w)]["regions"] for w in REPEAT_WINDOWS):
        return Check("repeats_flagged", facts)
    return Check("passed", facts)


def speaker_continuity(reading: RawReading, duration_s: float, rules: GateRules) -> Check:
    """``speaker_continuity_status`` over the early, middle and late thirds: structure only.

    Per third: the labels heard, the labels first heard there, re-entries (a label back
    after ``rules.reentry_gap_s`` of silence) and a label reset (``rules.reset_min_labels``
    or more labels, all disjoint from the previous third's: what per-chunk relabelling of
    a conversation looks like; one new label after the old ones fell silent is a
    handover). ``structural_anomaly`` on a reset, or when more labels first appear after
    the early third than it had;
    ``unsupported`` for output without speaker labels (not a failure). Identity-drift
    accuracy needs whole-recording speaker gold and stays ``unscored``.
    """
    timed = [s for s in reading.segments if s.speaker is not None and s.start is not None]
    facts: Facts = {"identity_drift_accuracy": "unscored"}
    if not reading.speaker_labelled or not timed:
        facts["reason"] = ("the output has no speaker labels" if not reading.speaker_labelled
                           else "the speaker labels have no times")
        return Check("unsupported", facts)
    seen: set[str] = set()
    last_heard: dict[str, float] = {}
    thirds: list[Facts] = [{"third": name, "speakers": set(), "new_labels": [],
                            "re_entries": 0, "label_reset": False}
                           for name in ("early", "middle", "late")]
    for seg in timed:
        assert seg.speaker is not None and seg.start is not None
        third = thirds[min(2, max(0, int(3 * seg.start / duration_s)))]
        third["speakers"].add(seg.speaker)
        if seg.speaker not in seen:
            seen.add(seg.speaker)
            third["new_labels"].append(seg.speaker)
        elif seg.start - last_heard[seg.speaker] >= rules.reentry_gap_s:
            third["re_entries"] += 1
        last_heard[seg.speaker] = max(last_heard.get(seg.speaker, 0.0),
                                      seg.end if seg.end is not None else seg.start)
    previous: set[str] = set()
    for third in thirds:
        third["label_reset"] = bool(previous and not previous & third["speakers"]
                                    and len(third["speakers"]) >= rules.reset_min_labels)
        previous = third["speakers"] or previous
        third["speakers"] = sorted(third["speakers"])
    later_new = len(thirds[1]["new_labels"]) + len(thirds[2]["new_labels"])
    anomaly = any(t["label_reset"] for t in thirds) or later_new > len(thirds[0]["speakers"])
    facts.update(labels=len(seen), thirds=thirds)
    return Check("structural_anomaly" if anomaly else "no_structural_anomaly", facts)


def _legal(t: float, duration_s: float, tolerance_s: float) -> bool:
    return math.isfinite(t) and 0.0 <= t <= duration_s + tolerance_s


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _repeats(reading: RawReading) -> Facts:
    """Per window: repeat regions, with where each starts (token offset, time, text)."""
    tokens: list[str] = []
    owner: list[int] = []
    for index, seg in enumerate(reading.segments):
        words = mixed_tokens(normalize(seg.text))
        tokens.extend(words)
        owner.extend([index] * len(words))
    out: Facts = {"tokens": len(tokens)}
    found = repeat_regions(token_ids(tokens), REPEAT_WINDOWS) if tokens else {}
    for window in REPEAT_WINDOWS:
        regions = found.get(window, [])
        out[str(window)] = {"regions": len(regions),
                            "repeated_tokens": sum(r.repeated_tokens for r in regions),
                            "examples": [{"token": r.start, "period": r.period,
                                          "start_s": reading.segments[owner[r.start]].start,
                                          "block": " ".join(tokens[r.start:r.start + window])}
                                         for r in regions[:EXAMPLES]]}
    return out


def _backwards(reading: RawReading) -> list[Facts]:
    """Segments that end before they start or start before the previous segment did."""
    found: list[Facts] = []
    previous: float | None = None
    for index, seg in enumerate(reading.segments):
        if seg.start is not None and seg.end is not None and seg.end < seg.start:
            found.append({"segment": index, "start_s": seg.start, "end_s": seg.end,
                          "problem": "ends before it starts"})
        if seg.start is not None:
            if previous is not None and seg.start < previous:
                found.append({"segment": index, "start_s": seg.start,
                              "previous_start_s": previous,
                              "problem": "starts before the previous segment"})
            previous = seg.start
    return found


def _explosion(reading: RawReading, rules: GateRules) -> Facts:
    """The most segments starting inside any 60 s window (segment granularity only)."""
    if reading.granularity != "segment":
        return {"segment_explosion": None, "max_segments_in_60_s": None}
    starts = np.sort(np.array([s.start for s in reading.segments if s.start is not None],
                              dtype=np.float64))
    if starts.size == 0:
        return {"segment_explosion": None, "max_segments_in_60_s": None}
    inside = np.searchsorted(starts, starts + 60.0, side="left") - np.arange(starts.size)
    most = int(inside.max())
    return {"segment_explosion": most > rules.max_segments_per_minute,
            "max_segments_in_60_s": most}
