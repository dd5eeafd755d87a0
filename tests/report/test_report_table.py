"""One table renderer: aligned text, Markdown and HTML (issue 9 item 2)."""

from __future__ import annotations

from speecheval.report.numbers import fixed, percent
from speecheval.report.table import Table, alignments, to_html, to_markdown, to_text

# Two rows of scored seconds, one of them 7 digits before the point.
TABLE = Table.of(["file", "scored_s", "DER"],
                 [["a-long-recording", "2000000.000", "12.35%"],
                  ["b", "4.000", "n/a"]])


def test_text_right_aligns_numbers_and_widens_for_seven_digits() -> None:
    # widths: file 16 ("a-long-recording"), scored_s 11 ("2000000.000"), DER 6 ("12.35%");
    # two spaces between columns: rule 16 + 2 + 11 + 2 + 6 = 37 dashes.
    assert to_text(TABLE) == (
        "file                 scored_s     DER\n"
        "-------------------------------------\n"
        "a-long-recording  2000000.000  12.35%\n"
        "b                       4.000     n/a\n")


def test_text_pads_wide_characters_by_their_display_width() -> None:
    # "播客" shows 4 columns wide: "ab" is padded with 2 spaces, the CJK name with none.
    text = to_text(Table.of(["name", "n"], [["播客", "1"], ["ab", "22"]]))
    assert text.splitlines()[2:] == ["播客   1", "ab    22"]


def test_markdown_escapes_pipes() -> None:
    assert to_markdown(Table.of(["a", "b"], [["x|y", "1"]])) == (
        "| a | b |\n|---|---|\n| x\\|y | 1 |\n")


def test_html_escapes_cells_and_marks_number_columns() -> None:
    html = to_html(Table.of(["name", "n"], [["<script>alert(1)</script>", "7"]],
                            tones={"7": "fail"}))
    assert "<script>" not in html
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in html
    assert '<th class="num">n</th>' in html and '<td class="num fail">7</td>' in html


def test_a_column_is_right_aligned_only_when_its_cells_are_numbers() -> None:
    table = Table.of(["scenario", "maturity", "rate", "interval", "missing"],
                     [["meeting-en", "exploratory", "41.54%", "[23.08%, 60.00%]", "n/a"],
                      ["podcast", "n/a", "-", "[4.55%, 10.00%]", "-"]])
    assert alignments(table) == ("left", "left", "right", "right", "right")


def test_one_number_and_percent_formatter() -> None:
    assert percent(0.123456) == "12.35%" and percent(1 / 3, 0) == "33%"
    assert fixed(2.0004) == "2.000" and fixed(None) == "n/a" and fixed(None, missing="-") == "-"
