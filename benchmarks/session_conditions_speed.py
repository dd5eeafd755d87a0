"""What the scenario's conditions cost on the virtual clock, against the same session
without them, measured in one run.

A ten-minute mock session (120 spoken turns, the mock answering each) runs plain, then
with each condition alone (echo with two reflections; a noise bed; G.711 mu-law; the
network model), then with echo + noise + mu-law together. Target: echo, noise and codec
together add under 5 % to the plain session. The noise bed's and the turns' one-off
rendering is reported separately (it happens once per scenario or session, not per
frame, and the sessions of one scenario share one rendered bed). Timings are the best of
``--repeats`` runs in CPU seconds of this process (``time.process_time``; the sessions
are single-threaded), because the machine may be shared: other jobs then barely move
the figures, where wall time would count their share of the cores.

Run: ``.venv/bin/python benchmarks/session_conditions_speed.py [--noise babble]``.
Exits 1 if the target is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from session_speed import best_of  # benchmarks/ is on the path when this script runs

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.core.pcm import to_int16
from speecheval.session.noise_beds import render_bed
from speecheval.session.scenario import Scenario, load_scenario
from speecheval.session.send_path import speech_rms
from speecheval.session.synth import render_turns
from speecheval.session.virtual_runner import run_virtual

SESSION_MS = 600_000
TARGET = 0.05
CONDITIONS = {
    "echo": "  echo: {delay_ms: 60, level_db: -40, reflections: "
            "[{delay_ms: 7, level_db: -6}, {delay_ms: 19, level_db: -12}]}\n",
    "noise": "  noise: {kind: %s, snr_db: 35, seed: 1}\n",
    "mulaw": "  codec: {kind: mulaw}\n",
    "network": "  network: {p_good_to_bad: 0.01, p_bad_to_good: 0.5, jitter_ms: 30, "
               "buffer_ms: 40, reorder: 0.01, seed: 1}\n",
}


def scenario(folder: Path, name: str, conditions: str) -> Scenario:
    turns = "\n".join(
        f"  - {{id: t{i}, audio: {{synth: tts, say: 'please tell me more about that', "
        f"duration_ms: 2000}}, start: {{after: agent_speech_end, delay_ms: 500}}}}"
        for i in range(120))
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\nmax_duration_ms: {SESSION_MS}\nturns:\n{turns}\n"
                    + (f"conditions:\n{conditions}" if conditions else ""), encoding="utf-8")
    return load_scenario(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--noise", choices=["white", "babble", "music"], default="babble")
    args = parser.parse_args()
    options = {"response_ms": 4000, "jitter_ms": 200}
    parts = {**CONDITIONS, "noise": CONDITIONS["noise"] % args.noise}
    plans = {"plain": "", **parts,
             "echo+noise+mulaw": parts["echo"] + parts["noise"] + parts["mulaw"]}
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, conditions in plans.items():
            current = scenario(Path(tmp), name.replace("+", "-"), conditions)
            start = time.perf_counter()
            clips = render_turns(current)
            if current.conditions.noise is not None:  # once per scenario, then shared
                render_bed(current.conditions.noise, current.sample_rate,
                           speech_rms([to_int16(clip) for clip in clips]))
            rendered = time.perf_counter() - start
            lengths: list[float] = []

            def one(current: Scenario = current, clips: list = clips,  # type: ignore[type-arg]
                    lengths: list[float] = lengths) -> None:
                agent = MockAgent(MockSettings.from_options(options))
                recording = run_virtual(current, clips, agent)
                lengths.append(recording.user.size / current.sample_rate)

            times[name] = best_of(args.repeats, one, time.process_time)
            print(f"{name:<18} {lengths[-1]:.0f} s of session in {times[name]:.3f} CPU s "
                  f"(ratio to plain {times[name] / times['plain']:.3f}; turns and noise "
                  f"bed rendered in {rendered:.3f} s)")
    added = times["echo+noise+mulaw"] / times["plain"] - 1
    ok = added < TARGET
    print(f"{'PASS' if ok else 'FAIL'} echo + {args.noise} noise + mu-law add "
          f"{100 * added:.1f} % (target under {100 * TARGET:.0f} %)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
