"""Size and build time of the ``fdb10 report`` page of three systems, against a baseline.

Builds three generated trees (``fdb10 build-tree --scale full`` with seeds 0, 1, 2: three
"systems" of 727 samples each), or with ``--per-subset N`` copies of them holding the first
N samples of each subset, so that a busy machine can still measure in minutes. Then
writes the page of the three side by side, each command run whole (interpreter start
included), and prints for each: the page's size, its size per sample (per system and
sample), the linked audio folder's size, the wall seconds to build it, and the seconds
headless Chromium needs to load it (``--dump-dom`` of the page minus ``--dump-dom`` of an
empty page, so the browser's own start does not count).

Pages: this code's page with every clip embedded (``--audio-budget`` above the total)
and with the clips linked in ``<page>-audio/`` (``--audio-budget 0``), and with
``--baseline SRC`` (a checkout's ``src``, for example main's) the baseline code's two
pages made the same way, first, so both are measured in one run on one machine load.
Targets (on the full size): under 40 MB linked, under 120 MB embedded, loaded in under
5 s. The lines after the table extrapolate each page to the full size (727 samples a
system), by size a sample, which the timelines and clips make nearly constant, and the
open seconds by samples, an upper bound: the page's fixed cost is counted as if it grew
(drill-downs are built only when opened, so little else does).

The VAD cache is on (each tree's output is segmented cold by the first command that
reads it, warm after), so the commands are printed in the order they ran.

Usage: python benchmarks/fdb10_report_size.py [--workdir DIR] [--per-subset N]
       [--baseline SRC] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speecheval.fdb.v10.builder.trees import build_scale_tree

SEEDS = (0, 1, 2)
NAMES = ("alpha", "beta", "gamma")
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
LINKED_TARGET_MB, EMBEDDED_TARGET_MB, OPEN_TARGET_S = 40.0, 120.0, 5.0
FULL_SAMPLES = 727


def subset_copy(tree: Path, dest: Path, per_subset: int) -> Path:
    """A copy of ``tree`` listing only the first ``per_subset`` samples of each subset."""
    manifest = json.loads((tree / "manifest.json").read_text())
    kept, seen = [], {}
    for entry in manifest["samples"]:
        seen[entry["subset"]] = seen.get(entry["subset"], 0) + 1
        if seen[entry["subset"]] <= per_subset:
            kept.append(entry)
            shutil.copytree(tree / entry["sample_id"], dest / entry["sample_id"])
    manifest["samples"] = kept
    (dest / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(tree / "asr.json", dest / "asr.json")
    return dest


def run(command: list[str], src: Path | None) -> float:
    """Wall seconds of one whole command (with ``src`` on PYTHONPATH when given)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def browser() -> str | None:
    return next((p for name in BROWSERS if (p := shutil.which(name))), None)


def open_seconds(page: Path, profile: Path) -> float | None:
    """Seconds Chromium needs to load and lay out ``page``, its own start taken off."""
    binary = browser()
    if binary is None:
        return None

    def dump(url: str) -> float:
        started = time.perf_counter()
        subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--user-data-dir={profile}", "--mute-audio", "--dump-dom", url],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600)
        return time.perf_counter() - started

    blank = min(dump("about:blank") for _ in range(2))
    return max(0.0, dump(page.as_uri()) - blank)


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) \
        if folder.is_dir() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--per-subset", type=int, default=None,
                        help="keep the first N samples of each subset [default: all]")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="src folder of the code to compare with")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="fdb10-report-size-"))
    print(f"load average at start: {os.getloadavg()}")
    trees = []
    for seed in SEEDS:
        full = work / f"full-{seed}" / "tree"
        if not full.exists():
            build_scale_tree(full, seed=seed)
        tree = full
        if args.per_subset is not None:
            tree = work / f"part{args.per_subset}-{seed}" / "tree"
            if not tree.exists():
                subset_copy(full, tree, args.per_subset)
        trees.append(tree)
    samples = len(json.loads((trees[0] / "manifest.json").read_text())["samples"])
    scale = "full" if args.per_subset is None else f"first {args.per_subset} per subset"
    print(f"three systems of {samples} samples each ({scale})")
    python = [sys.executable, "-m", "speecheval", "fdb10", "report", "--jobs",
              str(args.jobs)]
    named = [a for name, tree in zip(NAMES, trees, strict=True)
             for a in ("--tree", f"{name}={tree}")]
    modes = (("embedded", ["--audio-budget", "100000"]), ("linked", ["--audio-budget", "0"]))
    pages = []
    if args.baseline is not None:
        pages += [(f"baseline, {mode}", work / f"pages-base-{mode}" / "report.html",
                   [*named, *budget], args.baseline.resolve()) for mode, budget in modes]
    pages += [(f"this code, {mode}", work / f"pages-{mode}" / "report.html",
               [*named, *budget], None) for mode, budget in modes]
    print(f"{'page':22} {'MB':>9} {'KB/sample':>10} {'folder MB':>10} {'build s':>8} "
          f"{'open s':>7}")
    results, open_s = {}, {}
    for label, out, options, src in pages:
        if out.parent.exists():
            shutil.rmtree(out.parent)
        out.parent.mkdir(parents=True)
        seconds = run([*python, *options, "--out", str(out)], src)
        size = out.stat().st_size
        folder = folder_bytes(out.parent / f"{out.stem}-audio")
        opened = open_seconds(out, work / "chromium-profile")
        results[label] = size
        open_s[label] = opened
        shown = "n/a" if opened is None else f"{opened:.2f}"
        print(f"{label:22} {size / 1e6:9.2f} {size / 1e3 / (3 * samples):10.1f} "
              f"{folder / 1e6:10.2f} {seconds:8.1f} {shown:>7}")
    for mode, _ in modes:
        base, this = results.get(f"baseline, {mode}"), results[f"this code, {mode}"]
        if base is not None:
            print(f"{mode}: baseline / this code = {base / this:.1f}x")
    for label, size in results.items():
        opened = open_s[label]
        print(f"{label:22} at full size (3 x {FULL_SAMPLES}): "
              f"{size / (3 * samples) * 3 * FULL_SAMPLES / 1e6:.0f} MB, open "
              + ("n/a" if opened is None else f"<= {opened * FULL_SAMPLES / samples:.1f} s"))
    print(f"targets (full size): linked < {LINKED_TARGET_MB} MB, embedded < "
          f"{EMBEDDED_TARGET_MB} MB, open < {OPEN_TARGET_S} s")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
