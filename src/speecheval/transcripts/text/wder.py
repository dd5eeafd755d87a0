"""WDER: word-level diarization error rate (spec: Diarization 协议, "补 cpWER/cpCER/WDER").

The spec names WDER without defining it; this is the common definition (Shafey et al.,
"Joint speech recognition and speaker diarization via sequence transduction", 2019):

1. Per session, the reference and hypothesis words are each put in one sequence (segments
   by start time, stable), every word carrying its segment's speaker, and aligned
   speaker-blind with the project's Levenshtein path (:func:`.align.edit_path`).
2. Only words aligned as correct or substituted count: deletions and insertions are
   recognition errors, which WER and cpWER already charge.
3. Hypothesis speakers are mapped one-to-one to reference speakers so that as many of
   those aligned words as possible agree (an optimal assignment,
   :mod:`speecheval.core.assignment`); a hypothesis speaker left unmapped agrees with none.
4. ``WDER = (aligned words whose mapped speaker is wrong) / (aligned words)``, summed
   over sessions before dividing (each session has its own mapping).

Tokens are those of cpWER (normalised, ``word`` or ``char`` units), so WDER reads beside
cpWER/cpCER on the same text. Where several alignments have the least cost, WDER is that
of the path :func:`.align.edit_path` returns (a documented convention, like any
alignment-based split).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ...core.assignment import linear_sum_assignment
from ...core.results import FieldwiseSum, Result
from ...core.share import fraction
from ..formats.segment import Segment
from .align import Vocabulary, edit_path
from .normalize import normalize
from .tokenize import Unit, tokens


@dataclass(frozen=True)
class WderResult(FieldwiseSum, Result, kind="transcripts.wder_result"):
    """Aligned (correct or substituted) words and those with the wrong speaker."""

    aligned_words: int
    speaker_errors: int

    def __post_init__(self) -> None:
        if not 0 <= self.speaker_errors <= self.aligned_words:
            raise ValueError(f"speaker errors ({self.speaker_errors}) must lie in "
                             f"0..aligned words ({self.aligned_words})")

    @classmethod
    def zero(cls) -> WderResult:
        """The neutral element of ``+``."""
        return cls(0, 0)

    @property
    def error_rate(self) -> float | None:
        """WDER as a fraction; ``None`` when no word was aligned."""
        return fraction(self.speaker_errors, self.aligned_words)


def labelled_tokens(segments: Iterable[Segment], unit: Unit
                    ) -> dict[str, tuple[list[str], list[str]]]:
    """``{session: (tokens, speaker of each token)}``, segments in start-time order."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for seg in sorted(segments, key=lambda s: s.start if s.start is not None else 0.0):
        if seg.speaker is None:
            raise ValueError(f"segment without a speaker in session {seg.session_id!r}")
        words, speakers = out.setdefault(seg.session_id, ([], []))
        new = tokens(normalize(seg.words), unit)
        words.extend(new)
        speakers.extend([seg.speaker] * len(new))
    return out


def wder_counts(reference: tuple[list[str], list[str]],
                hypothesis: tuple[list[str], list[str]]) -> WderResult:
    """WDER counts of one session from (tokens, speakers) of each side.

    Hand check: reference A ``a b c``, B ``d e``; hypothesis X ``a q``, Y ``c d e`` (the
    speaker turn one word early, ``b`` misrecognised as ``q``). Alignment: a=a, b->q (sub),
    c=c, d=d, e=e: 5 aligned words. Speaker pairs: (A,X) 2, (A,Y) 1, (B,Y) 2; best mapping
    X->A, Y->B agrees on 4: WDER = 1/5.

    >>> wder_counts(("a b c d e".split(), list("AAABB")), ("a q c d e".split(), list("XXYYY")))
    WderResult(aligned_words=5, speaker_errors=1)
    """
    ref_words, ref_speakers = reference
    hyp_words, hyp_speakers = hypothesis
    vocab = Vocabulary()
    path = edit_path(vocab.encode(ref_words), vocab.encode(hyp_words))
    both = (path.ref_index >= 0) & (path.hyp_index >= 0)
    ref_names = sorted(set(ref_speakers))
    hyp_names = sorted(set(hyp_speakers))
    together = np.zeros((len(ref_names), len(hyp_names)), dtype=np.int64)
    ref_row = {name: k for k, name in enumerate(ref_names)}
    hyp_col = {name: k for k, name in enumerate(hyp_names)}
    for r, h in zip(path.ref_index[both].tolist(), path.hyp_index[both].tolist(), strict=True):
        together[ref_row[ref_speakers[r]], hyp_col[hyp_speakers[h]]] += 1
    aligned = int(both.sum())
    if aligned == 0:
        return WderResult(0, 0)
    rows, cols = linear_sum_assignment(together, maximize=True)
    agreeing = int(together[rows, cols].sum())
    return WderResult(aligned, aligned - agreeing)


def wder(reference: Iterable[Segment], hypothesis: Iterable[Segment],
         unit: Unit = "word") -> WderResult:
    """WDER summed over sessions; a session on one side only aligns no word."""
    ref = labelled_tokens(reference, unit)
    hyp = labelled_tokens(hypothesis, unit)
    empty: tuple[list[str], list[str]] = ([], [])
    return sum((wder_counts(ref.get(s, empty), hyp.get(s, empty))
                for s in sorted(set(ref) | set(hyp))), WderResult.zero())
