"""cpWER / cpCER: concatenated minimum-permutation error rate (spec: Diarization 协议).

Each speaker's text is concatenated in time order; reference and hypothesis speakers are
paired by an optimal assignment (:mod:`speecheval.core.assignment`) on a cost matrix padded
to a square with empty "dummy" speakers, so any number of speakers on either side works.
A reference speaker paired with a dummy is a *missed speaker* (all its tokens deleted), a
hypothesis speaker paired with a dummy is a *false-alarm speaker* (all its tokens inserted).
Sessions are scored separately and summed. Each pair's cost splits into substitutions,
deletions and insertions as meeteval 0.4.3 splits it (Kaldi's tie rule,
:mod:`.kaldi_split`), so the split, not only the total, is meeteval's.

Filling the cost matrix is the expensive part (every speaker pair needs an edit distance).
It is exact but pruned. Lower bounds ``L`` (:mod:`.bounds`) pick a first assignment whose
exact cost ``U`` bounds the optimum. A pair ``(i, j)`` can only be in an optimal assignment
if its distance is at most ``c_i = U - sum of the other rows' smallest bounds``; it is
skipped when ``L[i, j] > c_i`` and otherwise computed with cutoff ``c_i``, and a value above
``c_i`` is stored as ``c_i + 1``. Every stored entry of a row is at least that row's
smallest bound, so an assignment using a capped entry costs more than ``U`` in the stored
matrix too: the optimum, and its cost, are those of the full matrix. The bounds also serve
as hints for rapidfuzz's banded kernel, which widens its band until the result is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.assignment import linear_sum_assignment
from ...core.results import FieldwiseSum, Result
from ..formats.segment import Segment
from .align import Vocabulary, distance
from .bounds import lower_bounds
from .counts import ErrorCounts
from .kaldi_split import kaldi_counts
from .normalize import normalize
from .tokenize import Unit, tokens

# Smallest distance hint: below this a banded kernel gains nothing over the full one.
_MIN_HINT = 32


@dataclass(frozen=True)
class SpeakerPair(Result, kind="transcripts.cp_speaker_pair"):
    """One row of the assignment; a ``None`` speaker is the padding dummy."""

    session_id: str
    reference_speaker: str | None
    hypothesis_speaker: str | None
    counts: ErrorCounts

    def __post_init__(self) -> None:
        if self.reference_speaker is None and self.hypothesis_speaker is None:
            raise ValueError("a speaker pair needs at least one real speaker")


@dataclass(frozen=True)
class CpResult(FieldwiseSum, Result, kind="transcripts.cp_result"):
    """cpWER/cpCER counts and the speaker assignment behind them; ``sum()`` gives a corpus."""

    counts: ErrorCounts
    reference_speakers: int
    hypothesis_speakers: int
    missed_speakers: int
    false_alarm_speakers: int
    assignment: tuple[SpeakerPair, ...]

    def __post_init__(self) -> None:
        if sum((pair.counts for pair in self.assignment), ErrorCounts.zero()) != self.counts:
            raise ValueError("cp counts differ from the sum over the speaker assignment")
        missed = sum(1 for p in self.assignment if p.hypothesis_speaker is None)
        false_alarm = sum(1 for p in self.assignment if p.reference_speaker is None)
        if (missed, false_alarm) != (self.missed_speakers, self.false_alarm_speakers):
            raise ValueError("missed/false-alarm speaker counts differ from the assignment")
        if (self.reference_speakers - self.missed_speakers
                != self.hypothesis_speakers - self.false_alarm_speakers):
            raise ValueError("paired reference and hypothesis speaker counts differ")

    @classmethod
    def zero(cls) -> CpResult:
        """The neutral element of ``+``."""
        return cls(ErrorCounts.zero(), 0, 0, 0, 0, ())

    @classmethod
    def from_pairs(cls, pairs: Iterable[SpeakerPair], reference_speakers: int,
                   hypothesis_speakers: int) -> CpResult:
        """The result of one session's speaker pairs (put in a fixed order here)."""
        ordered = sorted(pairs, key=lambda p: (p.reference_speaker is None,
                                               p.reference_speaker or "",
                                               p.hypothesis_speaker or ""))
        return cls(
            counts=sum((p.counts for p in ordered), ErrorCounts.zero()),
            reference_speakers=reference_speakers,
            hypothesis_speakers=hypothesis_speakers,
            missed_speakers=sum(1 for p in ordered if p.hypothesis_speaker is None),
            false_alarm_speakers=sum(1 for p in ordered if p.reference_speaker is None),
            assignment=tuple(ordered),
        )

    @property
    def error_rate(self) -> float | None:
        """cpWER/cpCER as a fraction; ``None`` with no reference tokens."""
        return self.counts.error_rate

    def report_dict(self, rate_key: str) -> dict[str, Any]:
        """The quantities by name; ``rate_key`` is ``cpwer`` or ``cpcer``."""
        return {
            rate_key: self.error_rate,
            "errors": self.counts.errors,
            "length": self.counts.reference_tokens,
            "hypothesis_length": self.counts.hypothesis_tokens,
            "insertions": self.counts.insertions,
            "deletions": self.counts.deletions,
            "substitutions": self.counts.substitutions,
            "reference_speakers": self.reference_speakers,
            "hypothesis_speakers": self.hypothesis_speakers,
            "missed_speakers": self.missed_speakers,
            "false_alarm_speakers": self.false_alarm_speakers,
            "assignment": [
                {"session_id": p.session_id, "reference_speaker": p.reference_speaker,
                 "hypothesis_speaker": p.hypothesis_speaker, "errors": p.counts.errors,
                 "length": p.counts.reference_tokens}
                for p in self.assignment
            ],
        }


