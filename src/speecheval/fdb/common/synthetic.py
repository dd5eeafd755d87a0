"""What the synthetic dataset builders of v1.0 and v1.5 share: the background noise and its
per-sample seed, and JSON written in the official dataset's layout."""

from __future__ import annotations

import json
from typing import Any

from ...core.hashing import sha256_bytes

NOISE_SHIFT = 5
"""Background noise is a random int8 shifted right by this much: -4..3 PCM16 steps (about
-78 dBFS), enough that no stretch is digital silence, far below anything Silero calls
speech."""


def official_json(value: Any) -> str:
    """JSON in the official dataset's layout (4-space indent, floats as Python repr).

    The canonical writer rounds floats to 9 decimals, which would erase the float noise
    (6.32000000000005) that real annotation files carry and that the scorer must round
    away itself, so the files that mimic the dataset are written with ``json.dumps``.
    """
    return json.dumps(value, indent=4, ensure_ascii=False, allow_nan=False) + "\n"


def noise_seed(seed: int, sample_id: str) -> int:
    """A per-sample generator seed that depends only on the tree seed and the sample id."""
    return int(sha256_bytes(f"{seed}/{sample_id}".encode())[:16], 16)
