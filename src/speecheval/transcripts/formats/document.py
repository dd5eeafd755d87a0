"""The common shape of the segment-based transcript formats (CTM, STM, SegLST, SRT, ...).

Each format is a frozen list of :class:`~.segment.Segment` in file order with its own
``parse`` and ``dumps``; holding the segments, accepting any iterable of them, reading a
file and writing a new one atomically are the same for all, so they live here once.
Formats that name their session in every line (CTM, STM, SegLST) derive from
:class:`SessionTaggedDocument`; the others (SRT, WebVTT, TextGrid, raw tagged output) from
:class:`SessionFileDocument`, whose session id is given or taken from the file name.

A subclass that sets ``suffixes`` joins the format registry (:mod:`.registry`) when it is
defined, so :func:`speecheval.transcripts.formats.load` reads its files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

from ._io import decode_text, read_bytes, write_new
from .segment import Segment

FORMATS_BY_SUFFIX: dict[str, type[SegmentDocument]] = {}
"""Every format by each of its suffixes; a format adds itself when its class is defined, and
:mod:`.registry` looks files' formats up here."""


def _register(cls: type[SegmentDocument]) -> None:
    """Add a format under each of its suffixes; a suffix claimed by another is an error."""
    for suffix in cls.suffixes:
        known = FORMATS_BY_SUFFIX.get(suffix)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise ValueError(f"suffix {suffix!r} is claimed by {known.__qualname__} and "
                             f"{cls.__qualname__}")
        FORMATS_BY_SUFFIX[suffix] = cls


@dataclass(frozen=True)
class SegmentDocument(ABC):
    """Segments of one transcript document, in document order; subclasses add the syntax.

    ``format_name`` names the format in a read error (``cannot read CTM file: ...``).
    A concrete format also says how the registry recognises it and what its files hold:

    - ``suffixes``: file suffixes (lower case, with the dot) that mean this format;
    - ``header``: text every file of the format starts with, if any (for other suffixes);
    - ``word_timed``: every segment is one timed word (CTM), so the file gives token times;
    - ``raw_text``: the file is one raw model output string, compared as written by the
      MOSS parity track;
    - ``utf16``: a file may also be UTF-16 with a byte-order mark (:func:`._io.read_text`),
      as tools that write the format save it; otherwise such a file is refused.
    """

    segments: tuple[Segment, ...]

    format_name: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]] = ()
    header: ClassVar[str | None] = None
    word_timed: ClassVar[bool] = False
    raw_text: ClassVar[bool] = False
    utf16: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "suffixes" in cls.__dict__:
            _register(cls)

    def __init__(self, segments: Iterable[Segment]) -> None:
        object.__setattr__(self, "segments", tuple(segments))

    @classmethod
    def load(cls, path: str | Path, session_id: str | None = None) -> Self:
        """Read and parse a file (UTF-8, a BOM is dropped; see ``utf16``); see the
        subclasses for ``session_id``."""
        return cls.from_bytes(read_bytes(path, cls.format_name), path, session_id)

    @classmethod
    @abstractmethod
    def from_bytes(cls, data: bytes, path: str | Path, session_id: str | None = None) -> Self:
        """Parse ``data``, the bytes of the file ``path``, as :meth:`load` does (the
        registry calls it with the bytes it read to find the format)."""

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
    def from_bytes(cls, data: bytes, path: str | Path, session_id: str | None = None) -> Self:
        """Parse a file's bytes; its lines name their sessions, so ``session_id`` is not
        used."""
        return cls.parse(decode_text(data, path, cls.format_name, utf16=cls.utf16), path=path)


class SessionFileDocument(SegmentDocument):
    """A format with no session field: one file is one session."""

    @classmethod
    @abstractmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> Self:
        """Parse text as session ``session_id``; errors name ``path`` and the line."""

    @classmethod
    def from_bytes(cls, data: bytes, path: str | Path, session_id: str | None = None) -> Self:
        """Parse a file's bytes; the session id defaults to the file name without
        suffix."""
        return cls.parse(decode_text(data, path, cls.format_name, utf16=cls.utf16),
                         session_id or Path(path).stem, path=path)
