"""A long test recording made here: espeak-ng speakers, overlaps, tones and silence.

Several espeak-ng voices read sentences from a fixed list in turns chosen by a seeded
random generator; some turns start before the previous one ends (overlap), some gaps are
long silences, and chords of sine tones stand in for music. No run of sentences is said
twice back to back (``A A``, ``A B A B``, ...) within the gate's widest repeat window:
a correct transcript of such a run is an exact adjacent repeat, which the gate cannot
tell from a decoder loop, so the reference itself would fail ``transcripts gate``.
Everything that shapes the audio (the seed, the voices, the sentence list, every event's
time, the espeak-ng version) is written beside the WAV in ``script.json``, with an STM
reference of who said what when, so the recording can be made again and scored.

Used by the tests (a few minutes) and by ``benchmarks/transcripts_run_speed.py`` and
``benchmarks/transcripts_long_end_to_end.py`` (an hour), with the run and score manifests
written here. Needs the ``espeak-ng`` program.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from speecheval.core.audio import read_mono, resample, write_wav
from speecheval.core.synthetic_signals import tone
from speecheval.transcripts.gate.rules import REPEAT_WINDOWS
from speecheval.transcripts.text.normalize import normalize
from speecheval.transcripts.text.tokenize import mixed_tokens

RATE = 16_000
VOICES = {"S1": "en-us", "S2": "en-gb-scotland", "S3": "en-029"}
SPEED_WPM = 165
SENTENCES = (
    "The quarterly budget review starts at nine thirty tomorrow morning.",
    "We moved the database to the new cluster last week.",
    "Please send the contract to the legal team before Friday.",
    "The weather in the mountains changed very quickly.",
    "Our podcast today is about building reliable software.",
    "She said the train to the airport leaves every twenty minutes.",
    "I think the second option is cheaper but slower.",
    "The museum opens at ten and closes at six.",
    "Let us go over the action items one more time.",
    "The garden needs water every morning in the summer.",
    "He bought three new chairs for the meeting room.",
    "Can you explain how the payment system handles refunds?",
    "The children played football in the park after school.",
    "Our customers asked for a simpler login page.",
    "The recording will be available on the website next week.",
    "Thank you all for joining the call this afternoon.",
)
REPEAT_HORIZON = max(REPEAT_WINDOWS) // min(len(mixed_tokens(normalize(s)))
                                            for s in SENTENCES)
"""The longest run of sentences (12: 96 tokens over the shortest sentence's 8) whose
back-to-back repeat the gate could see; a longer run spans more than its widest window."""
P_OVERLAP = 0.15
P_SILENCE = 0.08
P_TONES = 0.06


def espeak_version() -> str:
    out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def _speak(text: str, voice: str, workdir: Path) -> np.ndarray:
    wav = workdir / "espeak.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(SPEED_WPM), "-w", str(wav), text],
                   check=True)
    audio = read_mono(wav)
    samples = resample(audio.samples, audio.rate, RATE)
    audible = np.flatnonzero(np.abs(samples) > 0.003)
    return samples[audible[0]:audible[-1] + 1] * 0.5


def _chord(seconds: float, rng: np.random.Generator) -> np.ndarray:
    notes = rng.choice([220.0, 277.18, 329.63, 440.0, 554.37], size=3, replace=False)
    return np.sum([tone(seconds * 1000, RATE, float(f), -26.0) for f in notes], axis=0)


def repeats_a_run(spoken: list[int], sentence: int) -> bool:
    """Whether saying ``sentence`` after ``spoken`` (sentence indices) would end a run of
    at most :data:`REPEAT_HORIZON` sentences said twice back to back.

    >>> repeats_a_run([3, 1, 2, 1], 2), repeats_a_run([3, 1], 1), repeats_a_run([1, 2], 3)
    (True, True, False)
    """
    said = [*spoken, sentence]
    return any(said[-2 * k:-k] == said[-k:]
               for k in range(1, min(REPEAT_HORIZON, len(said) // 2) + 1))


def next_sentence(spoken: list[int], rng: np.random.Generator) -> int:
    """A sentence drawn uniformly from those that repeat no run (each run length forbids
    at most one sentence, so at least ``len(SENTENCES) - REPEAT_HORIZON`` remain)."""
    allowed = [i for i in range(len(SENTENCES)) if not repeats_a_run(spoken, i)]
    return allowed[int(rng.integers(len(allowed)))]


def make_recording(folder: Path, seconds: float, seed: int) -> dict[str, Any]:
    """Write ``recording.wav``, ``reference.stm`` and ``script.json`` into ``folder``;
    return the script."""
    rng = np.random.default_rng(seed)
    cache: dict[tuple[str, int], np.ndarray] = {}
    events: list[dict[str, Any]] = []
    pieces: list[tuple[int, np.ndarray]] = []
    at = 1.0
    previous_end = 0.0
    speakers = sorted(VOICES)
    spoken: list[int] = []
    with tempfile.TemporaryDirectory() as scratch:
        while True:
            draw = rng.random()
            if draw < P_SILENCE:
                at = previous_end + float(rng.uniform(6.0, 14.0))
                continue
            if draw < P_SILENCE + P_TONES:
                length = float(rng.uniform(2.0, 4.0))
                start = previous_end + 0.8
                if start + length > seconds - 1.0:
                    break
                pieces.append((round(start * RATE), _chord(length, rng)))
                events.append({"kind": "tones", "start_s": start, "end_s": start + length})
                previous_end = at = start + length
                continue
            speaker = speakers[int(rng.integers(len(speakers)))]
            sentence = next_sentence(spoken, rng)
            key = (speaker, sentence)
            if key not in cache:
                cache[key] = _speak(SENTENCES[sentence], VOICES[speaker], Path(scratch))
            audio = cache[key]
            overlap = events and events[-1]["kind"] == "speech" and \
                events[-1]["speaker"] != speaker and rng.random() < P_OVERLAP
            start = previous_end - 0.8 if overlap else max(at, previous_end +
                                                           float(rng.uniform(0.3, 1.2)))
            end = start + audio.size / RATE
            if end > seconds - 1.0:
                break
            pieces.append((round(start * RATE), audio))
            spoken.append(sentence)
            events.append({"kind": "speech", "speaker": speaker, "start_s": round(start, 6),
                           "end_s": round(end, 6), "text": SENTENCES[sentence],
                           "overlaps_previous": bool(overlap)})
            previous_end = max(previous_end, end)
            at = previous_end
    track = np.zeros(round(seconds * RATE), np.float32)
    for offset, samples in pieces:
        track[offset:offset + samples.size] += samples
    folder.mkdir(parents=True, exist_ok=True)
    write_wav(folder / "recording.wav", np.clip(track, -1, 1), RATE)
    stm = "".join(f"recording 1 {e['speaker']} {e['start_s']:.3f} {e['end_s']:.3f} "
                  f"{e['text']}\n" for e in events if e["kind"] == "speech")
    (folder / "reference.stm").write_text(stm, encoding="utf-8")
    script = {"generator": "tests/transcripts/long_recording.py", "seed": seed,
              "seconds": seconds, "rate": RATE, "voices": VOICES, "speed_wpm": SPEED_WPM,
              "espeak_ng": espeak_version(), "sentences": list(SENTENCES),
              "probabilities": {"overlap": P_OVERLAP, "silence": P_SILENCE,
                                "tones": P_TONES},
              "no_run_repeated_up_to_sentences": REPEAT_HORIZON,
              "events": events}
    (folder / "script.json").write_text(json.dumps(script, indent=1), encoding="utf-8")
    return script


def write_run_manifest(folder: Path, threads: int | None = None,
                       last_speech_s: float | None = None) -> Path:
    """``folder/manifest.yaml``: a ``transcripts run`` manifest of ``whisper-local``
    (``threads`` CPU threads when given) on ``recording.wav`` (``last_speech_s``: the
    gate's frozen boundary, when given)."""
    system = "" if threads is None else f"    cpu_threads: {threads}\n"
    boundary = "" if last_speech_s is None else f"    last_speech_s: {last_speech_s:.3f}\n"
    path = folder / "manifest.yaml"
    path.write_text("format: speecheval.transcripts.run-manifest/1\n"
                    "systems:\n  whisper-local:\n    adapter: whisper-local\n" + system +
                    "samples:\n  - id: recording\n    audio: recording.wav\n" + boundary,
                    encoding="utf-8")
    return path


def write_score_manifest(path: Path, reference: Path, transcript: Path,
                         seconds: float) -> Path:
    """A ``transcripts score`` manifest at ``path``: whisper-local's ``transcript`` of the
    recording (``seconds`` long) against its STM ``reference``, one word scenario."""
    path.write_text(f"""format: speecheval.transcripts.manifest/1
system: whisper-local
required_repeats: 1
scenarios:
  espeak-en: {{unit: word}}
samples:
  - id: recording
    scenario: espeak-en
    duration_s: {seconds}
    source: long_recording.py
    reference: {{transcript: {reference}}}
    runs:
      - transcript: {transcript}
""", encoding="utf-8")
    return path
