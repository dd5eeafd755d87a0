"""Columns of a plain RTTM straight from its bytes, with array operations only.

Diarization systems write RTTM one way: ten fields separated by single spaces, ``1`` as
the channel, ``<NA>`` in the unused fields and times as short decimals
(``SPEAKER rec 1 12.340 1.500 <NA> <NA> spk3 <NA> <NA>``). A file of only such lines is
read here without a Python object per line: the separators are found with numpy, the
times are converted digit column by digit column, and file ids and speaker names are
decoded once per distinct value. A million lines take well under a second and the
arrays 24 bytes a turn (file and speaker codes int32, starts and ends int64). The file
is cut into chunks of whole lines, read by up to ``_THREADS`` threads at once (numpy
lets go of the interpreter lock inside each array operation, so two cores read about
twice as fast); the chunks' columns are joined in file order, so the result does not
depend on the number of threads. Which column is which, and the values a plain line holds
in the columns scoring does not use, come from :mod:`.rttm_fields`, the table the line
reader checks lines against.

Every time is converted to exactly the float that ``float(text)`` gives: a decimal of at
most 15 significant digits is its integer mantissa (exact in float64) divided by a power
of ten up to 10**15 (exact too), and IEEE division rounds that quotient correctly, as
``float`` does. Anything else (comments, other records, another field count, tabs,
``\\r``, signs, exponents, longer numbers, other channel or ``<NA>`` fields, text that
is not UTF-8) returns ``None``, and the caller reads the file line by line with the
checks and error messages of :mod:`.rttm`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from ...core.decimal_seconds import MAX_SECONDS
from ...core.timebase import to_us_array
from .rttm_fields import DURATION, FILE, MAX_FIELDS, NAME, ONSET, PLAIN

FIELDS = MAX_FIELDS
_SPACE, _NEWLINE, _DOT, _ZERO = ord(" "), ord("\n"), ord("."), ord("0")
_MAX_DIGITS = 15
_FEW = 16  # distinct file ids or speakers a piece is coded by comparison (_few_codes)
_CHUNK_BYTES = 1 << 20  # small enough for a core's cache, large enough for numpy
_THREADS = 2  # chunks read at once (one core: they take turns, at no extra cost)
_WORD = 8  # bytes in one window (see _windows)
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(_WORD + 1)], dtype=np.uint64)
_POWERS_OF_TEN = np.array([float(10**k) for k in range(_MAX_DIGITS + 1)])  # each exact
# The columns that must hold their plain value exactly (type, channel and the <NA> ones).
_FIXED = {column: text.encode() for column, text in PLAIN.items()}

Positions = NDArray[np.int32]  # byte offsets and lengths inside one chunk
Columns = tuple[tuple[str, ...], NDArray[np.int32], tuple[str, ...], NDArray[np.int32],
                NDArray[np.int64], NDArray[np.int64]]


def plain_columns(data: bytes) -> Columns | None:
    """``(file names, file codes, speaker names, speaker codes, starts µs, ends µs)`` of
    a plain RTTM (see the module), codes in order of first appearance; ``None`` if the
    file is not plain.

    >>> names, files, speakers, codes, starts, ends = plain_columns(
    ...     b"SPEAKER a 1 0.5 1.25 <NA> <NA> x <NA> <NA>\\n"
    ...     b"SPEAKER a 1 2 .5 <NA> <NA> y <NA> <NA>\\n")
    >>> names, files.tolist(), speakers, codes.tolist(), starts.tolist(), ends.tolist()
    (('a',), [0, 0], ('x', 'y'), [0, 1], [500000, 2000000], [1750000, 2500000])
    >>> plain_columns(b"SPEAKER a 1 0.5 1.25 <NA> <NA> x <NA>\\n") is None  # 9 fields
    True
    """
    if not data:
        return None
    return _ChunkedReader(data).read()


class _ChunkedReader:
    """The chunks of one file read, by up to ``_THREADS`` threads, into columns for the
    whole file made once in the calling thread.

    Why the columns are not made by the workers: memory that a thread's arrays free
    goes back to that thread's malloc arena, where the calling thread cannot reuse it;
    chunk results kept alive in the workers' arenas until the end would leave those
    arenas full of holes for the rest of the run (about 20 MB more peak memory for the
    scorer at a million turns a side).
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.bounds = list(_chunks(data))
        rows = [0]
        for begin, end in self.bounds:
            rows.append(rows[-1] + data.count(b"\n", begin, end) + (data[end - 1] != _NEWLINE))
        self.rows = rows  # chunk k holds lines rows[k] to rows[k + 1] - 1
        self.files = np.empty(rows[-1], dtype=np.int32)
        self.speakers = np.empty(rows[-1], dtype=np.int32)
        self.starts = np.empty(rows[-1], dtype=np.int64)
        self.ends = np.empty(rows[-1], dtype=np.int64)
        self.names: list[tuple[tuple[str, ...], tuple[str, ...]]] = [((), ())] * len(self.bounds)

    def read(self) -> Columns | None:
        """The columns, codes renumbered for the whole file; ``None`` if a chunk is not
        plain."""
        chunks = range(len(self.bounds))
        threads = min(_THREADS, len(chunks))
        if threads < 2:
            plain = all(map(self._read_chunk, chunks))
        else:
            from concurrent.futures import ThreadPoolExecutor  # here: it imports logging

            with ThreadPoolExecutor(threads, thread_name_prefix="rttm") as pool:
                try:
                    plain = all(pool.map(self._read_chunk, chunks))
                finally:  # chunks not started yet when one is not plain (or on Ctrl-C)
                    pool.shutdown(cancel_futures=True)
        if not plain:
            return None
        file_index: dict[str, int] = {}
        speaker_index: dict[str, int] = {}
        for k, (file_names, speaker_names) in enumerate(self.names):
            rows = slice(self.rows[k], self.rows[k + 1])
            self.files[rows] = _recode(file_index, file_names)[self.files[rows]]
            self.speakers[rows] = _recode(speaker_index, speaker_names)[self.speakers[rows]]
        return (tuple(file_index), self.files, tuple(speaker_index), self.speakers,
                self.starts, self.ends)

    def _read_chunk(self, k: int) -> bool:
        """Chunk ``k`` into its rows of the columns (codes of the chunk's own names)."""
        begin, end = self.bounds[k]
        part = _plain_chunk(np.frombuffer(self.data, dtype=np.uint8, count=end - begin,
                                          offset=begin))
        if part is None:
            return False
        rows = slice(self.rows[k], self.rows[k + 1])
        file_names, self.files[rows], speaker_names, self.speakers[rows] = part[:4]
        self.starts[rows], self.ends[rows] = part[4:]
        self.names[k] = (file_names, speaker_names)
        return True


