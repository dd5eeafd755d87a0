"""How wide a string shows: East Asian wide and full-width characters take two columns.

Aligned text tables pad by this width, so a column holding Chinese or Japanese names stays
aligned in a terminal; the SVG timeline estimates label widths from it.
"""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes.

    >>> display_width("abc"), display_width("播客"), display_width("a播")
    (3, 4, 3)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
