"""``unified-score``: load a reference tree, score every subset, build the outputs.

The flow is load-and-check everything first (so a bad tree stops before any work), then
segment the interruption outputs with Silero, then score per sample and per subset. The
result holds the exact records written to ``unified.json`` and ``unified-samples.jsonl``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.audio import audio_info
from ...core.errors import InputError
from ...core.hashing import sha256_file
from ...core.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE
from ...core.timebase import from_us, to_us
from . import interruption as intr
from . import turn_taking as tt
from .aggregate import counts_record, latency_quantiles, pooled_ratio, rate_within, share
from .annotations import (
    Interval,
    Word,
    load_interruption,
    load_pauses,
    load_turn_end,
    load_words,
)
from .pause import PauseSample, score_pause_sample
from .speech import SpeechJob, expected_samples, segment_files, vad_identity
from .tree import (
    OUTPUT_JSON,
    OUTPUT_WAV,
    PAUSE_HANDLING,
    SMOOTH_TURN_TAKING,
    SUBSET_TASKS,
    USER_INTERRUPTION,
    AsrIndex,
    Manifest,
    ManifestSample,
    load_asr,
    load_manifest,
)

DEFINITIONS_VERSION = "fdb-v1.0-unified-4"
UNIFIED_KIND = "fdb-v1.0-unified"
RESPONSE_WINDOWS_S = (1, 2, 5)


@dataclass(frozen=True)
class LoadedSample:
    """An eligible sample's checked transcript and annotation (times in microseconds)."""

    entry: ManifestSample
    duration_us: int
    words: tuple[Word, ...]
    pauses: tuple[Interval, ...] = ()
    turn_end_us: int | None = None
    interruption: Interval | None = None


@dataclass
class Timings:
    """Wall-clock seconds of each scoring phase, for the speed benchmark (which times the
    writing of the outputs itself)."""

    loading: float = 0.0
    vad: float = 0.0
    statistics: float = 0.0


@dataclass(frozen=True)
class UnifiedResult:
    """Everything ``unified-score`` writes, plus the manifest and ASR index it read."""

    summary: dict[str, Any]
    rows: list[dict[str, Any]]
    manifest: Manifest
    asr: AsrIndex
    timings: Timings = field(default_factory=Timings, compare=False)


def _check_hash(path: Path, expected: str | None, sample_id: str, against: str) -> None:
    if expected is None:
        raise InputError(f"{against} lists no sha256 for {path.name}", path=path,
                         sample_id=sample_id)
    if not path.is_file():
        raise InputError(f"{path.name} is missing", path=path, sample_id=sample_id)
    actual = sha256_file(path)
    if actual != expected:
        raise InputError(f"{path.name} differs from {against} (sha256 {actual[:12]}..., "
                         f"{against} {expected[:12]}...)", path=path, sample_id=sample_id)


def load_sample(tree: Path, entry: ManifestSample, asr: AsrIndex) -> LoadedSample:
    """Check an eligible sample's files against the manifest and asr.json, then parse them."""
    sid = entry.sample_id
    duration_us = to_us(entry.input_duration_s)
    wav = entry.file(tree, OUTPUT_WAV)
    if not wav.is_file():
        raise InputError("output.wav is missing", path=wav, sample_id=sid)
    info = audio_info(wav, sample_id=sid)
    if info.channels != 1:
        raise InputError(f"output.wav must be mono, found {info.channels} channels", path=wav,
                         sample_id=sid)
    want = expected_samples(entry.input_duration_s, info.rate)
    if info.n_samples != want:
        raise InputError(f"output.wav holds {info.n_samples} samples at {info.rate} Hz, but "
                         f"T = {entry.input_duration_s} s needs exactly {want}", path=wav,
                         sample_id=sid)
    transcript = entry.file(tree, OUTPUT_JSON)
    if sid not in asr.transcripts:
        raise InputError("asr.json has no transcript hash for this eligible sample",
                         path=asr.path, sample_id=sid)
    _check_hash(transcript, asr.transcripts[sid], sid, "asr.json")
    annotation_name = entry.annotation_file
    assert annotation_name is not None
    annotation = entry.file(tree, annotation_name)
    _check_hash(annotation, entry.files.get(annotation_name), sid, "manifest.json")
    words = load_words(transcript, sid, duration_us)
    if entry.task == PAUSE_HANDLING:
        return LoadedSample(entry, duration_us, words,
                            pauses=load_pauses(annotation, sid, duration_us))
    if entry.task == SMOOTH_TURN_TAKING:
        return LoadedSample(entry, duration_us, words,
                            turn_end_us=load_turn_end(annotation, sid, duration_us))
    span = load_interruption(annotation, sid, duration_us)
    early = [w for w in words if w.start_us < span.end_us]
    if early:
        raise InputError(f"transcript word {early[0].text!r} starts at "
                         f"{from_us(early[0].start_us):.6f} s, before R = "
                         f"{from_us(span.end_us):.6f} s (reference-asr cuts the audio at R)",
                         path=transcript, sample_id=sid)
    return LoadedSample(entry, duration_us, words, interruption=span)


