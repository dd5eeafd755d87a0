"""The timeline renderer: a declarative description drawn as inline SVG and as PNG."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from speecheval.report.timeline import (
    Bar,
    Marker,
    Shade,
    Stretch,
    Timeline,
    Track,
    Wave,
    Word,
    Zoom,
    image_bytes,
    to_svg,
)

RATE = 1000
TONE = np.sin(np.linspace(0, 400 * np.pi, 10 * RATE)).astype(np.float32)  # 10 s


def _timeline(**extra: object) -> Timeline:
    tracks = (Track("output", wave=Wave(TONE, RATE)),
              Track("speech", spans=(Bar((1.0, 4.0), tooltip="1.00-4.00 s"),
                                     Bar((6.0, 7.5), label="<b>late</b>"))),
              Track("words", words=(Word("hello", (1.0, 1.4)), Word("world", (1.5, 1.9)))),
              Track("annotation", intervals=(Stretch((4.0, 6.0), "stop_s 2.000", row=0),)))
    return Timeline(10.0, tracks, markers=(
        Marker(4.0, "S", dashed=True, side="left"),
        Marker(6.0, "clear", color="#7c3aed", tracks=("speech",), label_track="speech",
               strong=False)),
        shades=(Shade((0.5, 2.0), "#dcfce7", label="ask", tooltip="turn ask"),), **extra)  # type: ignore[arg-type]


def _svg(timeline: Timeline) -> ET.Element:
    return ET.fromstring(str(to_svg(timeline, ident="t1", description="a test")))


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter("text")]


def test_svg_has_every_described_element() -> None:
    root = _svg(_timeline())
    assert root.get("class") == "timeline" and root.get("aria-label") == "a test"
    titles = [t.text for t in root.iter("title")]
    # the span and the shade carry their tooltips, the interval its label
    assert {"1.00-4.00 s", "turn ask", "stop_s 2.000"} <= set(titles)
    texts = _texts(root)
    assert {"S", "clear", "stop_s 2.000", "ask", "hello", "world", "<b>late</b>"} <= set(texts)
    assert {"output", "speech", "words", "annotation"} <= set(texts)  # lane captions
    lines = list(root.iter("line"))
    dashed = [ln for ln in lines if ln.get("stroke-dasharray")]
    assert len(dashed) == 1  # S
    assert any(ln.get("stroke") == "#7c3aed" for ln in lines)  # the clear
    assert len([p for p in root.iter("path") if p.get("class") == "wave"]) == 1  # envelope
    assert len(list(root.iter("clipPath"))) == 1  # no zoom: one panel


def test_svg_escapes_labels() -> None:
    markup = str(to_svg(_timeline(), ident="t1", description="<x>"))
    assert "<b>late" not in markup and "&lt;b&gt;late&lt;/b&gt;" in markup
    assert 'aria-label="&lt;x&gt;"' in markup


def test_a_marker_line_crosses_only_its_lanes() -> None:
    root = _svg(_timeline())
    clear = next(ln for ln in root.iter("line") if ln.get("stroke") == "#7c3aed")
    s_line = next(ln for ln in root.iter("line") if ln.get("stroke-dasharray"))
    # lanes of 40 units; "speech" is the second: the clear spans 40 of S's 160 (+14 strip)
    assert float(clear.get("y2")) - float(clear.get("y1")) == pytest.approx(40.0)
    assert float(s_line.get("y2")) - float(s_line.get("y1")) == pytest.approx(174.0)


def test_zoom_windows_are_panels_of_their_own() -> None:
    root = _svg(_timeline(zooms=(Zoom("zoom around S", 3.5, 4.5), Zoom("later", 5, 7))))
    assert len(list(root.iter("clipPath"))) == 3
    texts = _texts(root)
    assert "zoom around S" in texts and "later" in texts
    # S (4.0) is in the whole timeline and in the first zoom, not in the second
    assert texts.count("S") == 2
    # the zooms are shaded on the whole timeline
    assert len([r for r in root.iter("rect") if r.get("fill") == "#1f77b4"]) == 2


def test_words_that_do_not_fit_are_counted_not_overlapped() -> None:
    words = tuple(Word("conversation", (0.01 * i, 0.01 * i + 0.009)) for i in range(50))
    root = _svg(Timeline(1.0, (Track("words", words=words),)))
    labels = [t for t in root.iter("text") if t.get("class") == "word-label"]
    # The caption column is as wide as "words (99 unlabelled)": 21 x 0.62 x 11 + 12 =
    # 155.22, so the plot is 1200 - 155.22 - 28 = 1016.78 wide and a word starts every
    # 10.17 units. A label is 12 x 0.62 x 10 = 74.4 wide plus a 4 unit gap: a row takes
    # every 8th word (78.4 / 10.17 = 7.7). Rows: 0, 8, .., 48 (7), 1, 9, .., 49 (7) and
    # 2, 10, .., 42 (6): 20 labels, 30 left out.
    assert len(labels) == 20
    caption = next(t for t in root.iter("text") if "".join(t.itertext()).startswith("words"))
    assert [s.text for s in caption.iter("tspan")] == ["words", "(30 unlabelled)"]
    rows: dict[str, list[float]] = {}
    for label in labels:
        rows.setdefault(label.get("y") or "", []).append(float(label.get("x") or 0))
    assert len(rows) == 3
    for starts in rows.values():
        assert all(b - a >= 78.4 for a, b in zip(starts, starts[1:], strict=False))


def test_png_is_deterministic() -> None:
    timeline = _timeline(title="sample", subtitle="numbers", zooms=(Zoom("z", 3.5, 4.5),))
    first = image_bytes(timeline, "png")
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and first == image_bytes(timeline, "png")


def test_a_lane_refuses_a_waveform_and_words_together() -> None:
    with pytest.raises(ValueError, match="a waveform and words need two lanes"):
        Track("both", wave=Wave(TONE, RATE), words=(Word("a", (0, 1)),))


def _path_points(d: str) -> list[tuple[int, int]]:
    """The points of an envelope's path (``M`` absolute, then ``h`` and ``l`` relative)."""
    import re

    tokens = re.findall(r"[Mhlz]|-?\d+", d)
    points, command, numbers = [], "", []
    for token in tokens:
        if token.isalpha():
            command, numbers = token, []
            continue
        numbers.append(int(token))
        x, y = points[-1] if points else (0, 0)
        if command == "h":
            points.append((x + numbers.pop(), y))
        elif len(numbers) == 2:
            dx, dy = numbers
            points.append((dx, dy) if command == "M" else (x + dx, y + dy))
            numbers = []
    return points


