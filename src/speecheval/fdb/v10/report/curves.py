"""The page's picture of a latency curve: F(t) per system as inline SVG, and the table of
the rates and quantiles read off it.

The spec's response rates and latency quantiles are one curve, so the page draws it
(one step line per system) and marks on it exactly the numbers the metric table lists:
F(1), F(2) and F(5) (``response_rate_ks``) and the median and p90 where reached. Past
``min_observable_s`` some sample's window has ended, so that stretch is shaded and
labelled: the curve there is a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....report import page as pg
from ....report.curve_svg import Guide, Point, Series, render_curves
from ....report.numbers import fixed
from ....report.svg_frame import tick_step
from ....report.table import Align, Table
from ..scoring.latency_curve import LatencyCurve
from ..scoring.tasks import RESPONSE_WINDOWS_S

QUANTILES = ((0.5, "median"), (0.9, "p90"))
HORIZON_COLOR = "#475569"
RIGHT: Align = "right"


def _share(curve: LatencyCurve, seconds: float) -> str:
    share = curve.share_within(seconds)
    if share is None:
        return "n/a"
    return f"{fixed(share)} ({round(share * curve.n)}/{curve.n})"


def _quantile(curve: LatencyCurve, q: float) -> str:
    if curve.n == 0:
        return "n/a"
    value = curve.quantile(q)
    return "not reached" if value is None else fixed(value, unit=" s")


def _series(name: str, curve: LatencyCurve) -> Series:
    points = []
    for k in RESPONSE_WINDOWS_S:
        share = curve.share_within(k)
        if share is not None:
            points.append(Point(k, share, f"{name}: response_rate_{k}s = F({k} s) = "
                                          f"{_share(curve, k)}"))
    for q, label in QUANTILES:
        value = curve.quantile(q)
        if value is not None:
            share = curve.share_within(value) or 0.0
            points.append(Point(value, share, f"{name}: {label} latency Q({q:g}) = "
                                              f"{fixed(value)} s"))
    return Series(name, curve.steps(), tuple(points))


def _horizons(curves: Sequence[tuple[str, LatencyCurve]]) -> list[Guide]:
    """One shaded guide per distinct ``min_observable_s``, naming its systems when the
    page has several."""
    by_value: dict[float, list[str]] = {}
    for name, curve in curves:
        if curve.min_observable_s is not None:
            by_value.setdefault(curve.min_observable_s, []).append(name)
    several = len(curves) > 1
    return [Guide(value, f"min_observable_s {fixed(value)} s"
                  + (f" ({', '.join(names)})" if several else ""), HORIZON_COLOR,
                  dashed=False, shade=True)
            for value, names in sorted(by_value.items())]


def _x_max(curves: Sequence[tuple[str, LatencyCurve]]) -> float:
    """Room for the longest latency, the longest response window and every horizon."""
    longest = max([float(max(RESPONSE_WINDOWS_S))]
                  + [c.latencies_us[-1] / 1e6 for _, c in curves if c.latencies_us]
                  + [c.min_observable_s for _, c in curves if c.min_observable_s is not None])
    step = tick_step(longest * 1.05)
    return math.ceil(longest * 1.05 / step) * step


def curve_blocks(curves: Sequence[tuple[str, LatencyCurve]], *, reference: str,
                 what: str) -> tuple[pg.Block, ...]:
    """The curve of every (system name, curve) and its table; ``reference`` names the
    time latencies are measured from (E or R), ``what`` the samples counted."""
    guides = [Guide(k, f"{k} s", "#94a3b8") for k in RESPONSE_WINDOWS_S]
    svg = render_curves([_series(name, curve) for name, curve in curves],
                        x_max=_x_max(curves), guides=guides + _horizons(curves),
                        x_label=f"t: seconds after {reference}",
                        y_label=f"F(t): share of {what}",
                        description=f"response-latency curve F(t) after {reference}: "
                        + ", ".join(name for name, _ in curves))
    rows = [[name, str(curve.n), str(curve.responded),
             *(_share(curve, k) for k in RESPONSE_WINDOWS_S),
             *(_quantile(curve, q) for q, _ in QUANTILES),
             fixed(curve.min_observable_s, unit=" s")] for name, curve in curves]
    header = ["system", "samples", "responses",
              *(f"F({k} s) = response_rate_{k}s" for k in RESPONSE_WINDOWS_S),
              *(f"{label} latency" for _, label in QUANTILES), "min_observable_s"]
    note = pg.Paragraph((
        f"Each step is a response: F(t) is the share of the {what} whose first word "
        f"starts at most t seconds after {reference}. The dots are the numbers of the table: "
        "F(1 s), F(2 s), F(5 s) and the median and p90 latency where reached (a quantile "
        "q is the first t where F(t) reaches q). The height the curve ends at is the share "
        "that responded at all; past min_observable_s (shaded) some sample's window has "
        "ended, so there the curve is a lower bound.",), kind="note")
    return (note, pg.Figure(svg), pg.TableBlock(Table.of(
        header, rows, align=["left", *(RIGHT,) * (len(header) - 1)])))
