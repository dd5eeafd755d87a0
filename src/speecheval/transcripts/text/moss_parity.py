"""MOSS parity track: corpus CER, cpCER and delta_cp = cpCER - CER (spec: MOSS 对照轨).

This track reproduces the public MOSS-Transcribe-Diarize serving scorer (SGLang-Omni
``benchmarks/metrics/transcribe_diarize_metrics.py``, the scorer the spec cites) so our
numbers can be set beside the official ones. It has its own cleaning and is reported in
its own table, never mixed with the main protocol. Its rules, as that scorer applies them:

- Cleaning: remove ``[12.34]`` timestamps; read ``[S01]`` and ``[S1]`` as one speaker; remove
  ``【...】`` notes, ``<...>`` tags, ``&...&`` spans of up to 40 characters and every other
  bracketed tag; then delete whitespace and Unicode punctuation (category ``P``) and
  lower-case. There is no NFKC and no case *folding* (``str.lower``), unlike the main
  protocol.
- CER: characters of the cleaned text without speaker tags; a sample counts when its
  reference has at least one character.
- cpCER: only for references with speaker tags. Text is split at speaker tags (text before
  the first tag is dropped; a hypothesis without tags is one speaker), each speaker's
  pieces are concatenated in order, and speakers are paired by an optimal assignment on
  the padded character-error matrix.
- Corpus values sum errors and reference characters over valid samples; delta_cp compares
  cpCER with the CER of the samples valid for both, so the two share one denominator set.
  It can be negative: flattening overlapped speech can cost more than the permutation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .align import count_errors, encode_pair
from .counts import ErrorCounts
from .cp import CpResult, cp_error_counts
from .normalize import is_punctuation

if TYPE_CHECKING:
    from ..formats.segment import Segment

_TIMESTAMP = re.compile(r"\[\d+(?:\.\d+)?\]")
_SPEAKER = re.compile(r"\[[Ss]0*(\d+)\]")
_CANONICAL_SPEAKER = re.compile(r"\[S\d+\]")
_NOTES = (re.compile(r"【[^】]*】"), re.compile(r"<[^>]*>"), re.compile(r"&[^&]{0,40}&"),
          re.compile(r"\[(?!S\d+\])[^\]]+\]"))


def _preclean(text: str) -> str:
    text = _TIMESTAMP.sub(" ", text)
    text = _SPEAKER.sub(lambda m: f"[S{int(m.group(1))}]", text)
    for pattern in _NOTES:
        text = pattern.sub(" ", text)
    return text


def _strip(text: str) -> str:
    return "".join(c for c in text if not c.isspace() and not is_punctuation(c)).lower()


def clean_flat(text: str) -> str:
    """Cleaned text with speaker tags removed (the CER side).

    >>> clean_flat("[0.00][S01]你好，World![1.20]<music>[S02]好的[laugh]")
    '你好world好的'
    """
    return _strip(_CANONICAL_SPEAKER.sub(" ", _preclean(text)))


def split_speakers(text: str, single_if_untagged: bool) -> dict[str, str]:
    """Cleaned text per speaker tag; untagged text is one speaker only if asked.

    >>> split_speakers("前言[S01]你好[S2]嗯[S1]再见", single_if_untagged=False)
    {'[S1]': '你好再见', '[S2]': '嗯'}
    """
    cleaned = _preclean(text)
    tags = list(_CANONICAL_SPEAKER.finditer(cleaned))
    if not tags:
        flat = _strip(cleaned)
        return {"[S1]": flat} if single_if_untagged and flat else {}
    result: dict[str, str] = {}
    for index, tag in enumerate(tags):
        stop = tags[index + 1].start() if index + 1 < len(tags) else len(cleaned)
        piece = _strip(cleaned[tag.end():stop])
        if piece:
            result[tag.group()] = result.get(tag.group(), "") + piece
    return result


def tagged_text(segments: Sequence[Segment]) -> str:
    """Segments written as the raw tagged text this track reads, so a transcript in any
    format (a run's SegLST, an STM reference) is scored as MOSS scores its model's output:
    each segment in file order as ``[S<n>]words``, speakers numbered by first appearance
    (the cpCER pairing ignores the numbers), no tag for a segment without a speaker.
    Times are left out: the track's cleaning removes them anyway.

    >>> from speecheval.transcripts.formats.segment import Segment
    >>> tagged_text([Segment("r", "bob", 0.0, 1.0, "hi"), Segment("r", "amy", 1.0, 2.0, "yo"),
    ...              Segment("r", "bob", 2.0, 3.0, "ok")])
    '[S1]hi [S2]yo [S1]ok'
    """
    numbers: dict[str, int] = {}
    pieces = []
    for seg in segments:
        if seg.speaker is None:
            pieces.append(seg.words)
            continue
        number = numbers.setdefault(seg.speaker, len(numbers) + 1)
        pieces.append(f"[S{number}]{seg.words}")
    return " ".join(pieces)


@dataclass(frozen=True)
class MossSample:
    """One sample of the track; ``None`` where the sample is not valid for that metric."""

    sample_id: str
    cer: ErrorCounts | None
    cp: CpResult | None
    cp_invalid_reason: str | None


def score_sample(sample_id: str, reference: str, hypothesis: str) -> MossSample:
    """CER and cpCER counts of one raw reference/hypothesis pair under the MOSS rules.

    Hand check: reference ``[S1]ab[S2]cd``, hypothesis ``[S1]cd[S2]ab``. Flat: ``abcd`` vs
    ``cdab`` costs 4 (2 deletions + 2 insertions); cp pairs S1-S2 and S2-S1 exactly: 0.

    >>> s = score_sample("x", "[S1]ab[S2]cd", "[S1]cd[S2]ab")
    >>> s.cer.errors, s.cp.counts.errors
    (4, 0)
    """
    flat_ref, flat_hyp = clean_flat(reference), clean_flat(hypothesis)
    cer = count_errors(*encode_pair(list(flat_ref), list(flat_hyp))) if flat_ref else None
    if _SPEAKER.search(reference) is None:
        return MossSample(sample_id, cer, None, "no_reference_speaker_tags")
    ref_speakers = split_speakers(reference, single_if_untagged=False)
    if not any(ref_speakers.values()):
        return MossSample(sample_id, cer, None, "empty_reference_after_cleaning")
    hyp_speakers = split_speakers(hypothesis, single_if_untagged=True)
    cp = cp_error_counts({k: list(v) for k, v in ref_speakers.items()},
                         {k: list(v) for k, v in hyp_speakers.items()}, sample_id)
    return MossSample(sample_id, cer, cp, None)


@dataclass(frozen=True)
class MossParityTable:
    """Corpus values of the track; rates are fractions, ``None`` when undefined."""

    samples: int
    cer_valid_samples: int
    cp_valid_samples: int
    cer: ErrorCounts
    cpcer: ErrorCounts
    cer_on_cp_valid: ErrorCounts

    @property
    def delta_cp(self) -> float | None:
        """cpCER - CER over the samples valid for both (may be negative)."""
        cp, flat = self.cpcer.error_rate, self.cer_on_cp_valid.error_rate
        return None if cp is None or flat is None else cp - flat

    def report_dict(self) -> dict[str, Any]:
        """The table as named quantities (track ``moss_parity``)."""
        return {
            "track": "moss_parity",
            "samples": self.samples,
            "cer_valid_samples": self.cer_valid_samples,
            "cp_valid_samples": self.cp_valid_samples,
            "cer": self.cer.error_rate,
            "cer_errors": self.cer.errors,
            "cer_length": self.cer.reference_tokens,
            "cpcer": self.cpcer.error_rate,
            "cpcer_errors": self.cpcer.errors,
            "cpcer_length": self.cpcer.reference_tokens,
            "cer_on_cp_valid": self.cer_on_cp_valid.error_rate,
            "delta_cp": self.delta_cp,
        }


def corpus_table(samples: Iterable[MossSample]) -> MossParityTable:
    """Sum the valid samples into the track's corpus table."""
    items = list(samples)
    zero = ErrorCounts.zero()
    return MossParityTable(
        samples=len(items),
        cer_valid_samples=sum(1 for s in items if s.cer is not None),
        cp_valid_samples=sum(1 for s in items if s.cp is not None),
        cer=sum((s.cer for s in items if s.cer is not None), zero),
        cpcer=sum((s.cp.counts for s in items if s.cp is not None), zero),
        cer_on_cp_valid=sum((s.cer for s in items if s.cer is not None and s.cp is not None),
                            zero),
    )