def test_full_scale_int16_fills_but_never_leaves_its_lane() -> None:
    # -32768 is the loudest int16 sample; its absolute value overflows in int16, so the
    # peak must be taken in floats or the envelope would overshoot the lane.
    samples = np.array([0, -32768, 16384, 0] * 250, dtype=np.int16)
    root = _svg(Timeline(1.0, (Track("user", 70.0, wave=Wave(samples, 1000)),)))
    ys = [y for _, y in _path_points(next(root.iter("path")).get("d", ""))]
    # the lane is 70 units from y 8 (4 above the panel, 4 of margin): its middle is at 43,
    # a full-scale sample 0.45 x 70 = 31.5 from it; -32768 is drawn at 43 + 31.5 = 74.5,
    # 16384 at 43 - 15.75 = 27.25; in whole units (Python rounds half to even) 74 and 27
    assert (min(ys), max(ys)) == (27, 74)


def test_the_envelope_is_one_short_path() -> None:
    # The caption column is as wide as "words (99 unlabelled)" (155.22, as above), so the
    # plot is 1016.78 units and asks for int(1016.78 / 2) = 508 columns; 10 000 samples
    # in blocks of 10 000 // 508 = 19 make 526 columns, the k-th at (19 k + 9.5) ms,
    # 101.678 units a second: the first at 155.22 + 0.0095 x 101.678 = 156.19, the last
    # (k = 525) at 155.22 + 9.9845 x 101.678 = 1170.42, 1.93 units apart
    root = _svg(_timeline())
    wave = next(root.iter("path"))
    points = _path_points(wave.get("d", ""))
    assert wave.get("class") == "wave" and list(root.iter("polygon")) == []
    xs = [x for x, _ in points]
    assert (xs[0], max(xs)) == (156, 1170)
    # along the top and back along the bottom, a run at one height merged into one "h"
    assert len(points) <= 2 * 526
    turn = xs.index(1170)
    assert {b - a for a, b in zip(xs[:turn], xs[1:turn + 1], strict=True)} <= {1, 2, 3, 4}


def test_pages_never_import_matplotlib() -> None:
    code = ("import sys\n"
            "from speecheval.report.timeline import Bar, Timeline, Track, to_svg\n"
            "from speecheval.session.report import report_html\n"
            "to_svg(Timeline(1.0, (Track('a', spans=(Bar((0, 1)),)),)), ident='x', "
            "description='x')\n"
            "print('matplotlib' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
