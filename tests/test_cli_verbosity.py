"""``-q`` and ``-v`` on every command: standard error only, results untouched, errors kept.

Each family is run in this process through :func:`speecheval.cli.main` with pytest's
``capfd``, which catches what reaches the file descriptors too (a library writing to fd 2
past ``sys.stderr`` would show up). Progress bars are forced on
(``SPEECHEVAL_PROGRESS=1``) where a command has one, so that the default run has
something on standard error for ``-q`` to take away.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click
import pytest
from csv_check import assert_csv_matches
from speech_engine import needs_speech

from speecheval import cli
from speecheval.cli import main
from speecheval.core.log import NORMAL, ROOT, VERBOSE, level_flags, set_level

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
REF_TXT = EXAMPLES / "transcripts" / "ref" / "en-utterances.txt"
HYP_TXT = EXAMPLES / "transcripts" / "hyp" / "en-utterances.txt"
WER = ["transcripts", "wer", "--ref", str(REF_TXT), "--hyp", str(HYP_TXT)]


def run(capfd: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of ``speecheval ARGV``."""
    capfd.readouterr()
    code = main(argv)
    out, err = capfd.readouterr()
    return code, out, err


def every_command() -> list[tuple[str, click.Command]]:
    """Every command of the tree by its path, lazy ones imported."""
    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: str, ctx: click.Context) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, f"{path} {name}"
                walk(sub, f"{path} {name}", click.Context(sub, parent=ctx, info_name=name))

    walk(cli.app, "speecheval", click.Context(cli.app, info_name="speecheval"))
    return found


def test_every_command_takes_verbose_and_quiet() -> None:
    commands = every_command()
    assert len(commands) > 30  # the walk reached the leaves of every family
    for path, command in commands:
        options = {opt for param in command.params for opt in param.opts}
        assert {"-v", "--verbose", "-q", "--quiet"} <= options, path


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_before_or_after_the_command_changes_nothing_on_stdout(
        capfd: pytest.CaptureFixture[str], where: str) -> None:
    default = run(capfd, WER)
    argv = ["-q", *WER] if where == "before" else [*WER, "-q"]
    assert run(capfd, argv) == default
    assert default[0] == 0 and default[1].startswith("%WER ")


def test_each_run_ends_at_the_level_it_found(capfd: pytest.CaptureFixture[str]) -> None:
    assert run(capfd, [*WER, "-q"])[0] == 0
    assert logging.getLogger(ROOT).level == logging.INFO
    assert run(capfd, ["-v", *WER])[0] == 0
    assert logging.getLogger(ROOT).level == logging.INFO


def test_a_command_run_from_a_command_keeps_its_level(
        capfd: pytest.CaptureFixture[str]) -> None:
    """``fdb10 demo`` runs its steps through ``main``: a ``-v`` given to it holds there."""
    set_level(VERBOSE)
    try:
        code, _, err = run(capfd, WER)
        assert code == 0 and err.startswith("read text file ")
        assert logging.getLogger(ROOT).level == VERBOSE
        assert level_flags() == ["-v"]
    finally:
        set_level(NORMAL)


def test_verbose_names_the_files_read(capfd: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capfd, [*WER, "-v"])
    assert (code, out) == run(capfd, WER)[:2]
    assert err.splitlines() == [f"read text file {REF_TXT} ({REF_TXT.stat().st_size} bytes)",
                                f"read text file {HYP_TXT} ({HYP_TXT.stat().st_size} bytes)"]


def test_the_last_of_q_and_v_wins(capfd: pytest.CaptureFixture[str]) -> None:
    assert run(capfd, ["-v", *WER, "-q"])[2] == ""
    assert "read " in run(capfd, ["-q", *WER, "-v"])[2]


