"""p-values printed the way the FDB v1.5 paper's tables print them.

Files keep the exact value (see core.canonical_json); only text meant for a reader goes
through here, so a console line or a page cell never shows a tiny p as ``0.0000``.
"""

from __future__ import annotations

import math

__all__ = ["paper_p_text"]


def paper_p_text(p: float | None) -> str:
    """Three decimals without the leading zero, ``<.001`` below a thousandth.

    ``None`` or NaN (no test was possible) prints as an en dash.

    >>> [paper_p_text(v) for v in (4.785e-13, 0.0009, 0.001, 0.0224, 0.129, 1.0, None)]
    ['<.001', '<.001', '.001', '.022', '.129', '1.000', '–']
    """
    if p is None or math.isnan(p):
        return "–"
    if p < 0.001:
        return "<.001"
    text = f"{p:.3f}"
    return text[1:] if text.startswith("0.") else text
