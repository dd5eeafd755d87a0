"""The public API of speecheval.transcripts: in-memory inputs score as the same files do,
results add up into corpus values, bad items are named by index, and the commands go
through the same functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import speecheval
from speecheval import transcripts
from speecheval.cli import app
from speecheval.core.errors import InputError
from speecheval.core.results import from_dict
from speecheval.transcripts import api
from speecheval.transcripts.diarization.result import DiarizationScore, DiarizationUnsupported
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.cp import CpResult
from speecheval.transcripts.text.orc import OrcResult

SRC = Path(__file__).resolve().parents[2] / "src"

REF_STM = ("mtg 1 alice 0.0 3.0 good morning everyone\n"
           "mtg 1 bob 3.0 5.0 hello alice\n"
           "mtg 1 alice 5.0 8.0 shall we start\n")
HYP_STM = ("mtg 1 s1 0.0 3.0 good morning every one\n"
           "mtg 1 s2 3.0 5.0 hello alice\n"
           "mtg 1 s2 5.0 8.0 shall we start\n")


def _seglst(stm: str) -> list[dict[str, object]]:
    rows = []
    for line in stm.splitlines():
        session, _channel, speaker, start, end, words = line.split(maxsplit=5)
        rows.append({"session_id": session, "speaker": speaker, "start_time": float(start),
                     "end_time": float(end), "words": words})
    return rows


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def stm_pair(tmp_path: Path) -> tuple[Path, Path]:
    return _written(tmp_path / "ref.stm", REF_STM), _written(tmp_path / "hyp.stm", HYP_STM)


def test_every_public_name_is_listed_and_importing_is_cheap() -> None:
    assert sorted(transcripts.__all__) == ["UnsupportedHypothesis", "cp", "der", "der_by_file",
                                           "load", "orc", "tcp", "wer"]
    assert all(callable(getattr(transcripts, name)) for name in transcripts.__all__)
    assert speecheval.__all__ == ["__version__"] and speecheval.__version__ == "0.2.0"
    code = ("import json, sys, speecheval, speecheval.transcripts, speecheval.vad\n"
            "print(json.dumps([m for m in ('numpy', 'scipy', 'rapidfuzz', 'onnxruntime', "
            "'soundfile', 'click') if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert json.loads(done.stdout) == []


def test_wer_by_position_by_id_and_as_one_text() -> None:
    by_position = transcripts.wer(["the cat sat", "hello"], ["the cat sat down", "hello"])
    assert by_position == ErrorCounts(0, 0, 1, 4, 5)
    assert transcripts.wer({"b": "hello", "a": "the cat sat"},
                           {"a": "the cat sat down", "b": "hello"}) == by_position
    assert transcripts.wer("Hello, World!", "hello word", unit="char").errors == 1
    parts = [transcripts.wer("the cat sat", "the cat sat down"), transcripts.wer("hi", "")]
    assert sum(parts) == transcripts.wer(["the cat sat", "hi"], ["the cat sat down", ""])


@pytest.mark.parametrize(("refs", "hyps", "message"), [
    (["a", "b"], ["a"], r"^hypothesis: utterance ids differ from those of the reference: "
                        r"missing in the hypothesis \(1\): '1'$"),
    (["a", 3], ["a", "b"], r"^reference: item 1: expected a string, got int$"),
    ({"x": "a"}, {"x": None}, r"^hypothesis: id 'x': expected a string, got NoneType$"),
    (5, "a", r"^reference: expected a string, a list of strings or a dict"),
])
def test_wer_names_the_bad_item(refs: object, hyps: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        transcripts.wer(refs, hyps)  # type: ignore[arg-type]


def test_wer_refuses_an_unknown_unit() -> None:
    with pytest.raises(InputError, match=r"unit must be one of word, char, mixed"):
        transcripts.wer("a", "a", unit="phone")  # type: ignore[arg-type]


def test_cp_of_dicts_is_cp_of_the_same_file(stm_pair: tuple[Path, Path]) -> None:
    from_files = transcripts.cp(*stm_pair)
    in_memory = transcripts.cp(_seglst(REF_STM), _seglst(HYP_STM))
    assert isinstance(from_files, CpResult) and in_memory == from_files
    # alice "good morning everyone shall we start" with s1 "good morning every one" (2 sub,
    # 2 del) and bob with s2 "hello alice shall we start" (3 ins), or the other pairing
    # (3 + 4): 7 errors either way, over 8 reference words
    assert from_files.counts.reference_tokens == 8 and from_files.counts.errors == 7
    assert from_files.error_rate == 7 / 8
    assert CpResult.from_dict(from_files.to_dict()) == from_files


def test_cp_sums_over_sessions() -> None:
    one = [{"session_id": "a", "speaker": "A", "words": "one two three"}]
    two = [{"session_id": "b", "speaker": "B", "words": "four five"}]
    hyp_one = [{"session_id": "a", "speaker": "x", "words": "one two tree"}]
    hyp_two = [{"session_id": "b", "speaker": "y", "words": "four"}]
    together = transcripts.cp(one + two, hyp_one + hyp_two)
    assert sum([transcripts.cp(one, hyp_one), transcripts.cp(two, hyp_two)]) == together
    assert (together.counts.errors, together.counts.reference_tokens) == (2, 5)


def test_cp_without_hypothesis_speakers_is_unsupported_not_zero() -> None:
    ref = [{"session_id": "s", "speaker": "A", "words": "hi"}]
    with pytest.raises(transcripts.UnsupportedHypothesis,
                       match="^hypothesis: hypothesis has no speaker attribution$"):
        transcripts.cp(ref, [{"session_id": "s", "words": "hi"}])


@pytest.mark.parametrize(("hyp", "message"), [
    ([{"session_id": "s", "speaker": "A"}], r"^hypothesis: segment 0: missing key 'words'$"),
    ([{"session_id": "s", "words": "a"}, ("A", "b")],
     r"^hypothesis: item 1: expected a Segment or a SegLST-like dict"),
    ([{"session_id": "s", "words": "a", "start_time": 2, "end_time": 1}],
     r"^hypothesis: segment 0: end time 1.0 is before start time 2.0$"),
    ({"session_id": "s"}, r"^hypothesis: expected a path, a transcript document"),
    ([{"session_id": "t", "speaker": "A", "words": "a"}],
     r"^hypothesis: session ids differ from those of the reference: missing in the "
     r"hypothesis \(1\): 's'; missing in the reference \(1\): 't'$"),
])
def test_cp_names_the_bad_item(hyp: object, message: str) -> None:
    ref = [{"session_id": "s", "speaker": "A", "words": "a"}]
    with pytest.raises(InputError, match=message):
        transcripts.cp(ref, hyp)  # type: ignore[arg-type]


def test_orc_is_summable_and_round_trips() -> None:
    ref = [{"session_id": "s", "words": "hi"}, {"session_id": "s", "words": "bye now"}]
    hyp = [{"session_id": "s", "speaker": "x", "words": "hi"},
           {"session_id": "s", "speaker": "y", "words": "bye"}]
    result = transcripts.orc(ref, hyp)
    assert isinstance(result, OrcResult)
    assert (result.counts.errors, result.assignment) == (1, ("x", "y"))
    assert from_dict(result.to_dict()) == result
    doubled = sum([result, result])
    assert doubled.counts.errors == 2 and doubled.assignment == ("x", "y", "x", "y")


def test_tcp_pairs_only_words_close_in_time(stm_pair: tuple[Path, Path]) -> None:
    ref = _seglst(REF_STM)
    near = transcripts.tcp(ref, _seglst(HYP_STM), collar=1)
    assert near == transcripts.tcp(*stm_pair, collar=1)
    far = [{**row, "start_time": 100.0, "end_time": 101.0} for row in _seglst(HYP_STM)]
    apart = transcripts.tcp(ref, far, collar=1)
    assert apart.counts.errors == apart.counts.reference_tokens + apart.counts.hypothesis_tokens
    with pytest.raises(InputError, match=r"^reference: segment without times in session 'mtg'"):
        transcripts.tcp([{"session_id": "mtg", "speaker": "A", "words": "a"}], far, collar=1)


def test_uem_keeps_the_segments_touching_it(stm_pair: tuple[Path, Path], tmp_path: Path) -> None:
    uem = tmp_path / "a.uem"
    uem.write_text("mtg 1 0.0 2.0\n")
    only_first = transcripts.cp(*stm_pair, uem=uem)
    assert only_first == transcripts.cp(_seglst(REF_STM)[:1], _seglst(HYP_STM)[:1])
    assert transcripts.cp(*stm_pair, uem=UEM.load(uem)) == only_first


TURNS_REF = [("a", 0.0, 5.0, "A"), ("a", 5.0, 10.0, "B"), ("b", 0.0, 4.0, "C")]
TURNS_HYP = [("a", 0.0, 6.0, "s1"), ("a", 6.0, 10.0, "s2"), ("b", 0.0, 3.0, "s3")]


def _rttm(turns: list[tuple[str, float, float, str]], path: Path) -> Path:
    path.write_text("".join(f"SPEAKER {f} 1 {s} {e - s} <NA> <NA> {who} <NA> <NA>\n"
                            for f, s, e, who in turns))
    return path


def test_der_of_tuples_is_der_of_the_same_rttm(tmp_path: Path) -> None:
    ref, hyp = _rttm(TURNS_REF, tmp_path / "r.rttm"), _rttm(TURNS_HYP, tmp_path / "h.rttm")
    in_memory = transcripts.der(TURNS_REF, TURNS_HYP)
    assert isinstance(in_memory, DiarizationScore)
    assert in_memory == transcripts.der(ref, hyp) == transcripts.der(RTTM.load(ref), hyp)
    by_file = transcripts.der_by_file(TURNS_REF, TURNS_HYP, collar=0)
    assert isinstance(by_file, dict) and sorted(by_file) == ["a", "b"]
    # a: 1 s of confusion in 10 s; b: 1 s missed in 4 s; together 2 / 14
    assert by_file["a"].overlap_included.der == pytest.approx(0.1)
    assert by_file["b"].overlap_included.der == pytest.approx(0.25)
    assert sum(by_file.values()).overlap_included.der == pytest.approx(2 / 14)
    assert DiarizationScore.from_dict(in_memory.to_dict()) == in_memory


def test_der_regions_as_one_pair_or_per_file() -> None:
    one = [(0.0, 5.0, "A"), (5.0, 10.0, "B")]
    hyp = [(0.0, 10.0, "x")]
    assert transcripts.der(one, hyp, collar=0, uem=(0.0, 5.0)).overlap_included.der == 0.0
    per_file = transcripts.der(one, hyp, collar=0, uem={"file": (0.0, 10.0)})
    assert per_file.overlap_included.der == pytest.approx(0.5)
    assert per_file == transcripts.der(one, hyp, collar=0)


def test_der_without_speakers_is_unsupported() -> None:
    result = transcripts.der([(0.0, 1.0, "A")], [(0.0, 1.0, "<NA>")])
    assert isinstance(result, DiarizationUnsupported) and result.der is None


@pytest.mark.parametrize(("hyp", "options", "message"), [
    ([(0.0, 1.0)], {}, r"^hypothesis: item 0: expected \(start, end, speaker\)"),
    ([(0.0, 1.0, "x"), (-1.0, 1.0, "y")], {}, r"^hypothesis: item 1: negative start -1.0$"),
    ([(0.0, "1", "x")], {}, r"^hypothesis: item 0: the end must be a number of seconds"),
    ([(0.0, float("nan"), "x")], {}, r"^hypothesis: item 0: the end is not finite"),
    ([(0.0, 1.0, "two words")], {}, r"^hypothesis: item 0: the speaker must be a non-empty"),
    ([("g", 0.0, 1.0, "x")], {}, r"^hypothesis: file ids differ from those of the reference"),
    ([(0.0, 1.0, "x")], {"collar": float("nan")}, r"^collar must be 0 or more seconds"),
    ([(0.0, 1.0, "x")], {"uem": (2.0, 1.0)}, r"^uem: file 'file': expected \(start, end\)"),
])
def test_der_names_the_bad_item(hyp: object, options: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        transcripts.der([(0.0, 1.0, "A")], hyp, **options)  # type: ignore[arg-type]


def test_load_reads_every_supported_format(tmp_path: Path) -> None:
    files = {
        "a.stm": "s 1 A 0 1 hi there\n",
        "a.ctm": "s 1 0.0 0.5 hi\n",
        "a.json": '[{"session_id": "s", "words": "hi there"}]',
        "a.srt": "1\n00:00:00,000 --> 00:00:01,000\nhi there\n",
        "a.vtt": "WEBVTT\n\n00:00.000 --> 00:01.000\nhi there\n",
        "a.rttm": "SPEAKER s 1 0 1 <NA> <NA> A <NA> <NA>\n",
        "a.uem": "s 1 0 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    loaded = {name: transcripts.load(tmp_path / name) for name in files}
    assert isinstance(loaded["a.rttm"], RTTM) and loaded["a.rttm"].file_ids() == ("s",)
    assert isinstance(loaded["a.uem"], UEM) and loaded["a.uem"].regions("s") == ((0.0, 1.0),)
    words = {name: " ".join(s.words for s in doc.segments)  # type: ignore[union-attr]
             for name, doc in loaded.items() if name not in ("a.rttm", "a.uem")}
    assert words == {"a.stm": "hi there", "a.ctm": "hi", "a.json": "hi there",
                     "a.srt": "hi there", "a.vtt": "hi there"}
    with pytest.raises(InputError, match="unknown transcript format .xyz"):
        transcripts.load(tmp_path / "a.xyz")


@pytest.mark.parametrize(("command", "function", "extra"), [
    ("cp", "cp", []), ("orc", "orc", []), ("tcp", "tcp", ["--collar", "1"]),
    ("der", "der_by_file", []), ("wer", "wer", []),
])
def test_the_commands_call_the_public_functions(command: str, function: str, extra: list[str],
                                                stm_pair: tuple[Path, Path], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """One path: each command's numbers come from the public function (called once)."""
    if command == "der":
        ref, hyp = _rttm(TURNS_REF, tmp_path / "r.rttm"), _rttm(TURNS_HYP, tmp_path / "h.rttm")
    elif command == "wer":
        ref = _written(tmp_path / "r.txt", "u1 the cat sat\n")
        hyp = _written(tmp_path / "h.txt", "u1 the cat sat down\n")
    else:
        ref, hyp = stm_pair
    calls: list[tuple[object, ...]] = []
    real = getattr(api, function)

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, function, spy)
    outcome = CliRunner().invoke(app, ["transcripts", command, "--ref", str(ref), "--hyp",
                                       str(hyp), "--json", *extra])
    assert outcome.exit_code == 0, outcome.output
    assert len(calls) == 1
    if command == "wer":
        assert json.loads(outcome.stdout)["wer"] == pytest.approx(1 / 3, abs=1e-9)
