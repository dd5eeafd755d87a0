"""The scenario tables as plain rows of text, shared by the Markdown and HTML writers.

Each table is (title, note, header, rows). Rates are shown as percentages with two
decimals, missing values as ``n/a`` and unsupported measures as ``unsupported``: the
files for machines (JSON) keep fractions and ``null``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..text.cli import summary_line
from ..text.counts import ErrorCounts
from .tables import Tables


@dataclass(frozen=True)
class TextTable:
    """One table for people."""

    title: str
    note: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def pct(value: float | None) -> str:
    """Fraction as a percentage with two decimals, ``n/a`` when missing.

    >>> pct(0.123456), pct(None)
    ('12.35%', 'n/a')
    """
    return "n/a" if value is None else f"{100 * value:.2f}%"


def sec(value: float | None) -> str:
    """Seconds with three decimals, ``n/a`` when missing."""
    return "n/a" if value is None else f"{value:.3f}"


def _ci(pair: list[float | None] | None) -> str:
    if pair is None:
        return "n/a"
    return f"[{pct(pair[0])}, {pct(pair[1])}]"


def _get(data: dict[str, Any] | None, *keys: str) -> Any:
    for key in keys:
        if data is None:
            return None
        data = data.get(key)
    return data


def kaldi_lines(tables: Tables) -> list[str]:
    """One ``%WER 12.34 [ 123 / 997, 40 ins, 50 del, 33 sub ]`` line per scenario and
    repeat (a corpus micro inside one scenario, never pooled across scenarios), then one
    comment line per rate with the cross-scenario macro and its own maturity (the lowest
    of the scenarios it averages, capped by the run's)."""
    lines = []
    for name, table in tables.scenarios.items():
        rate = table["rate_name"].upper()
        for repeat, counts in tables.text_counts[name].items():
            lines.append(f"{summary_line(rate, counts)} scenario={name} repeat={repeat}")
    for rate, value in tables.cross_scenario["by_rate"].items():
        lines.append(f"# {rate.upper()} scenario macro {pct(value['scenario_macro'])} over "
                     f"{', '.join(value['scenarios'])}; duration-weighted "
                     f"{pct(value['duration_weighted'])} (separate); maturity "
                     f"{value['maturity']['level']}")
    return lines


def text_tables(tables: Tables) -> list[TextTable]:
    """Every main-protocol table, then the diagnostic and parity tables."""
    return [_transcription(tables), _cross(tables), _cp(tables), _diarization(tables),
            _extras(tables), _timestamps(tables), _diagnostic(tables), _moss(tables),
            _lattifai(tables)]


def _transcription(tables: Tables) -> TextTable:
    rows = []
    for name, t in tables.scenarios.items():
        s = t["text"]
        counts = _sum_counts(tables.text_counts[name].values())
        rows.append((name, _level(s), _evidence_samples(s), str(t["runs"]),
                     str(t["failed_runs"]), t["rate_name"].upper(), pct(_get(s, "macro")),
                     pct(_get(s, "micro")), _ci(_get(s, "macro_ci95")),
                     pct(_get(s, "repeat_std", "macro")), pct(_get(s, "duration_weighted")),
                     str(counts.substitutions), str(counts.deletions), str(counts.insertions),
                     str(counts.reference_tokens)))
    return TextTable(
        "Transcription (main protocol)",
        "macro: mean of sample rates; micro: summed S+D+I over summed reference tokens; "
        "duration-weighted is a separate column and never replaces the macro; S/D/I/N are "
        "summed over all runs.",
        ("scenario", "maturity", "samples rated", "runs", "failed", "rate", "macro", "micro",
         "macro 95% CI", "repeat std", "duration-weighted", "S", "D", "I", "N"),
        tuple(rows))


def _level(summary: dict[str, Any] | None) -> str:
    """The maturity level of one rate summary (``n/a`` when there is no summary)."""
    level = _get(summary, "maturity", "level")
    return "n/a" if level is None else str(level)


def _evidence_samples(summary: dict[str, Any] | None) -> str:
    count = _get(summary, "evidence", "samples")
    return "0" if count is None else str(count)


def _sum_counts(items: Any) -> ErrorCounts:
    return sum(items, ErrorCounts.zero())


def _cross(tables: Tables) -> TextTable:
    run = tables.cross_scenario["run_maturity"]
    rows = [(rate.upper(), pct(v["scenario_macro"]), pct(v["duration_weighted"]),
             ", ".join(v["scenarios"]), v["maturity"]["level"],
             "; ".join(v["maturity"]["reasons"]) or "none")
            for rate, v in tables.cross_scenario["by_rate"].items()]
    reasons = "; ".join(run["reasons"]) or "none"
    return TextTable("Across scenarios",
                     f"Only the scenario macro is compared across scenarios. Each macro's "
                     f"maturity is the lowest of the scenarios it averages, capped by the run "
                     f"maturity {run['level']} (why not higher: {reasons}).",
                     ("rate", "scenario macro", "duration-weighted", "scenarios", "maturity",
                      "why not higher"),
                     tuple(rows))


def _cp(tables: Tables) -> TextTable:
    rows = []
    for name, t in tables.scenarios.items():
        cp = t["cp"]
        rate = "cp" + t["rate_name"].upper()
        if cp["scored_runs"] == 0 and cp["unsupported_runs"]:
            rows.append((name, rate, "0", str(cp["unsupported_runs"]), "unsupported",
                         "unsupported", "n/a"))
            continue
        rows.append((name, rate, str(cp["scored_runs"]), str(cp["unsupported_runs"]),
                     pct(_get(cp, "rate", "macro")), pct(_get(cp, "rate", "micro")),
                     _level(cp["rate"])))
    return TextTable("Speaker-attributed transcription (cpWER / cpCER / cpMER)",
                     "A system without speaker attribution is unsupported, never 0.",
                     ("scenario", "rate", "scored runs", "unsupported runs", "macro", "micro",
                      "maturity"),
                     tuple(rows))


def _diarization(tables: Tables) -> TextTable:
    rows = []
    for name, t in tables.scenarios.items():
        d = t["diarization"]
        if d["scored_runs"] == 0:
            label = "unsupported" if d["unsupported_runs"] else "n/a"
            rows.append((name, "0", str(d["unsupported_runs"]), *([label] * 6), "n/a"))
            continue
        pooled = d["pooled"]
        rows.append((name, str(d["scored_runs"]), str(d["unsupported_runs"]),
                     pct(_get(d, "der", "macro")), pct(_get(d, "der", "micro")),
                     pct(_get(d, "der_overlap_excluded", "micro")),
                     pct(_get(d, "der_overlap_only", "micro")), pct(pooled["jer"]),
                     pct(pooled["speaker_count"]["accuracy"]), _level(d["der"])))
    return TextTable("Diarization (main protocol: collar +-0.25 s, overlap included)",
                     "DER micro sums error and scored speaker time over runs; JER (dscore's "
                     "mean over reference speakers) and speaker count are pooled over runs.",
                     ("scenario", "scored runs", "unsupported runs", "DER macro", "DER micro",
                      "DER overlap excluded", "DER overlap only", "JER", "speaker count acc.",
                      "maturity"),
                     tuple(rows))


def _extras(tables: Tables) -> TextTable:
    rows = []
    for name, t in tables.scenarios.items():
        h = t["hallucination"]
        rows.append((name, pct(_get(t, "punctuation", "f1")), pct(_get(t, "numbers", "f1")),
                     pct(_get(t, "terms", "f1")), pct(_get(h, "nonempty_output_rate")),
                     "n/a" if h is None or h["hallucinated_chars_per_second"] is None
                     else f"{h['hallucinated_chars_per_second']:.3f}"))
    return TextTable("Punctuation, numbers, terms, hallucination",
                     "F1 pooled over runs; hallucination over silence, music and low-speech "
                     "samples (failed runs left out and counted).",
                     ("scenario", "punctuation F1", "number F1", "term F1",
                      "non-empty output rate", "hallucinated chars/s"), tuple(rows))


def _timestamps(tables: Tables) -> TextTable:
    rows = []
    for name, t in tables.scenarios.items():
        ts = t["timestamps"]
        turns = ts["turns"]
        if turns is None:
            rows.append((name, str(ts["runs_by_granularity"]["token"]), *(["n/a"] * 11)))
            continue
        start, end = turns["start"], turns["end"]
        f1 = _get(ts, "turn_boundaries", "0.5", "f1")
        rows.append((name, str(ts["runs_by_granularity"]["token"]),
                     f"{turns['scorable_turns']}/{turns['reference_turns']}",
                     pct(turns["reference_token_match_coverage"]),
                     str(turns["excluded_turns"]["overlapping"]),
                     f"{sec(start['mean_s'])}/{sec(start['median_s'])}/{sec(start['p90_s'])}/"
                     f"{sec(start['p95_s'])}",
                     f"{sec(end['mean_s'])}/{sec(end['median_s'])}/{sec(end['p90_s'])}/"
                     f"{sec(end['p95_s'])}",
                     " ".join(pct(v) for v in start["hit_rate"].values()),
                     " ".join(pct(v) for v in end["hit_rate"].values()),
                     sec(turns["mean_iou"]), pct(f1), pct(_get(ts, "speech", "speech_coverage")),
                     pct(_get(ts, "speech", "speech_iou"))))
    return TextTable(
        "Timestamps (main protocol: token-anchored turns)",
        "Errors in seconds as mean/median/P90/P95 (linear-interpolated percentiles); hit "
        "rates at 0.25, 0.5 and 1.0 s; boundary F1 at 0.5 s; overlapping turns excluded and "
        "counted.",
        ("scenario", "token-timed runs", "scorable/ref turns", "ref token match coverage",
         "overlapping turns", "start error", "end error", "start hits", "end hits",
         "mean turn IoU", "boundary F1", "speech coverage", "speech IoU"), tuple(rows))


def _diagnostic(tables: Tables) -> TextTable:
    rows = []
    for name, d in tables.timestamp_diagnostic.items():
        if d is None:
            continue
        rows.append((name, f"{d['unique_pairs']}/{d['reference_segments']}",
                     sec(d["start"]["mean_s"]), sec(d["start"]["median_s"]),
                     sec(d["end"]["mean_s"]), sec(d["end"]["median_s"]), sec(d["mean_iou"])))
    return TextTable("Diagnostic: segment timestamps only (not ranked, not comparable with "
                     "the main timestamp table)",
                     "Unique (reference segment, hypothesis segment) pairs; mixes timing "
                     "with segmentation policy.",
                     ("scenario", "unique pairs/ref segments", "start mean", "start median",
                      "end mean", "end median", "mean IoU"), tuple(rows))


def _moss(tables: Tables) -> TextTable:
    rows = []
    for name, m in tables.moss_parity.items():
        if m is None:
            continue
        delta = m["delta_cp"]
        rows.append((name, str(m["samples"]), pct(m["cer"]), pct(m["cpcer"]),
                     "n/a" if delta is None else f"{100 * delta:+.2f} pp"))
    return TextTable("Parity track: MOSS (own cleaning; never mixed with the main protocol)",
                     "Corpus CER and cpCER; delta_cp = cpCER - CER over samples valid for "
                     "both, can be negative.",
                     ("scenario", "runs", "CER", "cpCER", "delta_cp"), tuple(rows))


def _lattifai(tables: Tables) -> TextTable:
    rows = []
    for name, d in tables.lattifai_parity.items():
        if d is None:
            continue
        rows.append((name, pct(d["der"]), pct(d["jer"]), sec(d["scored"]), sec(d["missed"]),
                     sec(d["false_alarm"]), sec(d["confusion"])))
    return TextTable("Parity track: LattifAI (collar +-0.1 s, pyannote collar=0.2; never "
                     "mixed with the main protocol)",
                     "Pooled over runs.",
                     ("scenario", "DER", "JER", "scored s", "missed s", "false alarm s",
                      "confusion s"), tuple(rows))


def markdown(tables: Tables, system: str) -> str:
    """All tables as one Markdown document."""
    parts = [f"# Transcript scoring: {system}\n",
             f"Run maturity: **{tables.run_maturity.level}**\n"]
    parts.append("```\n" + "\n".join(kaldi_lines(tables)) + "\n```\n")
    for table in text_tables(tables):
        parts.append(f"## {table.title}\n\n{table.note}\n")
        if not table.rows:
            parts.append("(no rows)\n")
            continue
        parts.append("| " + " | ".join(table.header) + " |")
        parts.append("|" + "---|" * len(table.header))
        parts.extend("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                     for row in table.rows)
        parts.append("")
    return "\n".join(parts) + "\n"

