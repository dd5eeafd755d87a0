"""The scoring region of the one-pair ``der`` command when no UEM file is given.

The issue asks for ``[0, audio duration]`` by default. An RTTM pair does not know the audio
duration, so the user can state it (``--duration SECONDS`` for every file, or
``--duration FILE=SECONDS`` per file) instead of writing a UEM. Only when no duration is
known does the command fall back to ``[0, last turn end]`` and say so.

Whatever the region, turns that run past its end are cut there; :func:`clipped_turns`
counts them and the seconds cut, so a too-short duration is visible instead of silently
shrinking the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.decimal_seconds import parse_seconds
from ...core.errors import InputError
from ...core.timebase import US_PER_S
from ..formats.rttm import RTTM
from ..formats.uem import UEM


@dataclass(frozen=True)
class Durations:
    """Audio durations from the command line: one for every file, or one per file id."""

    every_file: float | None
    per_file: dict[str, float]

    def uem(self, ref: RTTM, hyp: RTTM) -> UEM:
        """``[0, duration]`` for every file of ``ref`` and ``hyp``.

        >>> d = parse_durations(["a=5", "b=7.5"])
        >>> ref = RTTM.parse("SPEAKER a 1 0 4 <NA> <NA> A <NA> <NA>\\n"
        ...                  "SPEAKER b 1 0 4 <NA> <NA> A <NA> <NA>\\n")
        >>> d.uem(ref, ref).dumps()
        'a 1 0.000 5.000\\nb 1 0.000 7.500\\n'
        """
        files = sorted({*ref.file_ids(), *hyp.file_ids(), *self.per_file})
        regions: dict[str, tuple[tuple[float, float], ...]] = {}
        for file_id in files:
            duration = self.per_file.get(file_id, self.every_file)
            if duration is None:
                raise InputError(f"--duration gives no duration for file {file_id!r}; give "
                                 f"--duration {file_id}=SECONDS (or one SECONDS for all)")
            regions[file_id] = ((0.0, duration),)
        return UEM.from_regions(regions)

    def describe(self) -> str:
        """The UEM source line for the output."""
        if self.every_file is not None and not self.per_file:
            return f"[0, {self.every_file:g}] per file from --duration"
        return "[0, duration] per file from --duration"


def parse_durations(values: Sequence[str]) -> Durations:
    """Read ``--duration`` values: ``SECONDS`` (all files) or ``FILE=SECONDS``, repeatable.

    >>> parse_durations(["12.5"]).every_file
    12.5
    >>> parse_durations(["0"])
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: --duration '0': seconds must be a finite number > 0
    """
    every: float | None = None
    per_file: dict[str, float] = {}
    for value in values:
        file_id, sep, seconds = value.rpartition("=")
        number = _seconds(value, seconds)
        if not sep:
            if every is not None:
                raise InputError(f"--duration {value!r}: a duration for every file is given "
                                 "twice")
            every = number
        elif not file_id or file_id in per_file:
            raise InputError(f"--duration {value!r}: file id missing or given twice")
        else:
            per_file[file_id] = number
    return Durations(every, per_file)


def _seconds(value: str, text: str) -> float:
    try:
        number = parse_seconds(text)
    except ValueError as exc:
        raise InputError(f"--duration {value!r}: {exc}") from None
    if number <= 0:
        raise InputError(f"--duration {value!r}: seconds must be a finite number > 0")
    return number


def clipped_turns(rttm: RTTM, uem: UEM) -> dict[str, Any]:
    """Turns of ``rttm`` that run past the end of their file's last scoring region.

    Hand check: region [0, 5]; turns 0-4 (inside), 3-6 (1 s cut) and 7-9 (2 s cut).

    >>> rttm = RTTM.parse("SPEAKER a 1 0 4 <NA> <NA> A <NA> <NA>\\n"
    ...                   "SPEAKER a 1 3 3 <NA> <NA> B <NA> <NA>\\n"
    ...                   "SPEAKER a 1 7 2 <NA> <NA> A <NA> <NA>\\n")
    >>> clipped_turns(rttm, UEM.from_regions({"a": ((0.0, 5.0),)}))
    {'turns': 2, 'seconds': 3.0}
    """
    columns = rttm.columns
    ends = {file_id: uem.regions(file_id)[-1][1] for file_id in uem.file_ids()}
    limit = np.array([ends.get(name, np.inf) for name in columns.file_names])[columns.files]
    start, end = columns.starts / US_PER_S, columns.ends / US_PER_S  # as RttmTurn's seconds
    past = np.flatnonzero(end > limit)
    cut = end[past] - np.maximum(start[past], limit[past])
    # Python's sum, in file order, as before: the rounding of the total stays the same
    return {"turns": int(past.size), "seconds": round(sum(cut.tolist()), 6)}
