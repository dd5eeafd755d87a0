"""``fdb10 report``: one HTML page for one system or several side by side.

A person should see what happened, not read JSON: first a leaderboard of every system's
headline numbers (:mod:`.leaderboard`), then per subset every unified metric with its
interval, count and selected bounds, one column group per system, beside the official
reference column; coverage and why samples were ineligible; the response-latency curve
F(t) of every system (turn-taking and interruption); the outcomes as stacked bars; the
paired comparison the spec prescribes for every pair of systems (or each against a
baseline); and every sample in a table that a click narrows to one outcome, each row
opening the sample's timeline (the ``fdb10 show`` picture, with the user's speech as a
lane when the input is at hand) and its players: input and reply together in stereo,
and each alone (:mod:`.user_side`).

The clips are Ogg Opus, embedded while they fit the page's budget and else linked in a
folder beside it (:mod:`.audio_files`). Each tree is scored exactly as ``unified-score``
scores it (:func:`score_tree`), so the page shows the same numbers as ``unified.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from .... import __version__
from ....core.audio import read_mono
from ....core.errors import InputError
from ....core.executor import LocalExecutor
from ....report import page as pg
from ....report.leaderboard_table import comparison_pairs
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
from .audio_files import AUDIO_BUDGET_MB, AudioFiles
from .clips import Clip, Reply
from .curves import RIGHT, curve_blocks
from .leaderboard import Entry, bound_text, leaderboard, pair_text
from .paired import paired_section
from .show_plan import plan_timeline
from .systems import TreeSpec, system_names
from .user_side import Inputs, load_inputs


@dataclass(frozen=True)
class System:
    """One scored tree: its name on the page, its scores, reference column and pictures."""

    name: str
    tree: Path
    result: UnifiedResult
    reference: ReferenceColumn | None
    reference_note: str
    timelines: dict[str, Markup]
    inputs: Inputs


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


def _timelines(tree: Path, result: UnifiedResult, inputs: Inputs, workers: int, prefix: str
               ) -> dict[str, Markup]:
    """The ``fdb10 show`` picture of every eligible scored sample, as inline SVG, with
    the speech Silero finds in the user's input as a lane of its own where it is read."""
    rows = {r["sample_id"]: r for r in _rows(result) if r["eligible"]}
    entries = [e for e in result.manifest.samples if e.sample_id in rows]
    jobs = [SpeechJob(e.sample_id, e.file(tree, OUTPUT_WAV), e.files[OUTPUT_WAV],
                      e.input_duration_s) for e in entries]
    heard = [e for e in entries if e.sample_id in inputs.found]
    jobs += [SpeechJob(e.sample_id, inputs.found[e.sample_id].path,
                       inputs.found[e.sample_id].sha256, e.input_duration_s) for e in heard]
    segmented = segment_files(jobs, workers, advance=lambda units=1: None)
    user_speech = dict(zip((e.sample_id for e in heard), segmented[len(entries):],
                           strict=True))
    pictures = {}
    for index, (entry, segments) in enumerate(zip(entries, segmented, strict=False)):
        sample = load_sample(tree, entry, result.asr)
        audio = read_mono(entry.file(tree, OUTPUT_WAV), sample_id=entry.sample_id)
        timeline = plan_timeline(sample, segments, rows[entry.sample_id], audio.samples,
                                 audio.rate, user_speech=user_speech.get(entry.sample_id))
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


def load_systems(specs: Sequence[TreeSpec], workers: int, dataset: Path | None = None
                 ) -> list[System]:
    """Score every tree, each named as :mod:`.systems` says (a tree without a name, or
    two trees with one name, is refused before anything is scored); each sample's input
    is read from the dataset the tree records, or from ``dataset`` when given."""
    names = system_names(specs)
    systems = []
    for index, (spec, name) in enumerate(zip(specs, names, strict=True)):
        result = score_tree(spec.path, workers=workers)
        reference, note = load_reference_column(spec.path, result.manifest.sha256,
                                                result.asr.sha256)
        eligible = [r.sample_id for r in result.rows if r.report_dict()["eligible"]]
        inputs = load_inputs(spec.path, eligible, dataset)
        systems.append(System(name, spec.path, result, reference, note,
                              _timelines(spec.path, result, inputs, workers, f"t{index}"),
                              inputs))
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


