"""``transcripts score --run RUN``: a run of 3 samples, 2 systems and 3 tracks scored in one
command, every row a ``score:`` lineage artefact that walks back to the input audio.

The systems are two shell one-liners (the command adapter), so the run costs a few
process starts: ``segs`` writes an STM with speakers (and fails on sample ``c``),
``words`` a CTM (one timed word a line, so its run keeps word times). Their answers do
not depend on the audio, which makes every number below worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from run_fixtures import cli

from speecheval.core.errors import InputError
from speecheval.transcripts import lineage
from speecheval.transcripts.run.manifest import load_run_manifest
from speecheval.transcripts.score.from_run import _check_samples

TRACKS = ("production_complete_file", "production_complete_file/chunked",
          "native_whole_context")
SAMPLES = ("a", "b", "c")
REFERENCE = "{s} 1 alice 0.000 1.000 hello there\n{s} 1 bob 1.000 2.000 good morning\n"
SEGS = "@ 1 S1 0.000 1.000 hello their\n@ 1 S1 1.000 1.500 good\n@ 1 S2 1.500 2.000 morning\n"
WORDS = "@ 1 0.00 0.40 hello\n@ 1 0.40 0.50 there\n@ 1 1.00 0.50 good\n@ 1 1.50 0.40 morning\n"


def _system(answer: str, fail_on: str = "-") -> list[str]:
    script = f'test "$3" != {fail_on} || exit 1; sed "s/@/$3/" {answer} > "$2"'
    return ["sh", "-c", script, "sh", "{input}", "{output}", "{sample}"]


def _manifest(folder: Path, reference_of_b: bool = True, kind_of_b: str = "speech") -> Path:
    samples = []
    for name in SAMPLES:
        sample = {"id": name, "audio": f"{name}.wav", "scenario": "meeting", "source": name,
                  "kind": kind_of_b if name == "b" else "speech"}
        if name != "b" or reference_of_b:
            sample["reference"] = {"transcript": f"ref/{name}.stm"}
        samples.append(sample)
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({
        "format": "speecheval.transcripts.run-manifest/1",
        "scenarios": {"meeting": {"unit": "word"}},
        "systems": {
            "segs": {"adapter": "command", "command": _system("segs.stm", "c"),
                     "output_suffix": ".stm", "version": "segs 1", "native_context_s": 30},
            "words": {"adapter": "command", "command": _system("words.ctm"),
                      "output_suffix": ".ctm", "version": "words 1"}},
        "samples": samples}))
    return manifest


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("score-run")
    (folder / "ref").mkdir()
    tone = (0.3 * np.sin(np.arange(32_000) * 2 * np.pi * 440 / 16_000)).astype(np.float32)
    for name in SAMPLES:
        sf.write(str(folder / f"{name}.wav"), tone, 16_000, subtype="PCM_16")  # 2 s
        (folder / "ref" / f"{name}.stm").write_text(REFERENCE.format(s=name))
    (folder / "segs.stm").write_text(SEGS)
    (folder / "words.ctm").write_text(WORDS)
    manifest = _manifest(folder)
    track_args = [part for track in TRACKS for part in ("--track", track)]
    assert cli("run", "--manifest", manifest, "--system", "segs", "--system", "words",
               *track_args, "--out", folder / "run") == 3  # 3: segs fails on c, as asked
    assert cli("score", "--run", folder / "run") == 0
    return folder / "run"


def _scores(run: Path) -> tuple[Path, list[dict]]:
    (folder,) = (run / "derived" / "score").iterdir()
    return folder, [json.loads(line) for line in (folder / "scores.jsonl").open()]


def test_one_report_of_every_track_and_system_with_hand_worked_numbers(run: Path) -> None:
    folder, rows = _scores(run)
    # segs on 3 tracks and words on 2 (it declares no native context: unsupported there),
    # 3 samples each, one repeat
    assert len(rows) == 3 * 3 + 2 * 3
    by = {(r["track"], r["system"], r["sample"]): r for r in rows}
    for track in TRACKS:
        ok = by[(track, "segs", "a")]
        # WER: "hello their good morning" vs "hello there good morning": 1 sub / 4 words.
        # cpWER: alice-S1 "hello there" vs "hello their good" (1 sub + 1 ins), bob-S2
        # "good morning" vs "morning" (1 del): 3 / 4. WDER: 4 aligned words, S1->alice,
        # S2->bob, "good" said by bob given to S1: 1 / 4. DER (collar +-0.25 s around 0, 1,
        # 2 s): scored 0.25-0.75 and 1.25-1.75 (1.0 s); 1.25-1.5 is bob's time given to
        # S1 (mapped to alice): confusion 0.25 / 1.0.
        assert (ok["rate"], ok["cp"], ok["wder"], ok["der"]) == (0.25, 0.75, 0.25, 0.25)
        assert ok["transcript"] == f"transcript:segs/{track.replace('/', '.')}/a/r1@seglst/1"
        assert ok["words"] is None and by[(track, "segs", "b")]["rate"] == 0.25
        failed = by[(track, "segs", "c")]
        assert failed["failed"] and failed["rate"] == 1.0 and failed["transcript"] is None
    for track in TRACKS[:2]:
        for sample in SAMPLES:
            row = by[(track, "words", sample)]
            assert (row["rate"], row["cp"], row["der"]) == (0.0, None, None)
            assert row["words"] == (f"words:words/{track.replace('/', '.')}/{sample}/r1"
                                    "@seglst-words/1")
    report = (folder / "report.md").read_text()
    assert [line for line in report.splitlines() if line.startswith("## ")] == [
        *(f"## Track {t}" for t in TRACKS), "## Not scored"]
    assert "| segs | a | 1 | WER | 25.00% | 75.00% | 25.00% | 25.00% | no |" in report
    assert "- native_whole_context words: every job is unsupported on this track" in report


def test_every_row_is_a_lineage_artefact_back_to_the_audio(run: Path) -> None:
    folder, rows = _scores(run)
    records = lineage.read_records(run)
    for row in rows:
        found = lineage.chain(records, row["artefact"])
        score, parent = found[0], found[1]
        assert score["kind"] == "score" and score["normalizer_version"] == \
            "nfkc-casefold-nopunct/1" and score["scorer_version"] == "transcripts-score-1"
        assert parent["id"] == (row["transcript"] or
                                row["artefact"].replace("score:", "raw:").rsplit("@", 1)[0])
        assert found[-1]["id"] == f"input:{row['sample']}"
        assert score["input_sha256"] == found[-1]["sha256"]
        path, _, line = score["path"].partition("#")
        scored = json.loads((run / path).read_text().splitlines()[int(line) - 1])
        assert (scored["sample_id"], scored["repeat"]) == (row["sample"], row["repeat"])
        assert scored["text"]["wer"] == row["rate"]


def test_word_times_reach_the_token_protocol_and_moss_reads_seglst(run: Path) -> None:
    folder, _ = _scores(run)
    words = [json.loads(line) for line in
             (folder / "production_complete_file" / "words" / "samples.jsonl").open()]
    segs = [json.loads(line) for line in
            (folder / "production_complete_file" / "segs" / "samples.jsonl").open()]
    # the CTM system's word-level transcript makes the main (token) protocol apply; the
    # STM system has segment times only (c failed: no timestamps)
    assert {r["timestamps"]["granularity"] for r in words} == {"token"}
    assert [r["timestamps"] and r["timestamps"]["granularity"] for r in segs] == [
        "segment", "segment", None]
    moss = json.loads((folder / "production_complete_file" / "segs" /
                       "parity_moss.json").read_text())["runs"][0]
    # cleaned: "hellotheregoodmorning" (21 chars) vs "hellotheirgoodmorning": "re" ->
    # "ir" is 2 substitutions. cpCER pairs alice-S1, "hellothere" vs "hellotheirgood"
    # ("re" vs "irgood": only the r can match, so e is one substitution and four
    # characters are inserted: 5) and bob-S2, "goodmorning" vs "morning" (4 deletions): 9
    assert (moss["cer"]["errors"], moss["cer"]["length"]) == (2, 21)
    assert (moss["cpcer"]["errors"], moss["cpcer"]["length"]) == (9, 21)
    table = (folder / "production_complete_file" / "segs" / "scenarios.md").read_text()
    assert "| meeting | WDER | 2 | 0 | 25.00% | 25.00% |" in table  # c failed: left out


def test_scoring_again_finds_the_folder_and_appends_nothing(run: Path) -> None:
    before = (run / lineage.LINEAGE_FILE).read_bytes()
    assert cli("score", "--run", run) == 0
    assert (run / lineage.LINEAGE_FILE).read_bytes() == before
    assert len(list((run / "derived" / "score").iterdir())) == 1


@pytest.mark.parametrize("args, message", [
    (["--track", "no-such-track"], "--track no-such-track: not a track of this run"),
    (["--track", "gold_diagnostic_window"], "not a track of this run"),
])
def test_bad_tracks_exit_2_writing_nothing(run: Path, args: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    before = (run / lineage.LINEAGE_FILE).read_bytes()
    assert cli("score", "--run", run, *args) == 2
    assert message in capsys.readouterr().err
    assert (run / lineage.LINEAGE_FILE).read_bytes() == before
    assert len(list((run / "derived" / "score").iterdir())) == 1


def test_a_missing_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("score", "--run", tmp_path / "nothing") == 2
    assert "no such run directory" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()


def test_a_sample_without_reference_is_named(run: Path, tmp_path: Path) -> None:
    (tmp_path / "ref").mkdir()
    for name in SAMPLES:
        (tmp_path / f"{name}.wav").write_bytes(b"")
        (tmp_path / "ref" / f"{name}.stm").write_text(REFERENCE.format(s=name))
    manifest = load_run_manifest(_manifest(tmp_path, reference_of_b=False))
    with pytest.raises(InputError, match="has no reference transcript") as error:
        _check_samples(manifest, SAMPLES)
    assert error.value.sample_id == "b"
    manifest = load_run_manifest(_manifest(tmp_path, kind_of_b="silence"))
    with pytest.raises(InputError, match="a silence sample with a reference") as error:
        _check_samples(manifest, SAMPLES)
    assert error.value.sample_id == "b"
    _check_samples(load_run_manifest(_manifest(tmp_path, reference_of_b=False,
                                               kind_of_b="silence")), SAMPLES)
