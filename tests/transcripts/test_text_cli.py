"""``speecheval transcripts cp`` and ``wer`` end to end through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cp_json_on_meeteval_fixture(fixtures_dir: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = fixtures_dir / "meeteval-examples"
    code, out, _ = run(["transcripts", "cp", "--ref", str(folder / "ref.stm"),
                        "--hyp", str(folder / "hyp.stm"), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    # 25 / 92 = 0.271739130434... written with 9 decimals.
    assert data["cpwer"] == 0.27173913
    assert {k: data[k] for k in ("errors", "length", "insertions", "deletions",
                                 "substitutions", "missed_speakers",
                                 "false_alarm_speakers")} == {
        "errors": 25, "length": 92, "insertions": 8, "deletions": 15, "substitutions": 2,
        "missed_speakers": 0, "false_alarm_speakers": 1}


def test_cp_with_uem_and_text_line(fixtures_dir: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = fixtures_dir / "meeteval-examples"
    code, out, _ = run(["transcripts", "cp", "--ref", str(folder / "ref.stm"),
                        "--hyp", str(folder / "hyp.stm"), "--uem", str(folder / "uem.uem")],
                       capsys)
    # 25 / 61 = 40.98 %.
    assert code == 0
    assert out.startswith("%cpWER 40.98 [ 25 / 61, 8 ins, 15 del, 2 sub ]")


def test_cp_char_unit_and_determinism(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.stm"
    hyp = tmp_path / "hyp.json"
    ref.write_text("ep 1 A 0 1 你好吗\nep 1 B 1 2 我很好\n", encoding="utf-8")
    hyp.write_text(json.dumps([
        {"session_id": "ep", "speaker": "x", "start_time": 0, "end_time": 1, "words": "我很号"},
        {"session_id": "ep", "speaker": "y", "start_time": 1, "end_time": 2, "words": "你好吗"},
    ], ensure_ascii=False), encoding="utf-8")
    argv = ["transcripts", "cp", "--ref", str(ref), "--hyp", str(hyp), "--unit", "char",
            "--json"]
    code, first, _ = run(argv, capsys)
    _, second, _ = run(argv, capsys)
    assert code == 0 and first == second
    data = json.loads(first)
    # One substitution (好 -> 号) over 6 characters.
    assert (data["errors"], data["length"], data["substitutions"]) == (1, 6, 1)
    assert data["cpcer"] == pytest.approx(1 / 6, abs=1e-9)


def test_cp_without_hypothesis_speakers_is_unsupported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.stm"
    hyp = tmp_path / "hyp.json"
    ref.write_text("ep 1 A 0 1 hello\n", encoding="utf-8")
    hyp.write_text('[{"session_id": "ep", "words": "hello"}]', encoding="utf-8")
    code, out, _ = run(["transcripts", "cp", "--ref", str(ref), "--hyp", str(hyp), "--json"],
                       capsys)
    data = json.loads(out)
    assert code == 0 and data["status"] == "unsupported" and data["cpwer"] is None


@pytest.mark.parametrize(("name", "content", "message"), [
    ("ref.stm", "ep 1 A 0 one hello\n", "line 1: end time: not a number"),
    ("ref.txt", "whatever\n", "unknown transcript format"),
])
def test_cp_bad_input_exit_2_no_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       name: str, content: str, message: str) -> None:
    ref = tmp_path / name
    ref.write_text(content, encoding="utf-8")
    hyp = tmp_path / "hyp.stm"
    hyp.write_text("ep 1 A 0 1 hello\n", encoding="utf-8")
    code, out, err = run(["transcripts", "cp", "--ref", str(ref), "--hyp", str(hyp)], capsys)
    assert code == 2 and out == ""
    assert str(ref) in err and message in err


MIXED = json.dumps([
    {"session_id": "ep", "speaker": "A", "start_time": 0, "end_time": 1, "words": "hello"},
    {"session_id": "ep", "start_time": 1, "end_time": 2, "words": "there"}])
"""SegLST whose entry 0 has a speaker and entry 1 (numbered from 0, as SegLST's) none."""


@pytest.mark.parametrize("command", [["cp"], ["orc"], ["tcp", "--collar", "5"]])
@pytest.mark.parametrize("side", ["ref", "hyp"])
def test_a_file_mixing_speakers_and_none_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], side: str
) -> None:
    """cp, orc and tcp refuse a file where some segments have a speaker and some do not
    (either side): exit 2, one line naming the file and the first segment without one,
    nothing on stdout."""
    mixed, whole = tmp_path / "mixed.json", tmp_path / "whole.stm"
    mixed.write_text(MIXED, encoding="utf-8")
    whole.write_text("ep 1 A 0 1 hello\nep 1 B 1 2 there\n", encoding="utf-8")
    ref, hyp = (mixed, whole) if side == "ref" else (whole, mixed)
    code, out, err = run(["transcripts", *command, "--ref", str(ref), "--hyp", str(hyp)],
                         capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {mixed}: some segments have a speaker and some do not (entry 1)\n"


@pytest.mark.parametrize("command", [["cp"], ["orc"], ["tcp", "--collar", "5"]])
def test_the_reference_is_checked_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    """A reference mixing speakers and none beside a hypothesis with no speakers: every
    command names the reference (orc named the hypothesis, checking it first)."""
    mixed, bare = tmp_path / "mixed.json", tmp_path / "bare.json"
    mixed.write_text(MIXED, encoding="utf-8")
    bare.write_text(json.dumps([{"session_id": "ep", "start_time": 0, "end_time": 2,
                                 "words": "hello there"}]), encoding="utf-8")
    code, out, err = run(["transcripts", *command, "--ref", str(mixed), "--hyp", str(bare)],
                         capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {mixed}: some segments have a speaker and some do not (entry 1)\n"


# Kaldi text files separate the id with a space or a tab (unfixed: with a tab the id ran
# to the first space, "u1<TAB>the", so no hypothesis id matched a reference one)
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_wer_kaldi_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], sep: str) -> None:
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text(f"u1{sep}the cat sat\nu2{sep}on the mat\n", encoding="utf-8")
    hyp.write_text(f"u1{sep}The cat, sat!\nu2{sep}\n", encoding="utf-8")
    code, out, _ = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp), "--json"],
                       capsys)
    data = json.loads(out)
    # u1 matches after normalisation; u2 has no words -> 3 deletions. WER = 3 / 6.
    assert code == 0
    assert (data["wer"], data["deletions"], data["length"], data["missing_hypotheses"]) == (
        0.5, 3, 6, 0)


