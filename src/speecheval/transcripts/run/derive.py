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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps
from ..formats.seglst import SegLST, seglst_row
from ..formats.segment import Segment
from .chunker import STITCHING, region
from .systems.registry import PARSERS

VERSION = "seglst/1"
RECONCILIATION = "same-label/1"


def transcript_name(version: str) -> str:
    """The file name of a derived transcript of rule ``version``."""
    return f"transcript@{version.replace('/', '-')}.json"


def derive(raw: Path, adapter: str, sample_id: str, meta: dict[str, Any],
           cut_margin_s: float) -> tuple[str, dict[str, Any]]:
    """(SegLST text, facts for the lineage) of the raw folder of a succeeded job."""
    parse = PARSERS[adapter]
    chunks = meta.get("chunks")
    if chunks is None:
        return SegLST(parse(raw, sample_id)).dumps(), {}
    cuts = [c["start_s"] for c in chunks[1:]]
    rows = []
    labels: set[tuple[int, str]] = set()
    regions = {"in_segment": 0, "across_cut": 0}
    for chunk in chunks:
        offset = chunk["start_s"]
        for seg in parse(raw / f"chunk-{chunk['index']:03d}", sample_id):
            start = None if seg.start is None else seg.start + offset
            end = None if seg.end is None else seg.end + offset
            row = seglst_row(Segment(sample_id, seg.speaker, start, end, seg.words))
            row["chunk"] = chunk["index"]
            if start is not None and end is not None:
                row["region"] = region(start, end, cuts, cut_margin_s)
                regions[row["region"]] += 1
            if seg.speaker is not None:
                labels.add((chunk["index"], seg.speaker))
            rows.append(row)
    facts = {"stitching": STITCHING, "regions": regions,
             "reconciliation": {"rule": RECONCILIATION, "chunk_labels": len(labels),
                                "stitched_labels": len({label for _, label in labels})}}
    return dumps(rows), facts

