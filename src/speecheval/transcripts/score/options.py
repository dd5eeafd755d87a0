"""Which measures beyond the spec a score run computes (the manifest's ``extra_measures``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeasureOptions:
    """Measures beyond the spec that a manifest switches on (``extra_measures``).

    ORC-WER and tcpWER are meeteval's, not the spec's: off unless asked for, so a
    manifest that does not name them gets exactly the spec's outputs, and tcpWER has no
    collar of its own to default to (meeteval requires one too).
    """

    orc: bool = False
    tcp_collar_s: float | None = None
    chunk_regions: bool = False
    """Some run names its chunk cuts: score its regions apart (not a manifest key; see
    :mod:`.chunk_regions`)."""
