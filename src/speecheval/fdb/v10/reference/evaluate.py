"""``reference-evaluate``: the pinned official evaluator's numbers as the reference column.

The official evaluator runs unchanged, as a subprocess of a Python that has its imports,
with its own folder as the working directory (``eval_backchannel.py`` opens
``./icc_gt_distribution.json``). It expects one folder per task holding one folder per
sample, so the tree's eligible samples are copied into that layout in a scratch
directory. What it prints under ``[Result]`` is parsed into a :class:`.runs.SubsetRun`
per subset and recorded in ``summary.json`` (``summary_file``), which is bound to the
hashes of ``manifest.json`` and ``asr.json`` so that ``unified-score`` shows it only
beside the scores of the same transcripts.

Known traps are recorded, not fixed inside its code:

- it raises ZeroDivisionError when no sample takes the turn (its latency average divides
  by an empty list): the subset is ``not computable`` with that reason;
- ``evaluate.py`` imports ``dotenv`` and ``openai`` for every task: a Python without them
  is refused before anything runs;
- the backchannel script needs torch, torchaudio and silero-vad: without them the subset
  is ``skipped`` with the reason;
- the interruption script asks an OpenAI model for a rating and asks again without end
  while the answer does not parse: it runs through :mod:`.judge_runner`, which bounds the
  attempts and writes every request, response and error to ``TREE/judge-ledger.jsonl``;
  without a judge the subset is ``skipped: judge not configured``. It also appends each
  rating twice, which is noted.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ....core.extras import install_line
from ....core.hashing import sha256_file
from ...common.official_evaluator import verify_checkout
from ...common.tree import (
    BACKCHANNEL,
    OUTPUT_JSON,
    OUTPUT_WAV,
    SUBSET_TASKS,
    SUMMARY_FILE,
    USER_INTERRUPTION,
    tree_file,
)
from ...common.tree_read import load_asr, load_manifest
from .runs import FAILED, NOT_COMPUTABLE, OK, SKIPPED, Judge, SubsetRun
from .summary_file import add_run, evaluated, open_summary, write_summary

OFFICIAL_JUDGE_MODEL = "gpt-4-turbo"
"""The model ``eval_user_interruption.py`` names."""
LEDGER_FILE = "judge-ledger.jsonl"
DOUBLED_RATINGS = ("eval_user_interruption.py appends each rating twice: the printed mean "
                   "is over the doubled list (the same mean, twice the count)")

TIMEOUT_S = 3600
"""A subset that runs longer than this is recorded as failed (the evaluator never hangs on
its own; a stuck filesystem or a judge would)."""

PRINTED_KEYS: dict[str, str] = {
    "Average take turn": "take_over_rate",
    "Average latency": "latency_s",
    "Average rating": "mean_rating",
    "JSD - Mean": "jsd",
    "TOR - Mean": "take_over_rate",
    "Frequency - Mean": "frequency",
}
"""The evaluator's printed result names and the summary keys they become."""

_RESULT_LINE = re.compile(r"^(?P<name>[^:]+):\s*(?P<value>\S+)(?:\s*±\s*(?P<std>\S+))?\s*$")


def parse_results(stdout: str) -> tuple[dict[str, float], list[str]]:
    """The numbers of the ``[Result]`` block and its lines as printed.

    >>> values, printed = parse_results(
    ...     "x\\n[Result]\\nAverage take turn:  1.0\\nAverage latency:  1.35\\n---\\n")
    >>> values, printed
    ({'take_over_rate': 1.0, 'latency_s': 1.35}, ['Average take turn:  1.0', \
'Average latency:  1.35'])
    >>> parse_results("[Result]\\nJSD - Mean: 0.5000 ± 0.1000\\n")[0]
    {'jsd': 0.5, 'jsd_std': 0.1}
    """
    lines = stdout.splitlines()
    if "[Result]" not in lines:
        return {}, []
    block = []
    for line in lines[lines.index("[Result]") + 1:]:
        if line.startswith("---"):
            break
        if line.strip():
            block.append(line.rstrip())
    values: dict[str, float] = {}
    for line in block:
        match = _RESULT_LINE.match(line)
        if match is None or match["name"].strip() not in PRINTED_KEYS:
            continue
        key = PRINTED_KEYS[match["name"].strip()]
        values[key] = float(match["value"])
        if match["std"] is not None:
            values[f"{key}_std"] = float(match["std"])
    return values, block


