"""Every measure of one run of one sample, as one frozen record.

A run's hypothesis files are scored against the sample's reference files. What a part
needs and what it says when that is missing:

- text rates (WER/CER/MER in the scenario's unit), punctuation, numbers, terms: a
  reference transcript (speech and low-speech samples);
- cpWER/cpCER: reference speakers; a hypothesis without speakers is ``unsupported``;
- DER/JER (main, +-0.25 s) and the LattifAI parity track (+-0.1 s): reference speaker
  turns (RTTM, or the reference transcript's timed speaker segments) and the same from
  the hypothesis; without hypothesis speakers: ``unsupported``; scored over the UEM
  ``[0, audio duration]``;
- hallucination: silence, music and low-speech samples;
- timestamps: timed reference turns; see :mod:`..timestamps.score`;
- MOSS parity: reference and hypothesis both raw tagged text (``.txt``).

A failed run is scored as empty output wherever a reference gives a rate (every
reference token deleted, all speech missed), so failures raise the error rates; measures
without a reference (hallucination) and timestamps leave failed runs out and count them.
For speaker measures this holds only when the system supports speaker attribution
(:mod:`.capabilities`, decided once for the whole manifest); otherwise a failed run is
``unsupported`` like the system's successful runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from ...core.errors import InputError
from ...core.timeline import Span
from .. import formats
from ..diarization.result import DiarizationScore, DiarizationUnsupported
from ..diarization.score import score_files, score_lattifai_parity, total
from ..diarization.scoring_region import clipped_turns
from ..formats._io import read_text
from ..formats.rttm import RTTM
from ..formats.segment import Segment
from ..formats.uem import UEM
from ..text.align import EditPath, edit_path, encode_pair
from ..text.counts import ErrorCounts
from ..text.cp import CpResult, cp_error_rate
from ..text.hallucination import HallucinationCounts, hallucination
from ..text.moss_parity import MossSample, score_sample
from ..text.normalize import normalize
from ..text.prf import MatchCounts
from ..text.punctuation import punctuation_counts
from ..text.terms import number_counts, term_counts
from ..text.tokenize import Unit, tokens
from ..timestamps.score import TimestampResult, score_timestamps
from .capabilities import SystemSupport
from .inputs import (
    flat_text,
    has_speakers,
    is_timed,
    load_rttm,
    load_transcript,
    rttm_from_segments,
    segments_from_rttm,
)
from .manifest import HALLUCINATION_KINDS, NON_SPEECH_KINDS, RunSpec, SampleSpec

# Steps of the alignment and turns of the timeline kept for the HTML view of one run.
PREVIEW_STEPS = 400
PREVIEW_TURNS = 400

Op = Literal["=", "S", "D", "I"]


@dataclass(frozen=True)
class Preview:
    """The first steps of the edit path and turns of both sides, for people to read
    (a turn is a span labelled by its speaker)."""

    steps: tuple[tuple[Op, str, str], ...]
    total_steps: int
    reference_turns: tuple[Span, ...]
    hypothesis_turns: tuple[Span, ...]
    total_turns: int


@dataclass(frozen=True, eq=False)
class RunScore:
    """All measures of one run; ``None`` parts have their reason in ``status``."""

    sample: SampleSpec
    unit: Unit
    repeat: int
    failure: str | None
    text: ErrorCounts | None
    punctuation: MatchCounts | None
    numbers: MatchCounts | None
    terms: MatchCounts | None
    cp: CpResult | None
    diarization: DiarizationScore | None
    lattifai: DiarizationScore | None
    hallucination: HallucinationCounts | None
    timestamps: TimestampResult | None
    moss: MossSample | None
    status: dict[str, str]
    preview: Preview


def _turns(segments: tuple[Segment, ...]) -> tuple[Span, ...]:
    timed = [s for s in segments if s.start is not None and s.end is not None]
    ordered = sorted(timed, key=lambda s: (s.start, s.end))
    return tuple(Span.from_seconds(s.start or 0.0, s.end or 0.0, s.speaker or "(none)")
                 for s in ordered[:PREVIEW_TURNS])


def _preview(path: EditPath, ref_tokens: list[str], hyp_tokens: list[str],
             ref_turns: tuple[Segment, ...], hyp_turns: tuple[Segment, ...]) -> Preview:
    steps: list[tuple[Op, str, str]] = []
    for r, h, eq in zip(path.ref_index[:PREVIEW_STEPS].tolist(),
                        path.hyp_index[:PREVIEW_STEPS].tolist(),
                        path.equal[:PREVIEW_STEPS].tolist(), strict=True):
        op: Op = "=" if eq else "D" if h < 0 else "I" if r < 0 else "S"
        steps.append((op, ref_tokens[r] if r >= 0 else "", hyp_tokens[h] if h >= 0 else ""))
    return Preview(tuple(steps), int(path.ref_index.size), _turns(ref_turns),
                   _turns(hyp_turns), max(len(ref_turns), len(hyp_turns)))


class _Reference:
    """The sample's reference files, read once and shared by its runs."""

    def __init__(self, sample: SampleSpec) -> None:
        spec = sample.reference
        self.segments: tuple[Segment, ...] = (() if spec.transcript is None
                                              else load_transcript(spec.transcript, sample.id))
        self.text = flat_text(self.segments)
        self.raw = (read_text(spec.transcript, "transcript")
                    if spec.transcript is not None and formats.format_of(spec.transcript).raw_text
                    else None)
        self.words = None if spec.words is None else load_transcript(spec.words, sample.id)
        if spec.rttm is not None:
            self.rttm: RTTM | None = load_rttm(spec.rttm, sample.id)
        elif has_speakers(self.segments) and is_timed(self.segments):
            self.rttm = rttm_from_segments(self.segments, sample.id, spec.transcript)
        else:
            self.rttm = None


