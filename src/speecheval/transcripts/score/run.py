"""Score a manifest and write the run directory (all or nothing).

Files written (all canonical: sorted keys, fixed float rounding, no clock times):

- ``samples.jsonl``: one row per run of each sample (main protocol);
- ``scenarios.json`` / ``scenarios.md``: scenario tables, cross-scenario values, maturity
  (and, with ``--partial``, the samples left out because their files name other sessions
  than their reference, :mod:`.session_ids`);
- ``summary.txt``: Kaldi-style lines, one per scenario and repeat;
- ``parity_moss.json``, ``parity_lattifai.json``, ``timestamps_segment_diagnostic.json``:
  the parity tracks and the segment-timestamp diagnostic, each on its own;
- ``report.html``: tables, alignment views and speaker timelines;
- ``run.json``: the :mod:`speecheval.core.provenance` record (versions, settings, the
  SHA-256 of the manifest and of every input file, the command line).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.canonical_json import dumps, dumps_lines
from ...core.errors import InputError
from ...core.executor import Executor, LocalExecutor
from ...core.hashing import sha256_file
from ...core.output import atomic_write_text, new_output_dir
from ...core.progress import progress
from ...core.provenance import collect_provenance
from ..diarization.render import COLLAR_DEFINITION, JER_DEFINITION
from ..diarization.score import LATTIFAI_COLLAR_S, MAIN_COLLAR_S
from ..report_html import render_report
from ..text.tokenize import Unit
from ..timestamps.stats import TOLERANCES_S
from ..timestamps.turns import ANCHOR_SHARE, MIN_MATCHED_SHARE
from .capabilities import SystemSupport, system_support
from .manifest import FORMAT, Manifest, SampleSpec, load_manifest
from .measure import RunScore
from .measures import multi_stream
from .options import MeasureOptions
from .origins import transcript_origins
from .report_tables import kaldi_lines, markdown
from .report_wording import Claim, report_wording
from .rows import diagnostic_row, lattifai_row, moss_row, sample_row
from .sample import score_sample_runs
from .session_ids import matched_samples
from .tables import Tables, build_tables

# Distributions beside core's whose versions can change a number here.
PACKAGES = ("pydantic", "pyyaml")
SETTINGS: dict[str, Any] = {
    "normalisation": "NFKC, case folding, Unicode punctuation deleted, whitespace collapsed",
    "diarization_collar_s": MAIN_COLLAR_S,
    "collar_definition": COLLAR_DEFINITION,
    "jer_definition": JER_DEFINITION,
    "lattifai_parity_collar_s": LATTIFAI_COLLAR_S,
    "uem": "[0, duration_s] per sample",
    "timestamp_tolerances_s": list(TOLERANCES_S),
    "timestamp_percentiles": "linear interpolation between order statistics (numpy default)",
    "turn_min_matched_share": MIN_MATCHED_SHARE,
    "turn_anchor_share": ANCHOR_SHARE,
    "failed_runs": "scored as empty output for rates with a reference (speaker rates only "
                   "when the system supports speaker attribution, else unsupported); left "
                   "out and counted for hallucination and timestamps",
    "confidence_intervals": "95% percentile bootstrap over samples, 2000 resamples, seed 0",
}


def _inputs(manifest: Manifest) -> dict[str, Path]:
    """The manifest and every file it names, by their path relative to the manifest."""
    base = manifest.path.parent
    paths: set[Path] = {manifest.path}
    for sample in manifest.samples:
        ref = sample.reference
        paths.update(p for p in (ref.transcript, ref.rttm, ref.words) if p is not None)
        for run in sample.runs:
            paths.update(p for p in (run.transcript, run.rttm, run.words) if p is not None)
    return {Path(os.path.relpath(p, base)).as_posix(): p for p in sorted(paths)}


def score_manifest(manifest: Manifest, executor: Executor | None = None
                   ) -> tuple[list[RunScore], Tables]:
    """Score every run of every sample and build the tables (nothing is written).

    The samples are scored on ``executor`` (default: one after another in this process),
    each from its own files; the runs come back in manifest order whatever ran where. A
    terminal shows a bar of the samples scored (:mod:`speecheval.core.progress`).
    """
    units = {name: spec.unit for name, spec in manifest.scenarios.items()}
    support = system_support(manifest)
    options = manifest.measure_options()
    work = [(sample, units[sample.scenario], support, options) for sample in manifest.samples]
    with progress(len(work), "transcripts score") as advance:
        scored = (executor or LocalExecutor(1)).map(_score_sample, work, advance=advance,
                                                    stop_on=(InputError,))
    runs = [run for outcome in scored for run in outcome.get()]
    return runs, build_tables(manifest, runs, support)


def _score_sample(work: tuple[SampleSpec, Unit, SystemSupport, MeasureOptions]
                  ) -> tuple[RunScore, ...]:
    """One sample's runs scored (a work item of :func:`score_manifest`); an input error
    names the sample."""
    sample, unit, support, options = work
    try:
        return score_sample_runs(sample, unit, support, options)
    except InputError as exc:
        if exc.sample_id is not None:
            raise
        raise InputError(exc.problem, path=exc.path, sample_id=sample.id) from exc


def write_run(manifest_path: Path, out_dir: Path, command: Sequence[str],
              executor: Executor | None = None, partial: bool = False) -> list[str]:
    """Score ``manifest_path`` into the new directory ``out_dir``; return the summary lines.

    The output directory is claimed first, so an existing ``out_dir`` or one that cannot
    be created (its parent is a file, a read-only or virtual file system) is refused
    before any scoring, and a failure leaves nothing behind: neither the directory nor
    any parent created for it.
    ``command`` is the command line recorded in ``run.json``; ``executor`` runs the
    samples (:func:`score_manifest`). A sample whose system files name another session
    than its reference is refused, or with ``partial`` left out and listed (in
    ``scenarios.json`` and the returned lines).
    """
    with new_output_dir(out_dir) as staging:
        return _score_into(manifest_path, staging, command, executor, partial)


def _score_into(manifest_path: Path, staging: Path, command: Sequence[str],
                executor: Executor | None, partial: bool) -> list[str]:
    """Score the manifest and write every output file into ``staging``."""
    named = load_manifest(manifest_path)
    manifest, left_out = matched_samples(named, partial)
    origins = transcript_origins(manifest)
    runs, tables = score_manifest(manifest, executor)
    tables = replace(tables, lineage=origins)
    untrusted = [f"{sample} repeat {repeat}: imported ({o['artefact']}) with identity "
                 f"{o['identity_confidence']}: that it is {manifest.system}'s output as "
                 "configured now is not verified"
                 for (sample, repeat), o in origins.items()
                 if o["imported"] and o["identity_confidence"] != "exact"]
    wording = report_wording(
        tables, [Claim(j.text, j.scenario, manifest.judgement_where(i))
                 for i, j in enumerate(manifest.judgements)],
        [*manifest.hypotheses, *untrusted], manifest.path)
    lines = kaldi_lines(tables)
    support = tables.system_support
    scenarios_doc = {"system": manifest.system, "required_repeats": manifest.required_repeats,
                     "run_maturity": tables.run_maturity.report_dict(),
                     "system_support": {
                         "speaker_attribution": support.speakers,
                         "speaker_attribution_source": support.speakers_source,
                         "token_timestamps": support.token_timestamps,
                         "token_timestamps_source": support.token_timestamps_source},
                     "cross_scenario": tables.cross_scenario, "scenarios": tables.scenarios,
                     "wording": wording.report_dict(),
                     **({"left_out_samples": [entry.report_dict(manifest.path.parent)
                                              for entry in left_out]} if partial else {})}
    levels = {name: table["maturity"]["level"] for name, table in tables.scenarios.items()}
    atomic_write_text(staging / "samples.jsonl", dumps_lines(
        {**sample_row(r, levels[r.sample.scenario]),
         **({"lineage": origin} if (origin := origins.get((r.sample.id, r.repeat))) else {})}
        for r in runs))
    atomic_write_text(staging / "scenarios.json", dumps(scenarios_doc))
    atomic_write_text(staging / "scenarios.md", markdown(tables, manifest.system, wording))
    atomic_write_text(staging / "summary.txt", "".join(f"{line}\n" for line in lines))
    atomic_write_text(staging / "parity_moss.json", dumps({
        "track": "moss_parity", "scenarios": tables.moss_parity,
        "runs": [row for r in runs if (row := moss_row(r)) is not None]}))
    atomic_write_text(staging / "parity_lattifai.json", dumps({
        "track": "lattifai_parity", "collar_s": LATTIFAI_COLLAR_S,
        "scenarios": tables.lattifai_parity,
        "runs": [row for r in runs if (row := lattifai_row(r)) is not None]}))
    atomic_write_text(staging / "timestamps_segment_diagnostic.json", dumps({
        "table": "segment timestamps only: diagnostic, not ranked",
        "scenarios": tables.timestamp_diagnostic,
        "runs": [row for r in runs if (row := diagnostic_row(r)) is not None]}))
    manifest_sha256 = sha256_file(manifest.path)
    atomic_write_text(staging / "report.html", render_report(
        manifest.system, tables, runs, wording, provenance=(
            ("speecheval", __version__),
            ("manifest", f"{manifest.path.name} sha256 {manifest_sha256[:12]}"))))
    provenance = collect_provenance(
        command=command, settings={"manifest_format": FORMAT, **SETTINGS,
                                   **multi_stream.settings(manifest.measure_options())},
        inputs=_inputs(named), packages=PACKAGES)
    atomic_write_text(staging / "run.json", dumps(provenance.to_dict()))
    return [*lines, *(entry.line(manifest.path.parent) for entry in left_out)]
