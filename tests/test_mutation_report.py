"""benchmarks/mutation_report.py: counts per module, and equivalents only when the recorded
mutated line still matches the mutant (a renumbered mutant is reported, not excused)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]

MODULE = '''
def x_f__mutmut_orig(a, b):
    return a + b

def x_f__mutmut_1(a, b):
    return a - b

def x_f__mutmut_2(a, b):
    return a + b + 0

def x_f__mutmut_3(a, b):
    return a * b
'''


def report_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mutation_report", REPO / "benchmarks" / "mutation_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_equivalents_and_stale_entries(tmp_path: Path) -> None:
    report = report_module()
    source = tmp_path / "src" / "pkg" / "mod.py"
    source.parent.mkdir(parents=True)
    source.write_text(MODULE)
    # mutant 1 killed (exit 1), 2 and 3 survived (exit 0), 4 not run (no exit code)
    codes = {"pkg.mod.x_f__mutmut_1": 1, "pkg.mod.x_f__mutmut_2": 0,
             "pkg.mod.x_f__mutmut_3": 0, "pkg.mod.x_f__mutmut_4": None}
    (tmp_path / "src" / "pkg" / "mod.py.meta").write_text(
        json.dumps({"exit_code_by_key": codes}))
    results = report.load_results(tmp_path)
    assert report.mutated_lines(tmp_path, "src/pkg/mod.py") == {
        "pkg.mod.x_f__mutmut_1": "return a - b", "pkg.mod.x_f__mutmut_2": "return a + b + 0",
        "pkg.mod.x_f__mutmut_3": "return a * b"}
    # mutant 2 is listed with its line: equivalent. Mutant 3 is listed with a line it does
    # not add (as after a renumbering): stale, so still a survivor.
    listed = {"pkg.mod.x_f__mutmut_2": ("return a + b + 0", "adds 0"),
              "pkg.mod.x_f__mutmut_3": ("return a + b * 1", "multiplies by 1")}
    equivalent, stale = report.check_equivalents(tmp_path, results, listed)
    assert equivalent == {"pkg.mod.x_f__mutmut_2"}
    assert len(stale) == 1 and stale[0].startswith("pkg.mod.x_f__mutmut_3: recorded")
    counts = report.tally(results["src/pkg/mod.py"], equivalent)
    assert counts == {"killed": 1, "timeout": 0, "survived": 1, "equivalent": 1,
                      "no tests": 0, "not run": 1, "other": 0, "total": 4}
    # killed 1 of the 2 mutants run and not equivalent: 50 %
    assert report.score(counts) == 50.0


def test_every_listed_equivalent_names_its_line_and_reason() -> None:
    listed = report_module().load_equivalents()
    assert listed, "benchmarks/mutation_equivalents.toml lists no mutant"
    for name, (line, why) in listed.items():
        assert "__mutmut_" in name and line.strip() and len(why) > 20, name