def _subset_section(systems: Sequence[System], subset: str, files: AudioFiles,
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
        blocks.append(pg.Section("Samples", (_sample_table(systems, subset, files),),
                                 level=3))
    return pg.Section(f"{subset} ({task})", tuple(blocks))


def _subset_rows(system: System, subset: str) -> list[dict[str, Any]]:
    return [row for row in _rows(system.result) if row["subset"] == subset]


def _players(system: System, index: int, entry: ManifestSample, files: AudioFiles
             ) -> list[pg.Block]:
    """The sample's input and reply together (a stereo clip: the user left, the model
    right) and each alone; without its input the reply alone, saying why."""
    sample_id = entry.sample_id
    reply = Reply(entry.file(system.tree, OUTPUT_WAV), sample_id)
    own = f"s{index + 1}/{sample_id}"
    model = files.player("the model alone (output.wav)", f"{own}/output.ogg",
                         Clip(reply=reply))
    user = system.inputs.found.get(sample_id)
    if user is None:
        return [pg.Paragraph((f"No input: {system.inputs.missing[sample_id]}.",),
                             kind="note"), model]
    return [files.player("both: the user left, the model right", f"{own}/both.ogg",
                         Clip(reply=reply, user=user)),
            files.player("the user alone (input.wav of the dataset, SHA-256 checked)",
                         f"input/{sample_id}-{user.sha256[:12]}.ogg", Clip(user=user)),
            model]


def _sample_table(systems: Sequence[System], subset: str, files: AudioFiles
                  ) -> pg.FilterTable:
    rows = []
    for index, system in enumerate(systems):
        entries = {e.sample_id: e for e in system.result.manifest.samples}
        for row in _subset_rows(system, subset):
            picture = system.timelines.get(row["sample_id"])
            details: list[pg.Block] = []
            if picture is not None:
                details = [pg.Figure(picture),
                           *_players(system, index, entries[row["sample_id"]], files)]
            rows.append(pg.FilterRow(
                outcome(row), (system.name, row["sample_id"], outcome(row), row_numbers(row)),
                tuple(details)))
    return pg.FilterTable(f"samples-{subset.replace('_', '-')}",
                          ("system", "sample", "outcome", "numbers"), tuple(rows),
                          details_label="timeline and audio")


def build_page(systems: Sequence[System], files: AudioFiles, *,
               baseline: str | None = None, audio_budget_mb: float = AUDIO_BUDGET_MB,
               workers: int = 1) -> pg.Page:
    """The page of one or more scored systems; its clips go into ``files``, embedded
    while they fit ``audio_budget_mb`` and else linked in ``files``' folder (which the
    caller then writes beside the page). The paired comparisons set each system against
    ``baseline`` when it is given, else every pair."""
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
                                                system.reference_note, "; ",
                                                system.inputs.note)))
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
        systems, subset, files, pairs)) is not None))
    # spawned workers: Silero may have started onnxruntime's threads in this process
    files.encode_all(LocalExecutor(workers, small_items=True).fork_safe())
    limit = files.embed_limit(audio_budget_mb)
    provenance = tuple((f"{s.name} manifest.json", s.result.manifest.sha256[:12])
                       for s in systems) + (("speecheval", __version__),)
    return pg.Page(title="Full-Duplex-Bench v1.0: " + ", ".join(s.name for s in systems),
                   facts=tuple(facts), provenance=provenance, blocks=sections,
                   embed_limit_bytes=limit,
                   linked_folder=files.folder_name if limit == 0 and files.files else None)
