"""Self-contained HTML report of a ``transcripts score`` run, on the shared page shell.

It shows the summary lines, every table of the run (the parity tracks and the segment
timestamp diagnostic in their own tables), and per run an error-annotated alignment view
(reference over hypothesis token, marked S, D or I) and a timeline of the reference and
hypothesis speaker turns (:mod:`speecheval.report.timeline`). Long runs show their first
steps and turns only, and say how many there are in all. The shell escapes everything,
and numbers are written with fixed decimals, so the same run gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.timeline import Span as TimeSpan
from ..report import page as pg
from ..report.numbers import percent
from ..report.timeline import Bar, Timeline, Track, to_svg
from .maturity import SPEC_REPEATS
from .score.measure import RunScore
from .score.measures.text import Text
from .score.report_tables import TitledTable, kaldi_lines, text_tables
from .score.report_wording import FACTS, HYPOTHESES, JUDGEMENTS, Wording
from .score.tables import Tables

LANE = 16.0
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
LEGEND = ("S substitution, D deletion, I insertion; upper: reference, lower: hypothesis.")
# What "the spec" of a maturity reason is, for a reader who has only this page.
SPEC_NOTE = ("\"The spec\" is speecheval's transcription and diarization methodology: its "
             f"main protocol asks for {SPEC_REPEATS} repeated runs of each system on each "
             "sample before a result may support a decision (docs/transcripts-score.md, "
             "maturity levels).")


def _lanes(turns: Sequence[TimeSpan], side: str) -> list[tuple[str, list[TimeSpan]]]:
    by_speaker: dict[str, list[TimeSpan]] = {}
    for turn in turns:
        by_speaker.setdefault(turn.label or "(none)", []).append(turn)
    return [(f"{side} {name}", by_speaker[name]) for name in sorted(by_speaker)]


def speaker_timeline(run: RunScore) -> Timeline:
    """Reference and hypothesis speaker lanes over ``[0, audio duration]``."""
    lanes = _lanes(run.preview.reference_turns, "ref") + _lanes(run.preview.hypothesis_turns,
                                                                "hyp")
    tracks = tuple(Track(label, LANE, COLOURS[index % len(COLOURS)], spans=tuple(
        Bar(t.seconds, tooltip=f"{label} {t.start_s:.3f}-{t.end_s:.3f} s")
        for t in turns))
        for index, (label, turns) in enumerate(lanes))
    return Timeline(run.sample.duration_s, tracks)


def _timeline_blocks(index: int, run: RunScore) -> tuple[pg.Block, ...]:
    figure = pg.Figure(to_svg(speaker_timeline(run), ident=f"run{index}",
                              description="speaker timeline"))
    total = run.preview.total_turns
    shown = max(len(run.preview.reference_turns), len(run.preview.hypothesis_turns))
    if shown >= total:
        return (figure,)
    return figure, pg.Paragraph((f"first {shown} turns per side shown",), "note")


def _alignment_blocks(run: RunScore) -> tuple[pg.Block, ...]:
    """The edit path preview as marked token pairs."""
    alignment = pg.Alignment(tuple((str(op), ref, hyp) for op, ref, hyp in run.preview.steps))
    shown = len(run.preview.steps)
    if shown == run.preview.total_steps:
        return (alignment,)
    return alignment, pg.Paragraph(
        (f"first {shown} of {run.preview.total_steps} alignment steps",), "note")


def _run_section(index: int, run: RunScore) -> pg.Details:
    text = run.get(Text)
    rate = "n/a" if text is None else percent(text.error_rate)
    title = (f"{run.sample.id} (scenario {run.sample.scenario}, repeat {run.repeat}, "
             f"{run.sample.kind}): error rate {rate}")
    if run.failure is not None:
        title += f"; FAILED: {run.failure}"
    notes = tuple(f"{k}: {v}" for k, v in sorted(run.status.items()))
    return pg.Details(title, (
        pg.Paragraph((LEGEND,), "note"), *_alignment_blocks(run),
        pg.Section("Speaker timeline (seconds)", _timeline_blocks(index, run), level=4),
        pg.BulletList(notes, "note")))


def _table_blocks(titled: TitledTable) -> tuple[pg.Block, ...]:
    explained = (pg.Paragraph((titled.explanation,), "note"),) if titled.explanation else ()
    return (pg.Paragraph((titled.note,), "note"), *explained, pg.TableBlock(titled.table))


def render_report(system: str, tables: Tables, runs: Sequence[RunScore], wording: Wording,
                  provenance: tuple[tuple[str, str], ...] = ()) -> str:
    """The whole report as one HTML document: measured facts (tables, runs), judgements,
    untested hypotheses, as the spec's 报告措辞 keeps them apart."""
    maturity = tables.run_maturity
    blocks: list[pg.Block] = []
    if maturity.reasons:
        blocks.append(pg.BulletList(tuple(maturity.reasons), "note"))
        if any("the spec" in reason for reason in maturity.reasons):
            blocks.append(pg.Paragraph((SPEC_NOTE,), "note"))
    measured: list[pg.Block] = [pg.Preformatted("\n".join(kaldi_lines(tables)))]
    measured += [pg.Section(t.title, _table_blocks(t), level=3) for t in text_tables(tables)]
    measured.append(pg.Section("Runs", tuple(_run_section(i, run)
                                             for i, run in enumerate(runs)), level=3))
    blocks.append(pg.Section(FACTS, tuple(measured)))
    blocks.append(pg.Section(JUDGEMENTS, (pg.BulletList(wording.judgements),)))
    blocks.append(pg.Section(HYPOTHESES, (pg.BulletList(wording.hypotheses),)))
    facts = (pg.Fact("System", (system,)),
             pg.Fact("Run maturity", (pg.Strong(maturity.level),)),
             pg.Fact("Runs", (str(len(runs)),)))
    return pg.render_page(pg.Page(f"Transcript scoring: {system}", facts, provenance,
                                  tuple(blocks)))