def _seconds(value_us: int | None) -> float | None:
    return None if value_us is None else from_us(value_us)


def _base_row(entry: ManifestSample) -> dict[str, Any]:
    row: dict[str, Any] = {"sample_id": entry.sample_id, "subset": entry.subset,
                           "task": entry.task, "eligible": entry.eligible,
                           "input_duration_s": entry.input_duration_s}
    if not entry.eligible:
        row["reasons"] = list(entry.reasons)
    return row


def _pause_row(sample: PauseSample, words: int) -> dict[str, Any]:
    return {
        "pause_intrusion": sample.pause_intrusion,
        "inside_pause_onset": sample.inside_pause_onset,
        "pre_pause_speech": sample.pre_pause_speech,
        "carry_in": sample.carry_in,
        "any_speech": sample.any_speech,
        "intrusion_words": sample.intrusion_words,
        "pauses": sample.pauses,
        "intruded_pauses": sample.intruded_pauses,
        "pause_s": from_us(sample.pause_us),
        "intrusion_s": from_us(sample.intrusion_us),
        "first_pause_start_s": from_us(sample.first_pause_start_us),
        "words": words,
    }


def _subset_pause(selected: list[ManifestSample], scored: list[PauseSample]
                  ) -> dict[str, Any]:
    n = len(scored)
    total = len(selected)
    unknown = total - n

    def flag_share(flag: str, better: str) -> dict[str, Any]:
        count = sum(1 for s in scored if getattr(s, flag))
        return share(count, n, selected=total, unknown=unknown, better=better)

    return {
        "pause_intrusion_rate": flag_share("pause_intrusion", "lower"),
        "pause_intrusion_per_pause": pooled_ratio(
            [s.intruded_pauses for s in scored], [s.pauses for s in scored], better="lower"),
        "intrusion_s_per_pause_s": pooled_ratio(
            [from_us(s.intrusion_us) for s in scored], [from_us(s.pause_us) for s in scored],
            better="lower"),
        "inside_pause_onset_rate": flag_share("inside_pause_onset", "context"),
        "pre_pause_speech_rate": flag_share("pre_pause_speech", "context"),
        "carry_in_rate": flag_share("carry_in", "context"),
        "any_speech_rate": flag_share("any_speech", "context"),
    }


def _turn_row(sample: tt.TurnTakingSample, duration_us: int) -> dict[str, Any]:
    return {
        "outcome": sample.outcome,
        "E": from_us(sample.turn_end_us),
        "first_word_s": _seconds(sample.first_word_us),
        "latency_s": _seconds(sample.latency_us),
        "observable_s": from_us(duration_us - sample.turn_end_us),
    }


def _subset_turn_taking(selected: list[ManifestSample], scored: list[tt.TurnTakingSample]
                        ) -> dict[str, Any]:
    n = len(scored)
    total = len(selected)
    unknown = total - n
    latencies = [s.latency_us for s in scored]
    metrics = {
        "early_start_rate": share(sum(1 for s in scored if s.outcome == tt.EARLY_START), n,
                                  selected=total, unknown=unknown, better="lower"),
        "no_response_rate": share(sum(1 for s in scored if s.outcome == tt.NO_RESPONSE), n,
                                  selected=total, unknown=unknown, better="lower"),
        "response_latency_s": latency_quantiles(latencies),
    }
    for k in RESPONSE_WINDOWS_S:
        metrics[f"response_rate_{k}s"] = share(rate_within(latencies, k), n, selected=total,
                                               unknown=unknown, better="higher")
    return metrics


