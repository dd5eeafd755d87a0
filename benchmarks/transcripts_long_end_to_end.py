"""The long-recording pipeline end to end: make, transcribe whole and chunked, gate, score.

Makes the espeak-ng recording of ``tests/transcripts/long_recording.py`` (``--minutes``,
default 60; seed 2026: three voices, overlaps, tone chords, silences; ``script.json`` and
``reference.stm`` beside it), then runs, as a user would and timing each step:

1. ``transcripts run`` with ``whisper-local`` (``--threads`` CPU threads) on the
   ``production_complete_file`` track and its ``/chunked`` form;
2. ``transcripts gate`` on the script's own ``reference.stm`` (a correct transcript must
   pass: the script repeats no run of sentences back to back), then ``transcripts gate
   RUN`` (the last-speech boundary from the script), printing every exact adjacent repeat
   it found (start time, period, the repeated block) and whether the script itself says
   that block twice that far apart (then a correct transcript repeats it too) or not (the
   decoder looped), so a verdict is checked against ``script.json`` (keep the folder with
   ``--keep``);
3. ``transcripts score`` once per track (tracks are reported apart, never mixed), each
   writing its tables and ``report.html``.

It prints each step's wall time, whisper-local's real-time factor per track (audio
seconds over the job's wall seconds; target at least 20x on 2 cores, issue 12), the
gate verdicts and the WER line of each track. Ratios are taken inside the same run, so
they hold under load: chunked over whole (wall), and, with ``--peer``, whisper-local
over plain faster-whisper without VAD on the same PCM (``transcripts_run_speed.peer``).

Usage: python benchmarks/transcripts_long_end_to_end.py [--minutes 60] [--threads 2]
       [--peer] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "transcripts"))
sys.path.insert(0, str(HERE))

from long_recording import (  # noqa: E402
    make_recording,
    write_run_manifest,
    write_score_manifest,
)
from transcripts_run_speed import peer  # noqa: E402

from speecheval.cli import main as speecheval  # noqa: E402
from speecheval.transcripts.gate.rules import REPEAT_WINDOWS  # noqa: E402
from speecheval.transcripts.run.tracks import track_dir  # noqa: E402
from speecheval.transcripts.text.normalize import normalize  # noqa: E402
from speecheval.transcripts.text.tokenize import mixed_tokens  # noqa: E402

SEED = 2026
TRACKS = ("production_complete_file", "production_complete_file/chunked")


def timed(label: str, argv: list[str]) -> float:
    """Run one ``speecheval`` command in this process; its wall seconds (exit 0 needed)."""
    started = time.perf_counter()
    code = speecheval(argv)
    seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"{label} exited with {code}")
    print(f"[{label}] {seconds:.1f} s", flush=True)
    return seconds


def script_says(script: dict[str, Any], block: str, period: int) -> bool:
    """Whether the script's own speech (in time order, in the gate's normalized tokens)
    has ``block`` and again ``period`` tokens later: then a correct transcript repeats it
    too; if not, the repeat is the decoder's."""
    tokens = [token for event in sorted((e for e in script["events"] if e["kind"] == "speech"),
                                        key=lambda e: e["start_s"])
              for token in mixed_tokens(normalize(event["text"]))]
    want = block.split()
    width = len(want)
    return any(tokens[i:i + width] == want and tokens[i + period:i + period + width] == want
               for i in range(len(tokens) - width - period + 1))


def print_repeats(verdicts: Path, script: dict[str, Any]) -> None:
    """Each exact adjacent repeat the gate recorded, per track: where, its period, the
    block, and whether the script says it so (:func:`script_says`)."""
    for line in verdicts.read_text(encoding="utf-8").splitlines():
        verdict = json.loads(line)
        repeats = verdict.get("repeat_timeline", {}).get("repeats", {})
        for window in REPEAT_WINDOWS:
            for example in repeats.get(str(window), {}).get("examples", []):
                said = script_says(script, example["block"], example["period"])
                print(f"  {verdict['track']}: {window}-token repeat at "
                      f"{example['start_s']:.2f} s, period {example['period']}: "
                      f"{example['block']} ("
                      + ("the script says it so too" if said else
                         "not in the script: the decoder looped") + ")")


