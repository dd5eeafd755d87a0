"""What the scenario's conditions cost on the virtual clock, against the same session
without them, measured in one run; and the floor: each condition done in one vectorised
pass over the whole ten minutes.

A ten-minute mock session (120 spoken turns, the mock answering each) runs plain, then
with each condition alone (echo with two reflections; a noise bed; G.711 mu-law; the
network model), then with echo + noise + mu-law together. Target: echo, noise and codec
together add under 5 % to the plain session. The sessions run in interleaved rounds
(plain, echo, ..., then again), and each figure is the best of ``--repeats`` rounds in
CPU seconds of this process (``time.process_time``; the sessions are single-threaded):
on a shared machine other jobs then barely move the figures, and a slow spell hits every
condition's round alike rather than whichever ran first. The noise bed's and the turns'
one-off rendering is not counted (it happens once per scenario, and the sessions of one
scenario share one rendered bed).

The floor runs the send path's own parts (the bed, the echo paths, the mu-law filters,
each with its rounding to int16, and all three together) once over the whole recorded
session of echo + noise + mu-law, and prints their cost per frame and per sample next to
the plain session's: what the conditions cost with no per-stretch overhead at all, in
numpy, with the same bytes.

Run: ``.venv/bin/python benchmarks/session_conditions_speed.py [--noise babble]``.
Exits 1 if the target is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from session_speed import best_of

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.core.pcm import to_int16
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.send.codecs import MulawPath, saturate
from speecheval.session.run.send.echo import Echo
from speecheval.session.run.send.noise_beds import NoiseBed, render_bed
from speecheval.session.run.send.send_path import speech_rms
from speecheval.session.run.synth import render_turns
from speecheval.session.run.track import Track
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.model import Scenario

SESSION_MS = 600_000
TARGET = 0.05
MOCK = {"response_ms": 4000, "jitter_ms": 200}
CONDITIONS = {
    "echo": "  echo: {delay_ms: 60, level_db: -40, reflections: "
            "[{delay_ms: 7, level_db: -6}, {delay_ms: 19, level_db: -12}]}\n",
    "noise": "  noise: {kind: %s, snr_db: 35, seed: 1}\n",
    "mulaw": "  codec: {kind: mulaw}\n",
    "network": "  network: {p_good_to_bad: 0.01, p_bad_to_good: 0.5, jitter_ms: 30, "
               "buffer_ms: 40, reorder: 0.01, seed: 1}\n",
}
ALL = "echo+noise+mulaw"


def scenario(folder: Path, name: str, conditions: str) -> Scenario:
    turns = "\n".join(
        f"  - {{id: t{i}, audio: {{synth: tts, say: 'please tell me more about that', "
        f"duration_ms: 2000}}, start: {{after: agent_speech_end, delay_ms: 500}}}}"
        for i in range(120))
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\nmax_duration_ms: {SESSION_MS}\nturns:\n{turns}\n"
                    + (f"conditions:\n{conditions}" if conditions else ""), encoding="utf-8")
    return load_scenario(path)


def sessions(plans: dict[str, Scenario], repeats: int
             ) -> tuple[dict[str, float], dict[str, SessionRecording]]:
    """Each plan's best CPU time over ``repeats`` interleaved rounds, and its recording."""
    clips = {name: render_turns(current) for name, current in plans.items()}
    for name, current in plans.items():
        if current.conditions.noise is not None:  # once per scenario, then shared
            render_bed(current.conditions.noise, current.sample_rate,
                       speech_rms([to_int16(clip) for clip in clips[name]]))
    times = {name: float("inf") for name in plans}
    recordings: dict[str, SessionRecording] = {}
    for _ in range(repeats):
        for name, current in plans.items():
            def one(name: str = name, current: Scenario = current) -> None:
                agent = MockAgent(MockSettings.from_options(MOCK))
                recordings[name] = run_virtual(current, clips[name], agent)
            times[name] = min(times[name], best_of(1, one, time.process_time))
    return times, recordings


def floor(current: Scenario, recording: SessionRecording, repeats: int) -> dict[str, float]:
    """CPU seconds of each condition in one vectorised pass over the whole session."""
    conditions, rate = current.conditions, current.sample_rate
    assert conditions.echo is not None and conditions.noise is not None
    clips = [to_int16(clip) for clip in render_turns(current)]
    bed = NoiseBed(render_bed(conditions.noise, rate, speech_rms(clips)))
    echo = Echo(conditions.echo, rate)
    agent: Track[np.int16] = Track(recording.agent.size, np.int16)
    agent.write(0, recording.agent)
    user = recording.user

    def noise() -> None:
        mic = user.astype(np.float64)
        bed.add(mic, 0)
        saturate(mic)

    def echoed() -> None:
        mic = user.astype(np.float64)
        echo.add(mic, 0, agent)
        saturate(mic)

    def together() -> None:  # the room once, then the codec
        mic = user.astype(np.float64)
        bed.add(mic, 0)
        echo.add(mic, 0, agent)
        MulawPath(rate).block(0, saturate(mic))

    parts: dict[str, Callable[[], object]] = {
        "noise": noise, "echo": echoed,
        "mulaw": lambda: MulawPath(rate).block(0, user), ALL: together}
    return {name: best_of(repeats, work, time.process_time) for name, work in parts.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--noise", choices=["white", "babble", "music"], default="babble")
    args = parser.parse_args()
    parts = {**CONDITIONS, "noise": CONDITIONS["noise"] % args.noise}
    texts = {"plain": "", **parts, ALL: parts["echo"] + parts["noise"] + parts["mulaw"]}
    with tempfile.TemporaryDirectory() as tmp:
        plans = {name: scenario(Path(tmp), name.replace("+", "-"), text)
                 for name, text in texts.items()}
        times, recordings = sessions(plans, args.repeats)
        floors = floor(plans[ALL], recordings[ALL], args.repeats)
    plain = times["plain"]
    frames = SESSION_MS / plans["plain"].frame_ms
    samples = recordings[ALL].user.size
    for name, seconds in times.items():
        length = recordings[name].user.size / plans[name].sample_rate
        print(f"{name:<18} {length:.0f} s of session in {seconds:.3f} CPU s, "
              f"{1e6 * seconds / frames:.1f} us a frame (ratio to plain {seconds / plain:.3f})")
    for name, seconds in floors.items():
        print(f"floor {name:<18} one pass {seconds:.3f} CPU s, "
              f"{1e6 * seconds / frames:.2f} us a frame, {1e9 * seconds / samples:.1f} ns a "
              f"sample (+{100 * seconds / plain:.0f} % of plain)")
    floor_all = floors[ALL] / plain
    added = times[ALL] / plain - 1
    ok = added < TARGET
    print(f"{'PASS' if ok else 'FAIL'} echo + {args.noise} noise + mu-law add "
          f"{100 * added:.1f} % (target under {100 * TARGET:.0f} %; the one-pass floor of "
          f"the three is +{100 * floor_all:.0f} %)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