def test_a_warning_still_shows_under_quiet(capfd: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    """``--partial`` names the ids it left out as a warning: -q keeps it, byte for byte."""
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a hello there\nb good morning\n")
    hyp.write_text("a hello there\n")
    argv = ["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp), "--partial"]
    code, out, err = run(capfd, argv)
    assert code == 0 and err.startswith("warning: ") and err.count("\n") == 1
    assert err.removeprefix("warning: ") in out  # the line the result also carries
    assert run(capfd, [*argv, "-q"]) == (code, out, err)


def test_errors_print_under_quiet_with_their_exit_codes(
        capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    usage = ["transcripts", "wer", "--ref", str(tmp_path / "none.txt"), "--hyp",
             str(HYP_TXT)]
    default = run(capfd, usage)
    assert default[0] == 2 and "does not exist" in default[2]
    assert run(capfd, ["-q", *usage]) == default
    (tmp_path / "taken").mkdir()
    scenario = EXAMPLES / "scenarios" / "booking.yaml"
    exists = ["session", "run", str(scenario), "--out", str(tmp_path / "taken")]
    default = run(capfd, exists)
    assert default[0] == 2 and default[2].startswith("error: ")
    assert "already exists" in default[2]
    assert run(capfd, [*exists, "-q"]) == default


def test_fdb10_unified_score_quiet_verbose_and_csv(
        capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    code, out, err = run(capfd, ["-q", "fdb10", "build-tree", "--out", str(tmp_path / "tree")])
    assert (code, err) == (0, "") and out.startswith("wrote ")  # a result: stdout stays
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", "1")
    score = ["fdb10", "unified-score", "--tree", str(tmp_path / "tree"), "--jobs", "1",
             "--out"]
    code, _, err = run(capfd, [*score, str(tmp_path / "default")])
    assert code == 0 and "speech (Silero VAD)" in err  # the bar
    code, _, err = run(capfd, ["-q", *score, str(tmp_path / "quiet")])
    assert (code, err) == (0, "")
    code, _, err = run(capfd, [*score, str(tmp_path / "verbose"), "-v"])
    assert code == 0 and "output.wav" in err and "sha256" in err
    for name in ("unified-samples.jsonl", "unified-samples.csv"):
        assert (tmp_path / "quiet" / name).read_bytes() == (
            tmp_path / "default" / name).read_bytes() == (
            tmp_path / "verbose" / name).read_bytes(), name
    samples = tmp_path / "default" / "unified-samples.jsonl"
    assert_csv_matches(samples.read_text(encoding="utf-8"),
                       samples.with_suffix(".csv").read_text(encoding="utf-8"))


@needs_speech
def test_session_run_on_the_mock_quiet_and_verbose(capfd: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    scenario = EXAMPLES / "scenarios" / "booking.yaml"
    default = run(capfd, ["session", "run", str(scenario), "--out", str(tmp_path / "a")])
    assert default[0] == 0
    code, out, err = run(capfd, ["session", "run", str(scenario), "--out",
                                 str(tmp_path / "b"), "-q"])
    assert (code, err) == (0, "")
    assert out == default[1].replace(str(tmp_path / "a"), str(tmp_path / "b"))
    verbose = run(capfd, ["-v", "session", "run", str(scenario), "--out",
                          str(tmp_path / "c")])
    assert verbose[0] == 0 and f"read scenario {scenario}" in verbose[2]


def test_transcripts_score_writes_samples_csv(capfd: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    code, _, err = run(capfd, ["-q", "transcripts", "score", "--manifest",
                               str(EXAMPLES / "transcripts" / "manifest.yaml"),
                               "--out", str(tmp_path / "run")])
    assert (code, err) == (0, "")
    samples = tmp_path / "run" / "samples.jsonl"
    text = samples.read_text(encoding="utf-8")
    assert len(text.splitlines()) > 3
    assert_csv_matches(text, samples.with_suffix(".csv").read_text(encoding="utf-8"))


@needs_speech
def test_fdb15_score_quiet_and_timing_csv(capfd: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    from fdb15.test_score import _tree

    tree = _tree(tmp_path / "tree")
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", "1")
    out = tmp_path / "scored"
    code, _, err = run(capfd, ["fdb15", "score", "--tree", str(tree), "--jobs", "1",
                               "--out", str(out), "--quiet"])
    assert (code, err) == (0, "")
    samples = out / "timing-samples.jsonl"
    text = samples.read_text(encoding="utf-8")
    assert [json.loads(line)["sample_id"] for line in text.splitlines()]
    assert_csv_matches(text, samples.with_suffix(".csv").read_text(encoding="utf-8"))
