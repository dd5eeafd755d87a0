"""Markup a page carries as raw text until it is needed, so loading the page builds none of it.

A drill-down holds a timeline's SVG and its players; a full-size leaderboard page has
thousands of them. Written as elements (even inside an inert ``<template>``) the browser
parses every one of them into nodes while the page loads. Written as the text of a
``<script type="text/html">`` the parser only scans for the end of that element, and the
page's script parses one drill-down when its row is first opened.

Inside such an element only two sequences mean anything to the HTML parser: ``</`` (which
may close it) and ``<!`` (which may start a comment-like escape). Both are held as
``<\\/`` and ``<\\!``; the page's script turns every ``<\\`` back into ``<``. That is
exact because rendered markup never contains ``<\\`` (text and attributes have ``<``
escaped, and a tag's ``<`` is followed by a letter, ``/`` or ``!``), which :func:`hold`
checks rather than assumes.
"""

from __future__ import annotations

from markupsafe import Markup


def hold(markup: str) -> Markup:
    """``markup`` as the text of a ``<script type="text/html">`` that gives it back whole."""
    text = str(markup)  # plain text: Markup.replace would escape the replacements
    if "<\\" in text:
        raise ValueError("markup to hold contains '<\\', which releasing it would change")
    return Markup(text.replace("</", "<\\/").replace("<!", "<\\!"))
