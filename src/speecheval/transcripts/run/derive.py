"""Transcripts derived from saved raw answers, one file per derivation rule version.

A derived transcript is SegLST on the timeline of the audio the system was given (the
sample; the gold window's crop). The rule that turns a raw answer into it has a version,
:data:`VERSION`, in the file name (``transcript@seglst-1.json``): a new version writes a
new file beside the old ones from the same raw answer, without calling the system.

On the chunked track each chunk's segments are moved by the chunk's start and kept whole
in chunk order; each row also carries its ``chunk`` and its ``region`` (``in_segment`` or
``across_cut``, see :mod:`.chunker`), so results near cuts can be reported apart. Speaker
labels are reconciled by rule ``same-label/1``: a label is taken to be the same speaker in
every chunk that uses it (chunks decoded apart that share no audio give no evidence for
anything finer); how many chunk-local labels became how many stitched ones is counted in
the lineage record. Chunks decoded with an overlap (their facts name a ``cut_s``) are
stitched by ``overlap-owned/1`` instead (a segment kept only in the chunk owning its
midpoint) and their labels reconciled by ``overlap-match/1`` on the shared audio
(:mod:`.reconcile`); the record then also counts the labels renamed.

Where the raw answer gives word times (whisper-local's ``words``, an OpenAI-compatible
answer's ``words`` list, a command's CTM), a second file ``words@seglst-words-1.json``
holds one SegLST row per timed word (rule :data:`WORDS_VERSION`), so the main
(token-anchored) timestamp protocol can score the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps
from ..formats.seglst import SegLST, seglst_row
from ..formats.segment import Segment
from .chunker import OVERLAP_STITCHING, STITCHING, region
from .reconcile import RULE as OVERLAP_RULE
from .reconcile import SAME_LABEL, reconcile, relabelled
from .systems.registry import PARSERS, WORD_PARSERS

VERSION = "seglst/1"
WORDS_VERSION = "seglst-words/1"
"""The rule of the word-level transcript (``words@seglst-words-1.json``) derived beside
the segment one where the raw answer gives word times."""


def transcript_name(version: str, stem: str = "transcript") -> str:
    """The file name of a derived transcript of rule ``version`` (``stem`` ``words`` for
    the word-level one)."""
    return f"{stem}@{version.replace('/', '-')}.json"


def derive(raw: Path, adapter: str, sample_id: str, meta: dict[str, Any],
           cut_margin_s: float) -> tuple[str, dict[str, Any]]:
    """(SegLST text, facts for the lineage) of the raw folder of a succeeded job."""
    parse = PARSERS[adapter]
    chunks = meta.get("chunks")
    if chunks is None:
        return SegLST(parse(raw, sample_id)).dumps(), {}
    pieces = [parse(raw / _chunk_folder(chunk), sample_id) for chunk in chunks]
    labels = {(chunk["index"], seg.speaker) for chunk, segments in zip(chunks, pieces,
                                                                         strict=True)
              for seg in segments if seg.speaker is not None}
    maps = _label_maps(chunks, pieces)
    if maps is not None:
        pieces = [relabelled(segments, m) for segments, m in zip(pieces, maps, strict=True)]
    rows, regions = _stitched(chunks, pieces, sample_id, cut_margin_s)
    reconciliation: dict[str, Any] = {
        "rule": SAME_LABEL if maps is None else OVERLAP_RULE, "chunk_labels": len(labels),
        "stitched_labels": len({s.speaker for p in pieces for s in p if s.speaker})}
    if maps is not None:
        reconciliation.update(renamed=sum(a != b for m in maps for a, b in m.items()),
                              maps=maps)
    facts = {"stitching": OVERLAP_STITCHING if maps is not None else STITCHING,
             "regions": regions, "reconciliation": reconciliation}
    return dumps(rows), facts


def derive_words(raw: Path, adapter: str, sample_id: str, meta: dict[str, Any],
                 cut_margin_s: float) -> tuple[str, dict[str, Any]] | None:
    """(word-level SegLST text, facts for the lineage) of a succeeded job whose raw answer
    gives word times (rule :data:`WORDS_VERSION`: one row per timed word, on the same
    timeline as the transcript; chunks moved and labelled as there); ``None`` when the
    adapter's answer has no word times (on the chunked track: when any chunk's has none)."""
    words = WORD_PARSERS[adapter]
    chunks = meta.get("chunks")
    if chunks is None:
        found = words(raw, sample_id)
        return None if found is None else (SegLST(found).dumps(), {})
    pieces = [words(raw / _chunk_folder(chunk), sample_id) for chunk in chunks]
    if any(piece is None for piece in pieces):
        return None
    timed = [p for p in pieces if p is not None]
    maps = _label_maps(chunks, [PARSERS[adapter](raw / _chunk_folder(chunk), sample_id)
                                for chunk in chunks])
    if maps is not None:  # a word's label is its segment's: the chunk's map applies
        timed = [relabelled(piece, m) for piece, m in zip(timed, maps, strict=True)]
    rows, regions = _stitched(chunks, timed, sample_id, cut_margin_s)
    return dumps(rows), {"stitching": OVERLAP_STITCHING if _overlapped(chunks)
                         else STITCHING, "regions": regions}


def _chunk_folder(chunk: dict[str, Any]) -> str:
    return f"chunk-{chunk['index']:03d}"


def _overlapped(chunks: list[dict[str, Any]]) -> bool:
    """Whether the chunks were decoded with an overlap (their facts name their cuts)."""
    return "cut_s" in chunks[0]


def _cut(chunk: dict[str, Any]) -> float:
    return float(chunk.get("cut_s", chunk["start_s"]))


def _moved(chunk: dict[str, Any], segments: list[Segment]) -> list[Segment]:
    offset = chunk["start_s"]
    return [Segment(seg.session_id, seg.speaker,
                    None if seg.start is None else seg.start + offset,
                    None if seg.end is None else seg.end + offset, seg.words)
            for seg in segments]


def _label_maps(chunks: list[dict[str, Any]], pieces: list[list[Segment]]
                ) -> list[dict[str, str]] | None:
    """Each chunk's ``overlap-match/1`` label map when the chunks overlap (``None``: keep
    the labels, ``same-label/1``)."""
    if not _overlapped(chunks):
        return None
    moved = [_moved(chunk, segments) for chunk, segments in zip(chunks, pieces, strict=True)]
    return reconcile([c["start_s"] for c in chunks], [_cut(c) for c in chunks], moved)


def _stitched(chunks: list[dict[str, Any]], pieces: list[list[Segment]], sample_id: str,
              cut_margin_s: float) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each chunk's segments moved by where its audio begins, in chunk order, as SegLST
    rows with their ``chunk`` and ``region``; and how many rows fell in each region. With
    an overlap a timed segment is kept only in the chunk owning its midpoint."""
    cuts = [_cut(c) for c in chunks[1:]]
    owned = list(zip([0.0, *cuts], [*cuts, float("inf")], strict=True))
    rows = []
    regions = {"in_segment": 0, "across_cut": 0}
    for chunk, segments, (low, high) in zip(chunks, pieces, owned, strict=True):
        offset = chunk["start_s"]
        for seg in segments:
            start = None if seg.start is None else seg.start + offset
            end = None if seg.end is None else seg.end + offset
            if _overlapped(chunks) and start is not None and end is not None \
                    and not low <= (start + end) / 2 < high:
                continue
            row = seglst_row(Segment(sample_id, seg.speaker, start, end, seg.words))
            row["chunk"] = chunk["index"]
            if start is not None and end is not None:
                row["region"] = region(start, end, cuts, cut_margin_s)
                regions[row["region"]] += 1
            rows.append(row)
    return rows, regions
