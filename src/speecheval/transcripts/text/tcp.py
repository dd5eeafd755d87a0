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
pair) filled a reference word at a time with numpy, the insertions of a row being a
running minimum: every pair's errors at once for the speaker assignment
(:func:`pair_errors`, one row per pair kept), then for each chosen pair the step taken
at every cell, two bits packed eight cells to a byte, for its traceback
(:func:`time_constrained_counts`): 10,000 x 10,000 words need 25 MB, not the 800 MB of a
table of int64 costs. Time grows with the product of the word counts. The
S/D/I split is that of this module's traceback (diagonal first, then deletion, then
insertion); the total is meeteval's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

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
    # The traceback needs, per cell, only the step it takes there (diagonal first, then
    # deletion, else insertion): two bits, packed eight cells to a byte, instead of the
    # whole table of costs; the previous row of costs is enough to decide them.
    diagonal = np.zeros((n + 1, m // 8 + 1), dtype=np.uint8)
    deletion = np.zeros_like(diagonal)
    before = index
    for i, ref in enumerate(reference, start=1):
        # one row at a time: deletion from above, the diagonal only for overlapping words,
        # then insertions as a running minimum (E[j] = min(A[j], E[j-1] + 1))
        mismatch = hyp_ids != ref_ids[i - 1]
        paired = (ref.start < hyp_end) & (ref.end > hyp_start)
        from_above, from_diagonal = before + 1, before[:-1] + mismatch
        row = from_above.copy()
        np.minimum(row[1:], np.where(paired, from_diagonal, unpaired), out=row[1:])
        row = index + np.minimum.accumulate(row - index)
        takes_diagonal = np.zeros(m + 1, dtype=bool)
        takes_diagonal[1:] = paired & (row[1:] == from_diagonal)
        diagonal[i] = np.packbits(takes_diagonal)
        deletion[i] = np.packbits(~takes_diagonal & (row == from_above))
        before = row
    subs = dels = ins = 0
    i, j = n, m
    while i or j:
        if i and j and _bit(diagonal, i, j):
            subs += reference[i - 1].word != hypothesis[j - 1].word
            i, j = i - 1, j - 1
        elif i and _bit(deletion, i, j):
            dels, i = dels + 1, i - 1
        else:
            ins, j = ins + 1, j - 1
    return ErrorCounts(substitutions=subs, deletions=dels, insertions=ins,
                       reference_tokens=n, hypothesis_tokens=m)


def pair_errors(references: Sequence[Sequence[TimedWord]],
                hypotheses: Sequence[Sequence[TimedWord]]) -> NDArray[np.int64]:
    """Least time-constrained errors of every (reference, hypothesis) speaker pair.

    Every pair's table is filled at once, one reference word at a time, on arrays of
    all pairs padded to the longest speakers: a padded hypothesis word overlaps nothing
    and sits after the real ones, so it cannot change a pair's value at its own end; a
    pair's value is read when its reference's last word is done. Only a row per pair is
    kept (the S/D/I split of the pairs chosen is traced by :func:`time_constrained_counts`).

    >>> r = [[TimedWord("a", 0, 1), TimedWord("b", 1, 2)], []]
    >>> pair_errors(r, [[TimedWord("a", .2, .4)], [TimedWord("b", 5, 6)]]).tolist()
    [[1, 3], [1, 1]]
    """
    vocabulary: dict[str, int] = {}

    def padded(sides: Sequence[Sequence[TimedWord]]) -> tuple[NDArray[np.int64], ...]:
        width = max((len(words) for words in sides), default=0)
        ids = np.full((len(sides), width), -1, dtype=np.int64)
        starts = np.full((len(sides), width), np.nan)
        ends = np.full((len(sides), width), np.nan)  # NaN overlaps nothing
        for k, words in enumerate(sides):
            ids[k, :len(words)] = [vocabulary.setdefault(w.word, len(vocabulary))
                                   for w in words]
            starts[k, :len(words)] = [w.start for w in words]
            ends[k, :len(words)] = [w.end for w in words]
        return ids, starts, ends

    ref_ids, ref_start, ref_end = padded(references)
    hyp_ids, hyp_start, hyp_end = padded(hypotheses)
    ref_len = np.array([len(words) for words in references], dtype=np.int64)
    hyp_len = np.array([len(words) for words in hypotheses], dtype=np.int64)
    columns = np.arange(len(hypotheses))
    index = np.arange(hyp_ids.shape[1] + 1, dtype=np.int64)
    unpaired = int(ref_len.sum() + hyp_len.sum()) + 1
    row = np.broadcast_to(index, (len(references), len(hypotheses), index.size)).copy()
    errors = np.empty((len(references), len(hypotheses)), dtype=np.int64)
    errors[ref_len == 0] = hyp_len
    for i in range(ref_ids.shape[1]):
        overlaps = ((ref_start[:, i, None, None] < hyp_end[None])
                    & (ref_end[:, i, None, None] > hyp_start[None]))
        pair = np.where(overlaps, row[..., :-1] + (hyp_ids[None] != ref_ids[:, i, None, None]),
                        unpaired)
        row += 1                                                  # the word deleted
        np.minimum(row[..., 1:], pair, out=row[..., 1:])
        row -= index
        np.minimum.accumulate(row, axis=-1, out=row)              # words inserted
        row += index
        done = np.flatnonzero(ref_len == i + 1)
        errors[done] = row[done][:, columns, hyp_len]
    return errors


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
    cost = pair_errors(refs, hyps)
    rows, cols = linear_sum_assignment(cost)
    pairs = []
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        ref_name = ref_names[i] if i < len(ref_names) else None
        hyp_name = hyp_names[j] if j < len(hyp_names) else None
        if ref_name is not None or hyp_name is not None:
            counts = time_constrained_counts(refs[i], hyps[j])
            if counts.errors != cost[i, j]:
                raise AssertionError("tcp pair errors differ from their traced alignment")
            pairs.append(SpeakerPair(session_id, ref_name, hyp_name, counts))
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


def _bit(packed: NDArray[np.uint8], row: int, column: int) -> bool:
    """Cell ``column`` of ``row`` in a table packed by :func:`numpy.packbits`."""
    return bool((packed[row, column >> 3] >> (7 - (column & 7))) & 1)


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
