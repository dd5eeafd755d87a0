"""``make docs``: the API reference builds offline from the docstrings, one page per public
module, and each page documents every name of its module's ``__all__`` with the first
line of its docstring."""

from __future__ import annotations

import html
import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "build_api_docs.py"


def _public_modules() -> tuple[str, ...]:
    namespace: dict[str, object] = {}
    exec(compile(SCRIPT.read_text(encoding="utf-8"), str(SCRIPT), "exec"), namespace)
    modules = namespace["PUBLIC_MODULES"]
    assert isinstance(modules, tuple)
    return modules


def _text(page: Path) -> str:
    """A page's visible text: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text("utf-8"))).split())


def test_the_reference_holds_every_public_function(tmp_path: Path) -> None:
    pytest.importorskip("pdoc", reason="pdoc (the dev extra) is not installed")
    out = tmp_path / "api"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, env=env,
                   capture_output=True, text=True, timeout=300)
    modules = _public_modules()
    pages = {name: out.joinpath(*name.split(".")).with_suffix(".html") for name in modules}
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html")) == sorted(
        ["index.html", *(p.relative_to(out).as_posix() for p in pages.values())])
    for name, page in pages.items():
        module = importlib.import_module(name)
        text, source = _text(page), page.read_text("utf-8")
        for public in module.__all__:
            if public.startswith("__"):
                continue
            doc = inspect.getdoc(getattr(module, public))
            assert doc, f"{name}.{public} has no docstring"
            first = " ".join(re.sub(r"``?", "", doc.splitlines()[0]).split())
            assert f'id="{public}"' in source, f"{name}.{public} is not on {page.name}"
            assert first in text, f"{name}.{public}: {first!r} is not on {page.name}"
