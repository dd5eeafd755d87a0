"""The common shape of the segment-based transcript formats (CTM, STM, SegLST, SRT, ...).

Each format is a frozen list of :class:`~.segment.Segment` in file order with its own
``parse`` and ``dumps``; holding the segments, accepting any iterable of them, reading a
file and writing a new one atomically are the same for all, so they live here once.
Formats that name their session in every line (CTM, STM, SegLST) derive from
:class:`SessionTaggedDocument`; the others (SRT, WebVTT, TextGrid, raw tagged output) from
:class:`SessionFileDocument`, whose session id is given or taken from the file name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

from ._io import read_text, write_new
from .segment import Segment


@dataclass(frozen=True)
class SegmentDocument(ABC):
    """Segments of one transcript document, in document order; subclasses add the syntax.

    ``format_name`` names the format in a read error (``cannot read CTM file: ...``).
    """

    segments: tuple[Segment, ...]

    format_name: ClassVar[str]

    def __init__(self, segments: Iterable[Segment]) -> None:
        object.__setattr__(self, "segments", tuple(segments))

    @abstractmethod
    def dumps(self) -> str:
        """The document as text in the subclass's format."""

    def dump(self, path: str | Path) -> None:
        """Write to a new file (never overwrites), atomically."""
        write_new(path, self.dumps())


class SessionTaggedDocument(SegmentDocument):
    """A format whose lines carry their own session id."""

    @classmethod
    @abstractmethod
    def parse(cls, text: str, path: str | Path | None = None) -> Self:
        """Parse text; errors name ``path`` and the line or entry."""

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read and parse a file (UTF-8, a BOM is dropped)."""
        return cls.parse(read_text(path, cls.format_name), path=path)


class SessionFileDocument(SegmentDocument):
    """A format with no session field: one file is one session."""

    @classmethod
    @abstractmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> Self:
        """Parse text as session ``session_id``; errors name ``path`` and the line."""

    @classmethod
    def load(cls, path: str | Path, session_id: str | None = None) -> Self:
        """Read and parse a file; the session id defaults to the file name without suffix."""
        return cls.parse(read_text(path, cls.format_name), session_id or Path(path).stem,
                         path=path)