def _assign(cost: NDArray[np.int64]) -> list[tuple[int, int]]:
    rows, cols = linear_sum_assignment(cost)
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True)]


def cp_error_counts(reference: Mapping[str, Sequence[str]],
                    hypothesis: Mapping[str, Sequence[str]],
                    session_id: str = "") -> CpResult:
    """cp counts of one session from each speaker's concatenated tokens.

    Hand check: reference A = ``a b c``, B = ``d e``; hypothesis X = ``d e``, Y = ``a b x``,
    Z = ``f``. Best pairing A-Y (1 sub), B-X (0), Z unpaired (1 insertion): 2 errors over 5
    tokens, 1 false-alarm speaker.

    >>> r = cp_error_counts({"A": "a b c".split(), "B": ["d", "e"]},
    ...                     {"X": ["d", "e"], "Y": "a b x".split(), "Z": ["f"]})
    >>> r.counts.errors, r.counts.reference_tokens, r.missed_speakers, r.false_alarm_speakers
    (2, 5, 0, 1)
    """
    ref_names, hyp_names = sorted(reference), sorted(hypothesis)
    size = max(len(ref_names), len(hyp_names))
    if size == 0:
        return CpResult.zero()
    vocab = Vocabulary()
    refs = [vocab.encode(reference[name]) for name in ref_names]
    hyps = [vocab.encode(hypothesis[name]) for name in hyp_names]
    refs += [""] * (size - len(refs))
    hyps += [""] * (size - len(hyps))

    lower = lower_bounds(refs, hyps, len(vocab))
    hints = np.maximum(lower, _MIN_HINT)
    cost = np.full((size, size), -1, dtype=np.int64)
    for i, j in _assign(lower):
        cost[i, j] = distance(refs[i], hyps[j], hint=int(hints[i, j]))
    bound = int(cost[cost >= 0].sum())
    # Whatever row i is paired with, the other rows cost at least their smallest bounds.
    row_min = lower.min(axis=1)
    others = int(row_min.sum()) - row_min
    for i in range(size):
        cutoff = bound - int(others[i])
        for j in range(size):
            if cost[i, j] >= 0:
                continue
            if lower[i, j] > cutoff:
                cost[i, j] = cutoff + 1
            else:
                cost[i, j] = distance(refs[i], hyps[j], cutoff=cutoff,
                                      hint=int(min(hints[i, j], cutoff)))

    pairs: list[SpeakerPair] = []
    for i, j in _assign(cost):
        ref_name = ref_names[i] if i < len(ref_names) else None
        hyp_name = hyp_names[j] if j < len(hyp_names) else None
        if ref_name is None and hyp_name is None:
            continue
        pair_cost = int(cost[i, j])  # the optimum never uses a capped entry: exact
        pairs.append(SpeakerPair(session_id, ref_name, hyp_name,
                                 kaldi_counts(refs[i], hyps[j], pair_cost)))
    return CpResult.from_pairs(pairs, len(ref_names), len(hyp_names))


