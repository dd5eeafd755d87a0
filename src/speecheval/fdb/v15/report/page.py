"""``fdb15 report``: one HTML page of one or more scored systems, side by side.

Each system is the output folder of ``fdb15 score`` and the tree it scored, named as
:mod:`.system_names` says (never after its folder). The page opens with the leaderboard
(:mod:`.leaderboard`: a row per system, per scenario the behaviour shares and the median
stop and response latency with intervals and coverage, the best marked only where the
intervals are apart); then, systems as columns and the scenarios in the paper's order,
the Table 2 shares (bars and numbers, the judge named and marked when it is not the
official one), the latency tables with the official ``get_timing`` column
(:mod:`.latency_tables`), anything else ``timing.json`` records (the Table 1 pilot), the
latency curves, the paired comparisons per scenario (:mod:`.comparisons`), and per trial
the timelines (the input with its speech and the window's times, the output with the
overlap, the clean output: waveform, words, the stop and the response) with the label,
the judge's reason and the players (:mod:`.input_side`: user and model in stereo, each
alone; Opus in Ogg where libsndfile writes it).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .... import __version__
from ....core.audio import Audio, read_mono
from ....report import page as pg
from ....report import timeline as tl
from ....report.curve_svg import Series, render_curves
from ....report.leaderboard_table import label_then_numbers
from ....report.numbers import fixed
from ....report.ogg_opus import encode
from ....report.svg_frame import tick_step
from ....report.table import Table
from ..dataset.layout import DECLARED_SIZES
from ..judge.behavior import CLEAN_OUTPUT_JSON, CLEAN_OUTPUT_WAV, LABELS, OUTPUT_JSON
from ..scoring.trials import OUTPUT_WAV
from .comparisons import comparisons_section
from .estimates import share_estimate
from .input_side import input_audio, input_tracks, players
from .latency_tables import latency_tables, recorded_extras
from .leaderboard import leaderboard_table, scenarios_present
from .scored_system import ScoredSystem

LEADERBOARD_NOTE = (
    "Per scenario: the share of each behaviour label (95% Wilson interval, coverage = "
    "labelled/trials) and the median stop and response latency (95% bootstrap interval, "
    "coverage = trials with a value or censored/trials). \u25b2 best marks the best value "
    "of a column only where its interval overlaps no other system's; it is given where "
    "the paper says which way is better: C_RESPOND and low latencies after a user "
    "interruption, C_RESUME in the other scenarios.")

LABEL_TONES = ("good", "other", "warn", "none")
"""Bar colours of C_RESPOND, C_RESUME, C_UNCERTAIN_HANDLING, C_UNKNOWN."""


def _judge_note(system: ScoredSystem) -> str:
    judge = (system.behaviour or {}).get("judge", {})
    text = f"{system.name}: {judge.get('judge', 'no judge')}"
    if judge and not judge.get("official"):
        text += " (NOT the official judge" + (f": {judge['note']})" if judge.get("note")
                                               else ")")
    return text


def _behaviour_section(systems: Sequence[ScoredSystem],
                       scenarios: Sequence[str]) -> pg.Section | None:
    judged = [s for s in systems if s.behaviour is not None]
    if not judged:
        return None
    bars, rows = [], []
    for scenario in scenarios:
        results = [((s.behaviour or {}).get("scenarios") or {}).get(scenario) for s in judged]
        for system, result in zip(judged, results, strict=True):
            if result is not None:
                label = f"{system.name} / {scenario}" if len(systems) > 1 else scenario
                bars.append((label, tuple(result["shares"][c]["count"] for c in LABELS)))
        if all(result is None for result in results):
            continue
        rows.append([scenario, "labelled", *(
            "-" if r is None else f"{r['trials'] - r['unlabelled']}/{r['trials']}"
            for r in results)])
        rows += [[scenario, label, *("-" if r is None else share_estimate(r["shares"][label]).text
                                     for r in results)] for label in LABELS]
    table = Table.of(["scenario", "label", *(s.name for s in judged)], rows,
                     align=label_then_numbers(2, len(judged)))
    notes = tuple(pg.Paragraph((_judge_note(s),), kind="note") for s in judged)
    return pg.Section("Behaviour after the overlap (Table 2)", (
        pg.Bars(LABELS, tuple(bars), LABEL_TONES), pg.TableBlock(table), *notes,
        pg.Paragraph(("Shares over the labelled trials of each scenario, with 95% Wilson "
                      "intervals.",), kind="note")))


def _steps(values: Sequence[float], n: int) -> tuple[tuple[float, float], ...]:
    ordered = sorted(values)
    return tuple((value, (index + 1) / n) for index, value in enumerate(ordered))


def _curves_section(systems: Sequence[ScoredSystem], scenarios: Sequence[str]) -> pg.Section:
    blocks: list[pg.Block] = []
    for scenario in scenarios:
        for key, what, reference in (("stop_latency_s", "stop latency", "the overlap onset"),
                                     ("response_latency_s", "response latency",
                                      "the overlap end")):
            series, longest = [], 1.0
            for system in systems:
                rows = [r for r in system.timing if r["scenario"] == scenario]
                if not rows:
                    continue
                values = [float(r[key]) for r in rows if r[key] is not None]
                longest = max([longest, *values])
                series.append(Series(system.name, _steps(values, len(rows))))
            if not series:
                continue
            step = tick_step(longest * 1.05)
            blocks += [pg.Section(f"{scenario}: {what}", (pg.Figure(render_curves(
                series, x_max=math.ceil(longest * 1.05 / step) * step,
                x_label=f"seconds after {reference}",
                y_label="share of the scenario's trials",
                description=f"{what} of {scenario}")),), level=3)]
    note = pg.Paragraph(("Each curve is the share of a scenario's trials whose latency is at "
                         "most t; trials without a value (not speaking at the onset, "
                         "speaking through the end, no response, censored) never count, so "
                         "a curve ends at the share that has one.",), kind="note")
    return pg.Section("Latency curves per scenario", (note, *blocks))


def _words(folder: Path, name: str) -> tuple[tl.Word, ...]:
    data = json.loads((folder / name).read_text(encoding="utf-8"))
    return tuple(tl.Word(str(c["text"]).strip(), (float(c["timestamp"][0]),
                                                  float(c["timestamp"][1]
                                                        if c["timestamp"][1] is not None
                                                        else c["timestamp"][0])))
                 for c in data.get("chunks", []) if str(c.get("text", "")).strip())


def _timeline(system: ScoredSystem, row: dict[str, Any], ident: str,
              user: Audio | None) -> pg.Figure:
    folder = system.tree / row["sample_id"]
    output = read_mono(folder / OUTPUT_WAV, sample_id=row["sample_id"])
    onset, end = row["window_s"]
    tracks, markers = input_tracks(user, (onset, end)) if user is not None else ([], [])
    tracks.append(tl.Track("output", wave=tl.Wave(output.samples, output.rate),
                           caption="output (with the overlap)"))
    if (folder / OUTPUT_JSON).is_file():
        tracks.append(tl.Track("output words", words=_words(folder, OUTPUT_JSON), caption=""))
    duration = max(output.duration_s, user.duration_s if user is not None else 0.0)
    if (folder / CLEAN_OUTPUT_WAV).is_file():
        clean = read_mono(folder / CLEAN_OUTPUT_WAV, sample_id=row["sample_id"])
        duration = max(duration, clean.duration_s)
        tracks.append(tl.Track("clean", wave=tl.Wave(clean.samples, clean.rate),
                               caption="clean output", color="#6a8f4e"))
        if (folder / CLEAN_OUTPUT_JSON).is_file():
            tracks.append(tl.Track("clean words", words=_words(folder, CLEAN_OUTPUT_JSON),
                                   caption=""))
    if row["stop_latency_s"] is not None:
        markers.append(tl.Marker(onset + row["stop_latency_s"], "stops", color="#2e7d32",
                                 tracks=("output",), side="left"))
    if row["response_latency_s"] is not None:
        markers.append(tl.Marker(end + row["response_latency_s"], "responds",
                                 color="#1f77b4", tracks=("output",)))
    picture = tl.Timeline(duration_s=duration, tracks=tuple(tracks), markers=tuple(markers),
                          shades=(tl.Shade((onset, end), "#fde2e2", "overlap"),),
                          title=row["sample_id"])
    return pg.Figure(tl.to_svg(picture, ident=ident,
                               description=f"timelines of {row['sample_id']}"))


def _clean_player(system: ScoredSystem, sample_id: str, page_folder: Path) -> list[pg.Block]:
    path = system.tree / sample_id / CLEAN_OUTPUT_WAV
    if not path.is_file():
        return []
    clean = read_mono(path, sample_id=sample_id)
    data, mime = encode(clean.samples, clean.rate)
    relative = Path(os.path.relpath(os.path.abspath(path),
                                    os.path.abspath(page_folder))).as_posix()
    return [pg.Audio("clean output alone (clean_output.wav)", relative, lambda: data, mime)]


def _trials_section(systems: Sequence[ScoredSystem], page_folder: Path) -> pg.Section:
    rows = []
    for index, system in enumerate(systems):
        for number, row in enumerate(system.timing):
            folder = system.tree / row["sample_id"]
            user = input_audio(folder, row["sample_id"])
            verdict = system.labels.get(row["sample_id"])
            label = verdict["label"] or "unlabelled" if verdict else "not judged"
            details: list[pg.Block] = [_timeline(system, row, f"v15s{index}t{number}", user)]
            if verdict:
                details.append(pg.Paragraph((pg.Strong(label), f": {verdict['reason']}")))
            details += players(folder, row["sample_id"], page_folder, user)
            details += _clean_player(system, row["sample_id"], page_folder)
            rows.append(pg.FilterRow(label, (
                system.name, row["sample_id"], label,
                f"stop {row['stop_status']} {fixed(row['stop_latency_s'], 2, unit=' s')}; "
                f"response {row['response_status']} "
                f"{fixed(row['response_latency_s'], 2, unit=' s')}"), tuple(details)))
    return pg.Section("Trials", (pg.FilterTable("fdb15-trials", (
        "system", "sample", "label", "timing"), tuple(rows),
        details_label="timelines and audio"),))


def build_page(systems: Sequence[ScoredSystem], page_folder: Path,
               baseline: str | None = None) -> pg.Page:
    """The page of one or more systems, to be written into ``page_folder``; the
    between-system tests compare each with ``baseline`` when given, else every pair."""
    scenarios = scenarios_present(systems, tuple(DECLARED_SIZES))
    facts = [pg.Fact("systems", (", ".join(f"{s.name} ({s.scored})" for s in systems),))]
    facts += [pg.Fact("judge", (_judge_note(s),)) for s in systems if s.behaviour]
    leaders = pg.Section("Leaderboard", (pg.TableBlock(leaderboard_table(systems, scenarios)),
                                         pg.Paragraph((LEADERBOARD_NOTE,), kind="note")))
    blocks = [section for section in (leaders, _behaviour_section(systems, scenarios),
                                      latency_tables(systems, scenarios),
                                      *recorded_extras(systems),
                                      _curves_section(systems, scenarios),
                                      comparisons_section(systems, scenarios, baseline),
                                      _trials_section(systems, page_folder))
              if section is not None]
    provenance = tuple((f"{s.name} timing.json", str(s.scored / "timing.json"))
                       for s in systems) + (("speecheval", __version__),)
    return pg.Page(title="Full-Duplex-Bench v1.5: " + ", ".join(s.name for s in systems),
                   facts=tuple(facts), provenance=provenance, blocks=tuple(blocks))
