"""Doctest set-up of the public API modules (``speecheval.fdb10``, ``speecheval.fdb15``,
``speecheval.session``): their examples run in a folder that holds the inputs the
README's "Python API" section names, built once per run by :func:`build_api_inputs`
(``tests/test_readme_api.py`` runs the README's blocks in the same folder)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Generator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
API_MODULES = ("speecheval.fdb10", "speecheval.fdb15", "speecheval.session")
"""The modules whose doctests run in the inputs folder."""


def build_api_inputs(folder: Path) -> Path:
    """``folder`` with ``mini`` (``speecheval fdb10 build-tree``'s mini tree), ``tree15``
    (a two-trial FDB v1.5 tree of the bundled clips: one output silent, one speaking
    through the user's turn) and
    ``examples`` (the repository's, linked)."""
    import numpy as np

    from speecheval.core.audio import read_mono, write_wav
    from speecheval.fdb.v10.builder.trees import build_mini_tree

    folder.mkdir(parents=True, exist_ok=True)
    build_mini_tree(folder / "mini")
    clips = REPO / "src/speecheval/fdb/v10/data/speech"
    user, reply = (read_mono(clips / name).samples for name in ("m_tell_more.wav", "l_novel.wav"))
    rate = 16_000
    for scenario, speaks in (("user_interruption", False), ("user_backchannel", True)):
        trial = folder / "tree15" / scenario / "1"
        trial.mkdir(parents=True)
        heard, output = np.zeros(10 * rate), np.zeros(10 * rate)
        heard[3 * rate:3 * rate + len(user)] = user
        if speaks:  # the reply goes on through the user's speech
            output[2 * rate:2 * rate + len(reply)] = reply
        write_wav(trial / "input.wav", heard, rate)
        write_wav(trial / "output.wav", output, rate)
        (trial / "metadata.json").write_text(json.dumps(
            {"context_text": "hi", "current_turn_text": "tell me more",
             "timestamps": [3.0, 3.0 + len(user) / rate]}))
    (folder / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    return folder


@pytest.fixture(scope="session")
def api_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of :func:`build_api_inputs`, made once per run."""
    return build_api_inputs(tmp_path_factory.mktemp("api-inputs"))


@pytest.fixture(autouse=True)
def _api_doctest_folder(request: pytest.FixtureRequest) -> Generator[None]:
    """A public API module's doctest runs in the inputs folder; the session examples
    speak with espeak-ng and are skipped where it is missing."""
    if not isinstance(request.node, pytest.DoctestItem) or (
            request.node.dtest.globs.get("__name__") not in API_MODULES):
        yield
        return
    if (request.node.dtest.globs["__name__"] == "speecheval.session"
            and shutil.which("espeak-ng") is None):
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(request.getfixturevalue("api_inputs"))
        yield
