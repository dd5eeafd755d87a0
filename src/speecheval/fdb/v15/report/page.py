"""``fdb15 report``: one HTML page of one or more scored systems, side by side.

Each system is the output folder of ``fdb15 score`` and the tree it scored. The page
shows, with the shared report layer (:mod:`speecheval.report`): the behaviour shares per
scenario (stacked bars and the Table 2 numbers with Wilson intervals, the judge named and
marked when it is not the official one), the stop and response latency per scenario as
cumulative curves (one per system), the prosody paired tests (Tables 4 and 5, with the
correction statement), and per trial the two timelines (the output with the overlap and
the clean output: waveform, words, the overlap window, the stop and the response) with the
label, the judge's reason and the audio players.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .... import __version__
from ....core.audio import read_mono
from ....core.errors import InputError
from ....core.p_text import paper_p_text
from ....report import page as pg
from ....report import timeline as tl
from ....report.curve_svg import Series, render_curves
from ....report.numbers import fixed, percent
from ....report.svg_frame import tick_step
from ....report.table import Table
from ..dataset.layout import DECLARED_SIZES
from ..judge.behavior import CLEAN_OUTPUT_JSON, CLEAN_OUTPUT_WAV, LABELS, OUTPUT_JSON
from ..scoring.trials import OUTPUT_WAV

LABEL_TONES = ("good", "other", "warn", "none")
"""Bar colours of C_RESPOND, C_RESUME, C_UNCERTAIN_HANDLING, C_UNKNOWN."""


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError("missing: is this the output folder of fdb15 score?", path=path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", path=path) from None


def _read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError("missing: is this the output folder of fdb15 score?", path=path)
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON Lines: {exc}", path=path) from None


@dataclass(frozen=True)
class ScoredSystem:
    """What ``fdb15 score`` wrote for one system, and its tree."""

    name: str
    scored: Path
    tree: Path
    timing: list[dict[str, Any]]
    behaviour: dict[str, Any] | None
    labels: dict[str, dict[str, Any]]
    prosody: dict[str, Any] | None


def load_system(name: str, scored: Path, tree: Path) -> ScoredSystem:
    """Read one score folder; behaviour and prosody only when it has them."""
    _read_json(scored / "timing.json")
    timing = _read_lines(scored / "timing-samples.jsonl")
    for row in timing:
        if not (tree / row["sample_id"]).is_dir():
            raise InputError(f"the tree has no folder for {row['sample_id']} (is it the tree "
                             "that was scored?)", path=tree)
    behaviour = labels = prosody = None
    if (scored / "behaviour.json").is_file():
        behaviour = _read_json(scored / "behaviour.json")
        labels = {row["sample_id"]: row
                  for row in _read_lines(scored / "behaviour-samples.jsonl")}
    if (scored / "prosody.json").is_file():
        prosody = _read_json(scored / "prosody.json")
    return ScoredSystem(name, scored, tree, timing, behaviour, labels or {}, prosody)


def _judge_note(system: ScoredSystem) -> str:
    judge = (system.behaviour or {}).get("judge", {})
    text = f"{system.name}: {judge.get('judge', 'no judge')}"
    if judge and not judge.get("official"):
        text += " (NOT the official judge" + (f": {judge['note']})" if judge.get("note")
                                               else ")")
    return text


def _behaviour_section(systems: Sequence[ScoredSystem]) -> pg.Section | None:
    judged = [s for s in systems if s.behaviour is not None]
    if not judged:
        return None
    bars, rows = [], []
    for system in judged:
        for scenario, result in system.behaviour["scenarios"].items():  # type: ignore[index]
            shares = result["shares"]
            label = f"{system.name} / {scenario}" if len(systems) > 1 else scenario
            bars.append((label, tuple(shares[c]["count"] for c in LABELS)))
            rows.append([system.name, scenario, f"{result['trials'] - result['unlabelled']}"
                         f"/{result['trials']}",
                         *(f"{percent(shares[c]['value'], 1)} "
                           f"[{percent((shares[c]['interval'] or [None])[0], 1)}, "
                           f"{percent((shares[c]['interval'] or [None, None])[1], 1)}]"
                           for c in LABELS)])
    table = Table.of(["system", "scenario", "labelled", *LABELS], rows)
    notes = tuple(pg.Paragraph((_judge_note(s),), kind="note") for s in judged)
    return pg.Section("Behaviour after the overlap (Table 2)", (
        pg.Bars(LABELS, tuple(bars), LABEL_TONES), pg.TableBlock(table), *notes,
        pg.Paragraph(("Shares over the labelled trials of each scenario, with 95% Wilson "
                      "intervals.",), kind="note")))


def _steps(values: Sequence[float], n: int) -> tuple[tuple[float, float], ...]:
    ordered = sorted(values)
    return tuple((value, (index + 1) / n) for index, value in enumerate(ordered))


def _latency_section(systems: Sequence[ScoredSystem]) -> pg.Section:
    blocks: list[pg.Block] = []
    for scenario in DECLARED_SIZES:
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
    return pg.Section("Stop and response latency per scenario", (note, *blocks))


def _prosody_section(systems: Sequence[ScoredSystem]) -> pg.Section | None:
    measured = [s for s in systems if s.prosody is not None]
    if not measured:
        return None
    blocks: list[pg.Block] = []
    for system in measured:
        prosody = system.prosody or {}
        rows = [[t["measure"], t["comparison"], fixed(t["mean_before"], 2),
                 fixed(t["mean_after"], 2), fixed(t["mean_difference"], 2), paper_p_text(t["p"]),
                 paper_p_text(t["p_corrected"]), fixed(t["d_z"], 2), str(t["n"]),
                 str(len(t["dropped"]))] for t in prosody["tests"]]
        table = Table.of(["measure", "comparison", "mean before", "mean after", "mean diff",
                          "p", "p Holm", "d_z", "n", "dropped"], rows)
        dropped = [f"{t['measure']} {t['comparison']}: {d['sample_id']}: {d['reason']}"
                   for t in prosody["tests"] for d in t["dropped"]]
        blocks += [pg.Section(system.name, (
            pg.Paragraph((f"{prosody['n_trials']} trials: {prosody['trials']}.",)),
            pg.TableBlock(table),
            pg.Paragraph((prosody["statement"],), kind="note"),
            *((pg.Details(f"{len(dropped)} dropped pairs", (pg.BulletList(tuple(dropped)),)),)
              if dropped else ())), level=3)]
    return pg.Section("Prosody and quality: paired tests (Tables 4 and 5)", tuple(blocks))


def _words(folder: Path, name: str) -> tuple[tl.Word, ...]:
    data = json.loads((folder / name).read_text(encoding="utf-8"))
    return tuple(tl.Word(str(c["text"]).strip(), (float(c["timestamp"][0]),
                                                  float(c["timestamp"][1]
                                                        if c["timestamp"][1] is not None
                                                        else c["timestamp"][0])))
                 for c in data.get("chunks", []) if str(c.get("text", "")).strip())


def _timeline(system: ScoredSystem, row: dict[str, Any], ident: str) -> pg.Figure:
    folder = system.tree / row["sample_id"]
    output = read_mono(folder / OUTPUT_WAV, sample_id=row["sample_id"])
    tracks = [tl.Track("output", wave=tl.Wave(output.samples, output.rate),
                       caption="output (with the overlap)")]
    if (folder / OUTPUT_JSON).is_file():
        tracks.append(tl.Track("output words", words=_words(folder, OUTPUT_JSON), caption=""))
    duration = output.duration_s
    if (folder / CLEAN_OUTPUT_WAV).is_file():
        clean = read_mono(folder / CLEAN_OUTPUT_WAV, sample_id=row["sample_id"])
        duration = max(duration, clean.duration_s)
        tracks.append(tl.Track("clean", wave=tl.Wave(clean.samples, clean.rate),
                               caption="clean output", color="#6a8f4e"))
        if (folder / CLEAN_OUTPUT_JSON).is_file():
            tracks.append(tl.Track("clean words", words=_words(folder, CLEAN_OUTPUT_JSON),
                                   caption=""))
    onset, end = row["window_s"]
    markers = []
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


def _players(system: ScoredSystem, sample_id: str, page_folder: Path) -> list[pg.Block]:
    players: list[pg.Block] = []
    for name, caption in ((OUTPUT_WAV, "output.wav (with the overlap)"),
                          (CLEAN_OUTPUT_WAV, "clean_output.wav")):
        path = system.tree / sample_id / name
        if path.is_file():
            relative = Path(os.path.relpath(os.path.abspath(path),
                                            os.path.abspath(page_folder))).as_posix()
            players.append(pg.Audio(caption, relative, path.read_bytes))
    return players


def _trials_section(systems: Sequence[ScoredSystem], page_folder: Path) -> pg.Section:
    rows = []
    for index, system in enumerate(systems):
        for number, row in enumerate(system.timing):
            verdict = system.labels.get(row["sample_id"])
            label = verdict["label"] or "unlabelled" if verdict else "not judged"
            details: list[pg.Block] = [_timeline(system, row, f"v15s{index}t{number}")]
            if verdict:
                details.append(pg.Paragraph((pg.Strong(label), f": {verdict['reason']}")))
            details += _players(system, row["sample_id"], page_folder)
            rows.append(pg.FilterRow(label, (
                system.name, row["sample_id"], label,
                f"stop {row['stop_status']} {fixed(row['stop_latency_s'], 2, unit=' s')}; "
                f"response {row['response_status']} "
                f"{fixed(row['response_latency_s'], 2, unit=' s')}"), tuple(details)))
    return pg.Section("Trials", (pg.FilterTable("fdb15-trials", (
        "system", "sample", "label", "timing"), tuple(rows),
        details_label="timelines and audio"),))


def build_page(systems: Sequence[ScoredSystem], page_folder: Path) -> pg.Page:
    """The page of one or more systems, to be written into ``page_folder``."""
    facts = [pg.Fact("systems", (", ".join(f"{s.name} ({s.scored})" for s in systems),))]
    facts += [pg.Fact("judge", (_judge_note(s),)) for s in systems if s.behaviour]
    blocks = [section for section in (_behaviour_section(systems), _latency_section(systems),
                                      _prosody_section(systems),
                                      _trials_section(systems, page_folder))
              if section is not None]
    provenance = tuple((f"{s.name} timing.json", str(s.scored / "timing.json"))
                       for s in systems) + (("speecheval", __version__),)
    return pg.Page(title="Full-Duplex-Bench v1.5: " + ", ".join(s.name for s in systems),
                   facts=tuple(facts), provenance=provenance, blocks=tuple(blocks))