def _chunks(data: bytes) -> Iterator[tuple[int, int]]:
    """``(begin, end)`` byte offsets of ``data`` cut after a newline every
    ``_CHUNK_BYTES`` or so."""
    position = 0
    while position < len(data):
        cut = data.find(b"\n", position + _CHUNK_BYTES)
        end = len(data) if cut < 0 else cut + 1
        yield position, end
        position = end


def _recode(index: dict[str, int], names: tuple[str, ...]) -> NDArray[np.int32]:
    """Codes of ``names`` in ``index`` (new names added in order)."""
    return np.array([index.setdefault(name, len(index)) for name in names], dtype=np.int32)


def _plain_chunk(buf: NDArray[np.uint8]) -> Columns | None:
    """:func:`plain_columns` of whole lines."""
    if buf[-1] != _NEWLINE:
        buf = np.append(buf, np.uint8(_NEWLINE))
    separator = buf <= _SPACE  # a space, or a byte below it
    ends = np.flatnonzero(separator).astype(np.int32)  # the byte after every field
    del separator
    if ends.size % FIELDS or np.count_nonzero(buf < _SPACE) != ends.size // FIELDS:
        return None  # another field count, or a tab, \r or other control byte
    bounds = ends.reshape(-1, FIELDS)
    if (buf[bounds[:, -1]] != _NEWLINE).any():
        return None  # else the bytes below a space are exactly the lines' newlines
    starts = np.empty_like(bounds)
    starts[0, 0] = 0
    starts[1:, 0] = bounds[:-1, -1] + 1
    starts[:, 1:] = bounds[:, :-1] + 1
    lengths = bounds - starts
    if (lengths <= 0).any():
        return None  # two separators in a row, or an empty line
    words = _windows(buf)
    for k, text in _FIXED.items():
        if not _equals(words, starts[:, k], lengths[:, k], text):
            return None
    onset = _decimals(words, starts[:, ONSET], lengths[:, ONSET])
    duration = _decimals(words, starts[:, DURATION], lengths[:, DURATION])
    if onset is None or duration is None:
        return None
    if (onset > MAX_SECONDS).any() or (duration > MAX_SECONDS).any():
        return None
    files = _categories(buf, words, starts[:, FILE], lengths[:, FILE])
    speakers = _categories(buf, words, starts[:, NAME], lengths[:, NAME])
    if files is None or speakers is None:
        return None
    return (*files, *speakers, to_us_array(onset), to_us_array(onset + duration))


