"""``speecheval.fdb10``: score_tree gives the numbers ``fdb10 unified-score`` writes (the
command calls it, once), load_tree reads the tree's index, bad input is an InputError,
the public names are those of ``__all__`` and importing the module is cheap."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from api_numbers import differences, heavy_in, json_lines, modules_after_import

import speecheval.fdb10
from speecheval import fdb10
from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.fdb.v10.builder.trees import build_mini_tree


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("api10") / "mini"
    build_mini_tree(tree)
    return tree


def test_score_tree_gives_the_numbers_unified_score_writes(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    real = speecheval.fdb10.score_tree

    def counted(path: Path, **options: Any) -> Any:
        calls.append(path)
        return real(path, **options)

    monkeypatch.setattr(speecheval.fdb10, "score_tree", counted)
    assert main(["fdb10", "unified-score", "--tree", str(mini), "--out", str(tmp_path / "u"),
                 "--jobs", "1", "--vad-cache", "off"]) == 0
    assert calls == [mini]  # the command scores through the public function, once
    written = json.loads((tmp_path / "u" / "unified.json").read_text(encoding="utf-8"))

    result = real(mini, jobs=1)
    ours = result.summary.report_dict()
    assert ours["definitions_version"] == written["definitions_version"] == "fdb-v1.0-unified-4"
    assert differences(ours["subsets"], written["subsets"]) == []
    assert len(ours["subsets"]) == 5
    rows = json_lines(tmp_path / "u" / "unified-samples.jsonl")
    assert differences([row.report_dict() for row in result.rows], rows) == []
    assert ours["provenance"]["inputs"] == written["provenance"]["inputs"]
    assert ours["provenance"]["command"] == ["speecheval", "fdb10", "unified-score",
                                             "--tree", str(mini)]


def test_a_wrong_number_is_seen(mini: Path) -> None:
    # the comparison itself fails on a changed value (so the test above can fail)
    result = fdb10.score_tree(mini, jobs=1)
    subsets = result.summary.report_dict()["subsets"]
    changed = json.loads(json.dumps(subsets))
    changed["candor_turn_taking"]["coverage"] += 1e-8
    assert differences(subsets, changed) == [
        f".candor_turn_taking.coverage: {subsets['candor_turn_taking']['coverage']!r} != "
        f"{changed['candor_turn_taking']['coverage']!r}"]


def test_load_tree_reads_the_manifest_and_the_asr_index(mini: Path) -> None:
    manifest, asr = fdb10.load_tree(str(mini))
    document = json.loads((mini / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.sha256 == hashlib.sha256((mini / "manifest.json").read_bytes()).hexdigest()
    assert asr.sha256 == hashlib.sha256((mini / "asr.json").read_bytes()).hexdigest()
    assert [s.sample_id for s in manifest.samples] == [s["sample_id"] for s in document["samples"]]
    assert manifest.revision == "speecheval-builder-mini-1"
    assert set(asr.transcripts) <= {s.sample_id for s in manifest.samples} and asr.transcripts


def test_bad_trees_are_input_errors_naming_the_file(tmp_path: Path, mini: Path) -> None:
    with pytest.raises(InputError, match="manifest.json"):
        fdb10.load_tree(tmp_path)
    with pytest.raises(InputError, match="manifest.json"):
        fdb10.score_tree(tmp_path, jobs=1)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_bytes((mini / "manifest.json").read_bytes())
    with pytest.raises(InputError, match="asr.json"):
        fdb10.load_tree(broken)


def test_public_names_and_a_cheap_import() -> None:
    assert fdb10.__all__ == ["load_tree", "score_tree"]
    assert all(callable(getattr(fdb10, name)) for name in fdb10.__all__)
    modules = modules_after_import("speecheval.fdb10")
    assert heavy_in(modules) == []
    assert not any(name.startswith("speecheval.fdb.") for name in modules)
