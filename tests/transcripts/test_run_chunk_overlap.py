"""Chunks decoded with an overlap, and their speakers reconciled on it (``overlap-match/1``).

The recording is :func:`run_fixtures.blocks_audio` at 16 kHz (loud 0-20 s, silent 20-25 s,
loud 25-45 s, silent 45-50 s, loud 50-70 s), which the silence-aware chunker cuts at
22.5 s and 47.49 s (its doctest). The fake system knows which chunk it hears by the
chunk's length and answers like a diarizer that numbers its speakers afresh in every
chunk: in the second chunk alice is ``S02`` and bob ``S01``, the other way round from the
first. With a 2 s overlap both chunks hear 20.5-22.5 s, where both speakers talk, and
the relabelling is undone; without it the labels are kept as they are (``same-label/1``)
and cpWER pays for the swap.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from run_fixtures import blocks_audio, cli

from speecheval.transcripts import lineage

ANSWERS = '''
import sys, wave
wav, out = sys.argv[1:3]
with wave.open(wav) as f:
    frames = f.getnframes()
answers = {
    360000: ["S01 20.600 21.400 alpha", "S02 21.500 22.400 bravo"],   # 0-22.5 s
    431840: ["S02 0.100 0.900 alpha", "S01 1.000 1.900 bravo",        # 20.5-47.49 s
             "S02 5.000 7.000 charlie", "S01 10.000 12.000 delta"],
    392160: ["S07 6.000 8.000 echo"],                                 # 45.49-70 s
    399840: ["S02 3.000 5.000 charlie", "S01 8.000 10.000 delta"],  # 22.5-47.49 s
    360160: ["S07 4.000 6.000 echo"],                                 # 47.49-70 s
}[frames]
open(out, "w").write("".join(f"x 1 {line}\\n" for line in answers))
'''
REFERENCE = ("blocks 1 alice 20.600 21.400 alpha\nblocks 1 bob 21.500 22.400 bravo\n"
             "blocks 1 alice 25.500 27.500 charlie\nblocks 1 bob 30.500 32.500 delta\n"
             "blocks 1 carol 51.490 53.490 echo\n")


def _run(folder: Path, *extra: str) -> Path:
    blocks_audio(folder / "blocks.wav", rate=16_000)
    (folder / "answers.py").write_text(ANSWERS, encoding="utf-8")
    (folder / "ref.stm").write_text(REFERENCE, encoding="utf-8")
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({
        "format": "speecheval.transcripts.run-manifest/1",
        "scenarios": {"meeting": {"unit": "word"}},
        "systems": {"diarizer": {
            "adapter": "command", "command": [sys.executable, "answers.py", "{input}",
                                              "{output}"],
            "output_suffix": ".stm", "version": "diarizer 1"}},
        "samples": [{"id": "blocks", "audio": "blocks.wav", "scenario": "meeting",
                     "source": "blocks", "reference": {"transcript": "ref.stm"}}]}))
    out = folder / "run"
    assert cli("run", "--manifest", manifest, "--system", "diarizer", "--track",
               "production_complete_file/chunked", *extra, "--out", out) == 0
    return out


def _derived(run: Path) -> list[tuple[str, float, float, str, str]]:
    rows = json.loads((run / "derived" / "diarizer" / "production_complete_file.chunked" /
                       "blocks" / "r1" / "transcript@seglst-1.json").read_text())
    return [(r["speaker"], r["start_time"], r["end_time"], r["words"], r["region"])
            for r in rows]


def _cp(run: Path) -> float:
    assert cli("score", "--run", run) == 0
    (folder,) = (run / "derived" / "score").iterdir()
    (row,) = [json.loads(line) for line in (folder / "scores.jsonl").open()]
    return float(row["cp"])


def test_an_overlap_undoes_the_relabelling_of_the_second_chunk(tmp_path: Path) -> None:
    run = _run(tmp_path, "--chunk-overlap-s", "2")
    meta = json.loads((run / "raw" / "diarizer" / "production_complete_file.chunked" /
                       "blocks" / "r1" / "meta.json").read_text())
    # the cuts stay; chunks 1 and 2 begin 2 s before theirs: 22.5 - 2, 47.49 - 2
    assert [(c["start_s"], c["cut_s"], c["end_s"]) for c in meta["chunks"]] == [
        (0.0, 0.0, 22.5), (20.5, 22.5, 47.49), (45.49, 47.49, 70.0)]
    # In the overlap 20.5-22.5 s chunk 1's S01 (bravo, 21.5-22.4) shares 0.9 s with chunk
    # 0's S02, its S02 (alpha, 20.6-21.4) 0.8 s with S01: greedy pairs the larger first,
    # S01 -> S02, then S02 -> S01. Chunk 1's copies of alpha and bravo (midpoints 21.0 and
    # 21.95 s, before its cut at 22.5) belong to chunk 0 and are dropped. Chunk 2 shares no
    # speech with chunk 1 in 45.49-47.49 s: S07 keeps its name. Regions (1 s margin):
    # only bravo (21.5-22.4) comes within 1 s of a cut (22.5).
    assert _derived(run) == [
        ("S01", 20.6, 21.4, "alpha", "in_segment"), ("S02", 21.5, 22.4, "bravo", "across_cut"),
        ("S01", 25.5, 27.5, "charlie", "in_segment"), ("S02", 30.5, 32.5, "delta", "in_segment"),
        ("S07", 51.49, 53.49, "echo", "in_segment")]
    record = next(r for r in lineage.read_records(run) if r["kind"] == "transcript")
    assert record["derivation"]["stitching"] == "overlap-owned/1"
    assert record["derivation"]["reconciliation"] == {
        "rule": "overlap-match/1", "chunk_labels": 5, "stitched_labels": 3, "renamed": 2,
        "maps": [{"S01": "S01", "S02": "S02"}, {"S01": "S02", "S02": "S01"},
                 {"S07": "S07"}]}
    identity = json.loads((run / "run.json").read_text())["settings"]["chunker"]
    assert (identity["overlap_s"], identity["reconciliation"]["version"]) == (
        2.0, "overlap-match/1")
    # alice = S01, bob = S02, carol = S07: every word right, cpWER 0
    assert _cp(run) == 0.0


def test_without_overlap_the_labels_are_kept_and_cp_pays_for_the_swap(
        tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert [row[0] for row in _derived(run)] == ["S01", "S02", "S02", "S01", "S07"]
    record = next(r for r in lineage.read_records(run) if r["kind"] == "transcript")
    assert record["derivation"]["reconciliation"] == {
        "rule": "same-label/1", "chunk_labels": 5, "stitched_labels": 3}
    # S01 says 'alpha delta', S02 'bravo charlie' against alice 'alpha charlie' and bob
    # 'bravo delta': one substitution each whichever way they pair, S07 = carol right:
    # cpWER 2 / 5
    assert _cp(run) == 0.4
    # Apart (cuts 22.5 and 47.49 s, margin 1 s): only bravo is near a cut, right on both
    # sides. Inside the chunks alice 'alpha charlie', bob 'delta', carol 'echo' against
    # S01 'alpha delta', S02 'charlie', S07 'echo': 2 errors either way alice and bob pair
    # (1 S + 1 S, or 1 D + 1 I) over 4 words; the swap far from the cut is counted there.
    (folder,) = (run / "derived" / "score").iterdir()
    (row,) = [json.loads(line) for line in (folder / "scores.jsonl").open()]
    inside, near = row["chunk_regions"]["in_segment"], row["chunk_regions"]["across_cut"]
    assert (inside["wer"], inside["length"], inside["cpwer"]) == (0.0, 4, 0.5)
    assert (near["wer"], near["length"], near["cpwer"]) == (0.0, 1, 0.0)
    report = (folder / "report.md").read_text()
    assert "### Track production_complete_file/chunked: inside chunks and near cuts" in report
    assert "| diarizer | blocks | 1 | in_segment | WER | 0.00% | 4 | 50.00% |" in report
    assert "| diarizer | blocks | 1 | across_cut | WER | 0.00% | 1 | 0.00% |" in report
    manifest = json.loads((folder / "production_complete_file.chunked" / "diarizer" /
                           "manifest.json").read_text())
    assert manifest["samples"][0]["runs"][0]["chunk_cuts"] == {"cuts_s": [22.5, 47.49],
                                                               "margin_s": 1.0}


WORDS = '''
import sys, wave
wav, out = sys.argv[1:3]
with wave.open(wav) as f:
    frames = f.getnframes()
answers = {360000: ["21.00 0.40 alpha"],                          # 0-22.5 s
           431840: ["0.50 0.40 alpha", "5.00 0.50 charlie"],      # 20.5-47.49 s
           392160: ["6.00 0.50 echo"]}[frames]                    # 45.49-70 s
open(out, "w").write("".join(f"x 1 {line}\\n" for line in answers))
'''


def test_word_times_of_overlapping_chunks_are_kept_once(tmp_path: Path) -> None:
    blocks_audio(tmp_path / "blocks.wav", rate=16_000)
    (tmp_path / "words.py").write_text(WORDS, encoding="utf-8")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({
        "format": "speecheval.transcripts.run-manifest/1",
        "systems": {"ctm": {"adapter": "command", "command": [
            sys.executable, "words.py", "{input}", "{output}"], "output_suffix": ".ctm",
            "version": "ctm 1"}},
        "samples": [{"id": "blocks", "audio": "blocks.wav"}]}))
    out = tmp_path / "run"
    assert cli("run", "--manifest", manifest, "--system", "ctm", "--track",
               "production_complete_file/chunked", "--chunk-overlap-s", "2", "--out",
               out) == 0
    rows = json.loads((out / "derived" / "ctm" / "production_complete_file.chunked" /
                       "blocks" / "r1" / "words@seglst-words-1.json").read_text())
    # chunk 1's 'alpha' is 20.5 + 0.5 = 21.0-21.4 s, midpoint 21.2 before its cut 22.5:
    # chunk 0's copy is kept, chunk 1's dropped; 'charlie' 25.5-26.0 s and 'echo'
    # 45.49 + 6 = 51.49-51.99 s each once
    assert [(r["words"], r["start_time"], r["end_time"], r["chunk"]) for r in rows] == [
        ("alpha", 21.0, 21.4, 0), ("charlie", 25.5, 26.0, 1), ("echo", 51.49, 51.99, 2)]
