"""Reading a raw system output for the gate: tolerant, and honest about its tail.

The format readers in :mod:`speecheval.transcripts.formats` refuse a broken file, which is
right for a hypothesis to be scored and wrong here: a raw output that stops inside a segment
is a finding about the system, not bad input. These readers keep every complete segment,
every well-formed timestamp (the start of a cut segment included), and say how the raw
ends:

- ``complete``: the last segment is closed (raw tagged: a time after its text; subtitles: a
  cue with timing and text; JSON: the document parses);
- ``truncated`` with a reason: ``half_timestamp`` (``[1284.7``, ``00:21:2``), ``cut_speaker_tag``
  (``[S0``, ``<v S0``), ``cut_tag`` (another unclosed bracket), ``cut_text`` (text with no
  closing time), ``segment_without_text`` (a segment opened by a time or a speaker tag and
  nothing after it), ``cue_without_timing``, ``cut_json`` (the JSON document ends early),
  ``unparsable_json`` (it breaks before its end: readable up to there only, so no more
  complete than a cut one);
- ``unsupported``: plain text has no segments whose ends could be checked (a ``.txt``
  answer without a single time tag is plain text too, its speaker tags kept);
- ``empty``: nothing but whitespace.

Irregularities before the tail (a cue whose timing does not parse) are kept as parser
errors with their line, and the reading goes on.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ...core.errors import InputError
from ..formats.document import SessionFileDocument
from ..formats.registry import format_of
from ..formats.subtitles import parse_clock, split_speaker, text_blocks

FORMATS = ("raw", "srt", "vtt", "json", "text")
"""The formats read here; any other format the project reads (STM, CTM, TextGrid, ...) is
named by its suffix (``.stm``) and read by its strict reader (see :func:`read_raw`)."""
TailStatus = Literal["complete", "truncated", "unsupported", "empty"]
TAIL_CHARS = 200
"""How much of the uncleaned raw tail a verdict quotes."""


@dataclass(frozen=True)
class TimedText:
    """One complete segment of a raw output, times in seconds as written (unchecked)."""

    start: float | None
    end: float | None
    speaker: str | None
    text: str


@dataclass(frozen=True)
class RawReading:
    """What the gate knows of one raw output."""

    segments: tuple[TimedText, ...]
    timestamps: tuple[float, ...]
    """Every well-formed timestamp in raw order, a cut segment's start included."""
    tail_status: TailStatus
    tail_reason: str | None
    tail_excerpt: str
    has_timestamps: bool
    """The format carries timestamps at all (plain text does not)."""
    granularity: Literal["segment", "word", "none"]
    parser_errors: tuple[str, ...] = field(default=())

    @property
    def speaker_labelled(self) -> bool:
        return any(seg.speaker is not None for seg in self.segments)


def read_raw(text: str, fmt: str) -> RawReading:
    """Read ``text`` as a raw output in ``fmt``: one of :data:`FORMATS`, or the suffix of
    another registered format (``.stm``), read strictly: a text whose last line alone
    does not parse ends in ``cut_line``, one that breaks earlier is ``unparsable``; a line
    cut inside its words still parses, which this check cannot see."""
    excerpt = text[-TAIL_CHARS:]
    if not text.strip():
        return RawReading((), (), "empty", None, excerpt, fmt != "text", "none")
    if fmt.startswith("."):
        return _read_registered(text, fmt, excerpt)
    if fmt == "raw":
        return _read_tagged(text, excerpt)
    if fmt in ("srt", "vtt"):
        return _read_subtitles(text, excerpt, vtt=fmt == "vtt")
    if fmt == "json":
        return _read_json(text, excerpt)
    if fmt == "text":
        return RawReading((TimedText(None, None, None, " ".join(text.split())),), (),
                          "unsupported", None, excerpt, False, "none")
    raise ValueError(f"unknown raw format {fmt!r}; expected one of {FORMATS}")


def shifted(parts: list[tuple[str, float, RawReading]]) -> RawReading:
    """One reading of a chunked answer: each ``(name, offset, reading)`` moved onto the
    sample's timeline by its offset, in order; the first cut chunk names the tail, and
    without timestamps in every chunk an uncut tail is ``unsupported``."""
    segments: list[TimedText] = []
    stamps: list[float] = []
    errors: list[str] = []
    cut = next(((name, r) for name, _, r in parts if r.tail_status in ("truncated", "empty")),
               None)
    for name, offset, reading in parts:
        segments += [TimedText(None if s.start is None else s.start + offset,
                               None if s.end is None else s.end + offset, s.speaker, s.text)
                     for s in reading.segments]
        stamps += [t + offset for t in reading.timestamps]
        errors += [f"{name}: {e}" for e in reading.parser_errors]
    last = parts[-1][2] if parts else None
    reason = None if cut is None else f"{cut[0]}: {cut[1].tail_reason or 'empty'}"
    timed = all(r.has_timestamps for _, _, r in parts)
    status: TailStatus = ("truncated" if cut is not None else "complete" if timed
                          else "unsupported")
    return RawReading(tuple(segments), tuple(stamps), status, reason,
                      cut[1].tail_excerpt if cut else last.tail_excerpt if last else "",
                      timed, "word" if any(r.granularity == "word" for _, _, r in parts)
                      else "segment" if timed else "none", tuple(errors))


