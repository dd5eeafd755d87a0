"""The scenario tables for people, shared by the Markdown and HTML writers.

Each table is a title, a note and a :class:`speecheval.report.table.Table`, made from the
typed tables of :mod:`.tables` (a leaf result's numbers through its ``report_dict()``,
the names the JSON files give them). Rates are
shown as percentages with two decimals (:func:`speecheval.report.numbers.percent`),
missing values as ``n/a`` and unsupported measures as ``unsupported``: the files for
machines (JSON) keep fractions and ``null``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...report.numbers import fixed, percent
from ...report.table import Table, to_markdown
from ..diarization.render import score_dict
from ..text.cli import summary_line
from ..text.counts import ErrorCounts
from ..text.hallucination import HallucinationCounts
from ..text.prf import MatchCounts
from .measures.chunk_regions import ChunkRegionScores, ChunkRegionsEntry
from .measures.cp import ConcatenatedPermutation
from .measures.diarization import Diarization
from .measures.hallucination import Hallucination
from .measures.matches import Numbers, Punctuation, Terms
from .measures.multi_stream import OptimalReferenceCombination, TimeConstrainedPermutation
from .measures.timestamps import Timestamps
from .measures.wder import WordDiarizationError
from .report_declared import audit_table, diarization_title, timestamps_note, timestamps_title
from .report_wording import FACTS, HYPOTHESES, JUDGEMENTS, Wording
from .table_entries import (
    CollaredSpeakerRate,
    DiarizationEntry,
    Graded,
    Rate,
    SpeakerRate,
    TimestampsEntry,
)
from .tables import Tables


@dataclass(frozen=True)
class TitledTable:
    """One table for people, with its title and what it means.

    ``explanation`` says in plain words what a term of the title means (what a parity
    track is). Only the HTML page shows it: the Markdown report's bytes are pinned.
    """

    title: str
    note: str
    table: Table
    explanation: str = ""


def _titled(title: str, note: str, header: Sequence[str],
            rows: Sequence[Sequence[str]], explanation: str = "") -> TitledTable:
    return TitledTable(title, note, Table.of(header, rows), explanation)


PARITY = ("A parity track recomputes a number the way another project's published "
          "evaluation computes it, so that a result can be set beside numbers published "
          "that way; it is reported on its own and never mixed with the main protocol. ")
MOSS_PARITY = PARITY + (
    "Here: the MOSS speech model's evaluation, which cleans the text its own way (drops "
    "timestamps, speaker, event and emotion tags, Unicode punctuation and spaces, folds "
    "case) and reports corpus CER and cpCER.")
LATTIFAI_PARITY = PARITY + (
    "Here: the LattifAI benchmark's diarization scoring, with a collar of +-0.1 s "
    "around each reference boundary (pyannote.metrics' collar=0.2, the total width) "
    "instead of the main protocol's +-0.25 s (pyannote.metrics' collar=0.5).")


def sec(value: float | None) -> str:
    """Seconds with three decimals, ``n/a`` when missing."""
    return fixed(value, 3)


def _ci(pair: tuple[float | None, float | None] | None) -> str:
    if pair is None:
        return "n/a"
    return f"[{percent(pair[0])}, {percent(pair[1])}]"


def kaldi_lines(tables: Tables) -> list[str]:
    """One ``%WER 12.34 [ 123 / 997, 40 ins, 50 del, 33 sub ]`` line per scenario and
    repeat (a corpus micro inside one scenario, never pooled across scenarios), then one
    comment line per rate with the cross-scenario macro and its own maturity (the lowest
    of the scenarios it averages, capped by the run's)."""
    lines = []
    for name, table in tables.scenarios.items():
        rate = table.rate_name.upper()
        for repeat, counts in table.text_counts_by_repeat.items():
            lines.append(f"{summary_line(rate, counts)} scenario={name} repeat={repeat}")
    for rate, value in tables.cross_scenario.by_rate.items():
        cross = value.value
        lines.append(f"# {rate.upper()} scenario macro {percent(cross.scenario_macro)} over "
                     f"{', '.join(cross.scenarios)}; duration-weighted "
                     f"{percent(cross.duration_weighted)} (separate); maturity "
                     f"{value.maturity.level}")
    return lines


def text_tables(tables: Tables) -> list[TitledTable]:
    """Every main-protocol table, then the diagnostic and parity tables, then (when some
    transcript is a ``transcripts run`` artefact) where those transcripts come from."""
    return [_transcription(tables), _cross(tables), _cp(tables), _diarization_declared(tables),
            _extras(tables), _timestamps_declared(tables), _diagnostic(tables), _moss(tables),
            _lattifai(tables)] + _chunk_regions(tables) + (
                [_lineage(tables)] if tables.lineage else []) + (
                [_titled(*audit_table(tables))] if tables.audit else [])


def _chunk_regions(tables: Tables) -> list[TitledTable]:
    """Inside chunks and near cuts apart (none when no run of the manifest is chunked)."""
    rows = []
    for name, t in tables.scenarios.items():
        entry = t.entry(ChunkRegionScores.name, ChunkRegionsEntry)
        if entry is None:
            continue
        for region, part in entry.regions.items():
            rows.append((name, region, str(entry.runs), t.rate_name.upper(),
                         percent(part.text.error_rate), str(part.text.errors),
                         str(part.text.reference_tokens),
                         percent(None if part.cp is None else part.cp.error_rate),
                         percent(None if part.der is None else part.der.der),
                         sec(None if part.der is None else part.der.scored)))
    if not rows:
        return []
    return [_titled("Chunked runs: inside chunks and near cuts, apart",
                    "in_segment: rows more than the cut margin from every cut; across_cut: "
                    "rows within it (the chunker's rule, applied to both sides). Rates are "
                    "micro over the scenario's chunked runs; DER scores the time within the "
                    "margin of a cut (across_cut) and the rest (in_segment) as UEMs of "
                    "their own.",
                    ("scenario", "region", "chunked runs", "rate", "micro", "errors", "N",
                     "cp micro", "DER micro", "DER scored s"), tuple(rows))]


def _diarization_declared(tables: Tables) -> TitledTable:
    """The diarization table, its title naming the declared speaker-label track."""
    titled = _diarization(tables)
    return replace(titled, title=titled.title
                   + diarization_title(tables.system_support.declared))


def _timestamps_declared(tables: Tables) -> TitledTable:
    """The timestamps table, its title naming the declared provenance and its note the
    runs out of the official input range."""
    titled = _timestamps(tables)
    support = tables.system_support
    return replace(titled, title=titled.title + timestamps_title(support.declared,
                                                                 support.token_timestamps),
                   note=titled.note + timestamps_note(tables))


def _lineage(tables: Tables) -> TitledTable:
    def shown(value: Any) -> str:
        return "n/a" if value is None else str(value).lower()

    rows = [(sample, str(repeat), o.run, o.artefact, "yes" if o.imported else "no",
             shown(o.exact_input_match), o.protocol_compatibility or "n/a",
             o.identity_confidence or "n/a", o.track_use or "n/a")
            for (sample, repeat), o in sorted(tables.lineage.items())]
    return _titled("Transcripts of runs (lineage)",
                   "Runs whose transcript is an artefact of a `transcripts run` directory; "
                   "imported ones with how far they can be trusted (n/a: the run's own).",
                   ("sample", "repeat", "run", "artefact", "imported", "exact input match",
                    "protocol", "identity", "track use"), tuple(rows))


def _transcription(tables: Tables) -> TitledTable:
    rows = []
    for name, t in tables.scenarios.items():
        s = t.text
        rate = None if s is None else s.value
        counts = _sum_counts(t.text_counts_by_repeat.values())
        rows.append((name, _level(s), str(0 if s is None else s.samples), str(t.runs),
                     str(t.failed_runs), t.rate_name.upper(),
                     percent(None if rate is None else rate.macro),
                     percent(None if rate is None else rate.micro),
                     _ci(None if rate is None else rate.macro_ci95),
                     percent(None if rate is None else rate.macro_std),
                     percent(None if rate is None else rate.duration_weighted),
                     str(counts.substitutions), str(counts.deletions), str(counts.insertions),
                     str(counts.reference_tokens)))
    return _titled(
        "Transcription (main protocol)",
        "macro: mean of sample rates; micro: summed S+D+I over summed reference tokens; "
        "duration-weighted is a separate column and never replaces the macro; S/D/I/N are "
        "summed over all runs.",
        ("scenario", "maturity", "samples rated", "runs", "failed", "rate", "macro", "micro",
         "macro 95% CI", "repeat std", "duration-weighted", "S", "D", "I", "N"),
        tuple(rows))


def _level(summary: Graded[Any] | None) -> str:
    """The maturity level of one rate summary (``n/a`` when there is no summary)."""
    return "n/a" if summary is None else str(summary.maturity.level)


def _sum_counts(items: Any) -> ErrorCounts:
    return sum(items, ErrorCounts.zero())


def _cross(tables: Tables) -> TitledTable:
    run = tables.cross_scenario.run_maturity
    rows = [(rate.upper(), percent(v.value.scenario_macro), percent(v.value.duration_weighted),
             ", ".join(v.value.scenarios), v.maturity.level,
             "; ".join(v.maturity.reasons) or "none")
            for rate, v in tables.cross_scenario.by_rate.items()]
    reasons = "; ".join(run.reasons) or "none"
    return _titled("Across scenarios",
                     f"Only the scenario macro is compared across scenarios. Each macro's "
                     f"maturity is the lowest of the scenarios it averages, capped by the run "
                     f"maturity {run.level} (why not higher: {reasons}).",
                     ("rate", "scenario macro", "duration-weighted", "scenarios", "maturity",
                      "why not higher"),
                     tuple(rows))


def _cp(tables: Tables) -> TitledTable:
    """cpWER per scenario, and beside it ORC-WER and tcpWER when the manifest selects them
    (their entries are then in the scenario tables)."""
    rows = []
    extra = False
    for name, t in tables.scenarios.items():
        rate = t.rate_name.upper()
        cp = t.entry(ConcatenatedPermutation.name, SpeakerRate)
        assert cp is not None  # cp is always scored
        rows.append(_speaker_rate_row(name, "cp" + rate, cp))
        rows.extend(_wder_rows(name, t.entry(WordDiarizationError.name, SpeakerRate)))
        orc = t.entry(OptimalReferenceCombination.name, SpeakerRate)
        if orc is not None:
            rows.append(_speaker_rate_row(name, "ORC-" + rate, orc))
        tcp = t.entry(TimeConstrainedPermutation.name, CollaredSpeakerRate)
        if tcp is not None:
            rows.append(_speaker_rate_row(
                name, f"tcp{rate} (collar +-{fixed(tcp.collar_s)} s)", tcp))
        extra = extra or orc is not None or tcp is not None
    return _titled("Speaker-attributed transcription (cpWER / cpCER / cpMER)",
                     "A system without speaker attribution is unsupported, never 0. WDER: "
                     "the share of aligned tokens given the wrong speaker (failed runs, "
                     "which align no token, left out)."
                     + (" ORC (reference speakers ignored) and tcp (only words whose times "
                        "overlap may pair) are meeteval's measures, selected by the "
                        "manifest's extra_measures." if extra else ""),
                     ("scenario", "rate", "scored runs", "unsupported runs", "macro", "micro",
                      "maturity"),
                     tuple(rows))


def _wder_rows(scenario: str, entry: SpeakerRate | None) -> list[tuple[str, ...]]:
    """The WDER row of a scenario (none when the measure was not in the tables)."""
    return [] if entry is None else [_speaker_rate_row(scenario, "WDER", entry)]


def _speaker_rate_row(scenario: str, rate: str, entry: SpeakerRate) -> tuple[str, ...]:
    if entry.scored_runs == 0 and entry.unsupported_runs:
        return (scenario, rate, "0", str(entry.unsupported_runs), "unsupported",
                "unsupported", "n/a")
    return (scenario, rate, str(entry.scored_runs), str(entry.unsupported_runs),
            percent(_rate(entry.rate, "macro")), percent(_rate(entry.rate, "micro")),
            _level(entry.rate))


def _rate(rate: Rate | None, which: str) -> float | None:
    """The macro or micro of a rate summary (``None`` when there is none)."""
    if rate is None:
        return None
    return rate.value.macro if which == "macro" else rate.value.micro


def _diarization(tables: Tables) -> TitledTable:
    rows = []
    for name, t in tables.scenarios.items():
        d = t.entry(Diarization.name, DiarizationEntry)
        assert d is not None  # diarization is always scored
        if d.scored_runs == 0 or d.pooled is None:
            label = "unsupported" if d.unsupported_runs else "n/a"
            rows.append((name, "0", str(d.unsupported_runs), *([label] * 6), "n/a"))
            continue
        pooled = score_dict(d.pooled, exclude_overlap=False)
        rows.append((name, str(d.scored_runs), str(d.unsupported_runs),
                     percent(_rate(d.der, "macro")), percent(_rate(d.der, "micro")),
                     percent(_rate(d.der_overlap_excluded, "micro")),
                     percent(_rate(d.der_overlap_only, "micro")), percent(pooled["jer"]),
                     percent(pooled["speaker_count"]["accuracy"]), _level(d.der)))
    return _titled("Diarization (main protocol: collar +-0.25 s, overlap included)",
                     "DER micro sums error and scored speaker time over runs; JER (dscore's "
                     "mean over reference speakers) and speaker count are pooled over runs.",
                     ("scenario", "scored runs", "unsupported runs", "DER macro", "DER micro",
                      "DER overlap excluded", "DER overlap only", "JER", "speaker count acc.",
                      "maturity"),
                     tuple(rows))


def _extras(tables: Tables) -> TitledTable:
    rows = []
    for name, t in tables.scenarios.items():
        h = t.entry(Hallucination.name, Graded)
        counts: HallucinationCounts | None = None if h is None else h.value
        f1 = [None if (m := t.entry(measure.name, MatchCounts)) is None else m.f1
              for measure in (Punctuation, Numbers, Terms)]
        rows.append((name, *(percent(value) for value in f1),
                     percent(None if counts is None else counts.nonempty_rate),
                     fixed(None if counts is None else counts.chars_per_second)))
    return _titled("Punctuation, numbers, terms, hallucination",
                     "F1 pooled over runs; hallucination over silence, music and low-speech "
                     "samples (failed runs left out and counted).",
                     ("scenario", "punctuation F1", "number F1", "term F1",
                      "non-empty output rate", "hallucinated chars/s"), tuple(rows))


def _timestamps(tables: Tables) -> TitledTable:
    rows = []
    for name, t in tables.scenarios.items():
        ts = t.entry(Timestamps.name, TimestampsEntry)
        assert ts is not None  # timestamps are always scored
        token_runs = str(ts.runs_by_granularity["token"])
        if ts.turns is None:
            rows.append((name, token_runs, *(["n/a"] * 11)))
            continue
        turns = ts.turns.report_dict()
        start, end = turns["start"], turns["end"]
        half = None if ts.turn_boundaries is None else ts.turn_boundaries.get("0.5")
        f1 = None if half is None else half.f1
        speech = ts.speech
        rows.append((name, token_runs,
                     f"{turns['scorable_turns']}/{turns['reference_turns']}",
                     percent(turns["reference_token_match_coverage"]),
                     str(turns["excluded_turns"]["overlapping"]),
                     f"{sec(start['mean_s'])}/{sec(start['median_s'])}/{sec(start['p90_s'])}/"
                     f"{sec(start['p95_s'])}",
                     f"{sec(end['mean_s'])}/{sec(end['median_s'])}/{sec(end['p90_s'])}/"
                     f"{sec(end['p95_s'])}",
                     " ".join(percent(v) for v in start["hit_rate"].values()),
                     " ".join(percent(v) for v in end["hit_rate"].values()),
                     sec(turns["mean_iou"]), percent(f1),
                     percent(None if speech is None else speech.coverage),
                     percent(None if speech is None else speech.iou)))
    return _titled(
        "Timestamps (main protocol: token-anchored turns)",
        "Errors in seconds as mean/median/P90/P95 (linear-interpolated percentiles); hit "
        "rates at 0.25, 0.5 and 1.0 s; boundary F1 at 0.5 s; overlapping turns excluded and "
        "counted.",
        ("scenario", "token-timed runs", "scorable/ref turns", "ref token match coverage",
         "overlapping turns", "start error", "end error", "start hits", "end hits",
         "mean turn IoU", "boundary F1", "speech coverage", "speech IoU"), tuple(rows))


def _diagnostic(tables: Tables) -> TitledTable:
    rows = []
    for name, pairs in tables.timestamp_diagnostic.items():
        if pairs is None:
            continue
        d = pairs.report_dict()
        rows.append((name, f"{d['unique_pairs']}/{d['reference_segments']}",
                     sec(d["start"]["mean_s"]), sec(d["start"]["median_s"]),
                     sec(d["end"]["mean_s"]), sec(d["end"]["median_s"]), sec(d["mean_iou"])))
    return _titled("Diagnostic: segment timestamps only (not ranked, not comparable with "
                     "the main timestamp table)",
                     "Unique (reference segment, hypothesis segment) pairs; mixes timing "
                     "with segmentation policy.",
                     ("scenario", "unique pairs/ref segments", "start mean", "start median",
                      "end mean", "end median", "mean IoU"), tuple(rows))


def _moss(tables: Tables) -> TitledTable:
    rows = []
    for name, m in tables.moss_parity.items():
        if m is None:
            continue
        delta = m.delta_cp
        rows.append((name, str(m.samples), percent(m.cer.error_rate), percent(m.cpcer.error_rate),
                     "n/a" if delta is None else f"{100 * delta:+.2f} pp"))
    return _titled("Parity track: MOSS (own cleaning; never mixed with the main protocol)",
                     "Corpus CER and cpCER; delta_cp = cpCER - CER over samples valid for "
                     "both, can be negative.",
                     ("scenario", "runs", "CER", "cpCER", "delta_cp"), tuple(rows),
                     MOSS_PARITY)


def _lattifai(tables: Tables) -> TitledTable:
    rows = []
    for name, score in tables.lattifai_parity.items():
        if score is None:
            continue
        d = score_dict(score, exclude_overlap=False)
        rows.append((name, percent(d["der"]), percent(d["jer"]), sec(d["scored"]), sec(d["missed"]),
                     sec(d["false_alarm"]), sec(d["confusion"])))
    return _titled("Parity track: LattifAI (collar +-0.1 s, pyannote collar=0.2; never "
                     "mixed with the main protocol)",
                     "Pooled over runs.",
                     ("scenario", "DER", "JER", "scored s", "missed s", "false alarm s",
                      "confusion s"), tuple(rows), LATTIFAI_PARITY)


def markdown(tables: Tables, system: str, wording: Wording) -> str:
    """One Markdown document in the spec's three parts: the measured facts (every table),
    the judgements from them, the untested hypotheses."""
    parts = [f"# Transcript scoring: {system}\n",
             f"Run maturity: **{tables.run_maturity.level}**\n",
             f"## {FACTS}\n",
             "```\n" + "\n".join(kaldi_lines(tables)) + "\n```\n"]
    for titled in text_tables(tables):
        parts.append(f"### {titled.title}\n\n{titled.note}\n")
        if not titled.table.rows:
            parts.append("(no rows)\n")
            continue
        parts.append(to_markdown(titled.table))
    for title, items in ((JUDGEMENTS, wording.judgements), (HYPOTHESES, wording.hypotheses)):
        parts.append(f"## {title}\n\n" + "".join(f"- {item}\n" for item in items))
    return "\n".join(parts) + "\n"