def score_manifest(folder: Path, run: Path, track: str, seconds: float) -> Path:
    transcript = (run / "derived" / "whisper-local" / track_dir(track) / "recording" / "r1"
                  / "transcript@seglst-1.json")
    return write_score_manifest(folder / f"score-{track_dir(track)}.yaml",
                                folder / "reference.stm", transcript, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--peer", action="store_true",
                        help="also time plain faster-whisper on the same PCM (one more pass)")
    parser.add_argument("--keep", type=Path,
                        help="work in this new folder and keep it (recording, script.json, "
                             "reference.stm, the run with its raw answers and gate verdicts)")
    args = parser.parse_args()
    seconds = args.minutes * 60
    scratch = None
    if args.keep is None:
        scratch = tempfile.TemporaryDirectory(prefix="speecheval-long-e2e-")
        folder = Path(scratch.name)
    else:
        folder = args.keep
        folder.mkdir(parents=True)
    try:
        print(f"load average at start {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        started = time.perf_counter()
        script = make_recording(folder, seconds, SEED)
        print(f"[make recording] {time.perf_counter() - started:.1f} s: {seconds:.0f} s of "
              f"audio, seed {SEED}, {sum(e['kind'] == 'speech' for e in script['events'])} "
              f"sentences (script.json)", flush=True)
        last_speech = max(e["end_s"] for e in script["events"] if e["kind"] == "speech")
        write_run_manifest(folder, args.threads, last_speech)
        run = folder / "run"
        timed("transcripts run, 2 tracks", [
            "transcripts", "run", "--manifest", str(folder / "manifest.yaml"),
            "--system", "whisper-local", *[a for t in TRACKS for a in ("--track", t)],
            "--out", str(run)])
        walls = {}
        for track in TRACKS:
            meta = json.loads((run / "raw" / "whisper-local" / track_dir(track) / "recording"
                               / "r1" / "meta.json").read_text())
            walls[track] = meta["wall_s"]
            print(f"  whisper-local {track}: {meta['status']}, wall {meta['wall_s']:.1f} s, "
                  f"{seconds / meta['wall_s']:.1f}x real time (target >= 20x), peak memory "
                  f"{meta['peak_memory_bytes'] / 2**20:.0f} MiB")
        print(f"  ratio chunked / whole (wall, same run): "
              f"{walls[TRACKS[1]] / walls[TRACKS[0]]:.2f}")
        timed("transcripts gate reference.stm", [
            "transcripts", "gate", "--raw", str(folder / "reference.stm"), "--duration",
            str(seconds), "--last-speech", str(last_speech)])
        timed("transcripts gate", ["transcripts", "gate", str(run)])
        print_repeats(next((run / "derived" / "gate").glob("*/verdicts.jsonl")), script)
        for track in TRACKS:
            out = folder / f"scored-{track_dir(track)}"
            timed(f"transcripts score {track}", [
                "transcripts", "score", "--manifest",
                str(score_manifest(folder, run, track, seconds)), "--out", str(out)])
            print(f"  {(out / 'summary.txt').read_text().splitlines()[0]}; report "
                  f"{(out / 'report.html').stat().st_size:,} bytes")
        if args.peer:
            wall, cpu = peer(run / "input" / "recording.wav", args.threads)
            print(f"peer, plain faster-whisper without VAD: wall {wall:.1f} s "
                  f"({seconds / wall:.1f}x real time); ratio whisper-local whole / peer "
                  f"(wall) {walls[TRACKS[0]] / wall:.2f}")
        print(f"total {time.perf_counter() - started:.1f} s")
    finally:
        if scratch is not None:
            scratch.cleanup()
        elif not any(folder.iterdir()):
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
