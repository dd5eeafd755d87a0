"""The README's "Python API" examples run as written: every ``python`` block of that
section is a doctest, run in order in one namespace, in the folder of inputs the examples
name (``mini``, ``tree15`` and the shipped ``examples``; the root ``conftest.py`` builds
it). Where neither espeak-ng engine is installed, the blocks that run a session (its
turns are spoken) are left out and the others still run."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from speecheval.core import espeak

REPO = Path(__file__).resolve().parents[1]


def api_blocks(readme: str) -> list[str]:
    """The ``python`` blocks of the README's "Python API" section, in order."""
    section = readme.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_every_python_api_example_in_the_readme_runs(monkeypatch: pytest.MonkeyPatch,
                                                     api_inputs: Path) -> None:
    blocks = api_blocks((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 11  # one per public function at least
    if not espeak.available():   # either engine speaks the session's turns
        blocks = [block for block in blocks if "session.run_scenario(" not in block]
    monkeypatch.chdir(api_inputs)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {}
    parser = doctest.DocTestParser()
    for number, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"README.md Python API block {number}",
                                  "README.md", 0)
        assert test.examples, f"block {number} holds no >>> example"
        runner.run(test, clear_globs=False)
        globs.update(test.globs)  # later blocks use the names of earlier ones
    outcome = runner.summarize(verbose=False)
    assert outcome.failed == 0 and outcome.attempted >= 2 * len(blocks)


def test_each_public_function_has_a_readme_example() -> None:
    from speecheval import fdb10, fdb15, session, transcripts, vad

    text = "".join(api_blocks((REPO / "README.md").read_text(encoding="utf-8")))
    called = {name for name in transcripts.__all__ if f"transcripts.{name}(" in text}
    assert called >= {"wer", "cp", "orc", "tcp", "der", "load"}
    for family, module in (("vad", vad), ("fdb10", fdb10), ("fdb15", fdb15),
                           ("session", session)):
        assert all(f"{family}.{name}(" in text for name in module.__all__), family
