"""The Bars and FilterTable blocks: counts, groups, one style rule per group, escaping."""

from __future__ import annotations

import re

import pytest

from speecheval.report import page as pg


def render(*blocks: pg.Block) -> str:
    return pg.render_page(pg.Page("t", (), (), blocks))


def test_bars_draw_each_nonzero_count_with_its_tone() -> None:
    html = render(pg.Bars(("response", "no_response", "ineligible"),
                          (("sys <a>", (3, 0, 1)),), ("good", "bad", "none")))
    assert html.count('<svg class="bars"') == 1
    # the plot is 1200 - left - 70 units wide; 3 of 4 take three quarters of it
    assert '<title>response: 3 of 4</title>' in html
    assert 'class="t-bad"' not in html                 # a zero count draws nothing
    assert '<title>ineligible: 1 of 4</title>' in html
    assert "sys &lt;a&gt;" in html and ">n = 4</text>" in html
    widths = [float(w) for w in re.findall(r'class="t-\w+" x="[\d.]+" y="[\d.]+" '
                                           r'width="([\d.]+)"', html)]
    assert len(widths) == 2 and widths[0] == pytest.approx(3 * widths[1], abs=0.2)


def test_bars_refuse_a_row_of_the_wrong_length_and_an_unknown_tone() -> None:
    with pytest.raises(ValueError, match="2 counts for 3 categories"):
        pg.Bars(("a", "b", "c"), (("x", (1, 2)),), ("good", "bad", "none"))
    with pytest.raises(ValueError, match="one tone per category"):
        pg.Bars(("a",), (("x", (1,)),), ("pink",))


def test_filter_table_groups_rows_and_hides_the_others_per_button() -> None:
    rows = (pg.FilterRow("response", ("a", "1")), pg.FilterRow("no_response", ("b", "2")),
            pg.FilterRow("response", ("c", "<3>"), (pg.Paragraph(("inside",)),)))
    table = pg.FilterTable("samples-x", ("id", "n"), rows, details_label="timeline")
    assert table.groups == (("response", 2), ("no_response", 1))
    html = render(table)
    assert '<label for="samples-x-all">all (3)</label>' in html
    assert '<label for="samples-x-0">response (2)</label>' in html
    assert '<label for="samples-x-1">no_response (1)</label>' in html
    assert "#samples-x-0:checked~table tbody tr:not(.g0){display:none}" in html
    assert "#samples-x-1:checked~table tbody tr:not(.g1){display:none}" in html
    assert html.count('<tr class="g0">') == 2 and html.count('<tr class="g1">') == 1
    assert "&lt;3&gt;" in html
    # the details open under the row, across the whole table (2 cells and the toggle's),
    # held as text (its "</" as "<\/") that the page's one script parses on the first
    # toggle
    assert ('<td><details><summary>timeline</summary></details></td></tr><tr class="detail '
            'g0"><td colspan="3"><script type="text/html"><p>inside<\\/p></script></td></tr>'
            ) in html
    assert ".filter tr:has(>td>details[open])+tr.detail{display:table-row}" in html
    assert html.count("<script>") == 1 and "held.replaceWith(body.content)" in html


def test_a_page_without_drilldowns_has_no_script() -> None:
    plain = pg.FilterTable("samples-y", ("id",), (pg.FilterRow("response", ("a",)),))
    assert "<script" not in render(plain, pg.Paragraph(("text",)))


def test_filter_table_key_is_checked() -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        pg.FilterTable("bad key", ("a",), ())
