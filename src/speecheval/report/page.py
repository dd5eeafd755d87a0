"""One HTML page shell for every report: a header, sections of blocks, nothing external.

A family describes its page with the blocks below (paragraphs, tables, timelines, audio,
lists, preformatted text, collapsible details, token alignments) and never writes HTML:
the templates do, with autoescaping on. The header is the same everywhere: the title,
the run's facts, a short provenance summary, and what the page needs besides itself.

Audio is embedded as a ``data:`` URI while the page's budget allows, so the page works
alone (sent by mail, opened from a CI artifact); past it the audio is linked by its path
relative to the page, and the page says so, beside the player and in the header. A page
never refers to anything on the network, and :func:`render_page` refuses to produce one
that links a file it does not state.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

from markupsafe import Markup

from .bars_svg import render_bars
from .html import render, stylesheet
from .table import Table, alignments

EMBED_LIMIT_BYTES = 40 * 1024 * 1024
"""Audio embedded per page at most (before base64, which adds a third): about ten minutes
of 16 kHz stereo."""


@dataclass(frozen=True)
class Code:
    """Inline code: a name, a path, an option string."""

    text: str
    inline: ClassVar[str] = "code"


@dataclass(frozen=True)
class Tone:
    """Inline text with a tone the style sheet colours: ``pass``, ``fail``."""

    text: str
    tone: str
    inline: ClassVar[str] = "tone"


@dataclass(frozen=True)
class Strong:
    text: str
    inline: ClassVar[str] = "strong"


Inline = str | Code | Tone | Strong


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of inline parts; ``kind`` is ``note`` (small, grey), ``fault`` (a red
    banner) or empty."""

    parts: tuple[Inline, ...]
    kind: str = ""
    block: ClassVar[str] = "paragraph"


@dataclass(frozen=True)
class BulletList:
    items: tuple[str, ...]
    kind: str = ""
    block: ClassVar[str] = "list"


@dataclass(frozen=True)
class TableBlock:
    """A table; ``empty`` is shown instead when it has no rows."""

    table: Table
    empty: str = "(no rows)"
    block: ClassVar[str] = "table"


@dataclass(frozen=True)
class Figure:
    """A timeline from :func:`speecheval.report.timeline.to_svg` (already escaped)."""

    svg: Markup
    block: ClassVar[str] = "figure"


@dataclass(frozen=True)
class Audio:
    """A player. ``wav`` gives the bytes to embed (asked for only when the page draws
    the block); ``path`` is the same audio as a file next to the page, relative to it."""

    caption: str
    path: str
    wav: Callable[[], bytes]
    mime: str = "audio/wav"
    block: ClassVar[str] = "audio"


@dataclass(frozen=True)
class Preformatted:
    text: str
    block: ClassVar[str] = "pre"


@dataclass(frozen=True)
class Alignment:
    """A token alignment: (operation, reference token, hypothesis token) per step, the
    operation ``=`` (match), ``S``, ``D`` or ``I``."""

    steps: tuple[tuple[str, str, str], ...]
    block: ClassVar[str] = "alignment"


@dataclass(frozen=True)
class Details:
    """A collapsed part: ``summary`` is shown, the blocks open on a click."""

    summary: str
    blocks: tuple[Block, ...]
    block: ClassVar[str] = "details"


BAR_TONES = frozenset({"good", "warn", "bad", "other", "none"})


@dataclass(frozen=True)
class Bars:
    """Stacked bars, one per row: each category's count as a share of the row's total
    (outcomes per system), drawn as inline SVG (:mod:`.bars_svg`). Categories keep their
    colour across rows by their position."""

    categories: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int, ...]], ...]
    tones: tuple[str, ...]
    """Each category's colour: one of :data:`BAR_TONES`."""
    block: ClassVar[str] = "bars"

    def __post_init__(self) -> None:
        if len(self.tones) != len(self.categories) or not set(self.tones) <= BAR_TONES:
            raise ValueError(f"bars: one tone per category, each one of {sorted(BAR_TONES)}")
        for label, counts in self.rows:
            if len(counts) != len(self.categories):
                raise ValueError(f"bar {label!r}: {len(counts)} counts for "
                                 f"{len(self.categories)} categories")


@dataclass(frozen=True)
class FilterRow:
    """One row of a :class:`FilterTable`: its group, its cells, and what it opens."""

    group: str
    cells: tuple[str, ...]
    details: tuple[Block, ...] = ()


