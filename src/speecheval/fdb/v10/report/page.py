"""``fdb10 report``: one self-contained HTML page for one system or several side by side.

A person should see what happened, not read JSON: per subset every unified metric with
its interval, count and selected bounds beside the official reference column, coverage
and why samples were ineligible, the response-latency curve F(t) of every system
(turn-taking and interruption), the outcomes as stacked bars per system, for two systems
the paired comparison the spec prescribes, and every sample in a table that a click
narrows to one outcome, each row opening the sample's timeline (the ``fdb10 show``
picture, drawn by the shared renderer as inline SVG) and its audio.

Audio is embedded while the page's budget allows (:mod:`speecheval.report.page`); past
it a player links the file by its path relative to the page, and the page says so.

Each tree is scored exactly as ``unified-score`` scores it (:func:`score_tree`), so the
page shows the same numbers; the timelines add Silero segments for every sample.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from .... import __version__
from ....core.audio import read_mono
from ....core.errors import InputError
from ....report import page as pg
from ....report.numbers import fixed
from ....report.table import Align, Table
from ....report.timeline import to_svg
from ...common.speech import SpeechJob, segment_files
from ...common.tree import (
    BACKCHANNEL,
    OUTPUT_WAV,
    PAUSE_HANDLING,
    SMOOTH_TURN_TAKING,
    ManifestSample,
)
from ..reference.column import ReferenceColumn, load_reference_column
from ..scoring.latency_curve import REFERENCE_TIME, latency_curve
from ..scoring.outcomes import OUTCOMES, outcome, outcome_counts
from ..scoring.paired import pair_subset
from ..scoring.unified import UnifiedResult, load_sample, score_tree
from .curves import RIGHT, curve_blocks
from .leaderboard import Entry, bound_text, leaderboard, pair_text
from .paired import paired_section
from .show_plan import plan_timeline
from .systems import TreeSpec, system_names

INPUT_WAV = "input.wav"
"""The user's side, played beside the output when the tree has it (not part of the
tree format, so not hash-checked)."""


@dataclass(frozen=True)
class System:
    """One scored tree: its name on the page, its scores, reference column and pictures."""

    name: str
    tree: Path
    result: UnifiedResult
    reference: ReferenceColumn | None
    reference_note: str
    timelines: dict[str, Markup]


def _seconds(value: float | None) -> str:
    return fixed(value, unit=" s")


def row_numbers(row: dict[str, Any]) -> str:
    """The numbers that decide a row's outcome, in one cell.

    >>> row_numbers({"eligible": True, "task": "smooth_turn_taking", "E": 2.01,
    ...              "first_word_s": 3.36, "latency_s": 1.35})
    'E 2.010 s, first word 3.360 s, latency 1.350 s'
    """
    if not row["eligible"]:
        return "reasons: " + ", ".join(row["reasons"])
    task = row["task"]
    if task == PAUSE_HANDLING:
        return (f"first pause {_seconds(row['first_pause_start_s'])}, {row['words']} words, "
                f"{row['intrusion_words']} intruding, {row['intruded_pauses']} of "
                f"{row['pauses']} pauses intruded")
    if task == SMOOTH_TURN_TAKING:
        return (f"E {_seconds(row['E'])}, first word {_seconds(row['first_word_s'])}, "
                f"latency {_seconds(row['latency_s'])}")
    return (f"S {_seconds(row['S'])}, R {_seconds(row['R'])}, speech at S "
            f"{'yes' if row['speech_at_onset'] else 'no'}, at R "
            f"{'yes' if row['speech_at_end'] else 'no'}, stop {_seconds(row['stop_s'])}, "
            f"latency {_seconds(row['latency_s'])}")


def _timelines(tree: Path, result: UnifiedResult, workers: int, prefix: str
               ) -> dict[str, Markup]:
    """The ``fdb10 show`` picture of every eligible scored sample, as inline SVG."""
    rows = {r["sample_id"]: r for r in _rows(result) if r["eligible"]}
    entries = [e for e in result.manifest.samples if e.sample_id in rows]
    jobs = [SpeechJob(e.sample_id, e.file(tree, OUTPUT_WAV), e.files[OUTPUT_WAV],
                      e.input_duration_s) for e in entries]
    pictures = {}
    segmented = segment_files(jobs, workers, advance=lambda units=1: None)
    for index, (entry, segments) in enumerate(zip(entries, segmented, strict=True)):
        sample = load_sample(tree, entry, result.asr)
        audio = read_mono(entry.file(tree, OUTPUT_WAV), sample_id=entry.sample_id)
        timeline = plan_timeline(sample, segments, rows[entry.sample_id], audio.samples,
                                 audio.rate)
        pictures[entry.sample_id] = to_svg(
            timeline, ident=f"{prefix}s{index}",
            description=f"timeline of {entry.sample_id}: {outcome(rows[entry.sample_id])}")
    return pictures


def _rows(result: UnifiedResult) -> list[dict[str, Any]]:
    """The per-sample rows as ``unified-samples.jsonl`` writes them."""
    return [row.report_dict() for row in result.rows]


def _summary(result: UnifiedResult) -> dict[str, Any]:
    """The summary as ``unified.json`` writes it."""
    return result.summary.report_dict()


def load_systems(specs: Sequence[TreeSpec], workers: int) -> list[System]:
    """Score every tree, each named as :mod:`.systems` says (a tree without a name, or
    two trees with one name, is refused before anything is scored)."""
    names = system_names(specs)
    systems = []
    for index, (spec, name) in enumerate(zip(specs, names, strict=True)):
        result = score_tree(spec.path, workers=workers)
        reference, note = load_reference_column(spec.path, result.manifest.sha256,
                                                result.asr.sha256)
        systems.append(System(name, spec.path, result, reference, note,
                              _timelines(spec.path, result, workers, f"t{index}")))
    return systems


def metric_cells(metric: dict[str, Any]) -> tuple[str, str, str, str]:
    """Value, 95% interval, count and selected bounds of one metric record.

    >>> metric_cells({"kind": "share", "value": 0.5, "interval": [0.2, 0.8], "count": 2,
    ...               "n": 4, "selected_bounds": [0.4, 0.6]})
    ('0.500', '[0.200, 0.800]', '2/4', '[0.400, 0.600]')
    """
    kind = metric["kind"]
    if kind == "share":
        return (fixed(metric["value"]), pair_text(metric["interval"]),
                f"{metric['count']}/{metric['n']}", pair_text(metric["selected_bounds"]))
    interval = metric["interval"] if kind == "pooled_ratio" else metric["median"]["interval"]
    shown = "n/a" if interval is None else (
        f"[{bound_text(interval['low'], interval['low_reached'])}, "
        f"{bound_text(interval['high'], interval['high_reached'])}]")
    if kind == "pooled_ratio":
        return (fixed(metric["value"]), shown,
                f"{fixed(metric['numerator'], 2)}/{fixed(metric['denominator'], 2)} over "
                f"{metric['n_samples']} samples", "-")
    median, p90 = metric["median"], metric["p90"]
    return (f"median {bound_text(median['value'], median['reached'])} s, p90 "
            f"{bound_text(p90['value'], p90['reached'])} s", shown,
            f"{metric['observed']} of {metric['n']} with a value", "-")


def _coverage(system: System, record: dict[str, Any]) -> str:
    counts = record["counts"]
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(counts["ineligible_reasons"].items()))
    text = (f"{system.name}: coverage {fixed(record['coverage'])}, {counts['eligible']} of "
            f"{counts['selected']} selected samples eligible ({counts['declared']} declared)")
    if reasons:
        text += f"; ineligible: {reasons}"
    if record.get("min_observable_s") is not None:
        text += f"; min_observable_s {fixed(record['min_observable_s'])}"
    return text


def _metric_table(present: Sequence[tuple[System, dict[str, Any]]]) -> Table:
    """Metric rows, one group of columns (value, interval, count, bounds) per system."""
    names = sorted({name for _, r in present for name in r["metrics"]})
    rows = []
    for name in names:
        metrics = [r["metrics"].get(name) for _, r in present]
        better = next(m["better"] for m in metrics if m is not None)
        row = [name, better]
        for metric in metrics:
            row += ["-"] * 4 if metric is None else metric_cells(metric)
        rows.append(row)
    header = ["metric", "better"]
    for system, _ in present:
        header += [f"{system.name}: value", f"{system.name}: 95% interval",
                   f"{system.name}: count", f"{system.name}: selected bounds"]
    align: list[Align] = ["left", "left", *(RIGHT,) * (4 * len(present))]
    return Table.of(header, rows, align=align)


def _reference_cell(system: System, subset: str, key: str) -> str:
    column = system.reference
    values = column.subsets.get(subset, {}) if column is not None else {}
    if column is None or key not in values:
        return "-"
    value = values[key]
    shown = (fixed(value) if isinstance(value, int | float) and not isinstance(value, bool)
             else "n/a" if value is None else str(value))
    return f"{shown} ({column.label(key)})"


def _reference_table(systems: Sequence[System], subset: str) -> Table:
    """Official metric rows, one column per system (each value with its source), and
    what each system's column rests on."""
    keys = sorted({key for s in systems if s.reference is not None
                   for key in s.reference.subsets.get(subset, {})})
    rows = [[key, *(_reference_cell(s, subset, key) for s in systems)] for key in keys]
    rows.append(["reference column", *(s.reference_note for s in systems)])
    return Table.of(["official metric", *(s.name for s in systems)], rows,
                    align=None)


