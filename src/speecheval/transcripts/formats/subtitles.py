"""Timestamps, cue spans and speaker prefixes shared by the SRT and WebVTT modules."""

from __future__ import annotations

import re

from ...core.decimal_seconds import MAX_SECONDS
from ...core.errors import InputError
from ...core.timebase import US_PER_S, to_us
from ._io import span
from .segment import Segment

_CLOCK = re.compile(r"^(?:(\d+):)?([0-5]\d):([0-5]\d)[.,](\d{3})$")
SPEAKER_PREFIX = re.compile(r"^\[([^\]\s]+)\]\s*")


def parse_clock(text: str) -> float:
    """``HH:MM:SS,mmm`` / ``MM:SS.mmm`` to seconds; ``ValueError`` names bad text.

    >>> parse_clock("01:02:03,450"), parse_clock("02:03.045")
    (3723.45, 123.045)
    """
    match = _CLOCK.match(text.strip())
    if match is None:
        raise ValueError(f"not a subtitle timestamp: {text!r}")
    hours, minutes, secs, millis = match.groups()
    total_ms = ((int(hours or 0) * 60 + int(minutes)) * 60 + int(secs)) * 1000 + int(millis)
    return total_ms / 1000


def format_clock(seconds: float, separator: str) -> str:
    """Seconds to ``HH:MM:SS<sep>mmm``, rounded to the millisecond.

    >>> format_clock(3723.4504, ","), format_clock(0.0005, ".")
    ('01:02:03,450', '00:00:00.000')
    """
    millis = round(to_us(seconds) * 1000 / US_PER_S)
    secs, ms = divmod(millis, 1000)
    minutes, sec = divmod(secs, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours:02d}:{minute:02d}:{sec:02d}{separator}{ms:03d}"


def text_blocks(lines: list[str], first_number: int = 1) -> list[tuple[int, list[str]]]:
    """Blank-line separated blocks of ``lines`` as ``(line number of their first line,
    stripped lines)``; ``first_number`` is the number of ``lines[0]``.

    >>> text_blocks(["a", " b ", "", "", "c"])
    [(1, ['a', 'b']), (5, ['c'])]
    """
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    for number, line in enumerate(lines, start=first_number):
        if line.strip():
            if not current:
                blocks.append((number, current))
            current.append(line.strip())
        else:
            current = []
    return blocks


NON_SPEECH_TAGS = frozenset((
    "applause", "background", "beep", "blank_audio", "breath", "breathing", "cheering",
    "cheers", "chuckles", "cough", "coughing", "coughs", "crosstalk", "foreign",
    "inaudible", "indistinct", "laugh", "laughing", "laughs", "laughter", "music", "noise",
    "no-speech", "pause", "sigh", "sighs", "silence", "static", "unintelligible"))
"""Bracketed sound descriptions that open subtitle cues (``[Music]``, ``[LAUGHTER]``,
Whisper's ``[BLANK_AUDIO]``), compared case-insensitively: a leading one is never a
speaker. Descriptions of several words (``[door slams]``) hold a space and never are."""


def split_speaker(text: str) -> tuple[str | None, str]:
    """A leading one-word ``[S01]`` tag is the speaker (the raw-output convention, as the
    SRT writer writes it), else ``None``; a sound description such as ``[laughter]``
    (:data:`NON_SPEECH_TAGS`) is no speaker and stays in the words.

    >>> split_speaker("[S01] hello"), split_speaker("hello")
    (('S01', 'hello'), (None, 'hello'))
    >>> split_speaker("[Laughter] yes")
    (None, '[Laughter] yes')
    """
    match = SPEAKER_PREFIX.match(text)
    if match is None or match.group(1).casefold() in NON_SPEECH_TAGS:
        return None, text
    return match.group(1), text[match.end():]


def cue_span(start_text: str, end_text: str, line: int, where: str | None) -> tuple[float, float]:
    """A cue's ``start --> end`` in seconds; a bad timestamp, one past the time limit of
    every format (:data:`~speecheval.core.decimal_seconds.MAX_SECONDS`) or a negative
    span is an InputError naming ``where`` (the file) and the line of the timing."""
    try:
        start, end = parse_clock(start_text), parse_clock(end_text)
    except ValueError as exc:
        raise InputError(f"line {line}: {exc}", path=where) from None
    if max(start, end) > MAX_SECONDS:
        raise InputError(f"line {line}: timestamp {max(start, end):g} s is more than "
                         f"{MAX_SECONDS:g} s (3 years): not a time in a recording", path=where)
    span(start, end, f"line {line}", where)
    return start, end


def cue_times(seg: Segment, format_name: str) -> tuple[float, float]:
    """``(start, end)`` of a segment written as a cue; a cue cannot lack either."""
    if seg.start is None or seg.end is None:
        raise ValueError(f"{format_name} needs times for every segment: {seg!r}")
    return seg.start, seg.end
