"""The v1.5 latency tables: per scenario, metric rows and one column pair per system
(speecheval's event-anchored figure, then the official ``get_timing`` figure beside it).

Why data-driven: ``timing.json`` grows (a bridged and an unbridged stop latency, means
beside medians, a second anchor for the response), and a page that names every field
would hide a new one until someone edits it. So the known records come first in a fixed
order (medians with their intervals, p90, every status share with its Wilson interval and
bounds), and every other field of a scenario's summary follows as rows of its own,
formatted by its shape: a latency-quantiles record, a share, a ``{value, interval}``
estimate, a number, or a map of those.

The official column summarises what ``get_timing.py`` writes per file (the lists of
:mod:`..timing.official`): the length of every overlap of user and model speech
(``latency_stop_list``) and every gap from a user end to the next model start
(``latency_resp_list``), pooled over the scenario's files, as median and mean. Those
lists are whole-file (a context turn counts too), which is why they sit beside the
headline rather than replace it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ....report import page as pg
from ....report.leaderboard_table import label_then_numbers
from ....report.numbers import fixed
from ....report.table import Table
from .estimates import mean_estimate, median_estimate, p90_text, share_estimate
from .scored_system import ScoredSystem

KNOWN = ("declared", "trials", "stop_latency", "stop_statuses", "response_latency",
         "response_statuses")
OFFICIAL_LISTS = {"stop": "latency_stop_list", "response": "latency_resp_list"}


def _name(key: str) -> str:
    return key.replace("_", " ")


def shaped_rows(label: str, value: Any, trials: int) -> Iterator[tuple[str, str]]:
    """(row label, cell) for one field of a summary, by its shape (module docstring)."""
    if isinstance(value, Mapping):
        kind = value.get("kind")
        if kind == "latency_quantiles":
            yield f"{label}: median [95%]", median_estimate(value, trials).text
            yield f"{label}: p90", p90_text(value)
            if isinstance(value.get("mean"), Mapping):
                yield f"{label}: mean [95%]", mean_estimate(value["mean"])
        elif kind == "share":
            yield label, share_estimate(value).text
        elif "value" in value and ("interval" in value or len(value) <= 3):
            yield label, mean_estimate(value)
        else:
            for key, inner in value.items():
                if key not in ("kind", "better"):
                    yield from shaped_rows(f"{label} {_name(key)}", inner, trials)
    elif isinstance(value, bool) or value is None:
        yield label, "n/a" if value is None else str(value).lower()
    elif isinstance(value, int):
        yield label, str(value)
    elif isinstance(value, float):
        yield label, fixed(value, 3)
    elif isinstance(value, str):
        yield label, value
    elif isinstance(value, list) and all(isinstance(v, int | float) for v in value):
        yield label, ", ".join(fixed(float(v), 3) for v in value)


def summary_rows(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every row of one system's scenario summary, known records first."""
    trials = int(summary.get("trials", 0))
    rows = [("trials / declared", f"{trials}/{summary.get('declared', '?')}")]
    for key, what in (("stop", "stop latency"), ("response", "response latency")):
        if f"{key}_latency" in summary:
            rows += list(shaped_rows(what, summary[f"{key}_latency"], trials))
        for status, share in (summary.get(f"{key}_statuses") or {}).items():
            rows.append((f"{key} status {status}", share_estimate(share).text))
    for key, value in summary.items():
        if key not in KNOWN:
            rows += list(shaped_rows(_name(key), value, trials))
    return rows


def official_text(trials: Sequence[Mapping[str, Any]], which: str) -> str:
    """The pooled official figure of one side (``stop`` or ``response``) of a scenario."""
    lists = [row.get("official", {}).get(OFFICIAL_LISTS[which], []) for row in trials]
    lengths = [float(end) - float(start) for intervals in lists for start, end in intervals]
    files = sum(1 for intervals in lists if intervals)
    if not lengths:
        return f"no interval (0/{len(trials)} files)"
    median = statistics.median(lengths)
    mean = math.fsum(lengths) / len(lengths)
    return (f"median {fixed(median, 3)} s, mean {fixed(mean, 3)} s ({len(lengths)} "
            f"intervals, {files}/{len(trials)} files)")


def _official_cells(system: ScoredSystem, scenario: str) -> dict[str, str]:
    trials = [row for row in system.timing if row["scenario"] == scenario]
    return {"stop latency: median [95%]": official_text(trials, "stop"),
            "response latency: median [95%]": official_text(trials, "response")}


def latency_table(systems: Sequence[ScoredSystem], scenario: str) -> Table:
    """Metric rows; per system its column and the official column beside it."""
    labels: list[str] = []
    cells: list[dict[str, str]] = []
    for system in systems:
        summary = system.summary.get(scenario)
        rows = dict(summary_rows(summary)) if summary is not None else {}
        labels += [label for label in rows if label not in labels]
        cells.append(rows)
    official = [_official_cells(s, scenario) if scenario in s.summary else {}
                for s in systems]
    header = ["metric"]
    for system in systems:
        header += [system.name, f"{system.name} official get_timing"]
    table_rows = []
    for label in labels:
        row = [label]
        for mine, theirs in zip(cells, official, strict=True):
            row += [mine.get(label, "-"), theirs.get(label, "-")]
        table_rows.append(row)
    return Table.of(header, table_rows, align=label_then_numbers(1, len(header) - 1))


def latency_tables(systems: Sequence[ScoredSystem], scenarios: Sequence[str]) -> pg.Section:
    """One table per scenario (the paper's order)."""
    blocks: list[pg.Block] = [pg.Paragraph((
        "Medians with 95% percentile-bootstrap intervals (censored and missing values at "
        "+inf: a quantile landing there is not reached), p90, and every status's share "
        "with its 95% Wilson interval. The official column pools the intervals "
        "get_timing.py writes per file (latency_stop_list: overlaps of user and model "
        "speech; latency_resp_list: user end to next model start), whole-file and not "
        "tied to the overlap window.",), kind="note")]
    for scenario in scenarios:
        blocks.append(pg.Section(_name(scenario), (pg.TableBlock(
            latency_table(systems, scenario)),), level=3))
    return pg.Section("Latency per scenario", tuple(blocks))


DOCUMENT_KEYS = frozenset({"kind", "schema_version", "definitions", "provenance", "scenarios"})


def _extra_title(key: str) -> str:
    if "pilot" in key:
        return f"Table 1 pilot: clean (context-only) sessions ({key})"
    return f"Also recorded: {_name(key)}"


def recorded_extras(systems: Sequence[ScoredSystem]) -> list[pg.Section]:
    """A section per top-level record of ``timing.json`` beyond the known ones (the
    Table 1 pilot, when ``fdb15 score`` records it), systems as columns, rows by shape."""
    keys: list[str] = []
    for system in systems:
        keys += [k for k in system.document if k not in DOCUMENT_KEYS and k not in keys]
    sections = []
    for key in keys:
        labels: list[str] = []
        cells = []
        for system in systems:
            rows = dict(shaped_rows(_name(key), system.document[key], 0)
                        if key in system.document else ())
            labels += [label for label in rows if label not in labels]
            cells.append(rows)
        table = Table.of(["figure", *(s.name for s in systems)],
                         [[label, *(c.get(label, "-") for c in cells)] for label in labels],
                         align=label_then_numbers(1, len(systems)))
        sections.append(pg.Section(_extra_title(key), (pg.TableBlock(table),)))
    return sections