def speaker_tokens(segments: Iterable[Segment], unit: Unit,
                   normalise: bool = True) -> dict[str, dict[str, list[str]]]:
    """``{session: {speaker: tokens}}``, each speaker's segments concatenated by start time.

    The sort is by start only and stable, so segments that start together keep file
    order, as meeteval's does: sorting ties by end as well would put ``0-2 a`` before
    ``0-3 b`` written the other way round and score a different reference text.

    With ``normalise=False`` the words are split on whitespace only, as meeteval does
    (for parity checks; the main protocol normalises).
    """
    grouped: dict[str, dict[str, list[Segment]]] = {}
    for segment in segments:
        if segment.speaker is None:
            raise ValueError(f"segment without a speaker in session {segment.session_id!r}")
        grouped.setdefault(segment.session_id, {}).setdefault(segment.speaker, []).append(segment)
    result: dict[str, dict[str, list[str]]] = {}
    for session, speakers in grouped.items():
        result[session] = {}
        for speaker, items in speakers.items():
            ordered = sorted(items, key=lambda s: s.start if s.start is not None else 0.0)
            out: list[str] = []
            for item in ordered:
                text = normalize(item.words) if normalise else item.words
                out.extend(tokens(text, unit) if normalise else _raw_tokens(text, unit))
            result[session][speaker] = out
    return result


def _raw_tokens(text: str, unit: Unit) -> list[str]:
    """Tokens without normalisation: whitespace words, or non-space characters."""
    return text.split() if unit == "word" else [c for c in text if not c.isspace()]


def cp_error_rate(reference: Iterable[Segment], hypothesis: Iterable[Segment], unit: Unit,
                  normalise: bool = True) -> CpResult:
    """cpWER (``unit="word"``) or cpCER (``"char"``) summed over sessions.

    A session present on one side only is scored against an empty other side (all
    deletions or all insertions), so it is counted and never dropped.
    """
    ref = speaker_tokens(reference, unit, normalise)
    hyp = speaker_tokens(hypothesis, unit, normalise)
    return sum((cp_error_counts(ref.get(s, {}), hyp.get(s, {}), s)
                for s in sorted(set(ref) | set(hyp))), CpResult.zero())


def filter_by_uem(segments: Iterable[Segment],
                  regions: Mapping[str, Sequence[tuple[float, float]]]) -> list[Segment]:
    """Keep segments that touch a scoring region of their session, as meeteval does.

    A segment is kept when ``region_start <= segment_end`` and ``segment_start <=
    region_end`` for some region of its session (partly inside counts as inside); a session
    without regions is kept whole. Segments are kept or dropped whole, never cut, because
    a transcript segment has no word times to cut at.

    >>> segs = [Segment("f", "A", 2, 6, "x"), Segment("f", "A", 8, 12, "y"),
    ...         Segment("g", "A", 0, 1, "z")]
    >>> [s.words for s in filter_by_uem(segs, {"f": [(10.0, 20.0)]})]
    ['y', 'z']
    """
    kept = []
    for segment in segments:
        spans = regions.get(segment.session_id)
        if spans is None:
            kept.append(segment)
            continue
        if segment.start is None or segment.end is None:
            raise ValueError(f"segment without times in session {segment.session_id!r} "
                             "cannot be filtered by a UEM")
        if any(lo <= segment.end and segment.start <= hi for lo, hi in spans):
            kept.append(segment)
    return kept
