"""ORC-WER: optimal reference combination word error rate (meeteval's ``orcwer``).

Reference speaker labels are ignored. Every reference utterance (segment, in start-time
order) is assigned to exactly one hypothesis stream (a hypothesis speaker); each stream is
compared with the concatenation, in order, of the utterances assigned to it; the
assignment with the fewest total errors wins. It measures recognition quality of a
multi-stream system (e.g. separation + ASR) without charging it for speaker labels.

Solver: exact dynamic programme. Aligning a stream with a concatenation of utterances
splits the stream into one contiguous piece per utterance, so the state after utterance
``u`` is how far each stream has been consumed; utterance ``u`` goes to one stream ``k``
and takes ``stream_k[p:q]`` for some ``q >= p`` at cost ``distance(utterance, piece)``;
what is left of every stream at the end is inserted. The state space is
``utterances x prod(stream length + 1)``: exact, meant for small and medium cases (meeteval
refuses more than 10 streams for the same reason).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from ..formats.segment import Segment
from .align import Vocabulary, distance
from .counts import ErrorCounts
from .kaldi_split import kaldi_counts

# Above this many DP states the exact solver is refused rather than left to run for hours.
MAX_STATES = 2_000_000
# The solver recurses once per utterance; more than this would near Python's stack limit.
MAX_UTTERANCES = 400


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
    states = len(utts) + 1
    for h in hyps:
        states *= len(h) + 1
    if states > MAX_STATES or len(utts) > MAX_UTTERANCES:
        raise ValueError(f"ORC-WER: {len(utts)} utterances and {states} solver states exceed "
                         f"the exact solver's limits ({MAX_UTTERANCES}, {MAX_STATES})")

    @cache
    def best(u: int, pos: tuple[int, ...]) -> tuple[int, int, int]:
        """(least cost from here, chosen stream, chosen piece end) for utterance ``u``."""
        if u == len(utts):
            return sum(len(h) - p for h, p in zip(hyps, pos, strict=True)), -1, -1
        choice = (-1, -1, -1)
        for k, hyp in enumerate(hyps):
            start = pos[k]
            for end in range(start, len(hyp) + 1):
                here = distance(utts[u], hyp[start:end])
                if choice[0] >= 0 and here >= choice[0]:
                    continue  # the rest costs at least 0: no improvement possible
                rest = best(u + 1, pos[:k] + (end,) + pos[k + 1:])[0]
                if choice[0] < 0 or here + rest < choice[0]:
                    choice = (here + rest, k, end)
        return choice

    assigned: list[list[str]] = [[] for _ in names]
    picks: list[int] = []
    pos = (0,) * len(hyps)
    for u in range(len(utts)):
        _, k, end = best(u, pos)
        picks.append(k)
        assigned[k].append(utts[u])
        pos = pos[:k] + (end,) + pos[k + 1:]
    total = best(0, (0,) * len(hyps))[0]
    best.cache_clear()
    counts = ErrorCounts.zero()
    for k, hyp in enumerate(hyps):
        ref = "".join(assigned[k])
        counts += kaldi_counts(ref, hyp, distance(ref, hyp))
    if counts.errors != total:
        raise AssertionError("ORC solver cost differs from the cost of its assignment")
    return OrcResult(counts, tuple(names[k] for k in picks))


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
