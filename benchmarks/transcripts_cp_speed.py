"""Speed of cpCER on a one-hour, four-speaker Chinese transcript, against meeteval.

Issue 4 asks for cpCER of about 60k characters in under 1 s and at least 10x faster than
meeteval's cpWER on the same tokens, measured in the same run. The transcript is generated
(seeded, so every run scores the same text): 900 turns of 4 s over one hour, 4 speakers,
about 60k Han characters drawn from a 3,000-character vocabulary; the hypothesis has about
10 % character errors (substitutions, deletions, insertions), relabelled speakers and one
turn in 50 attributed to the wrong speaker.

Both sides score the same tokens: ours reads segments and normalises them (the full
``cp_error_rate`` path); meeteval gets the already-normalised characters joined by spaces,
so its words are exactly our character tokens. Peak memory of our run is measured with
tracemalloc in a separate run (tracemalloc slows the timed one).

Whole process (issue 15): a user runs the command, so ``speecheval transcripts cp --unit
char`` and ``meeteval-wer cpwer`` are also timed as fresh processes on the same transcript
written as STM (meeteval gets the normalised characters separated by spaces, so its words
are our characters), the minimum of three runs each; the target is at least 3x. The
issue's transcript has 16.7 characters a second; ``--density`` sets a realistic one
(Mandarin speech is about 4-5 characters a second), and the default run prints both.

Run: ``.venv/bin/python benchmarks/transcripts_cp_speed.py [--skip-meeteval]
[--density CHARS_PER_S]``
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from whole_process import process_times

from speecheval.transcripts.formats.segment import Segment
from speecheval.transcripts.text.cp import cp_error_rate, speaker_tokens

SPEAKERS = 4
TURNS = 900
TURN_S = 4.0
VOCAB = [chr(0x4E00 + i) for i in range(3000)]
PUNCT = "，。？！"


ISSUE_DENSITY = 16.7  # characters a second of the issue's transcript (55-78 per 4 s turn)
REALISTIC_DENSITY = 4.5
PROCESS_RATIO = 3.0


def generate(hours: float = 1.0, seed: int = 20260721,
             density: float = ISSUE_DENSITY) -> tuple[list[Segment], list[Segment]]:
    """Reference and hypothesis segments of a transcript of ``hours`` (900 turns an hour),
    about ``density`` characters a second."""
    rng = random.Random(seed)
    low = max(1, round((density - 2.3) * TURN_S))
    high = round((density + 2.3) * TURN_S)
    ref: list[Segment] = []
    hyp: list[Segment] = []
    for turn in range(round(TURNS * hours)):
        speaker = rng.randrange(SPEAKERS)
        start = turn * TURN_S
        chars = [rng.choice(VOCAB) for _ in range(rng.randrange(low, high))]
        text = "".join(chars) + rng.choice(PUNCT)
        out: list[str] = []
        for char in chars:
            roll = rng.random()
            if roll < 0.05:
                out.append(rng.choice(VOCAB))
            elif roll < 0.08:
                continue
            else:
                out.append(char)
            if rng.random() < 0.02:
                out.append(rng.choice(VOCAB))
        hyp_speaker = speaker if rng.random() >= 0.02 else rng.randrange(SPEAKERS)
        ref.append(Segment("podcast", f"S{speaker + 1:02d}", start, start + TURN_S, text))
        hyp.append(Segment("podcast", f"spk_{(hyp_speaker * 3 + 1) % SPEAKERS}", start,
                           start + TURN_S, "".join(out)))
    return ref, hyp


def time_ours(ref: list[Segment], hyp: list[Segment], repeats: int = 3) -> tuple[float, object]:
    """Best-of-``repeats`` wall time of our cpCER, and its result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = cp_error_rate(ref, hyp, "char")
        best = min(best, time.perf_counter() - t0)
    return best, result


def time_meeteval(ref: list[Segment], hyp: list[Segment]) -> tuple[float, int]:
    """Wall time and errors of meeteval's cpWER on our normalised character tokens."""
    from meeteval.wer.wer.cp import cp_word_error_rate  # type: ignore[import-untyped]

    ref_words = {k: " ".join(v) for k, v in speaker_tokens(ref, "char")["podcast"].items()}
    hyp_words = {k: " ".join(v) for k, v in speaker_tokens(hyp, "char")["podcast"].items()}
    t0 = time.perf_counter()
    theirs = cp_word_error_rate(ref_words, hyp_words)
    return time.perf_counter() - t0, int(theirs.errors)