def _read_registered(text: str, suffix: str, excerpt: str) -> RawReading:
    """Another format of the project, read by its strict reader (see :func:`read_raw`)."""
    cls = format_of(f"raw{suffix}")

    def parse(body: str) -> list[TimedText]:
        doc = (cls.parse(body, "raw") if issubclass(cls, SessionFileDocument)
               else cls.parse(body))  # type: ignore[attr-defined]
        return [TimedText(s.start, s.end, s.speaker, s.words) for s in doc.segments]

    granularity: Literal["segment", "word"] = "word" if cls.word_timed else "segment"
    errors: tuple[str, ...] = ()
    try:
        segments = parse(text)
        status, reason = "complete", None
    except InputError as exc:
        head = text.rstrip().rpartition("\n")[0]
        try:
            segments = parse(head) if head.strip() else []
            status, reason = "truncated", "cut_line"
        except InputError:
            segments, status, reason = [], "truncated", "unparsable"
        errors = (exc.problem,)
    stamps = tuple(t for seg in segments for t in (seg.start, seg.end) if t is not None)
    return RawReading(tuple(segments), stamps, status, reason,  # type: ignore[arg-type]
                      excerpt, True, granularity, errors)


# Raw tagged output: [12.34][S01]text[15.00] (see formats.raw_tagged for the convention).
_TAGGED = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*\]|\[\s*([Ss]\d+)\s*\]|\[[^\[\]]*\]|<[^<>]*>"
                     r"|【[^】]*】", re.ASCII)
_OPEN_TAIL = (("half_timestamp", re.compile(r"\[\s*\d+(?:\.\d*)?\s*$", re.ASCII)),
              ("cut_speaker_tag", re.compile(r"\[\s*[Ss]\d*\s*$", re.ASCII)),
              ("cut_tag", re.compile(r"(?:\[[^\[\]]*|<[^<>]*|【[^】]*)$")))


def _read_tagged(text: str, excerpt: str) -> RawReading:
    """Raw tagged output; the state after the last tag decides the tail."""
    segments: list[TimedText] = []
    stamps: list[float] = []
    start: float | None = None
    speaker: str | None = None
    state = "closed"  # "closed" by a time after text, "opened" by a tag with no text yet
    cursor = 0
    pending: list[str] = []  # text since the last time or speaker tag, around event tags
    for match in _TAGGED.finditer(text):
        pending.append(text[cursor:match.start()])
        cursor = match.end()
        time_text, speaker_text = match.group(1), match.group(2)
        if time_text is None and speaker_text is None:
            continue  # an event tag, not speech
        words = " ".join(" ".join(pending).split())
        pending.clear()
        if words:
            end = float(time_text) if time_text is not None else None
            segments.append(TimedText(start, end, speaker, words))
            start, state = end, "closed"
            if time_text is not None:
                stamps.append(float(time_text))
                continue
        if time_text is not None:
            stamps.append(float(time_text))
            start = float(time_text)
        else:
            speaker = speaker_text.upper()
        state = "opened"
    rest = text[cursor:]
    open_tag = next(((name, found) for name, pattern in _OPEN_TAIL
                     if (found := pattern.search(rest)) is not None), None)
    reason = None if open_tag is None else open_tag[0]
    if not stamps:
        words = rest if open_tag is None else rest[:open_tag[1].start()]
        return _untimed_tagged(segments, speaker, [*pending, words], reason, excerpt)
    if reason is None and (rest.strip() or "".join(pending).strip()):
        reason = "cut_text"
    if reason is None and state == "opened":
        reason = "segment_without_text"
    return RawReading(tuple(segments), tuple(stamps), "complete" if reason is None else
                      "truncated", reason, excerpt, True, "segment")


def _untimed_tagged(segments: list[TimedText], speaker: str | None, rest: list[str],
                    cut_tag: str | None, excerpt: str) -> RawReading:
    """A ``.txt`` answer without a single time tag: plain text (speaker tags allowed).

    Without timestamps no segment end can be checked, so how the text ends proves nothing
    (spec: completeness is never inferred from the text): every word is kept, the last
    words included, and the tail is ``unsupported``, unless the raw breaks inside a tag
    (``[S0``), which is a cut whatever the text says."""
    words = " ".join(" ".join(rest).split())
    if words:
        segments = [*segments, TimedText(None, None, speaker, words)]
    return RawReading(tuple(segments), (), "unsupported" if cut_tag is None else "truncated",
                      cut_tag, excerpt, False, "none")


_TIMING = re.compile(r"^\s*(\S+)\s*-->\s*(\S+)")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_MARKUP = re.compile(r"<[^>]*>")
_CLOCK_START = re.compile(r"\d+:[\d:.,]*")
_CUT_SPEAKER = re.compile(r"^\s*(?:\[[^\]]*|<v[^>]*)$")


