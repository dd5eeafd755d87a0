"""An imported answer with word times gets its word-level transcript, as the run's own
does: the same bytes as the current run's own words file, an ``imported_words`` record
whose parent is the imported raw answer and which carries the import's trust facts."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from run_fixtures import BLOCKS_SAMPLE, blocks_audio, cli, fake_run, write_manifest

KEY = "ctm/production_complete_file/blocks/r1"
WORDS = "words@seglst-words-1.json"
CTM_SYSTEM = '''
import sys
out = sys.argv[2]
open(out, "w").write("blocks 1 0.50 0.20 hello\\nblocks 1 0.80 0.15 there\\n")
'''
"""Writes the same two timed words (CTM: start and duration) for any input."""


def ctm_run(folder: Path, version: str) -> Path:
    folder.mkdir()
    blocks_audio(folder / "blocks.wav")
    (folder / "ctm_system.py").write_text(CTM_SYSTEM, encoding="utf-8")
    manifest = write_manifest(folder, BLOCKS_SAMPLE, extra_systems=f"""  ctm:
    adapter: command
    command: [{sys.executable}, ctm_system.py, "{{input}}", "{{output}}"]
    output_suffix: .ctm
    version: {version}
""")
    assert cli("run", "--manifest", manifest, "--system", "ctm", "--out", folder / "run") == 0
    return folder / "run"


def records(run: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run / "lineage.jsonl").read_text().splitlines()]


def test_imported_word_times_are_derived_beside_the_transcript(tmp_path: Path) -> None:
    older, current = ctm_run(tmp_path / "a", "ctm 0.9"), ctm_run(tmp_path / "b", "ctm 1.0")
    own = current / "derived" / KEY / WORDS
    rows = json.loads(own.read_text())
    # CTM 0.50 + 0.20 -> 0.50-0.70 s, 0.80 + 0.15 -> 0.80-0.95 s
    assert [(r["words"], r["start_time"], r["end_time"]) for r in rows] == [
        ("hello", 0.5, 0.7), ("there", 0.8, 0.95)]
    digest = hashlib.sha256((older / "run.json").read_bytes()).hexdigest()[:12]
    before = len(records(current))
    assert cli("import", current, older) == 0
    imported = current / "imported" / digest / "derived" / KEY / WORDS
    assert imported.read_bytes() == own.read_bytes()
    added = records(current)[before:]
    # the raw answer, its transcript, its words: three records, in that order
    assert [r["kind"] for r in added] == ["imported_raw", "imported_transcript",
                                          "imported_words"]
    words = added[2]
    assert (words["id"], words["parent"], words["normalizer_version"], words["path"]) == (
        f"words:imported:{digest}/{KEY}@seglst-words/1", f"imported:{digest}/{KEY}",
        "seglst-words/1", f"imported/{digest}/derived/{KEY}/{WORDS}")
    assert words["sha256"] == hashlib.sha256(imported.read_bytes()).hexdigest()
    # same PCM, another version: compatible, identity recorded but not exact
    assert (words["protocol_compatibility"], words["identity_confidence"]) == (
        "compatible", "recorded")
    # the same import again copies nothing and appends nothing
    assert cli("import", current, older) == 0
    assert len(records(current)) == before + 3


def test_an_import_without_word_times_gets_no_words_file(tmp_path: Path) -> None:
    # the fake system answers STM: segments, no word times

    older, current = fake_run(tmp_path / "a", version="fake 0.9"), fake_run(tmp_path / "b")
    assert cli("import", current, older) == 0
    assert not list((current / "imported").rglob("words@*"))
    assert "imported_words" not in {r["kind"] for r in records(current)}
