"""SRT subtitles: numbered cues with ``HH:MM:SS,mmm --> HH:MM:SS,mmm`` and text lines.

SRT has no session or speaker field: the session id is given by the caller, and a
leading ``[S01]`` tag in the cue text is read as the speaker (and written that way).
Multi-line cue text is joined with spaces. A timing line inside cue text means the blank
line before a cue is missing: it is refused, naming the line, rather than read as words.

>>> doc = ("1\\n00:00:01,000 --> 00:00:02,500\\n[S01] hello\\nthere\\n\\n"
...        "2\\n00:00:03,000 --> 00:00:04,000\\nbye\\n")
>>> segs = SRT.parse(doc, session_id="ep1").segments
>>> [(s.speaker, s.start, s.end, s.words) for s in segs]
[('S01', 1.0, 2.5, 'hello there'), (None, 3.0, 4.0, 'bye')]
>>> print(SRT(segs).dumps(), end="")
1
00:00:01,000 --> 00:00:02,500
[S01] hello there
<BLANKLINE>
2
00:00:03,000 --> 00:00:04,000
bye
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.errors import InputError
from ._io import split_lines
from .document import SessionFileDocument
from .segment import Segment
from .subtitles import cue_span, cue_times, format_clock, parse_clock, split_speaker

_TIMING = re.compile(r"^\s*(\S+)\s*-->\s*(\S+)")


class SRT(SessionFileDocument):
    """Cues of an SRT file as segments, in file order."""

    format_name = "SRT"
    suffixes = (".srt",)
    utf16 = True  # as Windows tools save "Unicode" text: UTF-16 with a byte-order mark

    @classmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> SRT:
        """Parse SRT text; a bad cue raises InputError naming the path and line.

        >>> doc = "1\\n00:00:01,000 -> 00:00:02,000\\nhi\\n"
        >>> SRT.parse(doc, "s", path="a.srt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: a.srt: line 2: expected 'start --> end', found ...
        """
        where = None if path is None else str(path)
        lines = split_lines(text)
        segments = []
        index = 0
        while index < len(lines):
            if not lines[index].strip():
                index += 1
                continue
            if not lines[index].strip().isdigit():
                raise InputError(f"line {index + 1}: expected a cue number, found "
                                 f"{lines[index].strip()!r}", path=where)
            timing_line = index + 2
            if index + 1 >= len(lines):
                raise InputError(f"line {timing_line}: cue has no timing line", path=where)
            match = _TIMING.match(lines[index + 1])
            if match is None:
                raise InputError(f"line {timing_line}: expected 'start --> end', found "
                                 f"{lines[index + 1].strip()!r}", path=where)
            start, end = cue_span(match.group(1), match.group(2), timing_line, where)
            index += 2
            body = []
            while index < len(lines) and lines[index].strip():
                if _is_timing(lines[index]):
                    raise InputError(f"line {index + 1}: a timing line inside the text of the "
                                     f"cue at line {timing_line}: a blank line is missing "
                                     "before a cue", path=where)
                body.append(lines[index].strip())
                index += 1
            speaker, words = split_speaker(" ".join(body))
            segments.append(Segment(session_id=session_id, speaker=speaker, start=start,
                                    end=end, words=words, line=timing_line))
        return cls(segments)

    def dumps(self) -> str:
        """SRT text; cues are numbered from 1 in segment order."""
        cues = []
        for number, seg in enumerate(self.segments, start=1):
            start, end = cue_times(seg, self.format_name)
            prefix = f"[{seg.speaker}] " if seg.speaker is not None else ""
            cues.append(f"{number}\n{format_clock(start, ',')} --> "
                        f"{format_clock(end, ',')}\n{prefix}{seg.words}\n")
        return "\n".join(cues)


def _is_timing(line: str) -> bool:
    """Whether ``line`` is a cue timing line (two timestamps around ``-->``), not text
    that merely holds an arrow.

    >>> _is_timing("00:00:03,000 --> 00:00:04,000"), _is_timing("a --> b")
    (True, False)
    """
    match = _TIMING.match(line)
    if match is None:
        return False
    try:
        parse_clock(match.group(1)), parse_clock(match.group(2))
    except ValueError:
        return False
    return True