def test_wer_mixed_whole_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("我们用Python写代码", encoding="utf-8")
    hyp.write_text("我们用 python 写袋码", encoding="utf-8")
    code, out, _ = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp),
                        "--unit", "mixed", "--whole-file"], capsys)
    # MER tokens: 我 们 用 python 写 代 码 (7); 代 -> 袋: 1 / 7 = 14.29 %.
    assert code == 0
    assert out.strip() == "%MER 14.29 [ 1 / 7, 0 ins, 0 del, 1 sub ]"


def test_wer_hypothesis_id_without_reference(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("u1 a\n", encoding="utf-8")
    hyp.write_text("u1 a\nu9 b\n", encoding="utf-8")
    code, out, err = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp)], capsys)
    assert code == 2 and out == ""
    assert err == (f"error: {hyp}: utterance ids differ from those of the reference {ref}: "
                   "missing in the reference (1): 'u9' (--partial scores only the ids both "
                   "name)\n")


@pytest.mark.parametrize("uem", [False, True])
def test_tcp_refuses_a_reference_without_speakers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], uem: bool) -> None:
    """tcpWER pairs reference and hypothesis speakers: a reference with none is refused,
    also when a UEM leaves none of its segments (it was let through then: the check ran
    on what the UEM kept)."""
    bare, named = tmp_path / "bare.json", tmp_path / "named.stm"
    bare.write_text(json.dumps([{"session_id": "ep", "start_time": 0, "end_time": 2,
                                 "words": "hello there"}]), encoding="utf-8")
    named.write_text("ep 1 A 0 2 hello there\n", encoding="utf-8")
    (tmp_path / "late.uem").write_text("ep 1 50.0 60.0\n", encoding="utf-8")
    code, out, err = run(["transcripts", "tcp", "--collar", "5", "--ref", str(bare), "--hyp",
                          str(named)] + (["--uem", str(tmp_path / "late.uem")] if uem else []),
                         capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {bare}: the reference has no speaker labels; tcpWER pairs speakers\n"
