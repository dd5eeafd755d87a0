"""A growable audio buffer indexed by sample, zeros where nothing has been written.

The virtual runner records both tracks in it, and the send path keeps the signals it
computes in it, so any stretch of a session can be read back by sample position.
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

    def write(self, pos: int, samples: NDArray[Sample]) -> None:
        end = pos + samples.size
        if end > self.data.size:
            grown = np.zeros(max(end, 2 * self.data.size), dtype=self.data.dtype)
            grown[:self.data.size] = self.data
            self.data = grown
        self.data[pos:end] = samples

    def view(self, start: int, end: int) -> NDArray[Sample]:
        if end > self.data.size:
            self.write(end, self.data[:0])
        return self.data[start:end]
