"""Mutation score of the metric modules, from the results of ``make mutate`` (mutmut 3).

mutmut writes one ``<module>.py.meta`` JSON file per mutated module under ``mutants/``,
holding each mutant's pytest exit code (none yet for a mutant not run). This script reads
them and prints, per module, how many mutants the tests killed, how many survived, how
many of the survivors are documented as equivalent, how many timed out, had no test at
all or were not run, and the score.

Equivalent mutants (the mutated program computes the same results for every input the
code can receive) are listed with the reason in ``benchmarks/mutation_equivalents.toml``,
each with the line mutmut wrote. mutmut numbers the mutants of a function in order, so a
change to the function can give a number to another mutation: an entry whose recorded
line is not what the mutant now changes is reported as stale and not counted as
equivalent.

The score is killed (timeouts included, as mutmut counts them) over the mutants that
were run, documented equivalents left out; mutants not run are shown apart and are not in
the score, so a partial run says how much of the list it covers.

Usage: python benchmarks/mutation_report.py [--mutants mutants] [--survivors]
       [--json FILE] [--min-score 90]
Exit status 1 when the score is below ``--min-score`` or an equivalent entry is stale.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

REPO = Path(__file__).resolve().parents[1]
EQUIVALENTS = REPO / "benchmarks" / "mutation_equivalents.toml"
COLUMNS = ("killed", "timeout", "survived", "equivalent", "no tests", "not run", "other")
STATUS_COLUMN = {"killed": "killed", "timeout": "timeout", "survived": "survived",
                 "no tests": "no tests", "not checked": "not run"}


def load_results(mutants: Path) -> dict[str, dict[str, str]]:
    """``{module path: {mutant name: status}}`` from every ``.meta`` file under ``mutants``."""
    results: dict[str, dict[str, str]] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        module = meta.relative_to(mutants).as_posix().removesuffix(".meta")
        results[module] = {name: status_by_exit_code[code] for name, code in codes.items()}
    return results


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, tuple[str, str]]:
    """``{mutant name: (mutated line as recorded, why)}`` from the equivalents file."""
    if not path.is_file():
        return {}
    listed: dict[str, tuple[str, str]] = {}
    for group in tomllib.loads(path.read_text())["equivalent"]:
        for name, line in group["mutants"]:
            if name in listed:
                raise SystemExit(f"{path}: {name} is listed twice")
            listed[name] = (line, group["why"])
    return listed


def mutated_lines(mutants: Path, module: str) -> dict[str, str]:
    """``{mutant name: the lines it adds}`` for every mutant function of ``module``.

    Each mutant is a copy of the function with one change, next to the untouched copy
    ``<function>__mutmut_orig``; the added lines of their diff are the mutation.
    """
    source = (mutants / module).read_text()
    lines = source.splitlines()
    functions = {node.name: "\n".join(lines[node.lineno - 1:node.end_lineno])
                 for node in ast.walk(ast.parse(source))
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    prefix = module.removeprefix("src/").removesuffix(".py").replace("/", ".")
    changes: dict[str, str] = {}
    for name, text in functions.items():
        base, marker, _ = name.rpartition("__mutmut_")
        original = functions.get(f"{base}__mutmut_orig")
        if not marker or original is None or name.endswith("__mutmut_orig"):
            continue
        renamed = text.replace(name, f"{base}__mutmut_orig", 1)
        added = [line[1:] for line in difflib.unified_diff(
            original.splitlines(), renamed.splitlines(), lineterm="", n=0)
            if line.startswith("+") and not line.startswith("+++")]
        changes[f"{prefix}.{name}"] = " ".join(" ".join(added).split())
    return changes


def check_equivalents(mutants: Path, results: dict[str, dict[str, str]],
                      listed: dict[str, tuple[str, str]]) -> tuple[set[str], list[str]]:
    """The listed survivors whose recorded line matches the mutant, and the stale ones."""
    survivors = {name: module for module, statuses in results.items()
                 for name, status in statuses.items() if status == "survived"}
    confirmed: set[str] = set()
    stale: list[str] = []
    changes: dict[str, str] = {}
    for module in sorted({survivors[name] for name in listed if name in survivors}):
        changes.update(mutated_lines(mutants, module))
    for name, (line, _) in sorted(listed.items()):
        if name not in survivors:
            continue  # killed now, or not run: the entry does not count
        if " ".join(line.split()) in changes.get(name, ""):
            confirmed.add(name)
        else:
            stale.append(f"{name}: recorded `{line}`, mutant now adds "
                         f"`{changes.get(name, '?')}`")
    return confirmed, stale


def tally(statuses: dict[str, str], equivalent: set[str]) -> dict[str, int]:
    """Counts by column, plus the total."""
    counts: Counter[str] = Counter()
    for name, status in statuses.items():
        column = STATUS_COLUMN.get(status, "other")
        if column == "survived" and name in equivalent:
            column = "equivalent"
        counts[column] += 1
    counts["total"] = len(statuses)
    return {key: counts[key] for key in (*COLUMNS, "total")}


def score(counts: dict[str, int]) -> float | None:
    """Killed share in percent of the mutants run, documented equivalents left out."""
    relevant = counts["killed"] + counts["timeout"] + counts["survived"] + counts["no tests"] \
        + counts["other"]
    return 100.0 * (counts["killed"] + counts["timeout"]) / relevant if relevant else None


def table(results: dict[str, dict[str, str]], equivalent: set[str]) -> tuple[str, dict[str, int]]:
    """The per-module table and the overall counts."""
    header = (f"{'module':<48} {'mutants':>7} {'killed':>7} {'timeout':>7} {'survived':>8} "
              f"{'equiv.':>6} {'no test':>7} {'not run':>7} {'other':>5} {'score':>7}")
    lines = [header, "-" * len(header)]
    overall: Counter[str] = Counter()
    for module, statuses in results.items():
        if not statuses:
            continue  # a module without mutable code (an __init__ or a re-export)
        counts = tally(statuses, equivalent)
        overall.update(counts)
        lines.append(_row(module.removeprefix("src/"), counts))
    total = {key: overall[key] for key in (*COLUMNS, "total")}
    lines += ["-" * len(header), _row("all metric modules", total)]
    return "\n".join(lines), total


def _row(name: str, c: dict[str, int]) -> str:
    value = score(c)
    shown = "n/a" if value is None else f"{value:.1f} %"
    return (f"{name:<48} {c['total']:>7} {c['killed']:>7} {c['timeout']:>7} "
            f"{c['survived']:>8} {c['equivalent']:>6} {c['no tests']:>7} {c['not run']:>7} "
            f"{c['other']:>5} {shown:>7}")


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
    equivalent, stale = check_equivalents(args.mutants, results, load_equivalents())
    text, total = table(results, equivalent)
    print(text)
    overall = score(total)
    run = total["total"] - total["not run"]
    print(f"\n{run} of {total['total']} mutants run; killed {total['killed'] + total['timeout']}"
          f", {total['equivalent']} documented equivalent survivors left out: score "
          f"{'n/a' if overall is None else f'{overall:.1f} %'}")
    gaps = sorted(name for statuses in results.values() for name, status in statuses.items()
                  if status == "survived" and name not in equivalent)
    print(f"survivors not documented as equivalent: {len(gaps)}")
    for line in stale:
        print(f"stale equivalent entry: {line}")
    if args.survivors:
        print("\n".join(gaps))
    if args.json:
        args.json.write_text(json.dumps(
            {module: tally(statuses, equivalent) for module, statuses in results.items()},
            indent=2, sort_keys=True) + "\n")
    return 0 if overall is not None and overall >= args.min_score and not stale else 1


if __name__ == "__main__":
    sys.exit(main())