def _python_lacks(python: str, modules: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that ``python`` cannot import."""
    missing = []
    for module in modules:
        probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True,
                               check=False)
        if probe.returncode != 0:
            missing.append(module)
    return missing


def _layout(tree: Path, subset: str, scratch: Path) -> int:
    """Copy the subset's eligible samples to ``scratch/<subset>/<id>/``; return how many.

    Each copied file must be the one the summary is bound to: ``output.json`` as listed in
    ``asr.json``, the annotation and ``output.wav`` as listed in ``manifest.json``.
    """
    manifest, asr = load_manifest(tree), load_asr(tree)
    folder = scratch / subset
    folder.mkdir()
    count = 0
    for sample in manifest.samples:
        if sample.subset != subset or not sample.eligible:
            continue
        target = folder / sample.sample_id.split("/")[1]
        target.mkdir()
        names = [OUTPUT_JSON] + [n for n in [sample.annotation_file] if n]
        if sample.task == BACKCHANNEL:
            names.append(OUTPUT_WAV)
        for name in names:
            source = sample.file(tree, name)
            listed, index = ((asr.transcripts.get(sample.sample_id), "asr.json")
                             if name == OUTPUT_JSON else (sample.files.get(name),
                                                          "manifest.json"))
            if not source.is_file():
                raise InputError(f"{name} is missing", path=source, sample_id=sample.sample_id)
            if sha256_file(source) != listed:
                raise InputError(f"{name} differs from {index}", path=source,
                                 sample_id=sample.sample_id)
            shutil.copyfile(source, target / name)
        count += 1
    return count


def _evaluator_env(judge: Judge | None = None) -> dict[str, str]:
    """The environment of the evaluator: ours, without a key it must not use (only the
    judge's own key variable stays), and without writing byte code into the checkout."""
    keep = judge.key_env if judge is not None else None
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY" or k == keep}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("OPENAI_API_KEY", "not-used")   # evaluate.py reads it at import
    if judge is not None:   # the judge runner is a speecheval module: make it importable
        package_root = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = os.pathsep.join(
            [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _command(python: str, task: str, root: Path, judge: Judge | None, ledger: Path
             ) -> list[str]:
    if task != USER_INTERRUPTION:
        return [python, "evaluate.py", "--task", task, "--root_dir", str(root)]
    assert judge is not None
    command = [python, "-m", "speecheval.fdb.v10.reference.judge_runner", "--root-dir", str(root),
               "--model", judge.model, "--api-key-env", judge.key_env,
               "--max-attempts", str(judge.max_attempts), "--ledger", str(ledger)]
    return command + (["--base-url", judge.base_url] if judge.base_url else [])


def run_subset(tree: Path, subset: str, evaluation: Path, python: str,
               judge: Judge | None = None) -> SubsetRun:
    """Run ``evaluate.py --task`` on one subset and classify what happened."""
    task = SUBSET_TASKS[subset]
    if task == USER_INTERRUPTION and judge is None:
        return SubsetRun(SKIPPED, reason="judge not configured: the interruption script "
                                         "rates every reply with an OpenAI model")
    if task == BACKCHANNEL:
        missing = _python_lacks(python, ("torch", "torchaudio", "silero_vad"))
        if missing:
            return SubsetRun(SKIPPED, reason="eval_backchannel.py needs torch, torchaudio "
                                             f"and silero-vad; {python} lacks "
                                             + ", ".join(missing))
    with tempfile.TemporaryDirectory(prefix="speecheval-reference-") as scratch:
        samples = _layout(tree, subset, Path(scratch))
        ledger = tree_file(tree, LEDGER_FILE)
        try:
            done = subprocess.run(
                _command(python, task, Path(scratch) / subset, judge, ledger),
                cwd=evaluation, env=_evaluator_env(judge), capture_output=True, text=True,
                timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return SubsetRun(FAILED, reason=f"the evaluator ran past {TIMEOUT_S} s",
                             samples=samples)
    values, printed = parse_results(done.stdout)
    notes = [DOUBLED_RATINGS, f"every judge request, response and error: {LEDGER_FILE}"] \
        if task == USER_INTERRUPTION else []
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1]
        if "ZeroDivisionError" in done.stderr:
            return SubsetRun(NOT_COMPUTABLE, samples=samples, printed=printed, notes=notes,
                             reason="the official evaluator raised ZeroDivisionError: no "
                                    "sample took the turn (or none was given), and it "
                                    f"averages an empty list ({last})")
        return SubsetRun(FAILED, samples=samples, printed=printed, notes=notes,
                         reason=f"the evaluator exited with {done.returncode}: {last}")
    if not values:
        return SubsetRun(FAILED, samples=samples, printed=printed, notes=notes,
                         reason="the evaluator printed no [Result] numbers")
    return SubsetRun(OK, values=values, samples=samples, printed=printed, notes=notes)


def reference_evaluate(tree: Path, source: Path, subsets: list[str] | None = None,
                       python: str | None = None, judge: Judge | None = None
                       ) -> dict[str, Any]:
    """Evaluate the chosen subsets (default: every subset with eligible samples) and write
    ``TREE/summary.json``; returns the summary written."""
    manifest = load_manifest(tree)
    asr = load_asr(tree)
    evaluation = verify_checkout(source)
    interpreter = python or sys.executable
    missing = _python_lacks(interpreter, ("dotenv", "openai"))
    if missing:
        raise InputError(f"the official evaluate.py imports python-dotenv and openai; "
                         f"{interpreter} lacks {', '.join(missing)}: install them with "
                         f"{install_line('reference')}")
    present = [s for s in SUBSET_TASKS
               if any(x.subset == s and x.eligible for x in manifest.samples)]
    chosen = subsets or present
    for subset in chosen:
        if subset not in SUBSET_TASKS:
            raise InputError(f"unknown subset {subset!r}; known: {', '.join(SUBSET_TASKS)}")
        if subset not in present:
            raise InputError(f"the tree has no eligible sample of {subset}",
                             path=manifest.path)
    summary = open_summary(tree, manifest.sha256, asr.sha256)
    for subset in chosen:
        done = evaluated(summary, subset)
        if done is not None:
            raise InputError(f"{subset} is already in summary.json ({done}); the reference "
                             "column is never evaluated twice",
                             path=tree_file(tree, SUMMARY_FILE))
    for subset in chosen:
        add_run(summary, subset, run_subset(tree, subset, evaluation, interpreter, judge),
                judge)
    write_summary(tree, summary)
    return summary
