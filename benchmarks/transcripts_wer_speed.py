"""``speecheval transcripts wer`` on 10k utterance pairs, and ``der --help``, against peers.

Two rows, each a whole process as a user runs it, timed against its peer in the same run
(:mod:`paired_processes`: alternating rounds, median and min, the load beside each):

- ``transcripts wer --json`` on 10,000 seeded utterance pairs (5-35 words each from a
  Zipf-like vocabulary of 20,000 words; the hypothesis has about 6 % substituted, 4 %
  dropped and 3 % inserted words), against a script that reads the same two files and
  calls jiwer's ``process_words`` (jiwer aligns with rapidfuzz's Levenshtein opcodes, as
  we do). The text is already lower case without punctuation, so our normalisation
  leaves the words as jiwer sees them; S, D and I of every run are compared. Target: at
  most 0.5x jiwer's time. The floor ``python -c 'import numpy, click'`` is printed too.
- ``transcripts der --help`` against ``meeteval-wer --help``. Target: within 1.05x.

Our commands run as the installed ``speecheval`` program (with this checkout's sources
first on the import path), each twice over: with speecheval's bytecode compiled beforehand (as
an install from the wheel has it; the targets use this one), and with
``PYTHONDONTWRITEBYTECODE=1`` over a copy of the sources without bytecode, so that every
run compiles the modules it imports again (as in an environment that sets that variable
on a fresh checkout). The peers' packages keep their installed bytecode in both.

With ``--baseline SRC`` (a checkout's ``src`` folder, e.g. ``/work/main/src``) the ``wer``
command is also run with that code, compiled, in the same alternating rounds, and the
ratio this code / baseline is printed (the baseline copied first, so that compiling it
writes nothing beside it): on a shared machine only same-run ratios compare two versions.

Run: ``.venv/bin/python benchmarks/transcripts_wer_speed.py [--repeats N] [--baseline SRC]``
(exit 1 when a row misses its target).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from paired_processes import Command, alternate, median_wall, row

SRC = Path(__file__).resolve().parents[1] / "src"
UTTERANCES = 10_000
WER_TARGET = 0.5
HELP_TARGET = 1.05
JIWER_SCRIPT = """
import json, sys
import jiwer
def read(path):
    texts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, text = line.rstrip("\\n").partition(" ")
            texts[key] = text
    return texts
ref, hyp = read(sys.argv[1]), read(sys.argv[2])
out = jiwer.process_words([ref[k] for k in ref], [hyp[k] for k in ref])
print(json.dumps({"substitutions": out.substitutions, "deletions": out.deletions,
                  "insertions": out.insertions, "wer": out.wer}))
"""


def synthetic_pairs(utterances: int = UTTERANCES, seed: int = 29) -> tuple[str, str]:
    """Kaldi ``text`` files (``<id> <words>``) of a reference and a hypothesis."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
                    for _ in range(20_000)})
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf-like
    ref_lines, hyp_lines = [], []
    for number in range(utterances):
        words = rng.choices(vocab, weights, k=rng.randint(5, 35))
        said: list[str] = []
        for word in words:
            roll = rng.random()
            if roll < 0.04:
                continue
            said.append(rng.choices(vocab, weights)[0] if roll < 0.10 else word)
            if rng.random() < 0.03:
                said.append(rng.choices(vocab, weights)[0])
        ref_lines.append(f"utt{number:05d} {' '.join(words)}\n")
        hyp_lines.append(f"utt{number:05d} {' '.join(said)}\n")
    return "".join(ref_lines), "".join(hyp_lines)


