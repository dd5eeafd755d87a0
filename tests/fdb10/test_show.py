"""``fdb10 show`` draws a sample's timeline as PNG or SVG."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text

from speecheval.cli import main

from .test_official_examples import convert


@pytest.fixture
def tree(fixtures_dir: Path, tmp_path: Path) -> Path:
    convert(fixtures_dir / "fdb-official-examples" / "example_data", tmp_path / "tree")
    return tmp_path / "tree"


def test_png_and_deterministic_svg(tree: Path, tmp_path: Path) -> None:
    sid = "synthetic_user_interruption/1"
    assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                 str(tmp_path / "a.png")]) == 0
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("b.svg", "c.svg"):
        assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                     str(tmp_path / name)]) == 0
    svg = (tmp_path / "b.svg").read_text()
    assert svg == (tmp_path / "c.svg").read_text()
    assert "not_exercised" in svg and "user interrupts" in svg


def test_show_never_overwrites(tree: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.png").write_bytes(b"keep")
    assert main(["fdb10", "show", "--tree", str(tree), "candor_turn_taking/1", "--out",
                 str(tmp_path / "a.png")]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert (tmp_path / "a.png").read_bytes() == b"keep"


@pytest.mark.parametrize("sid,out,fragment", [
    ("candor_turn_taking/1", "x.pdf", ".png or .svg"),
    ("candor_turn_taking/9", "x.png", "no such sample"),
])
def test_show_errors(tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                     sid: str, out: str, fragment: str) -> None:
    assert main(["fdb10", "show", "--tree", str(tree), sid, "--out",
                 str(tmp_path / out)]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / out).exists()


# --- what the picture shows (issue 10 item 25) -------------------------------------------
# Expected times come from unified-samples.jsonl of the same trees (Silero segments, S, R).

UI, TT = "synthetic_user_interruption", "candor_turn_taking"


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from speecheval.fdb.v10.builder.trees import build_mini_tree

    root = tmp_path_factory.mktemp("mini") / "tree"
    build_mini_tree(root)
    return root


def texts(fig: Figure) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_text()]


def strings(fig: Figure) -> list[str]:
    return [t.get_text() for t in texts(fig)]


def axes(fig: Figure) -> dict[str, Axes]:
    return {ax.get_label().split(":")[0]: ax for ax in fig.axes}


def numbers_line(fig: Figure) -> str:
    return fig.texts[1].get_text()


def reference_labels(fig: Figure, label: str) -> list[Text]:
    return [t for t in texts(fig) if t.get_text() == label]


def test_not_exercised_title_shows_speech_at_end_and_no_restart(tree: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    fig = timeline_figure(tree, f"{UI}/1")
    line = numbers_line(fig)
    # official example: silent at S (10.530667), a segment starts at 10.592 inside (S, R)
    assert "outcome: not_exercised" in line
    assert "speech_at_onset false" in line and "speech_at_end false" in line
    assert "segments starting inside (S, R) 1" in line
    assert "restart" not in " ".join(strings(fig))
    assert "start in (S, R)" in strings(fig)
    # the 160 ms pause that decides the outcome: 10.592 - 10.432 = 0.160 s
    assert "no speech at S: 0.160 s gap" in strings(fig)


def test_zoom_panels_around_s_and_r_show_the_pause_large(tree: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    fig = timeline_figure(tree, f"{UI}/1")
    panels = axes(fig)
    s, r = 10.530667, 13.144
    # R - S = 2.613 s > 1.5 s: one panel each, S or R +- 0.75 s
    assert panels["zoom around S"].get_xlim() == pytest.approx((s - 0.75, s + 0.75))
    assert panels["zoom around R"].get_xlim() == pytest.approx((r - 0.75, r + 0.75))
    assert panels["main"].get_xlim() == pytest.approx((0, 28.16), abs=1e-3)
    zoom = panels["zoom around S"]
    pause_px = (zoom.transData.transform((10.592, 0))[0]
                - zoom.transData.transform((10.432, 0))[0])
    assert pause_px > 40          # it was 8 px at the 28 s scale
    fig.canvas.draw()
    s_labels, r_labels = reference_labels(fig, "S"), reference_labels(fig, "R")
    assert len(s_labels) == 2 and len(r_labels) == 2   # on the main panel and its zoom
    for label in s_labels + r_labels:
        assert label.get_fontsize() >= 12 and label.get_fontweight() == "bold"
    main_s = next(t for t in s_labels if t.axes is panels["main"])
    main_r = next(t for t in r_labels if t.axes is panels["main"])
    s_box, r_box = main_s.get_window_extent(), main_r.get_window_extent()
    assert not s_box.overlaps(r_box)
    assert s_box.y0 >= panels["main"].get_window_extent().y1   # above the lanes, not hidden


def test_exercised_sample_marks_stop_restart_and_latency(mini: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    fig = timeline_figure(mini, f"{UI}/10")
    # segments [2.56, 5.056], [5.6, 6.816], [8.32, 8.768]; S = 4.0, R = 7.5, word "sure" 8.3
    line = numbers_line(fig)
    assert "outcome: response" in line and "speech_at_end false" in line
    assert "stop_s 1.056" in line and "restarts 1" in line and "latency_s 0.800" in line
    found = strings(fig)
    assert "stop_s 1.056" in found and "latency_s 0.800" in found
    assert "restart" in found and "start in (S, R)" not in found
    assert found.count("stop") == 2        # the stop line is labelled in both panels it is in
    stop_lines = [line for line in fig.axes[0].get_lines()
                  if list(line.get_xdata()) == [5.056, 5.056]]
    assert len(stop_lines) == 1
    panels = axes(fig)
    # S and the stop (1.056 s apart) share a panel; R and the first word (0.8 s) another
    assert panels["zoom around S and the stop"].get_xlim() == pytest.approx((3.25, 5.806))
    assert panels["zoom around R and the first word"].get_xlim() == pytest.approx((6.75, 9.05))


def test_not_exercised_first_start_is_not_a_restart(mini: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    fig = timeline_figure(mini, f"{UI}/2")
    # one segment [5.632, 11.36]: starts after S = 5.0 and runs past R = 7.0
    assert "speech_at_end true" in numbers_line(fig)
    assert "start in (S, R)" in strings(fig)
    assert not any("restart" in s for s in strings(fig))
    # the speech carrying over R is a span of its own, from the segment start to R
    assert "speech_at_end: carries over R from 5.632 s" in strings(fig)


def test_speech_at_end_span_only_where_speech_carries_over_r(mini: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    # UI/1: silent at S and at R; UI/11: speaking at end, one segment [0.608, 12.0] to T
    assert not any("carries over R" in s for s in strings(timeline_figure(mini, f"{UI}/1")))
    assert "speech_at_end: carries over R from 0.608 s" in strings(
        timeline_figure(mini, f"{UI}/11"))


def test_turn_taking_latency_span_and_zoom_around_e(tree: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure

    fig = timeline_figure(tree, f"{TT}/1")
    # E = 2.01, first word 3.36: latency 1.35 s, both in one zoom panel
    assert "latency_s 1.350" in strings(fig)
    assert axes(fig)["zoom around E and the first word"].get_xlim() == pytest.approx(
        (1.26, 4.11))
    assert len(reference_labels(fig, "E")) == 2


def test_dense_word_labels_never_overlap(tmp_path: Path) -> None:
    from speecheval.fdb.v10.report.show import timeline_figure
    from speecheval.report.timeline.layout import WORD_LABEL_GID

    from .treekit import Spec, turn, write_tree

    # 110 words of 0.12-0.30 s, 0.03 s apart, over 28 s: far too many for one row.
    lengths = [0.12 + 0.06 * (i % 4) for i in range(110)]
    words, start = [], 0.5
    for i, length in enumerate(lengths):
        words.append((["a", "extraordinarily", "of", "conversation"][i % 4], round(start, 3),
                       round(start + length, 3)))
        start += length + 0.03
    tree = write_tree(tmp_path / "t", [Spec(TT, "d", 28.0, words, turn(1.0))])
    fig = timeline_figure(tree, f"{TT}/d")
    fig.canvas.draw()
    main = axes(fig)["main"]
    labels = [t for t in fig.findobj(Text) if t.get_gid() == WORD_LABEL_GID and t.axes is main]
    assert 40 < len(labels) < 110          # staggered into rows, the rest left out
    boxes = [t.get_window_extent() for t in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)
    left_out = 110 - len(labels)
    assert main.get_yticklabels()[1].get_text() == f"words\n({left_out} unlabelled)"


def test_stagger_rows() -> None:
    from speecheval.report.timeline.layout import stagger

    # 40 px labels every 10 px with a 2 px gap: rows free again after 42 px
    assert stagger([0, 10, 20, 30, 42, 52], [40] * 6, rows=3, gap_px=2) == [
        0, 1, 2, None, 0, 1]
