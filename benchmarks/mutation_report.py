"""Mutation score of the metric modules, from the results of ``make mutate`` (mutmut 3).

mutmut writes one ``<module>.py.meta`` JSON file per mutated module under ``mutants/``,
holding each mutant's pytest exit code. This script reads them and prints, per module,
how many mutants the tests killed, how many survived, timed out or had no test at all,
and the score: killed (timeouts included, as mutmut counts them) over all mutants. A
survivor listed in docs/testing.md as equivalent (the mutated program computes the same
thing) is shown as such and counted apart; every other survivor is a gap in the tests.

Usage: python benchmarks/mutation_report.py [--mutants mutants] [--survivors]
       [--json FILE] [--min-score 90]
Exit status 1 when the score (equivalent mutants excluded) is below ``--min-score``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "testing.md"
KILLED = ("killed", "timeout")
COLUMNS = ("killed", "timeout", "survived", "no tests", "other")
# Documented equivalent mutants: the names in the first cell of a docs/testing.md table row.
EQUIVALENT_ROW = re.compile(r"^\| (`speecheval\.[^|]*)\|", re.MULTILINE)
MUTANT_NAME = re.compile(r"`(speecheval\.[^`]+__mutmut_\d+)`")


def load_results(mutants: Path) -> dict[str, dict[str, str]]:
    """``{module path: {mutant name: status}}`` from every ``.meta`` file under ``mutants``."""
    results: dict[str, dict[str, str]] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        module = meta.relative_to(mutants).as_posix().removesuffix(".meta")
        results[module] = {name: status_by_exit_code[code] for name, code in codes.items()}
    return results


def documented_equivalents(docs: Path = DOCS) -> set[str]:
    """Names of the mutants docs/testing.md lists as equivalent."""
    if not docs.is_file():
        return set()
    return {name for cell in EQUIVALENT_ROW.findall(docs.read_text())
            for name in MUTANT_NAME.findall(cell)}


def tally(statuses: dict[str, str], equivalent: set[str]) -> dict[str, int]:
    """Counts by column, plus the total and the documented equivalent survivors."""
    counts: Counter[str] = Counter()
    for name, status in statuses.items():
        counts[status if status in COLUMNS else "other"] += 1
        if status == "survived" and name in equivalent:
            counts["equivalent"] += 1
    counts["total"] = len(statuses)
    return {key: counts[key] for key in (*COLUMNS, "equivalent", "total")}


def score(counts: dict[str, int]) -> float | None:
    """Killed share in percent of the mutants that are not documented as equivalent."""
    relevant = counts["total"] - counts["equivalent"]
    killed = counts["killed"] + counts["timeout"]
    return 100.0 * killed / relevant if relevant else None


def table(results: dict[str, dict[str, str]], equivalent: set[str]) -> tuple[str, float | None]:
    """The per-module table and the overall score."""
    header = (f"{'module':<50} {'mutants':>7} {'killed':>7} {'timeout':>7} {'survived':>8} "
              f"{'equiv.':>6} {'no test':>7} {'other':>5} {'score':>7}")
    lines = [header, "-" * len(header)]
    overall: Counter[str] = Counter()
    for module, statuses in results.items():
        counts = tally(statuses, equivalent)
        overall.update(counts)
        lines.append(_row(module.removeprefix("src/"), counts))
    total = {key: overall[key] for key in (*COLUMNS, "equivalent", "total")}
    lines += ["-" * len(header), _row("all metric modules", total)]
    return "\n".join(lines), score(total)


def _row(name: str, c: dict[str, int]) -> str:
    value = score(c)
    shown = "n/a" if value is None else f"{value:.1f} %"
    return (f"{name:<50} {c['total']:>7} {c['killed']:>7} {c['timeout']:>7} "
            f"{c['survived']:>8} {c['equivalent']:>6} {c['no tests']:>7} {c['other']:>5} "
            f"{shown:>7}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=REPO / "mutants",
                        help="mutmut's working folder (default: mutants/ in the repository)")
    parser.add_argument("--survivors", action="store_true",
                        help="list every surviving mutant not documented as equivalent")
    parser.add_argument("--json", type=Path, help="also write the counts as JSON here")
    parser.add_argument("--min-score", type=float, default=90.0,
                        help="exit 1 below this score in percent (default 90)")
    args = parser.parse_args(argv)
    results = load_results(args.mutants)
    if not results:
        print(f"no mutmut results under {args.mutants}: run `make mutate` first",
              file=sys.stderr)
        return 2
    equivalent = documented_equivalents()
    text, overall = table(results, equivalent)
    print(text)
    counts = [tally(statuses, equivalent) for statuses in results.values()]
    killed = sum(c["killed"] + c["timeout"] for c in counts)
    mutants = sum(c["total"] for c in counts)
    print(f"\nkilled {killed} of {mutants} mutants ({100 * killed / mutants:.1f} %); score "
          f"with the {sum(c['equivalent'] for c in counts)} documented equivalent survivors "
          f"left out: {'n/a' if overall is None else f'{overall:.1f} %'}")
    gaps = sorted(name for statuses in results.values() for name, status in statuses.items()
                  if status == "survived" and name not in equivalent)
    print(f"survivors not documented as equivalent: {len(gaps)}")
    if args.survivors:
        print("\n".join(gaps))
    if args.json:
        args.json.write_text(json.dumps(
            {module: tally(statuses, equivalent) for module, statuses in results.items()},
            indent=2, sort_keys=True) + "\n")
    return 0 if overall is not None and overall >= args.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
