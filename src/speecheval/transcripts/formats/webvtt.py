"""WebVTT subtitles: a ``WEBVTT`` header, then cues ``start --> end [settings]`` and text.

Header lines after ``WEBVTT`` (``Kind: captions``, ``Language: en``, as YouTube writes them),
cue identifiers, settings, ``NOTE``/``STYLE``/``REGION`` blocks are skipped. As the WebVTT
parsing rules say, a line holding ``-->`` starts a new cue even without a blank line
before it (cue text may not contain ``-->``), so such a line never becomes words. The speaker is
the voice span ``<v Name>`` (or a leading ``[S01]`` tag); other markup tags are removed
from the words. The session id is given by the caller.

>>> doc = ("WEBVTT\\n\\nc1\\n00:01.000 --> 00:02.500 align:start\\n<v S01>hello</v>\\n\\n"
...        "NOTE x\\n\\n00:03.000 --> 00:04.000\\n<i>bye</i>\\n")
>>> segs = WebVTT.parse(doc, session_id="ep1").segments
>>> [(s.speaker, s.start, s.end, s.words) for s in segs]
[('S01', 1.0, 2.5, 'hello'), (None, 3.0, 4.0, 'bye')]
>>> print(WebVTT(segs[:1]).dumps(), end="")
WEBVTT
<BLANKLINE>
00:00:01.000 --> 00:00:02.500
<v S01>hello
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ...core.errors import InputError
from ._io import split_lines
from .document import SessionFileDocument
from .segment import Segment
from .subtitles import cue_span, cue_times, format_clock, split_speaker, text_blocks

_TIMING = re.compile(r"^\s*(\S+)\s+-->\s+(\S+)")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_TAG = re.compile(r"<[^>]*>")
_SKIPPED_BLOCKS = ("NOTE", "STYLE", "REGION")


class WebVTT(SessionFileDocument):
    """Cues of a WebVTT file as segments, in file order."""

    format_name = "WebVTT"
    suffixes = (".vtt",)
    header = "WEBVTT"

    @classmethod
    def parse(cls, text: str, session_id: str, path: str | Path | None = None) -> WebVTT:
        """Parse WebVTT text; errors name the path and line.

        >>> WebVTT.parse("00:01.000 --> 00:02.000\\nhi\\n", "s", path="a.vtt")
        Traceback (most recent call last):
        ...
        speecheval.core.errors.InputError: a.vtt: line 1: a WebVTT file must start with 'WEBVTT'
        """
        where = None if path is None else str(path)
        lines = split_lines(text)
        if not lines or not lines[0].startswith("WEBVTT"):
            raise InputError("line 1: a WebVTT file must start with 'WEBVTT'", path=where)
        segments = []
        for first_line, block in _blocks(lines):
            if block[0].split(" ", 1)[0] in _SKIPPED_BLOCKS:
                continue
            offset = 0 if "-->" in block[0] else 1
            timing_line = first_line + offset
            match = _TIMING.match(block[offset]) if offset < len(block) else None
            if match is None:
                raise InputError(f"line {timing_line}: expected 'start --> end'", path=where)
            start, end = cue_span(match.group(1), match.group(2), timing_line, where)
            body = " ".join(block[offset + 1:])
            voice = _VOICE.search(body)
            speaker = voice.group(1).strip() if voice else None
            words = html.unescape(_TAG.sub("", body)).strip()
            if speaker is None:
                speaker, words = split_speaker(words)
            segments.append(Segment(session_id=session_id, speaker=speaker, start=start,
                                    end=end, words=" ".join(words.split()), line=timing_line))
        return cls(segments)

    def dumps(self) -> str:
        """WebVTT text with ``<v speaker>`` voice spans; words are HTML-escaped.

        >>> doc = WebVTT.parse(WebVTT([Segment("s", None, 1.0, 2.0, "a --> b")]).dumps(), "s")
        >>> doc.segments[0].words
        'a --> b'
        """
        cues = ["WEBVTT\n"]
        for seg in self.segments:
            start, end = cue_times(seg, self.format_name)
            voice = f"<v {seg.speaker}>" if seg.speaker is not None else ""
            cues.append(f"{format_clock(start, '.')} --> {format_clock(end, '.')}\n"
                        f"{voice}{html.escape(seg.words, quote=False)}\n")
        return "\n".join(cues)


def _blocks(lines: list[str]) -> list[tuple[int, list[str]]]:
    """The blocks after the header, as ``(line number of the first line, lines)``.

    The header is the ``WEBVTT`` line and the lines after it up to a blank line or a line
    holding ``-->``. Within a blank-line separated block, a line holding ``-->`` after the
    block's timing line (its first line, or its second after a cue identifier) starts a
    new block, as the WebVTT parsing rules say.

    >>> _blocks(["WEBVTT", "Kind: captions", "", "00:01.000 --> 00:02.000", "hi",
    ...          "00:03.000 --> 00:04.000", "yo"])
    [(4, ['00:01.000 --> 00:02.000', 'hi']), (6, ['00:03.000 --> 00:04.000', 'yo'])]
    """
    body = 1
    while body < len(lines) and lines[body].strip() and "-->" not in lines[body]:
        body += 1
    blocks: list[tuple[int, list[str]]] = []
    for first_line, block in text_blocks(lines[body:], first_number=body + 1):
        start = 0
        for index in range(1, len(block)):
            timing = 0 if "-->" in block[start] else 1
            if index > start + timing and "-->" in block[index]:
                blocks.append((first_line + start, block[start:index]))
                start = index
        blocks.append((first_line + start, block[start:]))
    return blocks