def comparison_pairs(names: Sequence[str], baseline: str | None
                     ) -> list[tuple[int, int]]:
    """Which systems the page compares: each against ``baseline``, else every pair.

    >>> comparison_pairs(["a", "b", "c"], None), comparison_pairs(["a", "b", "c"], "b")
    ([(0, 1), (0, 2), (1, 2)], [(1, 0), (1, 2)])
    """
    if baseline is not None:
        base = list(names).index(baseline)
        return [(base, other) for other in range(len(names)) if other != base]
    return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]


def _subset_section(systems: Sequence[System], subset: str, page_folder: Path,
                    pairs: Sequence[tuple[int, int]]) -> pg.Section | None:
    records = [(s, _summary(s.result)["subsets"].get(subset)) for s in systems]
    present = [(s, r) for s, r in records if r is not None]
    if not present:
        return None
    task = present[0][1]["task"]
    blocks: list[pg.Block] = [pg.BulletList(tuple(_coverage(s, r) for s, r in present))]
    if task == BACKCHANNEL:
        blocks.append(pg.Paragraph(("No unified metric: the official backchannel frequency "
                                    "and JSD are the reference.",), kind="note"))
    else:
        blocks.append(pg.TableBlock(_metric_table(present)))
    blocks.append(pg.Section("Reference column (official evaluator)", (pg.TableBlock(
        _reference_table(systems, subset)),), level=3))
    if task in REFERENCE_TIME:
        what = "exercised samples" if task != SMOOTH_TURN_TAKING else "eligible samples"
        curves = [(system.name, latency_curve(_subset_rows(system, subset)))
                  for system in systems]
        blocks.append(pg.Section("Response-latency curve F(t)", curve_blocks(
            curves, reference=REFERENCE_TIME[task], what=what), level=3))
    if task in OUTCOMES:
        blocks.append(pg.Section("Outcomes", (pg.Bars(
            tuple(name for name, _ in OUTCOMES[task]),
            tuple((system.name, outcome_counts(task, _subset_rows(system, subset)))
                  for system in systems),
            tuple(tone for _, tone in OUTCOMES[task])),), level=3))
        for first, second in ((systems[i], systems[j]) for i, j in pairs):
            blocks.append(paired_section(pair_subset(subset, task, _rows(first.result),
                                                     _rows(second.result)),
                                         first.name, second.name))
        blocks.append(pg.Section("Samples", (_sample_table(systems, subset, page_folder),),
                                 level=3))
    return pg.Section(f"{subset} ({task})", tuple(blocks))


