"""The HTML page shell: autoescaping, embedded or linked audio, nothing external."""

from __future__ import annotations

from pathlib import Path

import pytest
from markupsafe import Markup

from speecheval.report import page as pg
from speecheval.report.table import Table

EVIL = "<script>alert('x')</script>"
WAV = b"RIFF" + bytes(100)


def _page(limit: int, blocks: tuple[pg.Block, ...] = ()) -> pg.Page:
    return pg.Page(f"Report {EVIL}", (pg.Fact("Agent", (pg.Code(EVIL),)),),
                   (("scenario", EVIL),), blocks, embed_limit_bytes=limit)


def _audio(path: str = "a/session.wav") -> pg.Audio:
    return pg.Audio("Both sides:", path, lambda: WAV)


def test_every_text_is_escaped() -> None:
    blocks = (pg.Section(EVIL, (pg.Paragraph((EVIL, pg.Tone(EVIL, "fail")), "fault"),
                                pg.TableBlock(Table.of([EVIL], [[EVIL]])),
                                pg.BulletList((EVIL,)), pg.Preformatted(EVIL),
                                pg.Alignment((("S", EVIL, EVIL),)),
                                pg.Details(EVIL, (pg.Paragraph((EVIL,)),)))),)
    html = pg.render_page(_page(0, blocks))
    assert "<script" not in html
    # title, h1, fact, provenance, heading, 2 inline, table head and cell, list, pre,
    # 2 alignment tokens, details summary and paragraph
    assert html.count("&lt;script&gt;") == 15


def test_embedded_audio_makes_a_self_contained_page() -> None:
    html = pg.render_page(_page(len(WAV), (_audio(),)))
    assert 'src="data:audio/wav;base64,UklGR' in html
    assert "This page is self-contained" in html
    assert pg.links(html)[0].startswith("data:") and pg.link_problems(html) == []


def test_audio_past_the_budget_is_linked_and_the_page_says_so(tmp_path: Path) -> None:
    html = pg.render_page(_page(len(WAV), (_audio("a/1.wav"), _audio("a/2.wav"))))
    # the first fits the budget, the second is linked by its relative path
    assert [link[:5] for link in pg.links(html)] == ["data:", "a/2.w"]
    assert "This page is self-contained" not in html
    assert "except 1 file(s) it links by their path next to it: <code>a/2.wav</code>" in html
    assert "This audio is not embedded" in html
    # the link must point to a file next to the page
    assert pg.link_problems(html, folder=tmp_path) == ["links a missing file: a/2.wav"]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "2.wav").write_bytes(WAV)
    assert pg.link_problems(html, folder=tmp_path) == []


def test_link_problems_names_external_and_unstated_links() -> None:
    document = ('<img src="https://example.org/x.png"><a href="//cdn.example/y">y</a>'
                '<a href="#top">top</a><audio src="notes.wav"></audio>')
    assert pg.link_problems(document, allowed=()) == [
        "refers to the network: https://example.org/x.png",
        "refers to the network: //cdn.example/y",
        "links a file it does not state: notes.wav"]


def test_render_refuses_a_page_that_is_not_self_contained() -> None:
    figure = pg.Figure(Markup('<svg><image href="https://example.org/x.png"/></svg>'))
    with pytest.raises(ValueError, match="refers to the network: https://example.org/x.png"):
        pg.render_page(_page(0, (figure,)))


def test_same_page_same_bytes() -> None:
    blocks = (_audio(), pg.TableBlock(Table.of(["a"], [["1"]])))
    assert pg.render_page(_page(1000, blocks)) == pg.render_page(_page(1000, blocks))
