"""The files of a ``transcripts score`` run directory, written from the typed report.

:func:`write_report` is the one place the scored run becomes file shapes: it takes a
:class:`ScoreReport` (the runs, the :class:`~.tables.Tables`, the wording, the provenance)
and writes every file through the results' ``report_dict()``, the row builders of
:mod:`.rows`, the Markdown tables of :mod:`.report_tables` and the HTML of
:mod:`..report_html`. Files (all canonical: sorted keys, fixed float rounding, no clock
times):

- ``samples.jsonl``: one row per run of each sample (main protocol), and ``samples.csv``
  the same rows for a spreadsheet (:mod:`speecheval.core.csv_rows`);
- ``scenarios.json`` / ``scenarios.md``: scenario tables, cross-scenario values, maturity
  (and, with ``--partial``, the samples left out because their files name other sessions
  than their reference, :mod:`.session_ids`; when samples declare a data audit, each
  scenario's ``data_audit``, :mod:`.audit`);
- ``summary.txt``: Kaldi-style lines, one per scenario and repeat;
- ``parity_moss.json``, ``parity_lattifai.json``, ``timestamps_segment_diagnostic.json``:
  the parity tracks and the segment-timestamp diagnostic, each on its own;
- ``report.html``: tables, alignment views and speaker timelines;
- ``run.json``: the :mod:`speecheval.core.provenance` record (versions, settings, the
  SHA-256 of the manifest and of every input file, the command line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.canonical_json import dumps, dumps_lines
from ...core.csv_rows import jsonl_to_csv
from ...core.output import atomic_write_text
from ...core.provenance import Provenance
from ..diarization.render import score_dict
from ..diarization.score import LATTIFAI_COLLAR_S
from ..diarization.settings import collar_phrase
from ..report_html import render_report
from .measure import RunScore
from .report_tables import kaldi_lines, markdown
from .report_wording import Wording
from .rows import diagnostic_row, lattifai_row, moss_row, sample_row
from .session_ids import LeftOut
from .tables import Tables


@dataclass(frozen=True)
class ScoreReport:
    """Everything a score run directory holds, typed: the system and its runs, the tables
    built from them, the wording, the samples ``--partial`` left out (``None``: not a
    partial run), and what produced it (``provenance`` for ``run.json``; ``produced_by``
    the short lines the HTML page shows)."""

    system: str
    required_repeats: int
    manifest_dir: Path
    runs: Sequence[RunScore]
    tables: Tables
    wording: Wording
    left_out: Sequence[LeftOut] | None
    provenance: Provenance
    produced_by: tuple[tuple[str, str], ...]

    def summary_lines(self) -> list[str]:
        """The Kaldi-style lines of ``summary.txt``, then one line per sample left out
        (what the command prints)."""
        return [*kaldi_lines(self.tables),
                *(entry.line(self.manifest_dir) for entry in self.left_out or ())]


def write_report(report: ScoreReport, folder: Path) -> None:
    """Write every file of the run directory into ``folder`` (see the module)."""
    for name, text in report_files(report).items():
        atomic_write_text(folder / name, text)


def report_files(report: ScoreReport) -> dict[str, str]:
    """The text of each file of the run directory, by file name."""
    tables, runs = report.tables, report.runs
    samples = dumps_lines(_sample_rows(report))
    return {
        "samples.jsonl": samples,
        "samples.csv": jsonl_to_csv(samples),
        "scenarios.json": dumps(_scenarios_document(report)),
        "scenarios.md": markdown(tables, report.system, report.wording),
        "summary.txt": "".join(f"{line}\n" for line in kaldi_lines(tables)),
        "parity_moss.json": dumps({
            "track": "moss_parity",
            "scenarios": {name: None if table is None else table.report_dict()
                          for name, table in tables.moss_parity.items()},
            "runs": [row for r in runs if (row := moss_row(r)) is not None]}),
        "parity_lattifai.json": dumps({
            "track": "lattifai_parity", "collar_s": LATTIFAI_COLLAR_S,
            "collar": collar_phrase(LATTIFAI_COLLAR_S),
            "scenarios": {name: None if score is None else score_dict(score,
                                                                       exclude_overlap=False)
                          for name, score in tables.lattifai_parity.items()},
            "runs": [row for r in runs if (row := lattifai_row(r)) is not None]}),
        "timestamps_segment_diagnostic.json": dumps({
            "table": "segment timestamps only: diagnostic, not ranked",
            "scenarios": {name: None if pairs is None else pairs.report_dict()
                          for name, pairs in tables.timestamp_diagnostic.items()},
            "runs": [row for r in runs if (row := diagnostic_row(r)) is not None]}),
        "report.html": render_report(report.system, tables, runs, report.wording,
                                     provenance=report.produced_by),
        "run.json": dumps(report.provenance.to_dict()),
    }


def _sample_rows(report: ScoreReport) -> list[dict[str, Any]]:
    """``samples.jsonl``: each run's row with its scenario's maturity level and, for a
    transcript that is a run artefact, its lineage."""
    tables = report.tables
    return [{**sample_row(r, tables.scenarios[r.sample.scenario].maturity.level),
             **({"lineage": origin.report_dict()}
                if (origin := tables.lineage.get((r.sample.id, r.repeat))) else {}),
             **({"audit": r.sample.audit_dict()} if tables.audit else {})}
            for r in report.runs]


def _scenarios_document(report: ScoreReport) -> dict[str, Any]:
    """``scenarios.json``: the system, its support, the scenario tables, the cross-scenario
    values, the wording and (for a partial run) the samples left out."""
    tables = report.tables
    support = tables.system_support
    return {"system": report.system, "required_repeats": report.required_repeats,
            "run_maturity": tables.run_maturity.report_dict(),
            "system_support": {
                "speaker_attribution": support.speakers,
                "speaker_attribution_source": support.speakers_source,
                "token_timestamps": support.token_timestamps,
                "token_timestamps_source": support.token_timestamps_source,
                **support.declared.report_dict()},
            "cross_scenario": tables.cross_scenario.report_dict(),
            "scenarios": {name: table.report_dict() for name, table in tables.scenarios.items()},
            **({"data_audit": {name: audit.report_dict()
                               for name, audit in tables.audit.items()}}
               if tables.audit else {}),
            "wording": report.wording.report_dict(),
            **({"left_out_samples": [entry.report_dict(report.manifest_dir)
                                     for entry in report.left_out]}
               if report.left_out is not None else {})}
