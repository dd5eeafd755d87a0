"""The behaviour and prosody sections of ``fdb15 score``, beside the timing.

Behaviour: every trial is labelled by the chosen judge from its output transcripts
(``output.json``, ``clean_output.json``; the OpenAI judge also sends ``input.json`` and
``clean_input.json``, as the official script does). Files: ``behaviour.json`` (the judge's
identity, the Table 2 shares per scenario), ``behaviour-samples.jsonl`` (label and reason
per trial) and, for the OpenAI judge, ``behaviour-ledger.jsonl`` (every request and reply).

Prosody: the user-interruption trials labelled ``C_RESPOND`` are split and measured
(:mod:`..prosody.measures`), and each measure is tested pre -> post and clean -> post
(:mod:`..prosody.paired_tests`). Files: ``prosody.json`` (backends, tests, the correction
statement) and ``prosody-samples.jsonl``. The sections are results;
:mod:`..report.score_files` writes their files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from ....core.audio import read_mono
from ....core.errors import InputError
from ....core.executor import Executor
from ....core.progress import Advance
from ....core.timeline import Span
from ..judge.behavior import (
    CLEAN_OUTPUT_JSON,
    CLEAN_OUTPUT_WAV,
    OUTPUT_JSON,
    RESPOND,
    Judge,
    ScenarioBehaviour,
    Verdict,
    behaviour_shares,
    judge_case,
    words_of,
)
from ..prosody.measures import (
    MOS_SUBSTITUTION,
    AudioMeasures,
    TrialProsody,
    backends,
    measure_names,
    trial_prosody,
)
from ..prosody.paired_tests import (
    PairedTest,
    correction_statement,
    outlier_statement,
    paired_tests,
)
from ..prosody.utmos_file import UtmosFile
from .trials import OUTPUT_WAV, TrialInput, sample_metadata

PROSODY_SCENARIO = "user_interruption"
BEHAVIOUR_KIND = "fdb-v1.5-behaviour"
PROSODY_KIND = "fdb-v1.5-prosody"


@dataclass(frozen=True)
class BehaviourSection:
    """The verdicts of every trial, the shares and the judge."""

    verdicts: dict[str, Verdict]
    summary: dict[str, ScenarioBehaviour]
    identity: dict[str, Any]
    ledger: list[dict[str, Any]] | None

    def report_dict(self) -> dict[str, Any]:
        """``behaviour.json``: the judge's identity and the shares of each scenario."""
        return {"kind": BEHAVIOUR_KIND, "schema_version": 1, "judge": self.identity,
                "scenarios": {name: result.report_dict()
                              for name, result in self.summary.items()}}


def score_behaviour(trials: Sequence[TrialInput], judge: Judge,
                    advance: Callable[[], None]) -> BehaviourSection:
    """Label every trial with ``judge``."""
    verdicts = {}
    for trial in trials:
        metadata = sample_metadata(trial)
        case = judge_case(trial.sample_id, trial.scenario, trial.folder,
                          metadata.context_text, metadata.current_turn_text,
                          Span.from_seconds(*metadata.timestamps))
        verdicts[trial.sample_id] = judge.judge(case)
        advance()
    summary = behaviour_shares(verdicts, {t.sample_id: t.scenario for t in trials})
    ledger = getattr(judge, "ledger", None)
    return BehaviourSection(verdicts, summary, judge.identity(),
                            list(ledger) if ledger is not None else None)


def respond_trials(trials: Sequence[TrialInput], verdicts: dict[str, Verdict]
                   ) -> list[TrialInput]:
    """The user-interruption trials the judge labelled ``C_RESPOND``."""
    return [t for t in trials if t.scenario == PROSODY_SCENARIO
            and verdicts[t.sample_id].label == RESPOND]