def score_sample_runs(sample: SampleSpec, unit: Unit, support: SystemSupport
                      ) -> tuple[RunScore, ...]:
    """Read the sample's files and score each of its runs.

    A failed run counts as a speaker-attribution failure only when ``support`` (the
    system's, across the manifest) says the system attributes speakers, so a failed run of
    a system without speaker output stays ``unsupported`` rather than becoming a rate.
    """
    reference = _Reference(sample)
    return tuple(_score_run(sample, unit, reference, run, _hypothesis(sample, run), support)
                 for run in sample.runs)


Hypothesis = tuple[tuple[Segment, ...], tuple[Segment, ...] | None, RTTM | None, str]


def _hypothesis(sample: SampleSpec, run: RunSpec) -> Hypothesis:
    """(segments, word-timed segments, speaker turns, raw text) of a run."""
    if run.failure is not None:
        return (), None, RTTM(()), ""
    assert run.transcript is not None
    segments = load_transcript(run.transcript, sample.id)
    document = formats.format_of(run.transcript)
    raw = read_text(run.transcript, "transcript") if document.raw_text else ""
    words = (load_transcript(run.words, sample.id) if run.words is not None
             else segments if document.word_timed else None)
    if run.rttm is not None:
        rttm: RTTM | None = load_rttm(run.rttm, sample.id)
    elif has_speakers(segments) and is_timed(segments):
        rttm = rttm_from_segments(segments, sample.id, run.transcript)
    else:
        rttm = None
    return segments, words, rttm, raw


def _renamed(rttm: RTTM, file_id: str) -> RTTM:
    return dataclasses.replace(rttm, turns=tuple(dataclasses.replace(t, file_id=file_id)
                                                 for t in rttm.turns))


def _cp(sample: SampleSpec, unit: Unit, reference: _Reference, hyp: tuple[Segment, ...],
        failed: bool, speakers_supported: bool) -> tuple[CpResult | None, str | None]:
    if sample.kind in NON_SPEECH_KINDS:
        return None, f"{sample.kind} sample"
    if not has_speakers(reference.segments):
        return None, "reference has no speaker labels"
    if not has_speakers(hyp) and not (failed and speakers_supported):
        return None, "unsupported: the system gives no speaker attribution"
    return cp_error_rate(reference.segments, hyp, unit), None


def _diarization(sample: SampleSpec, repeat: int, reference: RTTM | None, hyp: RTTM | None,
                 failed: bool, speakers_supported: bool
                 ) -> tuple[DiarizationScore | None, DiarizationScore | None, str | None]:
    """Main-protocol and LattifAI-parity scores over ``[0, duration]``."""
    if reference is None:
        return None, None, "no reference speaker turns"
    if hyp is None or (failed and not speakers_supported):
        return None, None, "unsupported: the system gives no timed speaker attribution"
    # One file id per run, so the runs of a sample add up as distinct files.
    file_id = f"{sample.id}#repeat{repeat}"
    ref_rttm, run_rttm = _renamed(reference, file_id), _renamed(hyp, file_id)
    uem = UEM.from_regions({file_id: ((0.0, sample.duration_s),)})
    main = score_files(ref_rttm, run_rttm, uem)
    parity = score_lattifai_parity(ref_rttm, run_rttm, uem)
    if isinstance(main, DiarizationUnsupported):
        return None, None, f"unsupported: {main.reason}"
    assert not isinstance(parity, DiarizationUnsupported)
    return total(main), total(parity), None