def _subset_rows(system: System, subset: str) -> list[dict[str, Any]]:
    return [row for row in _rows(system.result) if row["subset"] == subset]


def _players(system: System, entry: ManifestSample, page_folder: Path) -> list[pg.Block]:
    """The sample's output (hash-checked when it was scored) and, when the tree has it,
    the input; each links its file relative to the page when it is not embedded."""
    players: list[pg.Block] = []
    for name, caption in ((OUTPUT_WAV, "output.wav (the system)"),
                          (INPUT_WAV, "input.wav (the user; not hash-checked)")):
        path = entry.file(system.tree, name)
        if name == OUTPUT_WAV or path.is_file():
            relative = Path(os.path.relpath(os.path.abspath(path),
                                            os.path.abspath(page_folder))).as_posix()
            players.append(pg.Audio(caption, relative, path.read_bytes))
    return players


def _sample_table(systems: Sequence[System], subset: str, page_folder: Path
                  ) -> pg.FilterTable:
    rows = []
    for system in systems:
        entries = {e.sample_id: e for e in system.result.manifest.samples}
        for row in _subset_rows(system, subset):
            picture = system.timelines.get(row["sample_id"])
            details: list[pg.Block] = []
            if picture is not None:
                details = [pg.Figure(picture),
                           *_players(system, entries[row["sample_id"]], page_folder)]
            rows.append(pg.FilterRow(
                outcome(row), (system.name, row["sample_id"], outcome(row), row_numbers(row)),
                tuple(details)))
    return pg.FilterTable(f"samples-{subset.replace('_', '-')}",
                          ("system", "sample", "outcome", "numbers"), tuple(rows),
                          details_label="timeline and audio")


