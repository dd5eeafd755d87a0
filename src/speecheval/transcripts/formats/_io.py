"""Shared plumbing of the transcript format modules: reading text, writing new files."""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from pathlib import Path

from ...core.decimal_seconds import parse_seconds
from ...core.errors import InputError
from ...core.log import get_logger

_log = get_logger(__name__)


def read_text(path: str | Path, what: str, *, utf16: bool = False) -> str:
    """UTF-8 text of ``path`` (a BOM is dropped, line ends read as ``\\n``); unreadable
    input is an InputError.

    ``utf16``: a file that starts with a UTF-16 byte-order mark is read as UTF-16 (Praat
    writes TextGrids with non-ASCII labels that way, Windows editors SRT and STM files
    saved as "Unicode"); without it such a file is refused as UTF-16."""
    return decode_text(read_bytes(path, what), path, what, utf16=utf16)


def read_bytes(path: str | Path, what: str) -> bytes:
    """The bytes of ``path``; a file that cannot be read is an InputError."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc}", path=path) from exc
    _log.debug("read %s file %s (%d bytes)", what, path, len(data))
    return data


def decode_text(data: bytes, path: str | Path, what: str, *, utf16: bool = False) -> str:
    """:func:`read_text` on the bytes ``data`` already read from ``path`` (for a caller
    that looked at them before knowing the format, so the file is read once)."""
    is_utf16 = data[:2] in (codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)
    if is_utf16 and not utf16:
        raise InputError(f"cannot read {what} file: it is UTF-16 (it starts with a UTF-16 "
                         f"byte-order mark); {what} files are read as UTF-8", path=path)
    try:
        return io.TextIOWrapper(io.BytesIO(data),
                                encoding="utf-16" if is_utf16 else "utf-8-sig").read()
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {what} file: {exc}", path=path) from exc


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, broken at line feeds only (a CR LF or a lone CR counts as
    one, as a file read in text mode has them).

    :meth:`str.splitlines` also breaks at U+2028, U+2029, U+0085 and the ASCII
    separators U+001C..U+001E, which may stand inside a line's text (JSON allows U+2028
    unescaped in a string): a line would be cut in two, and every later line numbered
    wrong, where an editor and ``wc -l`` see one.

    >>> split_lines("a\\u2028b\\r\\nc\\rd\\n")
    ['a\\u2028b', 'c', 'd', '']
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def data_lines(text: str, comment: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """``(line number from 1, stripped line)`` of the lines that are neither blank nor start
    with one of the ``comment`` prefixes: the common skeleton of the line-based formats.

    >>> list(data_lines(";; note\\n\\n rec 1 A \\n", (";;",)))
    [(3, 'rec 1 A')]
    """
    for number, raw in enumerate(split_lines(text), start=1):
        stripped = raw.strip()
        if stripped and not stripped.startswith(comment):
            yield number, stripped


def write_new(path: str | Path, text: str) -> None:
    """Write ``text`` to a path that must not exist yet, atomically."""
    # imported here: shutil and tempfile (3 ms) are for writing, and most reads write nothing
    from ...core.output import atomic_write_text, refuse_existing

    atomic_write_text(refuse_existing(path), text)


def seconds(text: str, field: str, where: str, path: str | None) -> float:
    """Parse a time field, or raise an InputError naming the file, ``where`` (``line 3``)
    and the field."""
    try:
        return parse_seconds(text)
    except ValueError as exc:
        raise InputError(f"{where}: {field}: {exc}", path=path) from None


def span(start: float, end: float, where: str, path: str | None) -> None:
    """Refuse a negative start or an end before the start."""
    if start < 0:
        raise InputError(f"{where}: negative start time {start}", path=path)
    if end < start:
        raise InputError(f"{where}: end time {end} is before start time {start}", path=path)
