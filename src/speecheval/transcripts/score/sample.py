"""Scoring one run of one sample: inputs -> per-measure outcomes -> :class:`RunScore`.

The sample's reference files are read once and shared by its runs; each run's files are
read into a :class:`~.measure.Side`; every registered measure (:mod:`.measure`, one module
each in :mod:`.measures`) scores the run from the same :class:`~.measure.RunInputs`.

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

from dataclasses import replace
from pathlib import Path

from ...core.timeline import Span
from .. import formats
from ..formats._io import read_text
from ..formats.rttm import RTTM
from ..formats.segment import Segment, has_speakers, is_timed
from ..text.align import edit_path, encode_pair
from ..text.normalize import normalize
from ..text.tokenize import Unit, tokens
from .capabilities import SystemSupport
from .inputs import (
    flat_text,
    load_rttm,
    load_transcript,
    rttm_from_segments,
    segments_from_rttm,
)
from .manifest import RunSpec, SampleSpec
from .measure import (
    Alignment,
    Op,
    Preview,
    RunInputs,
    RunScore,
    Side,
    selected_measures,
)
from .options import MeasureOptions

# Steps of the alignment and turns of the timeline kept for the HTML view of one run.
PREVIEW_STEPS = 400
PREVIEW_TURNS = 400


def score_sample_runs(sample: SampleSpec, unit: Unit, support: SystemSupport,
                      options: MeasureOptions) -> tuple[RunScore, ...]:
    """Read the sample's files and score each of its runs.

    A failed run counts as a speaker-attribution failure only when ``support`` (the
    system's, across the manifest) says the system attributes speakers, so a failed run of
    a system without speaker output stays ``unsupported`` rather than becoming a rate.
    ``options``: the measures beyond the spec the manifest selects.
    """
    reference = _reference(sample)
    return tuple(score_run(_inputs(sample, unit, run, support, reference, options))
                 for run in sample.runs)


def score_run(inputs: RunInputs) -> RunScore:
    """The outcome of every measure the run's options select."""
    results: dict[str, object] = {}
    status: dict[str, str] = {}
    for measure in selected_measures(inputs.options):
        outcome = measure.score(inputs)
        if outcome.result is not None:
            results[measure.name] = outcome.result
        status.update(outcome.status)
    return RunScore(inputs.sample, inputs.unit, inputs.run.repeat, inputs.run.failure,
                    results, status, _preview(inputs), inputs.options)


def _inputs(sample: SampleSpec, unit: Unit, run: RunSpec, support: SystemSupport,
            reference: Side, options: MeasureOptions) -> RunInputs:
    hypothesis = _hypothesis(sample, run)
    ref_tokens = tokens(normalize(reference.text), unit)
    hyp_tokens = tokens(normalize(hypothesis.text), unit)
    alignment = Alignment(ref_tokens, hyp_tokens, edit_path(*encode_pair(ref_tokens,
                                                                         hyp_tokens)))
    return RunInputs(sample, unit, run, support, reference, hypothesis, alignment, options)


def _reference(sample: SampleSpec) -> Side:
    """The sample's reference files (speaker turns from the RTTM, else from the timed
    speaker segments of the transcript)."""
    spec = sample.reference
    segments = () if spec.transcript is None else load_transcript(spec.transcript, sample.id)
    raw = (read_text(spec.transcript, "transcript")
           if spec.transcript is not None and formats.format_of(spec.transcript).raw_text
           else None)
    words = None if spec.words is None else load_transcript(spec.words, sample.id)
    return Side(segments, words, _speaker_turns(sample, spec.rttm, segments, spec.transcript),
                raw, flat_text(segments))


def _hypothesis(sample: SampleSpec, run: RunSpec) -> Side:
    """A run's output; a failed run is empty output (no speaker turns, empty raw text)."""
    if run.failure is not None:
        return Side((), None, RTTM(()), "", "")
    assert run.transcript is not None
    segments = load_transcript(run.transcript, sample.id)
    document = formats.format_of(run.transcript)
    raw = read_text(run.transcript, "transcript") if document.raw_text else None
    words = (load_transcript(run.words, sample.id) if run.words is not None
             else segments if document.word_timed else None)
    return Side(segments, words, _speaker_turns(sample, run.rttm, segments, run.transcript),
                raw, flat_text(segments))


def _speaker_turns(sample: SampleSpec, rttm: Path | None, segments: tuple[Segment, ...],
                   transcript: Path | None) -> RTTM | None:
    """The side's RTTM, else the transcript's timed speaker segments, else none."""
    if rttm is not None:
        return load_rttm(rttm, sample.id)
    if has_speakers(segments) and is_timed(segments):
        return rttm_from_segments(segments, sample.id, transcript)
    return None


def _turns(segments: tuple[Segment, ...]) -> tuple[Span, ...]:
    timed = sorted((span for s in segments if (span := s.span) is not None),
                   key=lambda span: (span.start_us, span.end_us))
    return tuple(span if span.label is not None else replace(span, label="(none)")
                 for span in timed[:PREVIEW_TURNS])


def _turn_segments(side: Side) -> tuple[Segment, ...]:
    return segments_from_rttm(side.turns) if side.turns is not None else side.segments


def _preview(inputs: RunInputs) -> Preview:
    path = inputs.alignment.path
    ref_tokens, hyp_tokens = inputs.alignment.reference_tokens, inputs.alignment.hypothesis_tokens
    steps: list[tuple[Op, str, str]] = []
    for r, h, eq in zip(path.ref_index[:PREVIEW_STEPS].tolist(),
                        path.hyp_index[:PREVIEW_STEPS].tolist(),
                        path.equal[:PREVIEW_STEPS].tolist(), strict=True):
        op: Op = "=" if eq else "D" if h < 0 else "I" if r < 0 else "S"
        steps.append((op, ref_tokens[r] if r >= 0 else "", hyp_tokens[h] if h >= 0 else ""))
    ref_turns, hyp_turns = _turn_segments(inputs.reference), _turn_segments(inputs.hypothesis)
    return Preview(tuple(steps), int(path.ref_index.size), _turns(ref_turns),
                   _turns(hyp_turns), max(len(ref_turns), len(hyp_turns)))