def _windows(buf: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """``words[i]``: the eight bytes from ``buf[i]`` on as one little-endian integer
    (overlapping windows over a zero-padded copy), so a field of up to eight bytes is
    read with one gather; the padding lets the second word of a field (eight bytes
    further) be read without bounds checks.

    >>> _windows(np.frombuffer(b"ab", dtype=np.uint8))[:2].tolist() == [0x6261, 0x62]
    True
    """
    padded = np.zeros(buf.size + 2 * _WORD, dtype=np.uint8)
    padded[:buf.size] = buf
    return np.ndarray((buf.size + _WORD,), dtype="<u8", buffer=padded, strides=(1,))


def _field_words(words: NDArray[np.uint64], at: Positions, length: Positions,
                 offset: int = 0) -> NDArray[np.uint64]:
    """Bytes ``offset`` to ``offset + 7`` of each field as one integer, the bytes past the
    field's end set to 0 (no field holds a 0 byte, so equal words are equal texts)."""
    if offset:
        word, keep = words[at + offset], np.clip(length - offset, 0, _WORD)
    else:
        word, keep = words[at], np.minimum(length, _WORD)
    word &= _MASKS[keep]
    return word


def _equals(words: NDArray[np.uint64], at: Positions, length: Positions,
            text: bytes) -> bool:
    """Whether every field is exactly ``text`` (at most eight bytes)."""
    if (length != len(text)).any():
        return False
    word = words[at]
    word &= _MASKS[len(text)]
    return bool((word == int.from_bytes(text, "little")).all())


def _decimals(words: NDArray[np.uint64], at: Positions,
              length: Positions) -> NDArray[np.float64] | None:
    """Fields of digits with at most one point and 15 digits, as ``float`` reads them.

    The fields become columns of bytes (one row of the matrix per byte position), read
    left to right: the mantissa is an integer below 10**15 (exact in float64), then one
    correctly rounded division by ``10 ** decimals`` gives what ``float`` gives.

    >>> w = _windows(np.frombuffer(b"12.5 0.007 3", dtype=np.uint8))
    >>> at, length = np.array([0, 5, 11], dtype=np.int32), np.array([4, 5, 1], dtype=np.int32)
    >>> _decimals(w, at, length).tolist()
    [12.5, 0.007, 3.0]
    """
    width = int(length.max())
    if width > _MAX_DIGITS + 1:
        return None
    text = np.empty((at.size, 2), dtype=np.uint64)
    text[:, 0] = _field_words(words, at, length)
    text[:, 1] = _field_words(words, at, length, _WORD)
    columns = np.ascontiguousarray(text.view(np.uint8).reshape(at.size, 2 * _WORD)[:, :width].T)
    del text
    numerals = columns - np.uint8(_ZERO)  # a digit's value; other bytes wrap to 10 or more
    digit = numerals < 10
    point = columns == _DOT
    allowed = (digit | point).sum(axis=0, dtype=np.int8)  # bytes past a field's end are 0
    if (allowed != length).any():
        return None  # a byte of the field that is neither a digit nor a point
    points = point.sum(axis=0, dtype=np.int8)
    digits = allowed - points
    if (points > 1).any() or (digits == 0).any() or (digits > _MAX_DIGITS).any():
        return None
    # width minus the point's column, where there is one: the digits after it follow
    from_right = (point * np.arange(width, 0, -1, dtype=np.int8)[:, None]).sum(axis=0,
                                                                              dtype=np.int8)
    decimals = np.where(points > 0, length - (width - from_right) - 1, 0)
    mantissa = np.zeros(at.size, dtype=np.int64)
    for value, is_digit in zip(numerals, digit, strict=True):  # left to right, as written
        mantissa = np.where(is_digit, mantissa * 10 + value, mantissa)
    values: NDArray[np.float64] = mantissa.astype(np.float64) / _POWERS_OF_TEN[decimals]
    return values


def _categories(buf: NDArray[np.uint8], words: NDArray[np.uint64], at: Positions,
                length: Positions) -> tuple[tuple[str, ...], NDArray[np.int32]] | None:
    """Distinct field texts in order of first appearance, and each field's index into them;
    ``None`` if one is not UTF-8 or holds a character ``str.split`` takes as whitespace."""
    keys = _keys(buf, words, at, length)
    found = _few_codes(keys)
    firsts, codes = found if found is not None else _sorted_codes(keys)
    try:
        names = tuple(bytes(buf[a:a + n]).decode("utf-8") for a, n in zip(
            at[firsts].tolist(), length[firsts].tolist(), strict=True))
    except UnicodeDecodeError:
        return None
    if any(name.split() != [name] for name in names):
        return None
    return names, codes


def _few_codes(keys: NDArray[np.uint64] | NDArray[np.bytes_]
               ) -> tuple[NDArray[np.intp], NDArray[np.int32]] | None:
    """The row of each distinct key's first appearance, in order, and each row's code,
    when there are at most ``_FEW`` distinct keys (a piece of a file names a few speakers
    and files): one comparison pass per distinct key, from the first row no pass has
    matched yet; ``None`` when there are more.

    >>> firsts, codes = _few_codes(np.array([7, 3, 7, 9, 3], dtype=np.uint64))
    >>> firsts.tolist(), codes.tolist()
    ([0, 1, 3], [0, 1, 0, 2, 1])
    """
    codes = np.empty(keys.size, dtype=np.int32)
    unmatched = np.ones(keys.size, dtype=bool)
    firsts, row = [], 0
    for code in range(_FEW):
        hit = keys == keys[row]
        np.copyto(codes, code, where=hit)
        firsts.append(row)
        np.greater(unmatched, hit, out=unmatched)  # unmatched and not hit
        row = int(unmatched.argmax())
        if not unmatched[row]:
            return np.array(firsts, dtype=np.intp), codes
    return None


def _sorted_codes(keys: NDArray[np.uint64] | NDArray[np.bytes_]
                  ) -> tuple[NDArray[np.intp], NDArray[np.int32]]:
    """:func:`_few_codes` for any number of distinct keys: equal neighbours are found
    first (a file id repeats for thousands of lines), then the first key of each run is
    sorted to number the distinct keys.

    >>> firsts, codes = _sorted_codes(np.array([7, 3, 7, 9, 3], dtype=np.uint64))
    >>> firsts.tolist(), codes.tolist()
    ([0, 1, 3], [0, 1, 0, 2, 1])
    """
    same = np.zeros(keys.size, dtype=bool)
    same[1:] = keys[1:] == keys[:-1]
    heads = np.flatnonzero(~same)
    run = np.cumsum(~same) - 1
    head_keys = keys[heads]
    order = np.argsort(head_keys, kind="stable")
    ranked = head_keys[order]
    new = np.ones(ranked.size, dtype=bool)
    new[1:] = ranked[1:] != ranked[:-1]
    first = order[new]  # the first run of each distinct text, in sorted-key order
    appearance = np.argsort(first, kind="stable")
    code = np.empty(appearance.size, dtype=np.int32)
    code[appearance] = np.arange(appearance.size, dtype=np.int32)
    head_codes = np.empty(heads.size, dtype=np.int32)
    head_codes[order] = code[np.cumsum(new) - 1]
    return heads[np.sort(first)], head_codes[run]


def _keys(buf: NDArray[np.uint8], words: NDArray[np.uint64], at: Positions,
          length: Positions) -> NDArray[np.uint64] | NDArray[np.bytes_]:
    """One comparable key per field, equal exactly when the texts are: the field's word
    when every field fits in one, else its bytes padded with zeros."""
    width = int(length.max())
    if width <= _WORD:
        return _field_words(words, at, length)
    padded = np.zeros((at.size, width), dtype=np.uint8)
    for column in range(width):
        inside = column < length
        padded[inside, column] = buf[at[inside] + column]
    return padded.view(f"S{width}").ravel()
