"""ORC-WER: optimal reference combination word error rate (meeteval's ``orcwer``).

Reference speaker labels are ignored. Every reference utterance (segment, in start-time
order) is assigned to exactly one hypothesis stream (a hypothesis speaker); each stream is
compared with the concatenation, in order, of the utterances assigned to it; the
assignment with the fewest total errors wins. It measures recognition quality of a
multi-stream system (e.g. separation + ASR) without charging it for speaker labels.

Solver: exact dynamic programme over stream positions, the multi-dimensional Levenshtein
recursion meeteval's ORC matching is built on, vectorised with numpy. The table ``D_u``
holds, for every tuple of positions in the hypothesis streams, the least cost of the
first ``u`` utterances having consumed exactly those prefixes (``D_0``: the words before
each position inserted). Utterance ``u`` goes to one stream ``k`` and takes a contiguous
piece of it: along axis ``k`` this is an ordinary Levenshtein recursion whose first row
is ``D_u`` itself, one row per word of the utterance; the inserted words of a row are a
running minimum (``E[j] = min(A[j], E[j-1] + 1)`` is ``j + cummin(A - j)``), so each
word of each utterance costs a few whole-array operations. ``D_{u+1}`` is the minimum
over streams; the total is ``D_U`` at the end of every stream. The assignment is read
back from the end through the stored tables with meeteval's own preferences among equal
costs (:func:`_trace`), so ties go where meeteval puts them. Time and memory grow with
the product of the stream lengths (meeteval refuses more than 10 streams for the same
reason).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...core.results import FieldwiseSum, Result
from ..formats.segment import Segment
from .align import Vocabulary, distance
from .counts import ErrorCounts
from .kaldi_split import kaldi_counts

# Above this many table cells (utterances + 1 times the product of stream lengths + 1)
# the exact solver is refused rather than left to fill the memory.
MAX_CELLS = 40_000_000


@dataclass(frozen=True)
class OrcResult(FieldwiseSum, Result, kind="transcripts.orc_result"):
    """ORC counts and, per reference utterance (in the order given), its hypothesis stream;
    ``sum()`` gives a corpus (the assignments one after the other)."""

    counts: ErrorCounts
    assignment: tuple[str | None, ...]

    @classmethod
    def zero(cls) -> OrcResult:
        """The neutral element of ``+``."""
        return cls(ErrorCounts.zero(), ())

    @property
    def error_rate(self) -> float | None:
        """ORC-WER as a fraction; ``None`` with no reference words."""
        return self.counts.error_rate


def orc_error_counts(utterances: Sequence[Sequence[str]],
                     streams: Mapping[str, Sequence[str]]) -> OrcResult:
    """ORC counts of one session: reference utterances in order, hypothesis streams by name.

    Among assignments with the fewest errors, the one meeteval 0.4.3 picks (see
    :func:`_trace`), streams ranking in the mapping's order (an utterance without words
    goes to the first stream); ``None`` for every utterance when there is no stream.

    Hand check (meeteval's own docstring case): utterances ``a``, ``c d``, ``e``; streams
    0 = ``a c``, 1 = ``d e``. Best: ``a`` and ``c d`` to stream 0 (``a c d`` vs ``a c``:
    1 deletion), ``e`` to 1 (``e`` vs ``d e``: 1 insertion): 2 errors over 4 words.

    >>> r = orc_error_counts([["a"], ["c", "d"], ["e"]], {"0": ["a", "c"], "1": ["d", "e"]})
    >>> r.counts.errors, r.counts.reference_tokens, r.assignment
    (2, 4, ('0', '0', '1'))
    """
    names = list(streams)
    vocab = Vocabulary()
    utts = [vocab.encode(u) for u in utterances]
    hyps = [vocab.encode(streams[n]) for n in names]
    if not names:
        ref_total = sum(len(u) for u in utts)
        return OrcResult(ErrorCounts(0, ref_total, 0, ref_total, 0), (None,) * len(utts))
    cells = len(utts) + 1
    for h in hyps:
        cells *= len(h) + 1
    if cells > MAX_CELLS:
        raise ValueError(f"ORC-WER: {len(utts)} utterances and {cells} solver table cells "
                         f"exceed the exact solver's limits ({MAX_CELLS} cells)")
    tables = _tables(utts, hyps)
    total = int(tables[-1][tuple(len(h) for h in hyps)])
    picks = _trace(tables, utts, hyps)
    counts = ErrorCounts.zero()
    for k, hyp in enumerate(hyps):
        ref = "".join(utt for utt, pick in zip(utts, picks, strict=True) if pick == k)
        counts += kaldi_counts(ref, hyp, distance(ref, hyp))
    if counts.errors != total:
        raise AssertionError("ORC solver cost differs from the cost of its assignment")
    return OrcResult(counts, tuple(names[k] for k in picks))


def _tables(utts: Sequence[str], hyps: Sequence[str]) -> list[NDArray[np.int32]]:
    """``D_0 ... D_U``: least cost of the first ``u`` utterances for every stream position
    (``D_0``: the words before each position inserted)."""
    shape = tuple(len(h) + 1 for h in hyps)
    table = np.zeros(shape, dtype=np.int32)
    for axis, size in enumerate(shape):
        table += np.arange(size, dtype=np.int32).reshape(
            [-1 if a == axis else 1 for a in range(len(shape))])
    codes = [np.fromiter(map(ord, h), dtype=np.int32, count=len(h)) for h in hyps]
    tables = [table]
    for utt in utts:
        previous = tables[-1]
        table = _along(previous, 0, utt, codes[0])
        for k in range(1, len(codes)):
            np.minimum(table, _along(previous, k, utt, codes[k]), out=table)
        tables.append(table)
    return tables


def _along(table: NDArray[np.int32], axis: int, utt: str, hyp: NDArray[np.int32]
           ) -> NDArray[np.int32]:
    """``table`` after utterance ``utt`` is aligned with a piece of stream ``axis``
    (Levenshtein rows along that axis, the first row being ``table``).

    The rows are kept shifted, ``F[j] = E[j] - j``, so that the inserted words of a row
    are a plain running minimum: ``E[j] = min(A[j], E[j-1] + 1)`` is
    ``F[j] = min(A[j] - j, F[j-1])``; a deletion keeps ``F[j] + 1``, a diagonal step from
    ``j-1`` adds ``mismatch - 1``.
    """
    # the stream's axis first and contiguous: a running minimum along axis 0 is a
    # vectorised minimum of whole rows, the fastest direction for numpy
    rows = np.ascontiguousarray(np.moveaxis(table, axis, 0))
    index = np.arange(hyp.size + 1, dtype=np.int32).reshape((-1,) + (1,) * (table.ndim - 1))
    shifted = _running_min(rows - index)  # words inserted before
    steps: dict[int, NDArray[np.int32]] = {}
    for word in map(ord, utt):
        step = steps.get(word)
        if step is None:
            step = steps[word] = ((hyp != word).astype(np.int32) - 1).reshape(
                index[1:].shape)
        moved = shifted + 1                                            # the word deleted
        np.minimum(moved[1:], shifted[:-1] + step, out=moved[1:])
        shifted = _running_min(moved)
    return np.moveaxis(shifted + index, 0, axis)


DOUBLING_CELLS = 16_384
"""From this many cells on, a running minimum by doubling beats ``minimum.accumulate``
(which steps one row at a time without vector instructions)."""


def _running_min(values: NDArray[np.int32]) -> NDArray[np.int32]:
    """The running minimum along axis 0, in place: ``minimum.accumulate`` for small
    arrays, else log2(rows) whole-array minimums with the rows shifted by 1, 2, 4, ..."""
    if values.size < DOUBLING_CELLS:
        return np.minimum.accumulate(values, axis=0, out=values)
    shift = 1
    while shift < values.shape[0]:
        np.minimum(values[shift:], values[:-shift], out=values[shift:])
        shift *= 2
    return values


def _trace(tables: Sequence[NDArray[np.int32]], utts: Sequence[str], hyps: Sequence[str]
           ) -> list[int]:
    """The stream of each utterance, read back from the end as meeteval 0.4.3 does.

    meeteval fills the same tables forwards and keeps, per cell, the first stream (in
    stream order) whose Levenshtein row reaches the cell's least cost, and the row's
    start; its rows prefer, at a mismatch, the insertion, then the deletion, then the
    substitution, and at a match the diagonal. Walking back from the end of every
    stream, each utterance takes that stream, and the row's start is where the previous
    utterances end. The least costs are the same whichever solver filled the tables, so
    this rule, applied to ours, picks meeteval's assignment.
    """
    position = [len(h) for h in hyps]
    picks = []
    for u in range(len(utts), 0, -1):
        cost = int(tables[u][tuple(position)])
        for k, hyp in enumerate(hyps):
            where: tuple[int | slice, ...] = (*position[:k], slice(0, position[k] + 1),
                                              *position[k + 1:])
            line = tables[u - 1][where]
            start = _row_start(line.tolist(), utts[u - 1], hyp[:position[k]], cost)
            if start is not None:
                picks.append(k)
                position[k] = start
                break
        else:
            raise AssertionError("ORC assignment found no stream")
    return picks[::-1]


def _row_start(first_row: list[int], utt: str, hyp: str, cost: int) -> int | None:
    """Where on ``hyp`` the Levenshtein row of ``utt`` that ends at its last cell starts,
    with meeteval's preferences (see :func:`_trace`), if it reaches ``cost`` there."""
    costs, starts = first_row, list(range(len(first_row)))
    for symbol in utt:
        diagonal = (costs[0], starts[0])
        costs[0] += 1
        left = (costs[0], starts[0])
        for j, word in enumerate(hyp, start=1):
            up = (costs[j], starts[j])
            if symbol == word:
                left = diagonal
            else:
                best = left
                if up[0] < best[0]:
                    best = up
                if diagonal[0] < best[0]:
                    best = diagonal
                left = (best[0] + 1, best[1])
            costs[j], starts[j] = left
            diagonal = up
    return starts[-1] if costs[-1] == cost else None


def orc_error_rate(reference: Iterable[Segment], hypothesis: Iterable[Segment]) -> OrcResult:
    """ORC-WER summed over sessions, words split on whitespace as meeteval splits them.

    Reference utterances and each hypothesis stream are ordered by segment start time
    (a stable sort: equal starts keep file order), as meeteval's default does; streams
    rank, for ties, by their first segment in that order (meeteval's grouping). The
    assignment lists the stream of each reference segment in the order given (file
    order, per session in session order), as meeteval's does.
    """
    ref = _by_session(reference)
    hyp = _by_session(hypothesis)
    total = OrcResult.zero()
    for session in sorted(set(ref) | set(hyp)):
        given = ref.get(session, [])
        order = sorted(range(len(given)), key=lambda i: _start(given[i]))
        utterances = [given[i].words.split() for i in order]
        streams: dict[str, list[str]] = {}
        for seg in _ordered(hyp.get(session, [])):
            if seg.speaker is None:
                raise ValueError(f"hypothesis segment without a speaker in session {session!r}")
            streams.setdefault(seg.speaker, []).extend(seg.words.split())
        result = orc_error_counts(utterances, streams)
        picked = dict(zip(order, result.assignment, strict=True))
        total += OrcResult(result.counts, tuple(picked[i] for i in range(len(given))))
    return total


def _by_session(segments: Iterable[Segment]) -> dict[str, list[Segment]]:
    grouped: dict[str, list[Segment]] = {}
    for segment in segments:
        grouped.setdefault(segment.session_id, []).append(segment)
    return grouped


def _start(segment: Segment) -> float:
    return segment.start if segment.start is not None else 0.0


def _ordered(segments: list[Segment]) -> list[Segment]:
    return sorted(segments, key=_start)