@dataclass(frozen=True)
class FilterTable:
    """A table whose rows a click narrows to one group (an outcome), without script: one
    radio button per group and a style rule per button. A row with ``details`` opens
    them (a timeline) from its last cell, in a full-width row under it that a style rule
    shows while the cell's toggle is open. The details are held as text
    (:mod:`.held_markup`) that the page's script parses into the row when it first opens,
    so loading a page parses none of its drill-downs (their SVG and players are built on
    demand).
    ``key`` names the table's controls and must be unique in the page (letters, digits
    and ``-``)."""

    key: str
    header: tuple[str, ...]
    rows: tuple[FilterRow, ...]
    details_label: str = "open"
    block: ClassVar[str] = "filter"

    def __post_init__(self) -> None:
        if not self.key or not all(c.isalnum() or c == "-" for c in self.key):
            raise ValueError(f"filter table key {self.key!r}: letters, digits and '-' only")

    @property
    def groups(self) -> tuple[tuple[str, int], ...]:
        """Each group in order of first appearance, with its number of rows."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row.group] = counts.get(row.group, 0) + 1
        return tuple(counts.items())

    @property
    def indexed_rows(self) -> tuple[tuple[int, FilterRow], ...]:
        """Each row with the position of its group in :attr:`groups`."""
        index = {name: i for i, (name, _) in enumerate(self.groups)}
        return tuple((index[row.group], row) for row in self.rows)


@dataclass(frozen=True)
class Section:
    """A heading (``level`` 2 to 4) and its blocks."""

    title: str
    blocks: tuple[Block, ...]
    level: int = 2
    block: ClassVar[str] = "section"


Block = Paragraph | BulletList | TableBlock | Figure | Audio | Preformatted | Alignment \
    | Details | Section | Bars | FilterTable


@dataclass(frozen=True)
class Fact:
    """One fact of the run in the header: a label and its value."""

    label: str
    value: tuple[Inline, ...]


@dataclass(frozen=True)
class Page:
    """A whole page. ``provenance`` is (what, value) pairs summarised under the facts."""

    title: str
    facts: tuple[Fact, ...]
    provenance: tuple[tuple[str, str], ...]
    blocks: tuple[Block, ...]
    embed_limit_bytes: int = EMBED_LIMIT_BYTES
    linked_folder: str | None = None
    """The folder beside the page that holds every linked file, when there is one: the
    header names it once instead of listing the files, and the players say nothing."""


@dataclass
class _AudioView:
    caption: str
    source: str
    mime: str
    path: str
    embedded: bool
    limit_mb: str
    folder_named: bool


@dataclass
class _Resolver:
    """Audio sources within the page's embedding budget; the files the page links."""

    budget: int
    limit_mb: str
    folder_named: bool = False
    links: list[str] = field(default_factory=list)

    def audio(self, audio: Audio) -> _AudioView:
        data = audio.wav()
        if len(data) <= self.budget:
            self.budget -= len(data)
            source = f"data:{audio.mime};base64," + base64.b64encode(data).decode("ascii")
            return _AudioView(audio.caption, source, audio.mime, audio.path, True,
                              self.limit_mb, self.folder_named)
        if audio.path not in self.links:
            self.links.append(audio.path)
        return _AudioView(audio.caption, audio.path, audio.mime, audio.path, False,
                          self.limit_mb, self.folder_named)


def _walk(blocks: Iterable[Block]) -> Iterator[Block]:
    """Every block in document order, nested ones included."""
    for block in blocks:
        yield block
        if isinstance(block, Details | Section):
            yield from _walk(block.blocks)
        elif isinstance(block, FilterTable):
            for row in block.rows:
                yield from _walk(row.details)


def render_page(page: Page) -> str:
    """The page as one HTML document.

    Raises ``ValueError`` (a programming error, not bad input) if the document refers to
    the network or links a file the page does not state.
    """
    resolver = _Resolver(page.embed_limit_bytes, f"{page.embed_limit_bytes / 2**20:.3g}",
                         page.linked_folder is not None)
    players = {id(b): resolver.audio(b) for b in _walk(page.blocks) if isinstance(b, Audio)}
    drilldowns = any(isinstance(b, FilterTable) and any(row.details for row in b.rows)
                     for b in _walk(page.blocks))
    document = render("page.html.j2", page=page, links=resolver.links, drilldowns=drilldowns,
                      style=stylesheet(), player=lambda b: players[id(b)],
                      align=alignments, bars_svg=render_bars)
    problems = link_problems(document, allowed=resolver.links)
    if problems:
        raise ValueError(f"page {page.title!r}: " + "; ".join(problems))
    return document


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value or "" for name, value in attrs if name in ("src", "href")]


def links(document: str) -> list[str]:
    """Every ``src`` and ``href`` value of an HTML document, in order."""
    parser = _Links()
    parser.feed(document)
    return parser.found


def _external(link: str) -> bool:
    lowered = link.strip().lower()
    return lowered.startswith(("http:", "https:", "//", "ftp:", "file:"))


def link_problems(document: str, *, allowed: Sequence[str] | None = None,
                  folder: Path | None = None) -> list[str]:
    """Why the document is not self-contained: links to the network, relative links not
    in ``allowed`` (when given), and (given the page's ``folder``) relative links to
    missing files. ``data:`` URIs and in-page ``#`` anchors are always fine."""
    problems = []
    stated = None if allowed is None else set(allowed)
    for link in links(document):
        if link.startswith(("data:", "#")):
            continue
        if _external(link):
            problems.append(f"refers to the network: {link}")
        elif stated is not None and link not in stated:
            problems.append(f"links a file it does not state: {link}")
        elif folder is not None and not (folder / link).is_file():
            problems.append(f"links a missing file: {link}")
    return problems


def page_problems(path: Path) -> list[str]:
    """:func:`link_problems` of a written page, its links checked against its folder."""
    return link_problems(path.read_text(encoding="utf-8"), folder=path.parent)