def _interruption_row(sample: intr.InterruptionSample,
                      segments: tuple[Interval, ...]) -> dict[str, Any]:
    return {
        "outcome": sample.outcome,
        "S": from_us(sample.onset_us),
        "R": from_us(sample.end_us),
        "speech_at_onset": sample.speech_at_onset,
        "speech_at_end": sample.speech_at_end,
        "speech_before_onset": sample.speech_before_onset,
        "stop_s": _seconds(sample.stop_us),
        "stop_observed": sample.stop_observed,
        "speech_in_interruption_s": from_us(sample.speech_in_interruption_us),
        "restarts": sample.restarts,
        "first_word_s": _seconds(sample.first_word_us),
        "latency_s": _seconds(sample.latency_us),
        "segments": [[from_us(s.start_us), from_us(s.end_us)] for s in segments],
    }


def _subset_interruption(selected: list[ManifestSample],
                         scored: list[intr.InterruptionSample]) -> dict[str, Any]:
    total = len(selected)
    ineligible = total - len(scored)
    exercised = [s for s in scored if s.exercised]
    n_ex = len(exercised)
    unknown = total - n_ex  # ineligible plus not exercised
    latencies = [s.latency_us for s in exercised]

    def outcome_share(outcome: str, better: str) -> dict[str, Any]:
        count = sum(1 for s in exercised if s.outcome == outcome)
        return share(count, n_ex, selected=total, unknown=unknown, better=better)

    metrics = {
        "exercised_rate": share(n_ex, len(scored), selected=total, unknown=ineligible,
                                better="context"),
        "speaking_at_end_rate": outcome_share(intr.SPEAKING_AT_END, "lower"),
        "no_response_rate": outcome_share(intr.NO_RESPONSE, "lower"),
        "response_latency_s": latency_quantiles(latencies),
        "stop_latency_s": latency_quantiles([s.stop_us for s in exercised]),
        "speech_s_per_interruption_s": pooled_ratio(
            [from_us(s.speech_in_interruption_us) for s in exercised],
            [from_us(s.end_us - s.onset_us) for s in exercised], better="lower"),
        "restart_rate": share(sum(1 for s in exercised if s.restarts > 0), n_ex,
                              selected=total, unknown=unknown, better="lower"),
    }
    for k in RESPONSE_WINDOWS_S:
        metrics[f"response_rate_{k}s"] = share(rate_within(latencies, k), n_ex,
                                               selected=total, unknown=unknown,
                                               better="higher")
    return metrics


SampleScore = PauseSample | tt.TurnTakingSample | intr.InterruptionSample


def score_sample(sample: LoadedSample, segments: tuple[Interval, ...]) -> SampleScore:
    """Per-sample quantities of one eligible sample (``segments`` only for interruption)."""
    if sample.entry.task == PAUSE_HANDLING:
        return score_pause_sample(sample.words, sample.pauses, sample.duration_us)
    if sample.entry.task == SMOOTH_TURN_TAKING:
        assert sample.turn_end_us is not None
        return tt.score_turn_taking_sample(sample.words, sample.turn_end_us)
    assert sample.interruption is not None
    return intr.score_interruption_sample(segments, sample.words, sample.interruption,
                                          sample.duration_us)


def sample_row(sample: LoadedSample, score: SampleScore, segments: tuple[Interval, ...]
               ) -> dict[str, Any]:
    """The task-specific part of the sample's ``unified-samples.jsonl`` row."""
    if isinstance(score, PauseSample):
        return _pause_row(score, len(sample.words))
    if isinstance(score, tt.TurnTakingSample):
        return _turn_row(score, sample.duration_us)
    return _interruption_row(score, segments)


