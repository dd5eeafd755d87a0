"""The FDB floors: ``fdb/common`` imports neither version, ``fdb/v15`` imports nothing from
``fdb/v10`` (docs/architecture.md, ADR 0009), and inside ``fdb/v10`` (ADR 0013) and
``fdb/v15`` (ADR 0019) no subpackage imports one above it. The session rooms: the scenario and the
recording import no other room, metrics import neither the runners nor the reports, and
no room imports the command above it (ADR 0011).

Every import of every module is read from its source (``ast``), at any depth: top level,
inside functions (the lazy imports of commands), under ``TYPE_CHECKING``, and a string
that is a dotted module name (``Lazy("speecheval.fdb.v10.cli:...")``, ``python -m ...``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import speecheval

PACKAGE = Path(speecheval.__file__).resolve().parent
FDB = PACKAGE / "fdb"
_DOTTED = re.compile(r"(speecheval(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?::[A-Za-z_][\w.]*)?")
"""A string that is a module name (``python -m NAME``) or ``module:attribute`` (``Lazy``);
prose that mentions a module (a docstring) is no import."""

_V10 = "speecheval.fdb.v10."
FORBIDDEN = {
    "common": ("speecheval.fdb.v10", "speecheval.fdb.v15"),
    "v15": ("speecheval.fdb.v10",),
    # inside v10: cli over report over reference and scoring; builder beside them
    "v10/report": tuple(_V10 + p for p in ("cli", "builder")),
    "v10/reference": tuple(_V10 + p for p in ("cli", "report", "scoring", "builder")),
    "v10/scoring": tuple(_V10 + p for p in ("cli", "report", "reference", "builder")),
    "v10/builder": tuple(_V10 + p for p in ("cli", "report", "reference", "scoring")),
}
_V15 = "speecheval.fdb.v15."
_V15_MAY_IMPORT = {
    # inside v15: cli over report over scoring over timing, judge, prosody; capture and
    # builder beside them; dataset under all
    "report": ("scoring", "judge", "prosody", "dataset"),  # prosody: its paired t-test
    "scoring": ("timing", "judge", "prosody", "dataset"),
    "timing": (), "judge": ("dataset",), "prosody": (),
    "capture": ("dataset",), "builder": ("dataset",), "dataset": (),
}
FORBIDDEN.update({
    f"v15/{floor}": tuple(_V15 + p for p in ("cli", *_V15_MAY_IMPORT)
                          if p != floor and p not in allowed)
    for floor, allowed in _V15_MAY_IMPORT.items()})
"""The floor under ``fdb/`` -> the packages none of its modules may import."""


SESSION = PACKAGE / "session"
_ROOMS = ("scenario", "record", "run", "metrics", "report", "load")
SESSION_FORBIDDEN = {
    "scenario": ("record", "run", "metrics", "report", "load"),
    "record": ("scenario", "run", "metrics", "report", "load"),
    "metrics": ("run", "report", "load"),
    "run": ("report", "load"),
    "report": ("run", "load"),
    "load": (),
}
"""A room of ``session/`` -> the rooms none of its modules may import; no room imports
the commands (``session.cli``, ``session.cli_options``) but ``load``, whose command it is."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The absolute names of the modules (and the names in them) that ``path`` imports."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    return imports_of(path.read_text(encoding="utf-8"), package)


def imports_of(source: str, package: list[str]) -> set[str]:
    """What a module of ``package`` (its parts) with this source imports."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _DOTTED.fullmatch(node.value)
            if match:
                names.add(match.group(1))
    return names


def violations(floor: str) -> list[str]:
    found = []
    for path in sorted((FDB / floor).rglob("*.py")):
        for name in sorted(imported(path)):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[floor]):
                found.append(f"{path.relative_to(PACKAGE)} imports {name}")
    return found


@pytest.mark.parametrize("floor", sorted(FORBIDDEN))
def test_fdb_floor_imports_no_version_above_it(floor: str) -> None:
    assert (FDB / floor / "__init__.py").is_file()
    assert violations(floor) == []


def session_violations(room: str) -> list[str]:
    bad = [f"speecheval.session.{name}" for name in SESSION_FORBIDDEN[room]]
    bad += ["speecheval.session.cli"] + ([] if room == "load" else
                                          ["speecheval.session.cli_options"])
    found = []
    for path in sorted((SESSION / room).rglob("*.py")):
        for name in sorted(imported(path)):
            if any(name == b or name.startswith(b + ".") for b in bad):
                found.append(f"{path.relative_to(PACKAGE)} imports {name}")
    return found


@pytest.mark.parametrize("room", _ROOMS)
def test_session_room_imports_no_room_above_it(room: str) -> None:
    assert (SESSION / room / "__init__.py").is_file()
    assert session_violations(room) == []


def test_the_reader_sees_relative_lazy_and_string_imports() -> None:
    # the check would pass vacuously if it resolved nothing: v15 does use common, and v10's
    # CLI names its commands by dotted strings
    v15 = set().union(*(imported(p) for p in (FDB / "v15").rglob("*.py")))
    assert "speecheval.fdb.common.dataset" in v15
    assert "speecheval.fdb.common.cli_recogniser.recogniser_choice" in v15  # inside a function
    cli = imported(FDB / "v10" / "cli" / "__init__.py")
    assert "speecheval.fdb.v10.cli.record" in cli
    metrics = set().union(*(imported(p) for p in (SESSION / "metrics").rglob("*.py")))
    assert "speecheval.session.scenario.model" in metrics  # the session rooms' imports too


@pytest.mark.parametrize("source", [
    "from ..v10.record import Session\n",
    "from .. import v10\n",
    "def f():\n    from ..v10 import tree\n",
    "import speecheval.fdb.v10.export\n",
    "COMMAND = 'speecheval.fdb.v10.cli:fdb10'\n",
    "ARGV = ['-m', 'speecheval.fdb.v10.judge_runner']\n",
])
def test_each_form_of_import_is_seen(source: str) -> None:
    names = imports_of(source, ["speecheval", "fdb", "v15"])
    assert any(name.startswith("speecheval.fdb.v10") for name in names), names


def test_prose_naming_a_module_is_no_import() -> None:
    assert imports_of('"""Like :mod:`speecheval.fdb.v10.record`."""\n',
                      ["speecheval", "fdb", "v15"]) == set()