def compiled_env(src: Path) -> dict[str, str]:
    """This environment with ``src`` on the import path and bytecode allowed, its
    modules compiled first (as an install from the wheel has them)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(src)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "speecheval")],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    return env


def environments(tmp: Path) -> dict[str, dict[str, str]]:
    """``compiled``: bytecode allowed (compiled first); ``compiling``: a copy of the
    sources without bytecode, under ``PYTHONDONTWRITEBYTECODE=1``."""
    compiled = compiled_env(SRC)
    copy = tmp / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return {"compiled": compiled,
            "compiling": {**compiled, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}}


def counts(stdout: str) -> tuple[int, int, int]:
    answer = json.loads(stdout)
    return answer["substitutions"], answer["deletions"], answer["insertions"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--baseline", type=Path, default=None, metavar="SRC",
                        help="also run wer with the speecheval package under SRC")
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "speecheval").is_dir():
        parser.error(f"--baseline {args.baseline}: no speecheval package in that folder")
    python = sys.executable
    meeteval = shutil.which("meeteval-wer", path=str(Path(python).parent))
    # the installed program, as a user runs it (no runpy, as with ``python -m``)
    installed = shutil.which("speecheval", path=str(Path(python).parent))
    program = [python, installed] if installed else [python, "-m", "speecheval"]
    ok = True
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        ref, hyp = tmp / "ref.txt", tmp / "hyp.txt"
        ref_text, hyp_text = synthetic_pairs()
        ref.write_text(ref_text, encoding="utf-8")
        hyp.write_text(hyp_text, encoding="utf-8")
        env = environments(tmp)
        wer = [*program, "transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp), "--json"]
        commands: dict[str, Command] = {
            "jiwer process_words script": ([python, "-c", JIWER_SCRIPT, str(ref), str(hyp)],
                                           None),
            "speecheval transcripts wer (compiled)": (wer, env["compiled"]),
            "speecheval transcripts wer (compiling)": (wer, env["compiling"]),
            "python -c 'import numpy, click' (floor)": (
                [python, "-c", "import numpy, click"], None),
        }
        if args.baseline is not None:
            baseline = tmp / "baseline"  # a copy: compiling writes beside the sources
            shutil.copytree(args.baseline, baseline,
                            ignore=shutil.ignore_patterns("__pycache__"))
            commands["speecheval wer (compiled, baseline code)"] = (
                wer, compiled_env(baseline))
        alternate(commands, 1)  # the file cache warm, every program read once
        runs = alternate(commands, args.repeats)
        peer = runs["jiwer process_words script"]
        expected = {counts(run.stdout) for run in peer}
        print(f"{UTTERANCES:,d} utterance pairs, {len(ref_text.split()) - UTTERANCES:,d} "
              f"reference words; {args.repeats} alternating rounds, seconds:")
        for name, measured in runs.items():
            print(row(name, measured, None if measured is peer else peer))
        same = all({counts(run.stdout) for run in runs[name]} == expected
                   for name in commands if "speecheval" in name) and len(expected) == 1
        print(f"S, D, I equal to jiwer's in every run: {'yes' if same else 'NO'} "
              f"{sorted(expected)}")
        if args.baseline is not None:
            base = runs["speecheval wer (compiled, baseline code)"]
            ours = runs["speecheval transcripts wer (compiled)"]
            print(f"this code / baseline {args.baseline}: "
                  f"{median_wall(ours) / median_wall(base):.2f}x wall (medians), "
                  f"{min(r.wall_s for r in ours) / min(r.wall_s for r in base):.2f}x (mins)")
        ratio = median_wall(runs["speecheval transcripts wer (compiled)"]) / median_wall(peer)
        wer_ok = same and ratio <= WER_TARGET
        print(f"wer: {ratio:.2f}x jiwer (compiled; target at most {WER_TARGET}x): "
              f"{'PASS' if wer_ok else 'MISSES THE TARGET'}")
        ok &= wer_ok

        if meeteval is None:
            print("meeteval-wer is not installed: the --help row is not run")
            return 0 if ok else 1
        der_help = [*program, "transcripts", "der", "--help"]
        helps = alternate({"meeteval-wer --help": ([meeteval, "--help"], None),
                           "speecheval transcripts der --help (compiled)": (
                               der_help, env["compiled"]),
                           "speecheval transcripts der --help (compiling)": (
                               der_help, env["compiling"])}, args.repeats)
        peer = helps["meeteval-wer --help"]
        print()
        for name, measured in helps.items():
            print(row(name, measured, None if measured is peer else peer))
        ratio = (median_wall(helps["speecheval transcripts der --help (compiled)"])
                 / median_wall(peer))
        help_ok = ratio <= HELP_TARGET
        print(f"der --help: {ratio:.2f}x meeteval-wer --help (compiled; target within "
              f"{HELP_TARGET}x): {'PASS' if help_ok else 'MISSES THE TARGET'}")
        ok &= help_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