@dataclass(frozen=True)
class ProsodySection:
    """The measures of the respond trials and their paired tests."""

    trials: list[TrialProsody]
    tests: list[PairedTest]
    correction: str
    backends: dict[str, Any]
    outliers: str = "mad"

    def report_dict(self) -> dict[str, Any]:
        """``prosody.json``: which trials, the backends, the tests and their correction."""
        return {"kind": PROSODY_KIND, "schema_version": 1,
                "trials": f"{PROSODY_SCENARIO} labelled {RESPOND}",
                "n_trials": len(self.trials), "backends": self.backends,
                "correction": self.correction,
                "statement": correction_statement(self.correction, self.tests),
                "outliers": outlier_statement(self.outliers),
                "tests": [test.report_dict() for test in self.tests]}


_measures: dict[bool, AudioMeasures] = {}
"""This process's measures, with and without DNSMOS (:func:`_process_measures`)."""


def _process_measures(mos: bool) -> AudioMeasures:
    """This process's Praat (and DNSMOS) measures, loaded once per process."""
    if mos not in _measures:
        _measures[mos] = AudioMeasures(mos=mos)
    return _measures[mos]


def _measure(mos: bool, trial: TrialInput) -> TrialProsody:
    """Split and measure one respond trial with this process's measures and Silero."""
    window = Span.from_seconds(*sample_metadata(trial).timestamps)
    return trial_prosody(
        trial.sample_id, window.end_us,
        read_mono(trial.folder / OUTPUT_WAV, sample_id=trial.sample_id),
        words_of(trial.folder, OUTPUT_JSON, OUTPUT_WAV, trial.sample_id),
        read_mono(trial.folder / CLEAN_OUTPUT_WAV, sample_id=trial.sample_id),
        words_of(trial.folder, CLEAN_OUTPUT_JSON, CLEAN_OUTPUT_WAV, trial.sample_id),
        _process_measures(mos))


def score_prosody(trials: Sequence[TrialInput], verdicts: dict[str, Verdict], correction: str,
                  mos: bool, executor: Executor, advance: Advance,
                  outliers: str = "mad", utmos: UtmosFile | None = None) -> ProsodySection:
    """Measure and test the respond trials of user interruption on ``executor`` (each
    process loads Praat, DNSMOS and Silero once); results come back in trial order, so the
    files do not depend on where the trials ran."""
    identity = backends(mos)        # a missing package stops here, before any worker starts
    chosen = respond_trials(trials, verdicts)
    # spawned, not forked, local workers: Silero (onnxruntime) already ran in this process
    results = executor.fork_safe().map(partial(_measure, mos), chosen, advance=advance,
                                       stop_on=(InputError,))
    measured = [result.get() for result in results]
    names = measure_names(mos)
    if utmos is not None:
        measured = [replace(t, parts={part: {**values, "utmos": utmos.measure(t.sample_id, part)}
                                      for part, values in t.parts.items()})
                    for t in measured]
        names = (*names, "utmos")
        identity = {**identity, "utmos": utmos.identity()}
    tests = paired_tests(names, {t.sample_id: t.parts for t in measured},
                         correction, outliers)
    return ProsodySection(measured, tests, correction, identity, outliers)


def prosody_text(section: ProsodySection) -> str:
    """The console table (paper Tables 4 and 5): per measure and comparison, the mean
    difference, p, d_z, n and the number of dropped pairs; then the correction statement."""
    from ....core.p_text import paper_p_text
    from ....report.numbers import fixed
    from ....report.table import Table, to_text

    rows = [[test.measure, f"{test.before}->{test.after}", fixed(test.mean_difference, 2),
             paper_p_text(test.p), paper_p_text(test.p_corrected) if section.correction == "holm"
             else "-", fixed(test.d_z, 2), str(test.n), str(len(test.dropped))]
            for test in section.tests]
    table = Table.of(["measure", "comparison", "mean diff", "p", "p holm", "d_z", "n",
                      "dropped"], rows)
    return (f"prosody of {len(section.trials)} {PROSODY_SCENARIO} trials labelled {RESPOND}\n"
            + to_text(table) + correction_statement(section.correction, section.tests) + "\n"
            + outlier_statement(section.outliers) + "\n"
            + (f"MOS: {MOS_SUBSTITUTION}\n"
               if any(test.measure == "dnsmos_ovrl" for test in section.tests) else ""))
