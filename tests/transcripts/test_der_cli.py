"""``speecheval transcripts der``: JSON keys, table, default UEM, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from speecheval.cli import main

REF = """\
SPEAKER a 1 0 4 <NA> <NA> A <NA> <NA>
SPEAKER a 1 3 3 <NA> <NA> B <NA> <NA>
SPEAKER b 1 0 10 <NA> <NA> A <NA> <NA>
"""
HYP = """\
SPEAKER a 1 0 3.5 <NA> <NA> X <NA> <NA>
SPEAKER a 1 3.5 2.5 <NA> <NA> Y <NA> <NA>
SPEAKER b 1 2 10 <NA> <NA> X <NA> <NA>
"""


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text(REF)
    hyp.write_text(HYP)
    return ref, hyp


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["transcripts", "der", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_total_and_per_file(pair: tuple[Path, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0", "--json"],
                       capsys)
    assert code == 0
    data = json.loads(out)
    # Default UEM: a [0,6], b [0,12]. a: scored 7, missed 1 (two reference speakers over
    # [3,4], one system speaker). b: A [0,10] vs X [2,12]: missed 2, false alarm 2.
    # Total: scored 17, errors 5 -> DER 5/17.
    assert (data["scored"], data["missed"], data["false_alarm"], data["confusion"]) == (
        17.0, 3.0, 2.0, 0.0)
    assert data["der"] == round(5 / 17, 9)
    assert data["files"]["a"]["der"] == round(1 / 7, 9)
    assert data["files"]["b"]["der"] == 0.4
    assert data["overlap_only"]["scored"] == 2.0 and data["overlap_only"]["missed"] == 1.0
    assert data["overlap_excluded"]["scored"] == 15.0
    assert data["regions"] == "all" and data["collar"] == 0.0
    assert data["uem"].startswith("default: [0, last turn end")
    assert data["speaker_count"]["reference_speakers"] == 3
    assert data["jer_definition"].startswith("dscore")
    assert "lattifai_parity" not in data
    # Same inputs, same bytes.
    assert run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0", "--json"],
               capsys)[1] == out


def test_exclude_overlap_and_parity_track(pair: tuple[Path, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    uem = tmp_path / "x.uem"
    uem.write_text("a 1 0 6\nb 1 0 12\n")
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem),
                        "--exclude-overlap", "--lattifai-parity", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["regions"] == "exclude_overlap"
    assert data["der"] == data["overlap_excluded"]["der"]
    assert data["collar"] == 0.25 and data["uem"] == str(uem)
    parity = data["lattifai_parity"]
    assert parity["track"] == "lattifai_parity" and parity["collar"] == 0.1
    # the number is +-seconds; the words say so, with pyannote.metrics' total width beside
    assert data["collar_plus_minus"] == "+-0.25 s (pyannote.metrics collar=0.5)"
    assert parity["collar_plus_minus"] == "+-0.1 s (pyannote.metrics collar=0.2)"
    assert data["track"] == "main"


def test_table_output(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0",
                        "--lattifai-parity"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("DER main protocol (speecheval definition): collar +-0 s "
                               "(pyannote.metrics collar=0), overlap included")
    total = next(line for line in lines if line.startswith("TOTAL"))
    assert total.split()[1:6] == ["17.000", "3.000", "2.000", "0.000", "29.41%"]
    assert ("LattifAI parity track (separate): collar +-0.1 s (pyannote.metrics "
            "collar=0.2), overlap included") in lines


def token_ends(line: str) -> list[int]:
    """The column just after each whitespace-separated token of ``line``."""
    return [match.end() for match in re.finditer(r"\S+", line)]


def test_table_stays_aligned_with_seven_digit_times(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 10 item 23: a 7-digit scored time (2 000 000 s) and a long file id used to push
    # the columns of their rows out of line. Every number must end where its column name
    # ends (right-aligned), and every row must be as long as the header.
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text("SPEAKER a-rather-long-recording-name-2024 1 0 2000000 <NA> <NA> A <NA> "
                   "<NA>\nSPEAKER b 1 0 4 <NA> <NA> A <NA> <NA>\n")
    hyp.write_text("SPEAKER a-rather-long-recording-name-2024 1 0 1999999.5 <NA> <NA> X <NA> "
                   "<NA>\nSPEAKER b 1 0 4 <NA> <NA> X <NA> <NA>\n")
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0"], capsys)
    assert code == 0
    lines = out.splitlines()
    header, rule, rows = lines[1], lines[2], lines[3:6]
    assert header.split() == ["file", "scored_s", "missed_s", "fa_s", "conf_s", "DER", "JER",
                              "spk", "ref/sys"]
    assert set(rule) == {"-"} and len(rule) == len(header)
    assert [row.split()[0] for row in rows] == ["a-rather-long-recording-name-2024", "b",
                                                "TOTAL"]
    assert rows[0].split()[1] == "2000000.000" and rows[2].split()[1] == "2000004.000"
    # header token ends: file | scored_s missed_s fa_s conf_s DER JER | spk | ref/sys
    number_ends = token_ends(header)[1:7] + token_ends(header)[8:]
    for row in rows:
        assert len(row) == len(header), (row, header)
        assert token_ends(row)[1:] == number_ends, (row, header)


def test_unsupported_system(pair: tuple[Path, Path], tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = pair
    hyp = tmp_path / "nospk.rttm"
    # both files named, as the reference does: a file on one side only is refused
    hyp.write_text("SPEAKER a 1 0 4 <NA> <NA> <NA> <NA> <NA>\n"
                   "SPEAKER b 1 0 4 <NA> <NA> <NA> <NA> <NA>\n")
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "unsupported" and data["der"] is None and data["jer"] is None


def test_bad_line_is_exit_2_with_file_and_line(pair: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    ref, _ = pair
    hyp = tmp_path / "bad.rttm"
    hyp.write_text("SPEAKER a 1 0 4 <NA> <NA> X <NA> <NA>\nSPEAKER a 1 x 1 <NA> <NA> X <NA>\n")
    code, out, err = run(["--ref", str(ref), "--hyp", str(hyp), "--json"], capsys)
    assert code == 2
    assert out == ""
    assert f"{hyp}: line 2: bad onset" in err


def test_file_missing_from_uem_is_exit_2(pair: tuple[Path, Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    uem = tmp_path / "a_only.uem"
    uem.write_text("a 1 0 6\n")
    code, out, err = run(["--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem)], capsys)
    assert code == 2 and out == ""
    assert "file 'b' has no scoring region" in err


def test_negative_collar_is_usage_error(pair: tuple[Path, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "-1"], capsys)
    assert code == 2 and out == ""


def test_duration_sets_the_scoring_region_and_counts_cut_turns(
        pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0",
                        "--duration", "5", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    # Region [0, 5] for both files (default would be a [0, 6], b [0, 12]).
    # a: A 0-4, B 3-5 (cut) against X 0-3.5, Y 3.5-5 (cut); mapping A-X (3.5 s), B-Y
    # (1.5 s). Reference speech 4 + 2 = 6 s; [3, 4] has two speakers and one system
    # speaker: 1 s missed. b: A 0-5 against X 2-5: 2 s missed, 5 s scored.
    # Total: scored 11, missed 3 -> DER 3/11.
    assert (data["scored"], data["missed"], data["false_alarm"], data["confusion"]) == (
        11.0, 3.0, 0.0, 0.0)
    assert data["der"] == round(3 / 11, 9)
    assert data["uem"] == "[0, 5] per file from --duration"
    # Cut at 5 s: reference B 3-6 (1 s) and A 0-10 (5 s); system Y 3.5-6 (1 s) and
    # X 2-12 (7 s).
    assert data["clipped_turns"] == {"reference": {"turns": 2, "seconds": 6.0},
                                     "system": {"turns": 2, "seconds": 8.0}}
    # The table says so too.
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--duration", "5"], capsys)
    assert "turns cut at the scoring region end: reference 2 (6 s), system 2 (8 s)" in out


def test_per_file_durations_and_their_errors(pair: tuple[Path, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    # a=6, b=12 are the last turn ends, so the result is the default's: scored 17, DER
    # 5/17 (see test_json_total_and_per_file), and nothing is cut.
    code, out, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--collar", "0",
                        "--duration", "a=6", "--duration", "b=12", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["scored"] == 17.0 and data["der"] == round(5 / 17, 9)
    assert data["uem"] == "[0, duration] per file from --duration"
    assert data["clipped_turns"]["reference"] == {"turns": 0, "seconds": 0.0}
    code, out, err = run(["--ref", str(ref), "--hyp", str(hyp), "--duration", "a=6"], capsys)
    assert code == 2 and out == "" and "no duration for file 'b'" in err
    code, out, err = run(["--ref", str(ref), "--hyp", str(hyp), "--duration", "-3"], capsys)
    assert code == 2 and "seconds must be a finite number > 0" in err
    uem = tmp_path / "x.uem"
    uem.write_text("a 1 0 6\nb 1 0 12\n")
    code, out, err = run(["--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem),
                          "--duration", "5"], capsys)
    assert code == 2 and "either --uem or --duration" in err


def test_malloc_settings_are_asked_for_before_the_files_are_read(
        pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the files are read (and large ones scored) in threads: the arena setting must come
    # before the first thread allocates, so before the first file is read, and the kept
    # memory before the first large array (the file's bytes)
    import speecheval.core.malloc_arena as malloc_arena
    from speecheval.transcripts.formats.rttm import RTTM

    calls: list[str] = []
    load = RTTM.load.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(malloc_arena, "share_one_arena", lambda: calls.append("arena") or True)
    monkeypatch.setattr(malloc_arena, "keep_freed_memory", lambda: calls.append("kept") or True)
    monkeypatch.setattr(RTTM, "load", classmethod(
        lambda cls, path: calls.append("load") or load(cls, path)))
    ref, hyp = pair
    code, _, _ = run(["--ref", str(ref), "--hyp", str(hyp), "--json"], capsys)
    assert code == 0
    assert calls == ["arena", "kept", "load", "load"]
