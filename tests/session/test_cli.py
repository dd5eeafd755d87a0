"""``speecheval session run/validate``: exit codes, run directory, determinism, reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import numpy as np
import pytest
from hostile.yaml_bombs import billion_laughs
from speech_engine import require_speech

from speecheval.agents.base import AgentEvent, AudioOut, VirtualClockAgent
from speecheval.cli import main
from speecheval.core.audio import read_mono, write_wav
from speecheval.core.hashing import sha256_file

from .helpers import voicebench_examples, write_scenario

QUICK = """
name: quick
adapter:
  type: mock
  options: {response_ms: 800, transcripts: ["hello there"]}
turns:
  - id: hi
    audio: {synth: tone, duration_ms: 600}
    text: "Hello there."
  - id: more
    audio: {synth: tone, duration_ms: 400}
    start: {after: agent_speech_end, delay_ms: 300}
assert:
  p90_response_latency_ms: 1000
"""


def run_cli(*args: str) -> int:
    return main(["session", *args])


def test_run_writes_the_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "--out", str(out)) == 0
    session = out / "sessions" / "001"
    for name in ("user.wav", "agent.wav", "session.wav", "events.jsonl"):
        assert (session / name).is_file(), name
    report = json.loads((out / "report.json").read_text())
    assert report["schema"] == "speecheval.session.report" and report["schema_version"] == 2
    # one provenance record: the scenario's hash, the command (no -o), the detectors
    record = report["provenance"]
    assert record["kind"] == "core.provenance" and record["tool"] == "speecheval"
    assert record["inputs"]["scenario"] == sha256_file(out.parent / "scenario.yaml")
    assert record["command"][:3] == ["speecheval", "session", "run"]
    assert record["settings"]["vad"]["user"]["engine"] == "energy"
    assert record["packages"]["numpy"] == np.__version__ and record["models"] == {}
    assert report["passed"] is True and report["clock"] == "virtual"
    turns = report["sessions"][0]["turns"]
    assert [t["id"] for t in turns] == ["hi", "more"]
    assert turns[0]["wer"] == 0.0
    user = read_mono(session / "user.wav")
    agent = read_mono(session / "agent.wav")
    assert user.n_samples == agent.n_samples
    assert report["sessions"][0]["duration_s"] == user.n_samples / 16000
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events if e["type"] == "turn"] == ["turn", "turn"]
    html = (out / "report.html").read_text()
    assert "<svg" in html and 'src="data:audio/wav;base64,' in html and "<script" not in html
    markdown = (out / "report.md").read_text()
    assert "| hi | respond |" in markdown and "p90_response_latency_ms" in markdown


def test_same_inputs_same_bytes(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    for name in ("a", "b"):
        assert run_cli("run", str(scenario), "-n", "2", "--out", str(tmp_path / name)) == 0
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    assert len(files) == 4 + 2 * 4  # four reports, four files per session
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_failed_assertion_exits_1_and_keeps_the_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = run_cli("run", str(write_scenario(tmp_path, QUICK)), "-o", "response_delay_ms=900",
                   "--out", str(out))
    assert code == 1
    report = json.loads((out / "report.json").read_text())
    assert report["passed"] is False
    assert report["agent"]["options"]["response_delay_ms"] == 900


def test_repeats_report_the_pass_rate(tmp_path: Path) -> None:
    out = tmp_path / "run"
    scenario = write_scenario(tmp_path, QUICK.replace("p90_response_latency_ms: 1000",
                                                      "min_session_pass_rate: 1.0"))
    assert run_cli("run", str(scenario), "-n", "3", "--out", str(out)) == 0
    summary = json.loads((out / "report.json").read_text())["summary"]
    assert summary["session_pass"]["count"] == 3 and summary["session_pass"]["n"] == 3
    low, high = summary["session_pass"]["ci95"]
    # Wilson 95% for 3 of 3: high is exactly 1; low = centre - half with z^2 = 3.8415:
    # centre = (1 + 0.6402) / 2.2805 = 0.7193, half = 1.96 * sqrt(0 + 0.1067) / 2.2805 =
    # 0.2807 -> 0.4385
    assert high == 1.0 and round(low, 3) == 0.439


@pytest.mark.parametrize(("args", "message"), [
    (["-o", "nonsense_knob=1"], "-o nonsense_knob: unknown option"),
    (["-o", "novalue"], "-o expects key=value"),
    (["--agent", "carrier-pigeon"], "carrier-pigeon"),
    (["--agent", "no_such_module:Agent"], "cannot load 'Agent'"),
])
def test_usage_errors_exit_2_without_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            args: list[str], message: str) -> None:
    out = tmp_path / "run"
    code = run_cli("run", str(write_scenario(tmp_path, QUICK)), *args, "--out", str(out))
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob(".run.*"))


HUGE = "1" + "0" * 400  # YAML reads it as a whole number no float can hold


@pytest.mark.parametrize(("option", "message"), [
    # the mock's type check by annotation name called math.isfinite() on it: a traceback
    (f"response_ms={HUGE}", f"-o response_ms: must be at most 3600000 ms (one hour), got "
                            f"{HUGE[:57]}..."),
    (f"level_db={HUGE}", f"-o level_db: must be a finite number, got {HUGE[:57]}..."),
    ("level_db=.inf", "-o level_db: must be a finite number, got inf"),
    ("response_delay_ms=.nan", "-o response_delay_ms: must be a finite number, got nan"),
    ("response_delay_ms=nan", "-o response_delay_ms: must be a number, got 'nan'"),
    ("seed=-1", "-o seed: must be a whole number >= 0, got -1"),
])
def test_bad_mock_option_values_exit_2_naming_the_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, message: str) -> None:
    out = tmp_path / "run"
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "-o", option,
                   "--out", str(out)) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not out.exists()


def test_webrtc_nan_timeout_exits_2_before_any_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "--agent", "webrtc",
                   "--url", "http://127.0.0.1:9/", "-o", "signalling_timeout_s=nan",
                   "--out", str(out)) == 2
    assert capsys.readouterr().err == ("error: webrtc: option signalling_timeout_s: must be a "
                                       "finite number >= 0, got 'nan'\n")
    assert not out.exists()


def test_bad_scenario_exits_2_naming_the_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = write_scenario(tmp_path, QUICK.replace("response_ms: 800", "respnse_ms: 800"))
    assert run_cli("validate", str(path)) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "adapter.options.respnse_ms (line 4)" in err
    assert run_cli("run", str(path), "--out", str(tmp_path / "run")) == 2


def test_stereo_turn_audio_is_mixed_down_with_a_notice(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    stereo = np.zeros((1600, 2), dtype=np.float32)
    stereo[:, 0] = 0.25  # left only: the mono mix is 0.125
    write_wav(tmp_path / "two.wav", stereo, 16000)
    path = write_scenario(tmp_path, QUICK.replace("{synth: tone, duration_ms: 400}",
                                                  "{file: two.wav}"))
    out = tmp_path / "run"
    assert run_cli("run", str(path), "--out", str(out)) == 0
    # turn "more" is the second entry of turns:, on line 9 (name, adapter, type, options,
    # turns, hi, its audio, its text, more)
    assert (f"notice: {path}: turns[1] (id 'more', line 9): audio file "
            f"{tmp_path / 'two.wav'} has 2 channels; using their mean (mono)"
            ) in capsys.readouterr().err
    events = [json.loads(line) for line in
              (out / "sessions" / "001" / "events.jsonl").read_text().splitlines()]
    start = round(next(e["t_ms"] for e in events if e.get("turn") == "more") * 16)
    user = read_mono(out / "sessions" / "001" / "user.wav").samples
    assert np.all(user[start:start + 1600] == np.float32(0.125))


def test_fractional_frame_ms_exits_2_before_running(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write_scenario(tmp_path, QUICK.replace("name: quick", "name: quick\nframe_ms: 12.5"))
    out = tmp_path / "run"
    assert run_cli("run", str(path), "--out", str(out)) == 2
    assert (f"{path}: frame_ms (line 2): must be a whole number of milliseconds, got 12.5"
            in capsys.readouterr().err)
    assert not out.exists() and not list(tmp_path.glob(".run.*"))


def test_existing_output_is_never_overwritten(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    out.mkdir()
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "--out", str(out)) == 2
    assert "never overwritten" in capsys.readouterr().err


def test_validate_voicebench_examples(capsys: pytest.CaptureFixture[str]) -> None:
    require_speech()
    folder = voicebench_examples()
    paths = sorted(str(p) for p in folder.glob("*.yaml"))
    assert len(paths) == 2
    assert run_cli("validate", *paths) == 0
    assert capsys.readouterr().out.count("ok ") == 2


def test_voicebench_websocket_example_runs_on_the_mock(tmp_path: Path) -> None:
    # the file names voicebench's websocket adapter; --agent mock runs the same turns here
    require_speech()
    path = voicebench_examples() / "websocket.yaml"
    out = tmp_path / "run"
    assert run_cli("run", str(path), "--agent", "mock", "--out", str(out)) == 0
    report = json.loads((out / "report.json").read_text())
    assert [t["passed"] for t in report["sessions"][0]["turns"]] == [True, True]


class EchoAgent(VirtualClockAgent):
    """A plug-in virtual-clock agent: repeats the user's frames 1 s later."""

    def __init__(self, delay_frames: int = 50) -> None:
        self.delay = delay_frames
        self.frames: list[bytes] = []

    def start(self, sample_rate: int) -> None:
        self.rate = sample_rate

    def process(self, frame: np.ndarray, t_s: float) -> list[AgentEvent]:
        self.frames.append(frame.astype("<i2").tobytes())
        if len(self.frames) > self.delay:
            return [AudioOut(self.frames[-1 - self.delay])]
        return []


