"""A growable audio buffer indexed by sample, zeros where nothing has been written.

The virtual runner records both tracks in it, and the send path keeps the signals it
computes in it, so any stretch of a session can be read back by sample position. A
buffer that only needs its recent past (a filter's input) forgets the rest.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

Sample = TypeVar("Sample", np.int16, np.float64)


class Track(Generic[Sample]):
    """Samples by position; reading past the end grows the buffer with zeros."""

    def __init__(self, capacity: int, dtype: type[Sample]) -> None:
        self.data: NDArray[Sample] = np.zeros(max(capacity, 1), dtype=dtype)
        self.origin = 0  # the position of data[0]: what lies before it is forgotten

    def write(self, pos: int, samples: NDArray[Sample]) -> None:
        at = pos - self.origin
        end = at + samples.size
        if end > self.data.size:
            grown = np.zeros(max(end, 2 * self.data.size), dtype=self.data.dtype)
            grown[:self.data.size] = self.data
            self.data = grown
        self.data[at:end] = samples

    def view(self, start: int, end: int) -> NDArray[Sample]:
        if end - self.origin > self.data.size:
            self.write(end, self.data[:0])
        return self.data[start - self.origin:end - self.origin]

    def forget(self, before: int) -> None:
        """Samples before ``before`` will not be read or written again: drop them once
        they fill half the buffer (so the copy is paid once per half a buffer)."""
        dead = before - self.origin
        if dead > self.data.size // 2:
            kept = np.zeros_like(self.data)
            kept[:self.data.size - dead] = self.data[dead:]
            self.data, self.origin = kept, before
