"""Which transcript format a file is in: one registry that every format joins by itself.

A format is one module in this package holding a :class:`~.document.SegmentDocument`
subclass with ``suffixes`` (and, if its files start with a fixed header, ``header``).
Defining the class registers it (in :data:`.document.FORMATS_BY_SUFFIX`, beside the base
class, so this module imports the formats and they do not import it); nothing else names
the format, so adding one is writing its module. :func:`load` picks the format by the
file's suffix and, for a suffix no format claims, by the header its text starts with.

The format modules are imported the first time a format is looked up, so importing one
format (``formats.rttm`` for ``transcripts der``) does not import them all.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from ...core.errors import InputError
from ._io import decode_text, read_bytes
from .document import FORMATS_BY_SUFFIX as _BY_SUFFIX
from .document import SegmentDocument

_discovered = False


def _discover() -> None:
    """Import every module of this package once, so every format has registered."""
    global _discovered
    if not _discovered:
        for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
            if not module.name.startswith("_"):
                importlib.import_module(f"{__package__}.{module.name}")
        _discovered = True


def suffixes() -> tuple[str, ...]:
    """Every registered suffix (lower case, with the dot), sorted."""
    _discover()
    return tuple(sorted(_BY_SUFFIX))


def format_of(path: str | Path) -> type[SegmentDocument]:
    """The format of ``path``: by suffix, else by the header its text starts with.

    >>> format_of("talk.TextGrid").format_name, format_of("a.vtt").format_name
    ('TextGrid', 'WebVTT')
    """
    return _identify(path)[0]


def load(path: str | Path, session_id: str | None = None) -> SegmentDocument:
    """Read ``path`` in its format (see :func:`format_of`).

    ``session_id`` names the session of a format without session fields (SRT, WebVTT,
    TextGrid, raw output; default: the file name without suffix); formats whose lines
    name their session (STM, CTM, SegLST) keep their own.
    """
    cls, data = _identify(path)
    if data is None:
        return cls.load(path, session_id)
    return cls.from_bytes(data, path, session_id)


def _identify(path: str | Path) -> tuple[type[SegmentDocument], bytes | None]:
    """:func:`format_of`, with the file's bytes when its header had to be read to tell
    (so that :func:`load` parses those instead of reading the file a second time)."""
    _discover()
    found = _BY_SUFFIX.get(Path(path).suffix.lower())
    if found is not None:
        return found, None
    headed = sorted({cls for cls in _BY_SUFFIX.values() if cls.header is not None},
                    key=lambda cls: cls.format_name)
    if headed and Path(path).is_file():
        data = read_bytes(path, "transcript")
        # any BOM read here; the format found decides whether it accepts UTF-16
        text = decode_text(data, path, "transcript", utf16=True).lstrip()
        for cls in headed:
            assert cls.header is not None
            if text.startswith(cls.header):
                return cls, data
    raise InputError(f"unknown transcript format {Path(path).suffix.lower() or '(no suffix)'}"
                     f"; expected a suffix among {', '.join(suffixes())}", path=path)
