"""``metadata.json`` of a v1.5 sample, as a ``core.schema`` model.

The official files hold exactly three keys; the builder adds nothing to them (how a
sample was made goes into the dataset's ``speecheval-dataset.json``), so an unknown key
is refused as a typo would be.
"""

from __future__ import annotations

import math

from pydantic import field_validator

from ....core.schema import Schema


class SampleMetadata(Schema):
    """The texts of the sample and the overlap window ``[start, end]`` in seconds."""

    context_text: str
    current_turn_text: str
    timestamps: tuple[float, float]

    @field_validator("timestamps")
    @classmethod
    def _ordered_window(cls, value: tuple[float, float]) -> tuple[float, float]:
        start, end = value
        if not (math.isfinite(start) and math.isfinite(end)):
            raise ValueError(f"must be finite seconds, got {list(value)}")
        if start < 0 or end <= start:
            raise ValueError(f"must be [start, end] with 0 <= start < end, got {list(value)}")
        return value
