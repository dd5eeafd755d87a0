"""One table, three renderings: aligned plain text, Markdown and HTML.

Every table a person reads (console, ``.md``, ``.html``) is a :class:`Table` of strings,
formatted beforehand with :mod:`.numbers`, and written by this module. Columns whose cells
are numbers are right-aligned, all others left-aligned; the widths of text columns follow
the widest cell, so a seven-digit number keeps the column aligned instead of pushing it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from markupsafe import Markup

from .html import render_macro
from .text_width import display_width

Align = Literal["left", "right"]

_NUMBER = re.compile(r"<?[-+]?(\d[\d,]*(\.\d+)?|\.\d+)([eE][-+]?\d+)?%?")
_UNITS = frozenset({"%", "s", "ms", "pp"})
_NEUTRAL = frozenset({"", "-", "–", "n/a"})
_SEPARATORS = re.compile(r"[\s/,\[\]()]+")
COLUMN_GAP = "  "


@dataclass(frozen=True)
class Table:
    """A header and rows of already formatted cells.

    ``align`` fixes each column's alignment; without it a column is right-aligned when
    its cells are numbers (see :func:`is_number`). ``tones`` gives a cell with exactly
    that text a CSS class in HTML (``{"FAIL": "fail"}``); text and Markdown ignore it.
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[Align, ...] | None = None
    tones: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, header: Sequence[str], rows: Sequence[Sequence[str]], *,
           align: Sequence[Align] | None = None,
           tones: Mapping[str, str] | None = None) -> Table:
        """A table from any sequences (lists from a family's row builders)."""
        return cls(tuple(header), tuple(tuple(row) for row in rows),
                   None if align is None else tuple(align), dict(tones or {}))


def is_number(cell: str) -> bool:
    """Whether a cell reads as numbers: figures, percentages, ratios, intervals, units.

    >>> [is_number(c) for c in ("1234567", "12.35%", "2/6", "[4.55%, 10.00%]", "720.0 ms")]
    [True, True, True, True, True]
    >>> [is_number(c) for c in (".022", "<.001")]  # p as the FDB v1.5 paper prints it
    [True, True]
    >>> [is_number(c) for c in ("exploratory", "n/a", "WER", "spk1")]
    [False, False, False, False]
    """
    tokens = [t for t in _SEPARATORS.split(cell.strip()) if t]
    numbers = [t for t in tokens if _NUMBER.fullmatch(t)]
    return bool(numbers) and all(t in _UNITS or _NUMBER.fullmatch(t) for t in tokens)


def alignments(table: Table) -> tuple[Align, ...]:
    """Each column's alignment: the given one, or right for a column of numbers (cells
    such as ``n/a`` and ``-`` do not decide, so a column of them only is right-aligned
    too, as the numbers it stands for would be) and left otherwise.

    >>> alignments(Table(("name", "rate", "none"), (("a", "1.0%", "n/a"), ("b", "-", "-"))))
    ('left', 'right', 'right')
    """
    if table.align is not None:
        return table.align
    result: list[Align] = []
    for column in range(len(table.header)):
        cells = [row[column] for row in table.rows if row[column].strip() not in _NEUTRAL]
        numeric = all(is_number(cell) for cell in cells)
        result.append("right" if numeric else "left")
    return tuple(result)


def _pad(cell: str, width: int, align: Align) -> str:
    space = " " * (width - display_width(cell))
    return space + cell if align == "right" else cell + space


def to_text(table: Table) -> str:
    """Columns two spaces apart under a rule of dashes; no trailing spaces.

    >>> print(to_text(Table(("file", "scored_s"), (("a", "1234567.000"), ("b", "9.5")))), end="")
    file     scored_s
    -----------------
    a     1234567.000
    b             9.5
    """
    align = alignments(table)
    widths = [max(display_width(cell) for cell in column)
              for column in zip(table.header, *table.rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return COLUMN_GAP.join(_pad(c, w, a) for c, w, a in
                               zip(cells, widths, align, strict=True)).rstrip()

    rule = "-" * (sum(widths) + len(COLUMN_GAP) * (len(widths) - 1))
    return "\n".join([line(table.header), rule, *(line(row) for row in table.rows)]) + "\n"


def _markdown_cell(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table (``|`` in a cell escaped).

    >>> print(to_markdown(Table(("a", "b"), (("x|y", "1"),))), end="")
    | a | b |
    |---|---|
    | x\\|y | 1 |
    """
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(_markdown_cell(c) for c in cells) + " |"

    return "\n".join([line(table.header), "|" + "---|" * len(table.header),
                      *(line(row) for row in table.rows)]) + "\n"


def to_html(table: Table) -> Markup:
    """An HTML ``<table>``, every cell escaped; number columns carry ``class="num"``."""
    return render_macro("table.html.j2", "table", table=table, align=alignments(table))