def _min_observable(loaded: list[LoadedSample], reference: Callable[[LoadedSample], int]
                    ) -> float | None:
    horizons = [s.duration_us - reference(s) for s in loaded]
    return from_us(min(horizons)) if horizons else None


def score_tree(tree: Path, *, workers: int = 1) -> UnifiedResult:
    """Score a reference tree; raises InputError (exit 2) on the first failed check."""
    timings = Timings()
    started = time.perf_counter()
    manifest = load_manifest(tree)
    asr = load_asr(tree)
    loaded = {entry.sample_id: load_sample(tree, entry, asr)
              for entry in manifest.samples if entry.eligible and entry.task in (
                  PAUSE_HANDLING, SMOOTH_TURN_TAKING, USER_INTERRUPTION)}
    timings.loading = time.perf_counter() - started

    started = time.perf_counter()
    interruption_ids = [sid for sid, s in loaded.items() if s.entry.task == USER_INTERRUPTION]
    jobs = [SpeechJob(sid, loaded[sid].entry.file(tree, OUTPUT_WAV),
                      loaded[sid].entry.files[OUTPUT_WAV], loaded[sid].entry.input_duration_s)
            for sid in interruption_ids]
    segments = dict(zip(interruption_ids, segment_files(jobs, workers), strict=True))
    vad = vad_identity()
    timings.vad = time.perf_counter() - started

    started = time.perf_counter()
    scored = {sid: score_sample(s, segments.get(sid, ())) for sid, s in loaded.items()}
    rows: list[dict[str, Any]] = []
    subsets: dict[str, Any] = {}
    for subset, task in SUBSET_TASKS.items():
        selected = [e for e in manifest.samples if e.subset == subset]
        if not selected and subset not in manifest.declared:
            continue
        record: dict[str, Any] = {
            "task": task,
            "counts": counts_record(selected, manifest.declared.get(subset, len(selected))),
            "coverage": (sum(1 for e in selected if e.eligible) / len(selected)
                         if selected else None),
        }
        subset_loaded = [loaded[e.sample_id] for e in selected if e.sample_id in loaded]
        subset_scored: list[Any] = [scored[s.entry.sample_id] for s in subset_loaded]
        if task == PAUSE_HANDLING:
            record["metrics"] = _subset_pause(selected, subset_scored)
        elif task == SMOOTH_TURN_TAKING:
            record["metrics"] = _subset_turn_taking(selected, subset_scored)
            record["min_observable_s"] = _min_observable(
                subset_loaded, lambda s: s.turn_end_us or 0)
        elif task == USER_INTERRUPTION:
            record["metrics"] = _subset_interruption(selected, subset_scored)
            record["min_observable_s"] = _min_observable(
                subset_loaded, lambda s: s.interruption.end_us if s.interruption else 0)
        else:
            record["metrics"] = None
            record["note"] = ("no unified metric; the official backchannel frequency and "
                              "JSD are the reference")
            subsets[subset] = record
            continue
        subsets[subset] = record
        for entry in selected:
            row = _base_row(entry)
            if entry.sample_id in scored:
                row.update(sample_row(loaded[entry.sample_id], scored[entry.sample_id],
                                      segments.get(entry.sample_id, ())))
            rows.append(row)
    timings.statistics = time.perf_counter() - started

    summary = {
        "kind": UNIFIED_KIND,
        "schema_version": 1,
        "definitions_version": DEFINITIONS_VERSION,
        "speecheval_version": __version__,
        "inputs": {
            "manifest_sha256": manifest.sha256,
            "asr_sha256": asr.sha256,
            "dataset_revision": manifest.revision,
            "asr": asr.identity,
        },
        "vad": vad,
        "statistics": {
            "confidence": CONFIDENCE,
            "share_interval": "wilson",
            "bootstrap": {"method": "percentile", "unit": "sample",
                          "resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED,
                          "generator": "numpy.random.default_rng (PCG64), fresh per metric"},
            "quantile_rule": "ceil(qN)-th smallest, no interpolation; "
                             "a quantile on a sample without a value is not reached",
        },
        "subsets": subsets,
    }
    return UnifiedResult(summary=summary, rows=rows, manifest=manifest, asr=asr,
                         timings=timings)