def test_module_class_agent_on_the_virtual_clock(tmp_path: Path) -> None:
    body = "name: echo\nturns:\n  - audio: {synth: tone, duration_ms: 400}\n"
    out = tmp_path / "run"
    code = run_cli("run", str(write_scenario(tmp_path, body)), "--agent",
                   f"{__name__}:EchoAgent", "-o", "delay_frames=40", "--out", str(out))
    assert code == 0
    (t,) = json.loads((out / "report.json").read_text())["sessions"][0]["turns"]
    # 40 frames of 20 ms: the echo of the 0.5-0.9 s tone starts at 1.3 s, 400 ms after
    assert t["response_latency_ms"] == 400.0


def test_example_scenarios_validate_and_pass(tmp_path: Path) -> None:
    require_speech()
    examples = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
    paths = sorted(examples.glob("*.yaml"))
    assert paths, examples
    for path in paths:
        assert run_cli("validate", str(path)) == 0, path
        assert run_cli("run", str(path), "--out", str(tmp_path / path.stem)) == 0, path


class CrashingAgent(EchoAgent):
    """Answers like EchoAgent, then fails half a second into the session."""

    def process(self, frame: np.ndarray, t_s: float) -> list[AgentEvent]:
        if t_s >= 0.5:
            raise ConnectionResetError("peer went away")
        return super().process(frame, t_s)


