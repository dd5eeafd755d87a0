"""Markup held as raw text comes back whole, and nothing in it can end its element."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fdb10.browserkit import Browser
from markupsafe import Markup
from page_text import released

from speecheval.report import page as pg
from speecheval.report.held_markup import hold


def test_held_markup_has_no_end_tag_or_comment_opening_and_releases_whole() -> None:
    markup = ('<svg><g><text>a &lt;b&gt;</text></g></svg><!-- note -->'
              '<audio src="x.ogg"></audio></SCRIPT></script >')
    held = hold(markup)
    assert hold(Markup(markup)) == held  # markup already safe is held the same way
    # every "</" and "<!" is held, so the HTML parser's script-data state never leaves
    assert not re.search(r"<[/!]", held)
    assert held.count("<\\/") == 6 and held.count("<\\!") == 1
    assert released(str(held)) == markup


def test_markup_that_releasing_would_change_is_refused() -> None:
    with pytest.raises(ValueError, match="contains"):
        hold("<p>a</p><\\p>")


def test_a_held_drilldown_is_no_element_until_opened_and_then_exactly_its_markup(
        tmp_path: Path) -> None:
    # the hardest text a drill-down can carry: what would end a script element or open a
    # comment if it were not held, in a <pre> (escaped) and as a figure's own markup
    svg = Markup('<svg viewBox="0 0 2 1"><!-- lane --><rect width="1" height="1"></rect>'
                 '</svg>')
    details = (pg.Preformatted("</script><!-- x --><\\ y"), pg.Figure(svg))
    rows = (pg.FilterRow("a", ("s1",), details), pg.FilterRow("a", ("s2",), details))
    page = tmp_path / "held.html"
    page.write_text(pg.render_page(pg.Page("t", (), (), (pg.FilterTable("k", ("id",), rows),))),
                    encoding="utf-8")
    with Browser(tmp_path / "profile") as browser:
        browser.open(page)
        # loaded: no element of either drill-down, each held in one script element
        assert browser.evaluate("document.querySelectorAll('pre, svg').length") == 0
        assert browser.evaluate("document.querySelectorAll('tr.detail>td>script').length") == 2
        assert browser.open_drilldowns() == 0
        built = browser.evaluate("[...document.querySelectorAll('tr.detail>td')]"
                                 ".map(td => td.innerHTML)")
        assert browser.errors() == []
    expected = ('<pre>&lt;/script&gt;&lt;!-- x --&gt;&lt;\\ y</pre>'
                '<figure><svg viewBox="0 0 2 1"><!-- lane --><rect width="1" height="1">'
                '</rect></svg></figure>')
    assert built == [expected, expected]