def _clipped_note(sample: SampleSpec, reference: RTTM | None, hyp: RTTM | None) -> str | None:
    """Say how many turns run past ``duration_s`` and were cut there, if any."""
    uem = UEM.from_regions({sample.id: ((0.0, sample.duration_s),)})
    parts = [(side, clipped_turns(rttm, uem)) for side, rttm in
             (("reference", reference), ("system", hyp)) if rttm is not None]
    cut = [f"{side} {c['turns']} ({c['seconds']:g} s)" for side, c in parts if c["turns"]]
    if not cut:
        return None
    return f"turns past duration_s {sample.duration_s:g} s cut there: " + ", ".join(cut)


def _timestamps(sample: SampleSpec, unit: Unit, reference: _Reference, hypothesis: Hypothesis,
                failed: bool, token_times_supported: bool
                ) -> tuple[TimestampResult | None, str | None]:
    hyp_segments, hyp_words, hyp_rttm, _ = hypothesis
    if sample.kind in NON_SPEECH_KINDS:
        return None, f"{sample.kind} sample"
    if not is_timed(reference.segments):
        return None, "reference transcript has no segment times"
    if failed:
        return None, ("failed run: excluded and counted" if token_times_supported else
                      "unsupported: the system gives no token timestamps (failed run, "
                      "counted)")
    try:
        return score_timestamps(
            reference.segments, unit, hypothesis_words=hyp_words,
            hypothesis_segments=hyp_segments if is_timed(hyp_segments) else None,
            reference_words=reference.words,
            hypothesis_turns=None if hyp_rttm is None else segments_from_rttm(hyp_rttm)), None
    except ValueError as exc:
        raise InputError(f"timestamps: {exc}", sample_id=sample.id) from None


def _score_run(sample: SampleSpec, unit: Unit, reference: _Reference, run: RunSpec,
               hypothesis: Hypothesis, support: SystemSupport) -> RunScore:
    hyp_segments, _, hyp_rttm, hyp_raw = hypothesis
    hyp_text = flat_text(hyp_segments)
    status: dict[str, str | None] = {}
    failed = run.failure is not None
    speech = sample.kind not in NON_SPEECH_KINDS

    text = punct = nums = terms = None
    ref_tokens = tokens(normalize(reference.text), unit)
    hyp_tokens = tokens(normalize(hyp_text), unit)
    path = edit_path(*encode_pair(ref_tokens, hyp_tokens))
    if speech:
        text = path.counts()
        punct = punctuation_counts(reference.text, hyp_text)
        nums = number_counts(reference.text, hyp_text)
        if sample.reference.terms:
            terms = term_counts(reference.text, hyp_text, sample.reference.terms)
        else:
            status["terms"] = "no term list in the reference metadata"
    else:
        status["text"] = f"{sample.kind} sample: no reference transcript"

    cp, status["cp"] = _cp(sample, unit, reference, hyp_segments, failed, support.speakers)
    diarization, lattifai, status["diarization"] = _diarization(
        sample, run.repeat, reference.rttm, hyp_rttm, failed, support.speakers)
    if diarization is not None:
        status["diarization_clipped"] = _clipped_note(sample, reference.rttm, hyp_rttm)

    halluc = None
    if sample.kind in HALLUCINATION_KINDS:
        if failed:
            status["hallucination"] = "failed run: excluded and counted"
        else:
            # Low speech has a reference: only what the system inserts is hallucinated.
            halluc = hallucination(hyp_text, sample.duration_s,
                                   None if sample.kind in NON_SPEECH_KINDS else reference.text)

    timestamps, status["timestamps"] = _timestamps(sample, unit, reference, hypothesis, failed,
                                                   support.token_timestamps)

    moss = None
    if reference.raw is not None and (failed or run.transcript is not None
                                      and formats.format_of(run.transcript).raw_text):
        moss = score_sample(sample.id, reference.raw, hyp_raw)
    else:
        status["moss_parity"] = "needs raw tagged reference and hypothesis (.txt)"

    ref_turns = (segments_from_rttm(reference.rttm) if reference.rttm is not None
                 else reference.segments)
    hyp_turns = segments_from_rttm(hyp_rttm) if hyp_rttm is not None else hyp_segments
    return RunScore(sample, unit, run.repeat, run.failure, text, punct, nums, terms, cp,
                    diarization, lattifai, halluc, timestamps, moss,
                    {k: v for k, v in status.items() if v is not None},
                    _preview(path, ref_tokens, hyp_tokens, ref_turns, hyp_turns))