def test_agent_failure_exits_3_with_the_reason_in_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = "name: crash\nturns:\n  - audio: {synth: tone, duration_ms: 400}\n"
    out = tmp_path / "run"
    code = run_cli("run", str(write_scenario(tmp_path, body)), "--agent",
                   f"{__name__}:CrashingAgent", "--out", str(out))
    assert code == 3
    assert "peer went away" in capsys.readouterr().err
    report = json.loads((out / "report.json").read_text())
    session = report["sessions"][0]
    assert session["fault"] == "agent raised ConnectionResetError: peer went away"
    assert session["passed"] is False and report["summary"]["faulted_sessions"] == 1
    (turn,) = session["turns"]
    assert turn["passed"] is False and turn["start_s"] == 0.5


@pytest.mark.parametrize("where", ["file-parent", "dev-null", "proc", "existing"])
def test_unusable_out_is_refused_before_the_session_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "done").mkdir()
    out, reason = {
        "file-parent": (tmp_path / "a-file" / "run", f"{tmp_path / 'a-file'} is not a directory"),
        "dev-null": (Path("/dev/null/x"), "/dev/null is not a directory"),
        "proc": (Path("/proc/x"), "cannot create the output directory"),
        "existing": (tmp_path / "done", "output already exists"),
    }[where]
    if where == "proc" and not Path("/proc").is_dir():
        pytest.skip("no /proc on this system")

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the session ran although --out was unusable")

    monkeypatch.setattr("speecheval.session.run.launch.evaluate", must_not_run)
    before = sorted(tmp_path.rglob("*"))
    assert run_cli("run", str(scenario), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {out}: ") and reason in err, err
    assert sorted(tmp_path.rglob("*")) == before  # nothing written, no probe left behind


BOUNDS = """
name: bounds
max_duration_ms: 60000
adapter: {type: mock, options: {response_ms: 800}}
turns:
  - id: hi
    audio: {synth: silence, duration_ms: 600}
    start: {after: session_start, delay_ms: 100}
"""


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("max_duration_ms: 60000", "max_duration_ms: .inf",
     "max_duration_ms (line 2): must be a finite number, got inf"),
    ("max_duration_ms: 60000", "max_duration_ms: .nan",
     "max_duration_ms (line 2): must be a finite number, got nan"),
    ("delay_ms: 100", "delay_ms: .nan",
     "turns[0].start.delay_ms (line 7): must be a finite number, got nan"),
    ("silence, duration_ms: 600", "silence, duration_ms: 1.0e+9",
     "turns[0].audio.duration_ms (line 6): must be at most 3600000 ms (one hour), got 1e+09"),
    ("max_duration_ms: 60000", "max_duration_ms: 3600001",
     "max_duration_ms (line 2): must be at most 3600000 ms (one hour), got 3.6e+06"),
    ("max_duration_ms: 60000", "sample_rate: 1000000",
     "sample_rate (line 2): must be <= 48000, got 1000000"),
    ("response_ms: 800", "response_ms: 1.0e+12",
     "adapter.options.response_ms (line 3): must be at most 3600000 ms (one hour), "
     "got 1000000000000.0"),
    ("    start: {after: session_start, delay_ms: 100}\n",
     "    start: {after: session_start, delay_ms: 100}\n"
     "  - {audio: {synth: tone, duration_ms: 3000000}}\n"
     "  - {audio: {synth: noise, duration_ms: 3000000}}\n",
     "turns (line 4): the synthesized turn audio adds up to 6.0006e+06 ms; at most 3600000 "
     "ms (one hour) together"),
])
def test_out_of_range_numbers_are_refused_with_the_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str,
        expected: str) -> None:
    assert old in BOUNDS
    path = write_scenario(tmp_path, BOUNDS.replace(old, new))
    assert run_cli("validate", str(path)) == 2
    assert capsys.readouterr().err == f"error: {path}: {expected}\n"
    out = tmp_path / "run"
    assert run_cli("run", str(path), "--out", str(out)) == 2
    assert capsys.readouterr().err == f"error: {path}: {expected}\n"
    assert not out.exists()


