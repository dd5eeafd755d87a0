"""Speaker labels across chunks: rule ``overlap-match/1`` for chunks that share audio.

Chunks decoded apart name their speakers on their own: the second chunk's ``S01`` need not
be the first chunk's. When adjacent chunks overlap (``--chunk-overlap-s``), both heard the
overlap, and who spoke there is the evidence: chunk ``k``'s labels are mapped onto the
labels chunk ``k - 1`` ended up with (chunk 0's are kept) by the speech time they share
in the overlap ``[start of chunk k's audio, chunk k's cut]``:

- the overlap matrix: for each label ``a`` of chunk ``k`` and ``b`` of chunk ``k - 1``,
  the seconds where a segment of ``a`` and one of ``b`` both lie inside the overlap;
- greedy on it: the largest positive entry pairs its two labels, both leave the matrix,
  again until no positive entry is left; ties go to the smaller ``(a, b)`` (string
  order), so the same answers give the same labels;
- a label of chunk ``k`` left unpaired keeps its name (``same-label/1``'s rule: there is no
  evidence against it) unless a paired label took that name in this chunk; then it is
  ``<label>@chunk<k>``, a speaker of its own.

Without overlap (the default) rule ``same-label/1`` applies: a label is the same speaker
in every chunk that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..formats.segment import Segment

RULE = "overlap-match/1"
SAME_LABEL = "same-label/1"


def shared_seconds(mine: Sequence[Segment], theirs: Sequence[Segment], low: float,
                   high: float) -> dict[tuple[str, str], float]:
    """Seconds inside ``[low, high]`` where a segment of label ``a`` (of ``mine``) and one
    of label ``b`` (of ``theirs``) overlap, by ``(a, b)``; positive entries only.

    >>> a = [Segment("s", "S01", 9.0, 11.0, "x")]
    >>> b = [Segment("s", "B", 8.0, 10.5, "y"), Segment("s", "C", 10.5, 12.0, "z")]
    >>> shared_seconds(a, b, 9.5, 11.0)
    {('S01', 'B'): 1.0, ('S01', 'C'): 0.5}
    """
    shared: dict[tuple[str, str], float] = {}
    for x in mine:
        for y in theirs:
            if None in (x.speaker, y.speaker, x.start, x.end, y.start, y.end):
                continue
            assert x.start is not None and x.end is not None and y.start is not None \
                and y.end is not None and x.speaker is not None and y.speaker is not None
            seconds = min(x.end, y.end, high) - max(x.start, y.start, low)
            if seconds > 0:
                key = (x.speaker, y.speaker)
                shared[key] = shared.get(key, 0.0) + seconds
    return dict(sorted(shared.items()))


def label_map(shared: dict[tuple[str, str], float], labels: Sequence[str], chunk: int
              ) -> dict[str, str]:
    """Each of ``labels`` (chunk ``chunk``'s) mapped to its stitched name (greedy on
    ``shared``, see the module docstring).

    >>> label_map({("S01", "S02"): 2.0, ("S02", "S01"): 1.5, ("S01", "S01"): 0.2},
    ...           ["S01", "S02"], 1)
    {'S01': 'S02', 'S02': 'S01'}
    >>> label_map({("A", "X"): 1.0}, ["A", "X"], 3)
    {'A': 'X', 'X': 'X@chunk3'}
    """
    paired: dict[str, str] = {}
    left = dict(shared)
    while left:
        (a, b), _ = min(left.items(), key=lambda item: (-item[1], item[0]))
        paired[a] = b
        left = {key: value for key, value in left.items() if key[0] != a and key[1] != b}
    taken = set(paired.values())
    return {label: paired.get(label, label if label not in taken else f"{label}@chunk{chunk}")
            for label in sorted(set(labels))}


def reconcile(starts_s: Sequence[float], cuts_s: Sequence[float],
              pieces: Sequence[Sequence[Segment]]) -> list[dict[str, str]]:
    """Each chunk's label map (chunk-local label -> stitched label; chunk 0's the
    identity), for chunks whose segments are on the sample's timeline already;
    ``starts_s[k]``: where chunk ``k``'s audio begins, ``cuts_s[k]``: its cut (where the
    chunk before it stops owning the audio)."""
    maps: list[dict[str, str]] = []
    stitched: list[list[Segment]] = []
    for k, segments in enumerate(pieces):
        labels = sorted({s.speaker for s in segments if s.speaker is not None})
        mapping = ({label: label for label in labels} if k == 0 else label_map(
            shared_seconds(segments, stitched[k - 1], starts_s[k], cuts_s[k]), labels, k))
        maps.append(mapping)
        stitched.append(relabelled(segments, mapping))
    return maps


def relabelled(segments: Sequence[Segment], mapping: dict[str, str]) -> list[Segment]:
    """``segments`` with their labels mapped (an unlabelled or unmapped one as it is)."""
    return [s if s.speaker not in mapping else replace(s, speaker=mapping[s.speaker])
            for s in segments]