def build_page(systems: Sequence[System], page_folder: Path, *,
               baseline: str | None = None) -> pg.Page:
    """The page of one or more scored systems, to be written into ``page_folder`` (audio
    that is not embedded is linked relative to it); the paired comparisons set each
    system against ``baseline`` when it is given, else every pair."""
    names = [s.name for s in systems]
    if baseline is not None and baseline not in names:
        raise InputError(f"--baseline {baseline!r} is none of the systems on the page ("
                         + ", ".join(names) + ")")
    pairs = comparison_pairs(names, baseline)
    first = _summary(systems[0].result)
    facts = [pg.Fact("systems", (", ".join(f"{s.name} ({s.tree})" for s in systems),)),
             pg.Fact("definitions", (pg.Code(first["definitions_version"]),))]
    for system in systems:
        asr = system.result.asr.identity
        label = asr.get("backend") or asr.get("name") or "unknown"
        model = asr.get("model", {})
        if isinstance(model, dict) and model.get("name"):
            label = f"{label} {model['name']}"
        facts.append(pg.Fact(f"{system.name}", (f"transcripts: {label}; ",
                                                system.reference_note)))
    subsets: list[str] = []
    for system in systems:
        subsets += [s for s in _summary(system.result)["subsets"] if s not in subsets]
    board = pg.Section("Leaderboard", (
        pg.Paragraph(("Each cell: the value, its 95% interval and the subset's coverage "
                      "(eligible samples of those selected), read from unified.json; a "
                      "column's best value is marked only where its interval overlaps no "
                      "other system's.",), kind="note"),
        pg.TableBlock(leaderboard([Entry(s.name, _summary(s.result), s.reference)
                                   for s in systems]))))
    sections = (board, *(section for subset in subsets if (section := _subset_section(
        systems, subset, page_folder, pairs)) is not None))
    provenance = tuple((f"{s.name} manifest.json", s.result.manifest.sha256[:12])
                       for s in systems) + (("speecheval", __version__),)
    return pg.Page(title="Full-Duplex-Bench v1.0: " + ", ".join(s.name for s in systems),
                   facts=tuple(facts), provenance=provenance, blocks=sections)
