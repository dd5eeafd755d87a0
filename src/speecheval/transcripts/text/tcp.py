"""tcpWER: time-constrained cpWER (meeteval's ``tcpwer``).

cpWER pairs speakers and counts edit errors of their concatenated words, but lets a word
match a word said minutes apart. tcpWER adds time: every word gets a time span and a
reference word may be matched or substituted by a hypothesis word only when their spans
overlap (strictly: ``ref.start < hyp.end and ref.end > hyp.start``); otherwise the pair
costs a deletion plus an insertion. Speakers are then paired as in cpWER
(:mod:`.cp`): optimal assignment, padded with empty dummy speakers.

Word spans follow meeteval 0.4.3's defaults, from segment times (no word times needed):

- reference, ``character_based``: a segment's span is divided among its words in
  proportion to their length in characters;
- hypothesis, ``character_based_points``: each word is the point at the middle of its
  character-based span, widened by ``collar`` seconds on both sides (the collar applies
  to the hypothesis only).

Words are split on whitespace, segments ordered by start time (stable), as meeteval does.
The alignment is an exact dynamic programme (reference x hypothesis words per speaker
pair), filled a reference word at a time with numpy (insertions along a row are a running
minimum), and meant for transcripts of up to a few thousand words per speaker: the whole
table is kept for the traceback. The
S/D/I split is that of this module's traceback (diagonal first, then deletion, then
insertion); the total is meeteval's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...core.assignment import linear_sum_assignment
from ..formats.segment import Segment
from .counts import ErrorCounts
from .cp import CpResult, SpeakerPair


@dataclass(frozen=True)
class TimedWord:
    """A word and the span it may be matched in."""

    word: str
    start: float
    end: float


def character_based(start: float, end: float, words: Sequence[str]) -> list[tuple[float, float]]:
    """The segment span split among the words in proportion to their character counts.

    >>> character_based(0.0, 3.0, ["a", "bb"])
    [(0.0, 1.0), (1.0, 3.0)]
    """
    if len(words) <= 1:
        return [(start, end)] * len(words)
    per_char = (end - start) / sum(len(w) for w in words)
    spans, before = [], 0
    for word in words:
        spans.append((start + per_char * before, start + per_char * (before + len(word))))
        before += len(word)
    return spans


def timed_words(segments: Iterable[Segment], hypothesis: bool,
                collar: float) -> dict[str, dict[str, list[TimedWord]]]:
    """``{session: {speaker: words}}`` with spans; hypothesis words are collared points."""
    ordered = sorted(segments, key=_start_of)
    out: dict[str, dict[str, list[TimedWord]]] = {}
    for seg in ordered:
        if seg.speaker is None:
            raise ValueError(f"segment without a speaker in session {seg.session_id!r}")
        words = seg.words.split()
        target = out.setdefault(seg.session_id, {}).setdefault(seg.speaker, [])
        for word, (lo, hi) in zip(words, character_based(_start_of(seg), _end_of(seg), words),
                                  strict=True):
            if hypothesis:
                mid = (lo + hi) / 2
                lo, hi = mid - collar, mid + collar
            target.append(TimedWord(word, lo, hi))
    return out


def time_constrained_counts(reference: Sequence[TimedWord],
                            hypothesis: Sequence[TimedWord]) -> ErrorCounts:
    """S, D, I of the least-cost alignment in which only overlapping words may pair.

    Hand check: reference ``a`` [0, 1], ``b`` [1, 2]; hypothesis ``b`` [0.2, 0.4] and ``a``
    [1.5, 1.6]. No overlapping pair has equal words and the best alignment substitutes
    a->b (both in [0, 1]) and b->a (both in [1, 2]): 2 errors.

    >>> r = [TimedWord("a", 0, 1), TimedWord("b", 1, 2)]
    >>> time_constrained_counts(r, [TimedWord("b", .2, .4), TimedWord("a", 1.5, 1.6)]).errors
    2
    >>> time_constrained_counts(r, [TimedWord("a", 5, 6)]).errors  # no overlap: del + ins
    3
    """
    n, m = len(reference), len(hypothesis)
    vocabulary: dict[str, int] = {}
    ref_ids = np.array([vocabulary.setdefault(w.word, len(vocabulary)) for w in reference],
                       dtype=np.int64)
    hyp_ids = np.array([vocabulary.setdefault(w.word, len(vocabulary)) for w in hypothesis],
                       dtype=np.int64)
    hyp_start = np.array([w.start for w in hypothesis], dtype=np.float64)
    hyp_end = np.array([w.end for w in hypothesis], dtype=np.float64)
    unpaired = n + m + 1  # a pair that may not be matched: dearer than any path
    index = np.arange(m + 1, dtype=np.int64)
    cost = np.empty((n + 1, m + 1), dtype=np.int64)
    cost[0] = index
    for i, ref in enumerate(reference, start=1):
        # one row at a time: deletion from above, the diagonal only for overlapping words,
        # then insertions as a running minimum (E[j] = min(A[j], E[j-1] + 1))
        row = cost[i - 1] + 1
        pair = np.where((ref.start < hyp_end) & (ref.end > hyp_start),
                        cost[i - 1, :-1] + (hyp_ids != ref_ids[i - 1]), unpaired)
        np.minimum(row[1:], pair, out=row[1:])
        cost[i] = index + np.minimum.accumulate(row - index)
    subs = dels = ins = 0
    i, j = n, m
    while i or j:
        if (i and j and _overlaps(reference[i - 1], hypothesis[j - 1])
                and cost[i, j] == cost[i - 1, j - 1]
                + (reference[i - 1].word != hypothesis[j - 1].word)):
            subs += reference[i - 1].word != hypothesis[j - 1].word
            i, j = i - 1, j - 1
        elif i and cost[i, j] == cost[i - 1, j] + 1:
            dels, i = dels + 1, i - 1
        else:
            ins, j = ins + 1, j - 1
    return ErrorCounts(substitutions=subs, deletions=dels, insertions=ins,
                       reference_tokens=n, hypothesis_tokens=m)


def tcp_error_counts(reference: dict[str, list[TimedWord]],
                     hypothesis: dict[str, list[TimedWord]],
                     session_id: str = "") -> CpResult:
    """tcp counts of one session: speakers paired to minimise time-constrained errors."""
    ref_names, hyp_names = sorted(reference), sorted(hypothesis)
    size = max(len(ref_names), len(hyp_names))
    if size == 0:
        return CpResult.zero()
    refs = [reference[n] for n in ref_names] + [[]] * (size - len(ref_names))
    hyps = [hypothesis[n] for n in hyp_names] + [[]] * (size - len(hyp_names))
    table = [[time_constrained_counts(r, h) for h in hyps] for r in refs]
    cost = np.array([[c.errors for c in row] for row in table], dtype=np.int64)
    rows, cols = linear_sum_assignment(cost)
    pairs = []
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        ref_name = ref_names[i] if i < len(ref_names) else None
        hyp_name = hyp_names[j] if j < len(hyp_names) else None
        if ref_name is not None or hyp_name is not None:
            pairs.append(SpeakerPair(session_id, ref_name, hyp_name, table[i][j]))
    return CpResult.from_pairs(pairs, len(ref_names), len(hyp_names))


def tcp_error_rate(reference: Iterable[Segment], hypothesis: Iterable[Segment],
                   collar: float) -> CpResult:
    """tcpWER summed over sessions; every segment needs a start and an end time."""
    if collar < 0:
        raise ValueError(f"tcpWER collar must be >= 0 seconds, got {collar}")
    ref = timed_words(reference, hypothesis=False, collar=0.0)
    hyp = timed_words(hypothesis, hypothesis=True, collar=collar)
    return sum((tcp_error_counts(ref.get(s, {}), hyp.get(s, {}), s)
                for s in sorted(set(ref) | set(hyp))), CpResult.zero())


def _overlaps(ref: TimedWord, hyp: TimedWord) -> bool:
    return ref.start < hyp.end and ref.end > hyp.start


def _start_of(segment: Segment) -> float:
    if segment.start is None:
        raise ValueError(f"segment without times in session {segment.session_id!r}: "
                         "tcpWER needs start and end times")
    return segment.start


def _end_of(segment: Segment) -> float:
    if segment.end is None:
        raise ValueError(f"segment without times in session {segment.session_id!r}: "
                         "tcpWER needs start and end times")
    return segment.end
