"""Step curves as inline SVG: coordinates worked by hand, escaping, guides."""

from __future__ import annotations

import pytest

from speecheval.report.curve_svg import Guide, Point, Series, render_curves


def test_step_path_coordinates() -> None:
    svg = render_curves([Series("a <b>", ((2.0, 0.5), (4.0, 1.0)),
                                (Point(2.0, 0.5, "F(2) = 1/2"),))],
                        x_max=10.0, x_label="t", y_label="F", description="d")
    # plot 1200 - 56 - 24 = 1120 wide, 420 - 40 - 44 = 336 high, from (56, 40):
    # x(0) = 56, x(2) = 56 + 224 = 280, x(4) = 504, x(10) = 1176;
    # y(0) = 376, y(0.5) = 208, y(1) = 40
    assert 'd="M56.0 376.0 H280.0 V208.0 H504.0 V40.0 H1176.0"' in svg
    assert '<path class="curve" data-series="a &lt;b&gt;"' in svg
    assert '<circle cx="280.0" cy="208.0" r="4"' in svg and "<title>F(2) = 1/2</title>" in svg


def test_guides_shade_and_stack_their_labels() -> None:
    svg = render_curves([Series("a", ())], x_max=10.0, x_label="t", y_label="F",
                        description="d",
                        guides=[Guide(5.0, "five"), Guide(5.0, "horizon", shade=True)])
    # the second label starts where the first one is: it goes one row higher (13 units)
    assert '<text x="619.0" y="34.0" font-size="10" fill="#777" text-anchor="start">five' \
        in svg
    assert '<text x="619.0" y="21.0" font-size="10" fill="#777" text-anchor="start">horizon' \
        in svg
    # shaded from x(5) = 616 to the right edge 1176
    assert '<rect x="616.0" y="40.0" width="560.0" height="336.0" fill="#94a3b8"' in svg
    # a series without steps stays at 0 across the plot
    assert 'd="M56.0 376.0 H1176.0"' in svg


def test_x_max_must_be_positive() -> None:
    with pytest.raises(ValueError, match="x_max"):
        render_curves([], x_max=0.0, x_label="t", y_label="F", description="d")
