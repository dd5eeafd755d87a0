"""Timeline labels in Chinese or Japanese render with real glyphs where a CJK font exists.

matplotlib warns "Glyph ... missing from font(s)" for every character its fonts lack and
draws an empty box instead. The timeline names DejaVu Sans and then every CJK font the
system has (``speecheval.report.fonts``); where one is installed (``apt-get install
fonts-noto-cjk``), a CJK label draws without that warning.
"""

from __future__ import annotations

import warnings

import pytest

from speecheval.report.fonts import cjk_font_available, matplotlib_families
from speecheval.report.timeline import Bar, Marker, Timeline, Track, Word, image_bytes

LABEL = "你好世界 こんにちは"


def _cjk_timeline() -> Timeline:
    return Timeline(4.0, (Track("说话人 A", spans=(Bar((0.5, 2.0), label=LABEL),)),
                          Track("词", words=(Word("播客", (0.5, 1.0)),))),
                    markers=(Marker(1.0, "开始"),), title=LABEL)


def _missing_glyph_warnings() -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        image_bytes(_cjk_timeline(), "png")
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_dejavu_alone_would_miss_the_glyphs(monkeypatch: pytest.MonkeyPatch) -> None:
    # The check below can fail: with DejaVu Sans only, matplotlib warns for each glyph.
    from speecheval.report.timeline import mpl

    monkeypatch.setattr(mpl, "matplotlib_families", lambda: ("DejaVu Sans",))
    assert _missing_glyph_warnings()


def test_cjk_labels_render_without_missing_glyphs() -> None:
    if not cjk_font_available():
        pytest.skip("no CJK font is installed for matplotlib (apt-get install "
                    "fonts-noto-cjk, then clear ~/.cache/matplotlib)")
    assert matplotlib_families()[0] == "DejaVu Sans" and len(matplotlib_families()) > 1
    assert _missing_glyph_warnings() == []
