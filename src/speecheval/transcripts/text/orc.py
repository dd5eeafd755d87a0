"""ORC-WER: optimal reference combination word error rate (meeteval's ``orcwer``).

Reference speaker labels are ignored. Every reference utterance (segment, in start-time
order) is assigned to exactly one hypothesis stream (a hypothesis speaker); each stream is
compared with the concatenation, in order, of the utterances assigned to it; the
assignment with the fewest total errors wins. It measures recognition quality of a
multi-stream system (e.g. separation + ASR) without charging it for speaker labels.

Solver: exact dynamic programme over stream positions, the multi-dimensional Levenshtein
recursion meeteval's ORC matching is built on, vectorised with numpy. The table ``D_u``
holds, for every tuple of positions in the hypothesis streams, the least cost of the
first ``u`` utterances having consumed exactly those prefixes. Utterance ``u`` goes to
one stream ``k`` and takes a contiguous piece of it: along axis ``k`` this is an ordinary
Levenshtein recursion whose first row is ``D_u`` itself (a free start anywhere on the
stream), one row per word of the utterance; the inserted words of a row are a running
minimum (``E[j] = min(A[j], E[j-1] + 1)`` is ``j + cummin(A - j)``), so each word of
each utterance costs a few whole-array operations. ``D_{u+1}`` is the minimum over
streams; the words left on every stream at the end are inserted. The assignment is read
back through the stored tables. Time and memory grow with the product of the stream
lengths (meeteval refuses more than 10 streams for the same reason).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..formats.segment import Segment
from .align import Vocabulary, distance
from .counts import ErrorCounts
from .kaldi_split import kaldi_counts

# Above this many table cells (utterances + 1 times the product of stream lengths + 1)
# the exact solver is refused rather than left to fill the memory.
MAX_CELLS = 40_000_000


@dataclass(frozen=True)
class OrcResult:
    """ORC counts and, per reference utterance (in the order given), its hypothesis stream."""

    counts: ErrorCounts
    assignment: tuple[str | None, ...]

    @property
    def error_rate(self) -> float | None:
        """ORC-WER as a fraction; ``None`` with no reference words."""
        return self.counts.error_rate


def orc_error_counts(utterances: Sequence[Sequence[str]],
                     streams: Mapping[str, Sequence[str]]) -> OrcResult:
    """ORC counts of one session: reference utterances in order, hypothesis streams by name.

    Hand check (meeteval's own docstring case): utterances ``a``, ``c d``, ``e``; streams
    0 = ``a c``, 1 = ``d e``. Best: ``a`` and ``c d`` to stream 0 (``a c d`` vs ``a c``:
    1 deletion), ``e`` to 1 (``e`` vs ``d e``: 1 insertion): 2 errors over 4 words.

    >>> r = orc_error_counts([["a"], ["c", "d"], ["e"]], {"0": ["a", "c"], "1": ["d", "e"]})
    >>> r.counts.errors, r.counts.reference_tokens, r.assignment
    (2, 4, ('0', '0', '1'))
    """
    names = sorted(streams)
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
    # Solved backwards (utterances and streams reversed): the tables then give the least
    # cost of the remaining utterances from any stream positions, so the assignment is
    # read forwards and a tie goes to the lowest stream for the earliest utterance
    # (meeteval's choice in its own example; other ties may go elsewhere than its).
    tables = _tables([u[::-1] for u in reversed(utts)], [h[::-1] for h in hyps])
    lengths = tuple(len(h) for h in hyps)
    to_go = _cost_to_go(tables[-1])
    total = int(to_go[lengths])
    assigned: list[list[str]] = [[] for _ in names]
    picks: list[int] = []
    position = [0] * len(hyps)
    for u, utt in enumerate(utts):
        after = _cost_to_go(tables[len(utts) - 1 - u])
        k, end = _next_piece(int(to_go[tuple(n - p for n, p in zip(lengths, position,
                                                                    strict=True))]),
                             after, utt, hyps, position)
        picks.append(k)
        assigned[k].append(utt)
        position[k] = end
        to_go = after
    counts = ErrorCounts.zero()
    for k, hyp in enumerate(hyps):
        ref = "".join(assigned[k])
        counts += kaldi_counts(ref, hyp, distance(ref, hyp))
    if counts.errors != total:
        raise AssertionError("ORC solver cost differs from the cost of its assignment")
    return OrcResult(counts, tuple(names[k] for k in picks))


def _tables(utts: Sequence[str], hyps: Sequence[str]) -> list[NDArray[np.int32]]:
    """``D_0 ... D_U``: least cost of the first ``u`` utterances for every stream position."""
    shape = tuple(len(h) + 1 for h in hyps)
    # larger than any real cost, and small enough that adding a few stays inside int32
    unreachable = sum(len(u) for u in utts) + sum(len(h) for h in hyps) + 1
    table = np.full(shape, unreachable, dtype=np.int32)
    table[(0,) * len(hyps)] = 0
    codes = [np.fromiter(map(ord, h), dtype=np.int32, count=len(h)) for h in hyps]
    tables = [table]
    for utt in utts:
        best = _along(table, 0, utt, codes[0])
        for k in range(1, len(codes)):
            np.minimum(best, _along(table, k, utt, codes[k]), out=best)
        table = np.minimum(best, unreachable)
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


def _cost_to_go(table: NDArray[np.int32]) -> NDArray[np.int32]:
    """From a table of the reversed problem, the least cost of the utterances it covers
    when ``q`` words are left on each stream: the best ``q' <= q`` plus ``q - q'`` words
    inserted (one running minimum per axis)."""
    for axis in range(table.ndim):
        index = np.arange(table.shape[axis], dtype=np.int32).reshape(
            [-1 if a == axis else 1 for a in range(table.ndim)])
        table = np.minimum.accumulate(table - index, axis=axis) + index
    return table


def _next_piece(cost: int, after: NDArray[np.int32], utt: str, hyps: Sequence[str],
                position: list[int]) -> tuple[int, int]:
    """The stream and piece end for ``utt`` at ``position`` that keep the total at
    ``cost`` (``after``: the cost to go once it is placed); the lowest stream, then the
    shortest piece, when several do."""
    left = [len(h) - p for h, p in zip(hyps, position, strict=True)]
    for k, hyp in enumerate(hyps):
        at = list(left)
        for end in range(position[k], len(hyp) + 1):
            at[k] = len(hyp) - end
            if distance(utt, hyp[position[k]:end]) + int(after[tuple(at)]) == cost:
                return k, end
    raise AssertionError("ORC assignment found no piece")


def orc_error_rate(reference: Iterable[Segment], hypothesis: Iterable[Segment]) -> OrcResult:
    """ORC-WER summed over sessions, words split on whitespace as meeteval splits them.

    Reference utterances and each hypothesis stream are ordered by segment start time
    (a stable sort: equal starts keep file order), as meeteval's default does.
    """
    ref = _by_session(reference)
    hyp = _by_session(hypothesis)
    total = OrcResult(ErrorCounts.zero(), ())
    for session in sorted(set(ref) | set(hyp)):
        utterances = [s.words.split() for s in _ordered(ref.get(session, []))]
        streams: dict[str, list[str]] = {}
        for seg in _ordered(hyp.get(session, [])):
            if seg.speaker is None:
                raise ValueError(f"hypothesis segment without a speaker in session {session!r}")
            streams.setdefault(seg.speaker, []).extend(seg.words.split())
        result = orc_error_counts(utterances, streams)
        total = OrcResult(total.counts + result.counts, total.assignment + result.assignment)
    return total


def _by_session(segments: Iterable[Segment]) -> dict[str, list[Segment]]:
    grouped: dict[str, list[Segment]] = {}
    for segment in segments:
        grouped.setdefault(segment.session_id, []).append(segment)
    return grouped


def _ordered(segments: list[Segment]) -> list[Segment]:
    return sorted(segments, key=lambda s: s.start if s.start is not None else 0.0)
