"""Shared pieces of the ``transcripts run`` tests: a fake system program, audio, manifests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

from speecheval.cli import main

FAKE_SYSTEM = '''
import sys
import soundfile as sf
wav, out, seed, sample = sys.argv[1:5]
data, rate = sf.read(wav, dtype="int16")
with open("calls.txt", "a") as log:
    log.write(f"{sample} {seed} {len(data)}\\n")
if sample.startswith("bad"):
    sys.stderr.write("model crashed on this file\\n")
    sys.exit(1)
if sample.startswith("slow"):
    import time
    time.sleep(60)
if sample.startswith("garbled"):
    open(out, "w").write("this is not an STM line\\n")
    sys.exit(0)
end = min(1.0, len(data) / rate)
open(out, "w").write(f"whatever 1 spk{seed} 0.500 {end:.3f} seed {seed} samples {len(data)}\\n")
'''
"""Writes one STM segment 0.5-1.0 s saying its seed and how many samples it got; logs each
call to calls.txt in its working directory; fails on samples named bad*, garbles garbled*,
sleeps a minute on slow*."""


def blocks_audio(path: Path, rate: int = 44_100) -> None:
    """Stereo at ``rate``: 20 s loud, 5 s silence, 20 s loud, 5 s silence, 20 s loud."""
    rng = np.random.default_rng(3)
    loud = rng.uniform(-0.3, 0.3, size=(20 * rate, 2))
    quiet = np.zeros((5 * rate, 2))
    sf.write(str(path), np.concatenate([loud, quiet, loud, quiet, loud]), rate,
             subtype="PCM_16")


def write_manifest(folder: Path, samples: str, extra_systems: str = "") -> Path:
    (folder / "fake_system.py").write_text(FAKE_SYSTEM, encoding="utf-8")
    manifest = folder / "manifest.yaml"
    manifest.write_text(f"""format: speecheval.transcripts.run-manifest/1
systems:
  fake:
    adapter: command
    command: [{sys.executable}, fake_system.py, "{{input}}", "{{output}}", "{{seed}}", "{{sample}}"]
    output_suffix: .stm
    version: fake 1.0
{extra_systems}samples:
{samples}""", encoding="utf-8")
    return manifest


def calls(folder: Path) -> list[str]:
    log = folder / "calls.txt"
    return log.read_text().splitlines() if log.exists() else []


MEASURED = ("wall_s", "rtf", "peak_memory_bytes")
"""What a meta.json measures about the call rather than records of it."""


def contents(run: Path) -> dict[str, bytes | dict[str, object]]:
    """Every file of a run directory; a meta.json without what it measures, and not the
    engineering facts, which are measurements (two runs of the same jobs differ there and
    nowhere else)."""
    found: dict[str, bytes | dict[str, object]] = {}
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        name = path.relative_to(run).as_posix()
        if name in ("engineering.json", "engineering.md"):
            continue
        if path.name == "meta.json":
            meta = json.loads(path.read_text())
            found[name] = {k: v for k, v in meta.items() if k not in MEASURED}
        else:
            found[name] = path.read_bytes()
    return found


def cli(*args: str | Path) -> int:
    return main(["transcripts", *[str(a) for a in args]])


BLOCKS_SAMPLE = "  - id: blocks\n    audio: blocks.wav\n    last_speech_s: 0.9\n"
"""The run manifest entry of sample ``blocks`` (:func:`blocks_audio`)."""


def fake_run(folder: Path, rate: int = 44_100, version: str = "fake 1.0") -> Path:
    """A run of the fake system alone on ``blocks`` made at ``rate`` (another rate: other
    PCM), the system's user version set to ``version``."""
    folder.mkdir()
    blocks_audio(folder / "blocks.wav", rate)
    manifest = write_manifest(folder, BLOCKS_SAMPLE)
    manifest.write_text(manifest.read_text().replace("fake 1.0", version))
    assert cli("run", "--manifest", manifest, "--system", "fake", "--out", folder / "run") == 0
    return folder / "run"
