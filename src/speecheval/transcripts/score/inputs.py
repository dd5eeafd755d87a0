"""Reading a sample's files into segments and RTTM turns, named after the sample.

Every file of a sample describes one recording, so its session (or RTTM file) id is
replaced by the sample id; a file naming several sessions is refused rather than
silently merged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from ...core.errors import InputError
from ...core.timeline import Span
from .. import formats
from ..formats.rttm import RTTM, RttmTurn
from ..formats.segment import Segment, speakers_all_or_none


def load_transcript(path: Path, sample_id: str) -> tuple[Segment, ...]:
    """Segments of a transcript file in its format (:func:`..formats.load`), session set
    to the sample; a file of several sessions, or where some segments have a speaker and
    some do not, is refused."""
    segments = formats.load(path, sample_id).segments
    sessions = sorted({s.session_id for s in segments})
    if len(sessions) > 1:
        raise InputError(f"file holds several sessions ({', '.join(sessions[:3])}); give one "
                         "file per sample", path=path, sample_id=sample_id)
    speakers_all_or_none(segments, path, sample_id)
    return tuple(dataclasses.replace(s, session_id=sample_id) for s in segments)


def load_rttm(path: Path, sample_id: str) -> RTTM:
    """RTTM turns of one recording, file id set to the sample."""
    rttm = RTTM.load(path)
    files = rttm.file_ids()
    if len(files) > 1:
        raise InputError(f"RTTM holds several files ({', '.join(files[:3])}); give one file "
                         "per sample", path=path, sample_id=sample_id)
    return rttm.renamed(sample_id)


def rttm_from_segments(segments: Sequence[Segment], sample_id: str,
                       path: Path | None) -> RTTM:
    """Speaker turns of a transcript whose segments all have speakers and times."""
    turns = []
    for seg in segments:
        assert seg.speaker is not None and seg.start is not None and seg.end is not None
        turns.append(RttmTurn(sample_id, Span.from_seconds(seg.start, seg.end, seg.speaker),
                              line=seg.line))
    return RTTM(tuple(turns), path=None if path is None else str(path))


def segments_from_rttm(rttm: RTTM) -> tuple[Segment, ...]:
    """RTTM turns as word-less segments (for turn boundaries and timelines)."""
    return tuple(Segment(t.file_id, t.speaker, t.start, t.end, "", line=t.line)
                 for t in rttm.turns)


def flat_text(segments: Sequence[Segment]) -> str:
    """The words of all segments as one text, in time order when every segment has a start
    (stable, so equal starts keep file order), else in file order."""
    ordered = (sorted(segments, key=lambda s: s.start or 0.0)
               if all(s.start is not None for s in segments) else list(segments))
    return " ".join(s.words for s in ordered)