@pytest.mark.parametrize(("forced", "shown"), [("1", True), ("0", False)])
def test_repeated_sessions_show_progress_only_when_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        forced: str, shown: bool) -> None:
    # SPEECHEVAL_PROGRESS=1 stands in for a terminal (core.progress); the bar of the three
    # sessions goes to stderr (erased when done) and never to stdout or the run directory
    monkeypatch.setenv("SPEECHEVAL_PROGRESS", forced)
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "-n", "3",
                   "--out", str(tmp_path / "run")) == 0
    captured = capsys.readouterr()
    assert ("/3 [" in captured.err) is shown and "sessions of quick" not in captured.out
    assert ("sessions of quick" in captured.err) is shown


def test_session_help_does_not_import_pydantic() -> None:
    """The scenario and transport schemas are imported when a file or an agent's options
    are read, not by ``speecheval session --help``."""
    code = ("import sys\nfrom speecheval.cli import main\n"
            "try:\n    main(['session', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


def test_run_and_load_share_the_scenario_agent_and_output_options() -> None:
    from speecheval.session.cli import run
    from speecheval.session.load.cli import load

    def shared(command: click.Command) -> dict[str, tuple[object, ...]]:
        return {p.name: (tuple(p.opts), p.required, p.multiple, type(p.type).__name__,
                         p.metavar) for p in command.params
                if p.name in {"scenario_path", "agent", "option_pairs", "url", "out"}}

    assert shared(run) == shared(load)
    assert set(shared(run)) == {"scenario_path", "agent", "option_pairs", "url", "out"}


def test_turn_audio_cut_inside_its_fmt_chunk_exits_2(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # 26 bytes: the RIFF header (12), the fmt chunk's header (8) and 6 of its 16 bytes
    write_wav(tmp_path / "cut.wav", np.zeros(1600, np.int16), 16000)
    (tmp_path / "cut.wav").write_bytes((tmp_path / "cut.wav").read_bytes()[:26])
    path = write_scenario(tmp_path, QUICK.replace("{synth: tone, duration_ms: 400}",
                                                  "{file: cut.wav}"))
    assert run_cli("validate", str(path)) == 2
    assert capsys.readouterr().err == (
        f"error: {path}: turns[1] (id 'more', line 9): audio file {tmp_path / 'cut.wav'}: "
        "truncated audio: the file ends after 26 bytes, inside its 'fmt ' chunk "
        "(bytes 12 to 36)\n")


BOMB = ("its YAML aliases (*name) would expand it by more than 100000 nodes; write the "
        "repeated parts out instead")


def test_a_scenario_with_an_alias_bomb_or_a_nul_exits_2(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    # 6 levels of 9 aliases: 9**6 = 531441 strings, walked one by one by the old reader
    # before the unknown keys l0 ... l5 were refused (9 levels grew without end)
    bomb = write_scenario(tmp_path, QUICK + billion_laughs(6), "bomb.yaml")
    assert run_cli("validate", str(bomb)) == 2
    assert capsys.readouterr().err == f"error: {bomb}: {BOMB}\n"
    # the NUL was a yaml ReaderError traceback; QUICK's line 8 is the first turn's text
    nul = write_scenario(tmp_path, QUICK.replace('"Hello there."', '"Hello\0there."'),
                         "nul.yaml")
    assert run_cli("validate", str(nul)) == 2
    assert capsys.readouterr().err == (f"error: {nul}: line 8: not valid YAML: special "
                                       "characters are not allowed (character #x0000)\n")


def test_an_option_value_with_an_alias_bomb_exits_2(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # -o values are read by the scenario's YAML loader, with its alias budget
    value = billion_laughs(6)
    out = tmp_path / "run"
    assert run_cli("run", str(write_scenario(tmp_path, QUICK)), "-o",
                   f"transcripts={value}", "--out", str(out)) == 2
    assert capsys.readouterr().err == f"error: -o transcripts: value {value!r}: {BOMB}\n"
    assert not out.exists()
