"""Transcripts derived from saved raw answers, one file per derivation rule version.

A derived transcript is SegLST on the timeline of the audio the system was given (the
sample; the gold window's crop). The rule that turns a raw answer into it has a version,
:data:`VERSION`, in the file name (``transcript@seglst-1.json``): a new version writes a
new file beside the old ones from the same raw answer, without calling the system.

On the chunked track each chunk's segments are moved by the chunk's start and kept whole
in chunk order; each row also carries its ``chunk`` and its ``region`` (``in_segment`` or
``across_cut``, see :mod:`.chunker`), so results near cuts can be reported apart. Speaker
labels are reconciled by rule ``same-label/1``: a label is taken to be the same speaker in
every chunk that uses it (chunks are decoded apart and share no audio, so there is no
evidence for anything finer); how many chunk-local labels became how many stitched ones
is counted in the lineage record.

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
from .chunker import STITCHING, region
from .systems.registry import PARSERS, WORD_PARSERS

VERSION = "seglst/1"
WORDS_VERSION = "seglst-words/1"
"""The rule of the word-level transcript (``words@seglst-words-1.json``) derived beside
the segment one where the raw answer gives word times."""
RECONCILIATION = "same-label/1"


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
    rows, regions = _stitched(chunks, pieces, sample_id, cut_margin_s)
    labels = {(chunk["index"], seg.speaker) for chunk, segments in zip(chunks, pieces,
                                                                         strict=True)
              for seg in segments if seg.speaker is not None}
    facts = {"stitching": STITCHING, "regions": regions,
             "reconciliation": {"rule": RECONCILIATION, "chunk_labels": len(labels),
                                "stitched_labels": len({label for _, label in labels})}}
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
    rows, regions = _stitched(chunks, [p for p in pieces if p is not None], sample_id,
                              cut_margin_s)
    return dumps(rows), {"stitching": STITCHING, "regions": regions}


def _chunk_folder(chunk: dict[str, Any]) -> str:
    return f"chunk-{chunk['index']:03d}"


def _stitched(chunks: list[dict[str, Any]], pieces: list[list[Segment]], sample_id: str,
              cut_margin_s: float) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each chunk's segments moved by its start, in chunk order, as SegLST rows with their
    ``chunk`` and ``region``; and how many rows fell in each region."""
    cuts = [c["start_s"] for c in chunks[1:]]
    rows = []
    regions = {"in_segment": 0, "across_cut": 0}
    for chunk, segments in zip(chunks, pieces, strict=True):
        offset = chunk["start_s"]
        for seg in segments:
            start = None if seg.start is None else seg.start + offset
            end = None if seg.end is None else seg.end + offset
            row = seglst_row(Segment(sample_id, seg.speaker, start, end, seg.words))
            row["chunk"] = chunk["index"]
            if start is not None and end is not None:
                row["region"] = region(start, end, cuts, cut_margin_s)
                regions[row["region"]] += 1
            rows.append(row)
    return rows, regions
