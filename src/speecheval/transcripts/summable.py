"""Field-wise ``+`` for frozen result dataclasses, so ``sum(per_sample)`` is the corpus value.

Counts, error tallies and timing pools all add the same way: every field of the two
operands is combined and the constructor (with its ``__post_init__`` invariants) checks the
result. Writing that ``__add__`` by hand repeats each field name three times and lets a new
field be forgotten; inheriting it from one place cannot.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Tally(FieldwiseSum):
...     label: str
...     hits: int
...     items: tuple[str, ...]
...     _kept_fields = frozenset({"label"})
>>> sum([Tally("x", 1, ("a",)), Tally("y", 2, ("b",))])
Tally(label='x', hits=3, items=('a', 'b'))
>>> Tally("x", 1, ()) + 1
Traceback (most recent call last):
...
TypeError: unsupported operand type(s) for +: 'Tally' and 'int'
"""

from __future__ import annotations

from dataclasses import Field, fields, replace
from typing import Any, ClassVar, Self

import numpy as np


class FieldwiseSum:
    """Mixin for a frozen dataclass whose ``+`` combines every field of both operands.

    Numbers and tuples use their own ``+`` (tuples concatenate), numpy arrays are
    concatenated, and fields named in ``_kept_fields`` are taken from the left operand (a
    subclass checks beforehand that they agree where that matters). ``0 + x`` is ``x`` so
    that ``sum()`` needs no start value.
    """

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    _kept_fields: ClassVar[frozenset[str]] = frozenset()

    def __add__(self, other: object) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        return self._add_fields(other)

    def __radd__(self, other: object) -> Self:
        """Let ``sum()`` start from its default ``0``."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def _add_fields(self, other: Self) -> Self:
        """A new instance whose fields combine ``self``'s and ``other``'s (see the class)."""
        combined: dict[str, Any] = {}
        for field in fields(self):
            left, right = getattr(self, field.name), getattr(other, field.name)
            if field.name in self._kept_fields:
                combined[field.name] = left
            elif isinstance(left, np.ndarray):
                combined[field.name] = np.concatenate([left, right])
            else:
                combined[field.name] = left + right
        return replace(self, **combined)