def write_stm(path: Path, segments: list[Segment], text_of: dict[str, str] | None = None
              ) -> None:
    """STM lines of the segments; ``text_of`` replaces the text per speaker (meeteval)."""
    lines = []
    for seg in segments:
        text = seg.words if text_of is None else text_of[f"{seg.speaker}@{seg.start}"]
        lines.append(f"{seg.session_id} 1 {seg.speaker} {seg.start:.2f} {seg.end:.2f} {text}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def spaced_characters(segments: list[Segment]) -> dict[str, str]:
    """Each segment's normalised characters joined by spaces (meeteval's words)."""
    out = {}
    for seg in segments:
        tokens = speaker_tokens([seg], "char").get(seg.session_id, {}).get(seg.speaker or "", [])
        out[f"{seg.speaker}@{seg.start}"] = " ".join(tokens)
    return out


def whole_process(ref: list[Segment], hyp: list[Segment], with_meeteval: bool) -> bool:
    """Time both commands as fresh processes; True when ours is at least 3x faster."""
    with tempfile.TemporaryDirectory() as tmp:
        ref_stm, hyp_stm = Path(tmp, "ref.stm"), Path(tmp, "hyp.stm")
        write_stm(ref_stm, ref)
        write_stm(hyp_stm, hyp)
        ours = min(process_times([sys.executable, "-m", "speecheval", "transcripts", "cp",
                                "--ref", str(ref_stm), "--hyp", str(hyp_stm), "--unit",
                                "char"]))
        print(f"whole process: speecheval transcripts cp --unit char  {ours:.3f} s")
        meeteval = shutil.which("meeteval-wer", path=str(Path(sys.executable).parent))
        if not with_meeteval or meeteval is None:
            print("whole process: meeteval-wer not run")
            return True
        spaced_ref, spaced_hyp = Path(tmp, "ref_chars.stm"), Path(tmp, "hyp_chars.stm")
        write_stm(spaced_ref, ref, spaced_characters(ref))
        write_stm(spaced_hyp, hyp, spaced_characters(hyp))
        theirs = min(process_times([meeteval, "cpwer", "-r", str(spaced_ref), "-h",
                                  str(spaced_hyp), "--average-out", str(Path(tmp, "a.yaml")),
                                  "--per-reco-out", str(Path(tmp, "p.yaml"))]))
        print(f"whole process: meeteval-wer cpwer                   {theirs:.3f} s")
        print(f"whole process ratio meeteval / ours: {theirs / ours:.1f}x "
              f"(target >= {PROCESS_RATIO:g}x)")
        return theirs / ours >= PROCESS_RATIO


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-meeteval", action="store_true",
                        help="time ours only (meeteval takes 15-30 s here)")
    parser.add_argument("--hours", type=float, default=1.0,
                        help="transcript length; the 1 s target is for 1 hour (default)")
    parser.add_argument("--density", type=float, default=None,
                        help=f"characters a second (default: {ISSUE_DENSITY} and then "
                             f"{REALISTIC_DENSITY})")
    args = parser.parse_args()
    densities = [args.density] if args.density else [ISSUE_DENSITY, REALISTIC_DENSITY]
    ok = True
    for density in densities:
        print(f"--- {density:g} characters a second")
        ok &= run(args.hours, density, with_meeteval=not args.skip_meeteval)
    if args.hours != 1.0:
        print("no pass/fail: the targets are for a one-hour transcript")
        return 0
    print("PASS" if ok else "FAIL", "(target: under 1 s and at least 10x meeteval in one "
          f"process, at least {PROCESS_RATIO:g}x as whole processes)")
    return 0 if ok else 1


def run(hours: float, density: float, with_meeteval: bool) -> bool:
    """Both measurements at one density; True when the targets are met."""
    ref, hyp = generate(hours, density=density)
    ours_s, result = time_ours(ref, hyp)
    counts = result.counts  # type: ignore[attr-defined]
    print(f"transcript: {len(ref)} turns, {SPEAKERS} speakers, {len(ref) * TURN_S / 3600:.1f} h, "
          f"{counts.reference_tokens} reference characters")
    print(f"ours: cpCER {counts.error_rate:.4f} ({counts.errors} errors: "
          f"{counts.substitutions} sub, {counts.deletions} del, {counts.insertions} ins), "
          f"{ours_s:.3f} s (best of 3)")
    tracemalloc.start()
    cp_error_rate(ref, hyp, "char")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"ours: peak traced Python memory {peak / 2**20:.1f} MiB; process max RSS so far "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    ok = ours_s < 1.0
    if with_meeteval:
        theirs_s, theirs_errors = time_meeteval(ref, hyp)
        ratio = theirs_s / ours_s
        print(f"meeteval cpWER on the same tokens: {theirs_errors} errors, {theirs_s:.3f} s")
        print(f"speed ratio meeteval / ours (in one process): {ratio:.1f}x")
        ok = ok and ratio >= 10 and theirs_errors == counts.errors
    return whole_process(ref, hyp, with_meeteval) and ok


if __name__ == "__main__":
    sys.exit(main())
