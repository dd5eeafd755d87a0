"""Raw model output with inline timestamps and speaker tags: ``[12.34][S01]text[15.00]``.

Joint transcription/diarization models (MOSS-Transcribe-Diarize and similar) return one
string. Reading rules, chosen so no text is lost and no time is invented:

- ``[12.34]`` is a time; ``[S01]`` (``S`` + digits, any case) is a speaker, kept as written
  in upper case; any other bracketed tag (``[laughter]``), angle tag (``<music>``) or
  ``【...】`` note is an event and is removed from the words, since such tags are not
  speech and must not count as transcription errors for one system only.
- A time after some text ends the open segment and may also start the next one
  (``[0][S01]a[1][S02]b[2]`` is two segments 0-1 and 1-2); a time with no text before it
  starts a segment. A speaker tag after text ends the open segment without an end time.
- The speaker carries over to the next segment until another tag appears; text before
  any time has no start, text not followed by a time has no end.

>>> segs = RawTagged.parse("[0.5][S01]你好[1.25][1.5][s2]hi [laughter] there[3]", "ep").segments
>>> [(s.speaker, s.start, s.end, s.words) for s in segs]
[('S01', 0.5, 1.25, '你好'), ('S2', 1.5, 3.0, 'hi there')]
>>> print(RawTagged(segs).dumps(), end="")
[0.500][S01]你好[1.250]
[1.500][S2]hi there[3.000]
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.decimal_seconds import format_seconds
from ...core.errors import InputError
from ._io import seconds
from .document import SessionFileDocument
from .segment import Segment

_TAG = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*\]|\[\s*([Ss]\d+)\s*\]|\[[^\]]*\]|<[^>]*>|【[^】]*】",
                  re.ASCII)


class RawTagged(SessionFileDocument):
    """Segments of one raw tagged output string."""

    format_name = "raw output"
    suffixes = (".txt",)
    raw_text = True

    @classmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> RawTagged:
        """Parse raw tagged output; a time running backwards, or beyond the time limit
        of every format (:data:`~speecheval.core.decimal_seconds.MAX_SECONDS`), raises
        InputError.

        >>> RawTagged.parse("[5][S01]hi[4]", "s", path="out.txt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: out.txt: line 1: segment 'hi' ends at 4.0 before ...
        """
        where = None if path is None else str(path)
        segments: list[Segment] = []
        start: float | None = None
        speaker: str | None = None
        words: list[str] = []
        cursor = 0
        counted = [0, 1]  # newlines counted up to this offset: line number there

        def line_at(at: int) -> int:
            """The line of offset ``at``; offsets only grow, so each newline is counted
            once (counting from the start at every tag made parsing quadratic)."""
            counted[1] += text.count("\n", counted[0], at)
            counted[0] = at
            return counted[1]

        def close(end: float | None, at: int) -> None:
            nonlocal start
            joined = " ".join(" ".join(words).split())
            words.clear()
            if not joined:
                return
            line = line_at(at)
            if start is not None and end is not None and end < start:
                raise InputError(f"line {line}: segment {joined!r} ends at {end} before it "
                                 f"starts at {start}", path=where)
            segments.append(Segment(session_id=session_id, speaker=speaker, start=start,
                                    end=end, words=joined, line=line))
            start = end

        for match in _TAG.finditer(text):
            words.append(text[cursor:match.start()])
            cursor = match.end()
            time_text, speaker_text = match.group(1), match.group(2)
            if time_text is not None:
                time = seconds(time_text, "time tag", f"line {line_at(match.start())}", where)
                if any(part.strip() for part in words):
                    close(time, match.start())
                else:
                    words.clear()
                start = time
            elif speaker_text is not None:
                if any(part.strip() for part in words):
                    close(None, match.start())
                speaker = speaker_text.upper()
        words.append(text[cursor:])
        close(None, len(text))
        return cls(segments)

    def dumps(self) -> str:
        """One ``[start][speaker]words[end]`` line per segment (absent parts left out)."""
        lines = []
        for seg in self.segments:
            head = "" if seg.start is None else f"[{format_seconds(seg.start)}]"
            who = "" if seg.speaker is None else f"[{seg.speaker}]"
            tail = "" if seg.end is None else f"[{format_seconds(seg.end)}]"
            lines.append(f"{head}{who}{seg.words}{tail}\n")
        return "".join(lines)
