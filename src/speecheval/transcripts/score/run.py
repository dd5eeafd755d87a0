"""Score a manifest and write the run directory (all or nothing).

:func:`write_run` loads the manifest, scores every run (:func:`score_manifest`), builds
the typed tables and the wording, and hands the :class:`~.files.ScoreReport` to
:mod:`.files`, which writes the files; nothing here builds what a file holds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.errors import InputError
from ...core.executor import Executor, LocalExecutor
from ...core.hashing import sha256_file
from ...core.output import new_output_dir
from ...core.progress import progress
from ...core.provenance import collect_provenance
from ..diarization.render import COLLAR_DEFINITION, JER_DEFINITION
from ..diarization.score import LATTIFAI_COLLAR_S, MAIN_COLLAR_S
from ..diarization.settings import collar_phrase
from ..text.tokenize import Unit
from ..timestamps.stats import TOLERANCES_S
from ..timestamps.turns import ANCHOR_SHARE, MIN_MATCHED_SHARE
from .audit import grouped_apart
from .capabilities import SystemSupport, system_support
from .files import ScoreReport, write_report
from .manifest import FORMAT, Manifest, SampleSpec, load_manifest
from .measure import RunScore
from .measures import multi_stream
from .options import MeasureOptions
from .origins import TranscriptOrigin, transcript_origins
from .report_wording import Claim, report_wording
from .sample import score_sample_runs
from .session_ids import matched_samples
from .tables import Tables, build_tables

# Distributions beside core's whose versions can change a number here.
PACKAGES = ("pydantic", "pyyaml")
SETTINGS: dict[str, Any] = {
    "normalisation": "NFKC, case folding, Unicode punctuation deleted, whitespace collapsed",
    "diarization_collar_s": MAIN_COLLAR_S,
    "diarization_collar": collar_phrase(MAIN_COLLAR_S),
    "collar_definition": COLLAR_DEFINITION,
    "jer_definition": JER_DEFINITION,
    "lattifai_parity_collar_s": LATTIFAI_COLLAR_S,
    "lattifai_parity_collar": collar_phrase(LATTIFAI_COLLAR_S),
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


def score_manifest(manifest: Manifest, executor: Executor | None = None,
                   lineage: Mapping[tuple[str, int], TranscriptOrigin] | None = None
                   ) -> tuple[list[RunScore], Tables]:
    """Score every run of every sample and build the tables (nothing is written);
    ``lineage``: where the transcripts that are run artefacts come from.

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
    return runs, build_tables(manifest, runs, support, lineage)


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
        return score_into(manifest_path, staging, command, executor, partial)


def score_into(manifest_path: Path, staging: Path, command: Sequence[str],
                executor: Executor | None, partial: bool) -> list[str]:
    """Score the manifest and write every output file into ``staging``."""
    named = load_manifest(manifest_path)
    manifest, left_out = matched_samples(named, partial)
    manifest = grouped_apart(manifest)  # synthetic samples in scenarios of their own
    origins = transcript_origins(manifest)
    runs, tables = score_manifest(manifest, executor, origins)
    untrusted = [f"{sample} repeat {repeat}: imported ({o.artefact}) with identity "
                 f"{o.identity_confidence}: that it is {manifest.system}'s output as "
                 "configured now is not verified"
                 for (sample, repeat), o in origins.items() if not o.verified]
    wording = report_wording(
        tables, [Claim(j.text, j.scenario, manifest.judgement_where(i))
                 for i, j in enumerate(manifest.judgements)],
        [*manifest.hypotheses, *untrusted], manifest.path)
    manifest_sha256 = sha256_file(manifest.path)
    provenance = collect_provenance(
        command=command, settings={"manifest_format": FORMAT, **SETTINGS,
                                   **multi_stream.settings(manifest.measure_options())},
        inputs=_inputs(named), packages=PACKAGES)
    report = ScoreReport(
        system=manifest.system, required_repeats=manifest.required_repeats,
        manifest_dir=manifest.path.parent, runs=runs, tables=tables, wording=wording,
        left_out=left_out if partial else None, provenance=provenance,
        produced_by=(("speecheval", __version__),
                     ("manifest", f"{manifest.path.name} sha256 {manifest_sha256[:12]}")))
    write_report(report, staging)
    return report.summary_lines()
