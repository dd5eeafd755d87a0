"""``report/`` imports downwards only (no circle of modules, lazy imports included) and
every SVG chart draws in the one frame, ``report/svg_frame.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import speecheval.report

REPORT = Path(speecheval.report.__file__).resolve().parent
CHARTS = ("bars_svg.py", "curve_svg.py", "lines_svg.py", "timeline/svg.py")
FRAME_HELPERS = {"text_width", "tick_step", "ticks", "coord", "_f", "Scale", "Frame"}
"""What the frame owns: a chart that defines one of these has a coordinate helper again."""


def _name(path: Path) -> str:
    parts = ("speecheval", "report", *path.relative_to(REPORT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``report/`` that ``path`` imports, at any depth of its source."""
    package = _name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = (".".join(package[:len(package) - node.level + 1]
                             + ([node.module] if node.module else []))
                    if node.level else node.module or "")
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                          else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & modules - {_name(path)}


def _graph() -> dict[str, set[str]]:
    paths = sorted(REPORT.rglob("*.py"))
    modules = {_name(p) for p in paths}
    return {_name(p): _imports(p, modules) for p in paths}


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for module in graph[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def test_no_module_of_report_imports_itself_back() -> None:
    graph = _graph()
    assert graph["speecheval.report.timeline"] >= {"speecheval.report.timeline.svg"}
    circles = sorted(m for m in graph if m in _reaches(graph, m))
    assert circles == []


def test_the_reader_sees_a_circle() -> None:
    # The check above can fail: two modules importing each other, one lazily.
    graph = {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert [m for m in graph if m in _reaches(graph, m)] == ["a", "b"]


def test_every_chart_draws_in_the_one_frame() -> None:
    for chart in CHARTS:
        path = REPORT / chart
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {node.name for node in tree.body
                   if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        assert "speecheval.report.svg_frame" in _imports(path, set(_graph())), chart
        assert defined & FRAME_HELPERS == set(), chart
