"""One stretch of time in integer microseconds (:class:`Span`) and a record timed by one.

Why apart from :mod:`.timeline`: a span is plain integers, and what reads one file format
or one transcript (``speecheval transcripts wer``, ``cp``) needs no arrays. Keeping it out
of the vectorised module keeps numpy (some 50 ms of import) out of those commands.
:mod:`.timeline` re-exports both names, which is where they are documented and used from.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

from .timebase import from_us, to_us

SecondsPair = tuple[float, float]
"""A span as ``(start_s, end_s)`` float seconds: the view of the module docstring."""
def _as_int(value: object, name: str) -> int:
    """``value`` as a Python int; numpy integers are accepted, bools and floats are not."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer number of microseconds, got {value!r}")
    return int(value)


@dataclass(frozen=True, slots=True)
class Span:
    """One stretch of time ``[start_us, end_us)`` on the input timeline.

    >>> s = Span.from_seconds(1.2, 6.32000000000005, label="agent")
    >>> s.start_us, s.end_us, s.end_s, s.duration_us
    (1200000, 6320000, 6.32, 5120000)
    >>> s.overlap_us(Span(6_000_000, 7_000_000))
    320000
    >>> Span(5, 3)
    Traceback (most recent call last):
    ...
    ValueError: span ends before it starts: [5, 3) us
    """

    start_us: int
    end_us: int
    label: str | None = None
    open_at_end: bool = False

    def __post_init__(self) -> None:
        start, end = _as_int(self.start_us, "start_us"), _as_int(self.end_us, "end_us")
        if end < start:
            raise ValueError(f"span ends before it starts: [{start}, {end}) us")
        if self.label is not None and not isinstance(self.label, str):
            raise TypeError(f"label must be a string or None, got {self.label!r}")
        object.__setattr__(self, "start_us", start)
        object.__setattr__(self, "end_us", end)
        object.__setattr__(self, "open_at_end", bool(self.open_at_end))

    @classmethod
    def from_seconds(cls, start_s: float, end_s: float, label: str | None = None,
                     open_at_end: bool = False) -> Span:
        """A span from float seconds, each rounded to the microsecond (half to even)."""
        return cls(to_us(start_s), to_us(end_s), label, open_at_end)

    @property
    def start_s(self) -> float:
        """Start in seconds."""
        return from_us(self.start_us)

    @property
    def end_s(self) -> float:
        """End in seconds."""
        return from_us(self.end_us)

    @property
    def seconds(self) -> SecondsPair:
        """``(start_s, end_s)``, the float view (see the module docstring).

        >>> Span(1_500_000, 2_250_000).seconds
        (1.5, 2.25)
        """
        return self.start_s, self.end_s

    @property
    def duration_us(self) -> int:
        """Length in microseconds."""
        return self.end_us - self.start_us

    @property
    def duration_s(self) -> float:
        """Length in seconds."""
        return from_us(self.duration_us)

    def contains(self, t_us: int) -> bool:
        """Whether the instant ``t_us`` lies in ``[start_us, end_us)``."""
        return self.start_us <= t_us < self.end_us

    def overlap_us(self, other: Span) -> int:
        """Time shared with ``other`` (0 when they only touch or are apart)."""
        return max(0, min(self.end_us, other.end_us) - max(self.start_us, other.start_us))

    def iou(self, other: Span) -> float:
        """Shared time over joint time; two equal zero-length spans have IoU 1.

        The same convention as :func:`pair_iou`, so one span pair and an array of pairs
        give the same number.

        >>> Span(0, 10).iou(Span(5, 15)), Span(3, 3).iou(Span(3, 3))
        (0.3333333333333333, 1.0)
        """
        shared = self.overlap_us(other)
        joint = self.duration_us + other.duration_us - shared
        if joint == 0:
            return 1.0 if self.start_us == other.start_us else 0.0
        return shared / joint


class TimedRecord:
    """A record whose time is its ``span``, with that span read in seconds: ``start``,
    ``end`` and ``duration``. A file format's record (an RTTM turn, a UEM region) writes
    and compares seconds; what scores it uses the span's microseconds.

    >>> @dataclass(frozen=True)
    ... class Region(TimedRecord):
    ...     span: Span
    >>> Region(Span(500_000, 15_000_000)).end, Region(Span(0, 250_000)).duration
    (15.0, 0.25)
    """

    span: Span

    @property
    def start(self) -> float:
        """Start in seconds."""
        return self.span.start_s

    @property
    def end(self) -> float:
        """End in seconds."""
        return self.span.end_s

    @property
    def duration(self) -> float:
        """Duration in seconds."""
        return self.span.duration_s
