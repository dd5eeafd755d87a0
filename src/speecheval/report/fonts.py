"""The fonts every timeline and page names, falling back to ones with CJK glyphs.

Latin text keeps DejaVu Sans (matplotlib's own font, so pictures look as they always
did); a Chinese, Japanese or Korean label falls back, glyph by glyph, to the first CJK
font the system has. matplotlib does that fallback itself when given a list of families
(3.6 and later), but it warns about every listed family it cannot find, so only the
installed ones are passed. Browsers fall back the same way through the CSS stack.
"""

from __future__ import annotations

from functools import cache

LATIN = "DejaVu Sans"
CJK_FALLBACKS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC",
                 "Noto Sans CJK KR", "Source Han Sans SC", "Source Han Sans",
                 "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Droid Sans Fallback")
CSS_STACK = ", ".join(['system-ui', f'"{LATIN}"', *(f'"{name}"' for name in CJK_FALLBACKS),
                       "sans-serif"])


@cache
def matplotlib_families() -> tuple[str, ...]:
    """DejaVu Sans, then every CJK fallback matplotlib can find on this system."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return (LATIN, *(name for name in CJK_FALLBACKS if name in installed))


def cjk_font_available() -> bool:
    """Whether matplotlib found a font for CJK text on this system."""
    return len(matplotlib_families()) > 1