def _read_subtitles(text: str, excerpt: str, vtt: bool) -> RawReading:
    """SRT or WebVTT cues; only the last cue can be cut, earlier damage is a parser error."""
    segments: list[TimedText] = []
    stamps: list[float] = []
    errors: list[str] = []
    blocks = text_blocks(text.splitlines())
    if vtt and blocks and blocks[0][1][0].startswith("WEBVTT"):
        blocks = blocks[1:]
    reason: str | None = None
    for index, (number, lines) in enumerate(blocks):
        last = index == len(blocks) - 1
        if vtt and lines[0].split(" ")[0] in ("NOTE", "STYLE", "REGION"):
            continue
        at = next((i for i, line in enumerate(lines) if "-->" in line), None)
        if at is None:
            if last:
                reason = ("half_timestamp" if _CLOCK_START.fullmatch(lines[-1])
                          else "cue_without_timing")
            else:
                errors.append(f"line {number}: a block without a 'start --> end' line")
            continue
        match = _TIMING.match(lines[at])
        times: list[float] = []
        for part in match.groups() if match else ():
            try:
                times.append(parse_clock(part))
            except ValueError:
                break
        stamps.extend(times)
        if len(times) < 2:
            if last:
                reason = "half_timestamp"
            else:
                errors.append(f"line {number + at}: cue timing does not parse: {lines[at]!r}")
            continue
        body = " ".join(lines[at + 1:])
        if last and _CUT_SPEAKER.match(body):
            reason = "cut_speaker_tag"
            continue
        voice = _VOICE.search(body) if vtt else None
        if voice is not None:
            speaker, words = voice.group(1).strip(), body
        else:
            speaker, words = split_speaker(body)
        words = " ".join(_MARKUP.sub(" ", words).split())
        if not words:
            if last:
                reason = "cut_text"
            else:
                errors.append(f"line {number + at}: a cue without text")
            continue
        segments.append(TimedText(times[0], times[1], speaker, words))
    return RawReading(tuple(segments), tuple(stamps), "complete" if reason is None else
                      "truncated", reason, excerpt, True, "segment", tuple(errors))


_ARRAY_OF_SEGMENTS = re.compile(r'"segments"\s*:\s*\[')
_COMPLETE_TIME = re.compile(r'"(?:start|end|start_time|end_time)"\s*:\s*"?(\d+(?:\.\d+)?)"?'
                            r"\s*[,}]")
_START_KEYS, _END_KEYS = ("start", "start_time"), ("end", "end_time")


def _read_json(text: str, excerpt: str) -> RawReading:
    """OpenAI ``verbose_json`` (``segments``, else ``words``) or a SegLST list; a document
    cut short keeps the entries that decode completely."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        entries, rest = _salvage(text)
        segments = [seg for seg in map(_json_entry, entries) if seg is not None]
        stamps = [t for seg in segments for t in (seg.start, seg.end) if t is not None]
        stamps += [float(m.group(1)) for m in _COMPLETE_TIME.finditer(rest)]
        cut = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        return RawReading(tuple(segments), tuple(stamps), "truncated",
                          "cut_json" if cut else "unparsable_json", excerpt, True, "segment",
                          (f"JSON: {exc.msg} at character {exc.pos}",))
    granularity: Literal["segment", "word"] = "segment"
    if isinstance(data, dict):
        items = data.get("segments") or []
        if not items and data.get("words"):
            items, granularity = data["words"], "word"
        elif not items and isinstance(data.get("text"), str):  # no timestamps asked for
            return read_raw(data["text"], "text")
    else:
        items = data
    if not isinstance(items, list):
        items = []
    segments = [seg for seg in map(_json_entry, items) if seg is not None]
    errors = [f"entry {i}: not a segment with text" for i, item in enumerate(items)
              if _json_entry(item) is None]
    stamps = [t for seg in segments for t in (seg.start, seg.end) if t is not None]
    return RawReading(tuple(segments), tuple(stamps), "complete", None, excerpt, True,
                      granularity, tuple(errors))


def _salvage(text: str) -> tuple[list[Any], str]:
    """The entries of the segment array that decode completely, and the text after them."""
    found = _ARRAY_OF_SEGMENTS.search(text)
    position = found.end() if found else (text.index("[") + 1 if text.lstrip().startswith(
        "[") else len(text))
    decoder = json.JSONDecoder()
    entries: list[Any] = []
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            entry, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return entries, text[position:]
        entries.append(entry)


def _json_entry(item: Any) -> TimedText | None:
    """A segment, word or SegLST entry; ``None`` for anything without text."""
    if not isinstance(item, dict):
        return None
    words = item.get("text", item.get("words", item.get("word")))
    if not isinstance(words, str) or not words.strip():
        return None
    speaker = item.get("speaker")
    return TimedText(_json_time(item, _START_KEYS), _json_time(item, _END_KEYS),
                     None if speaker is None else str(speaker), " ".join(words.split()))


def _json_time(item: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        try:
            seconds = float(value)
        except ValueError:
            return None
        return seconds if math.isfinite(seconds) else None
    return None
