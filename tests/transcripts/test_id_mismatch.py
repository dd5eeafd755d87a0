"""Ids named on one side only: refused by every scoring command, or scored in common with
``--partial`` (``speecheval.transcripts.id_match``).

Unfixed, a session, file or utterance id that only one side names was scored as all
deletions (missed speech) on one side and all insertions (false alarms) on the other:
the example's system files named their session ``standup`` where the reference names
``en-standup``, and ``cp`` printed cpWER 207.69 % (27 / 13: the 13 reference words
deleted and the 14 system words inserted) instead of 23.08 %, with exit 0.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.transcripts import formats
from speecheval.transcripts.formats.document import SessionTaggedDocument
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.text.normalize import normalize

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "transcripts"
REF_STM = EXAMPLE / "ref" / "en-standup.stm"
HYP_JSON = EXAMPLE / "hyp" / "en-standup.json"

# The example's en-standup after normalisation (NFKC, case folding, punctuation removed):
#   alice: good morning team kubernetes is up | thanks bob  (8 words)
#   bob:   great i deployed 3 pods                          (5 words)
#   S1:    good morning team cooper nettie is up | thanks bob
#   S2:    great i deployed three pods
# alice -> S1: kubernetes -> cooper (1 sub) + nettie (1 ins); bob -> S2: 3 -> three (1 sub).
# 3 errors / 13 reference words = 23.08 % (cpWER, ORC-WER and tcpWER alike: every word
# pairs within tcp's 5 s collar).
STANDUP_COUNTS = {"errors": 3, "length": 13, "insertions": 1, "deletions": 0,
                  "substitutions": 2}
PARTIAL_SESSIONS = ("--partial: scored 1 session id named on both sides; left out: missing "
                    "in the hypothesis (1): 'only-ref'; missing in the reference (1): "
                    "'only-hyp'")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def refusal(kind: str, ref: Path, hyp: Path, missing: str) -> str:
    return (f"error: {hyp}: {kind} ids differ from those of the reference {ref}: {missing} "
            "(--partial scores only the ids both name)\n")


@pytest.fixture
def sessions_apart(tmp_path: Path) -> tuple[Path, Path]:
    """The example's en-standup pair, the reference with a session ``only-ref`` and the
    system with a session ``only-hyp`` besides."""
    ref, hyp = tmp_path / "ref.stm", tmp_path / "hyp.json"
    ref.write_text(REF_STM.read_text(encoding="utf-8")
                   + "only-ref 1 carol 0.00 2.00 nobody answered this\n", encoding="utf-8")
    segments = json.loads(HYP_JSON.read_text(encoding="utf-8"))
    segments.append({"session_id": "only-hyp", "speaker": "S9", "start_time": 0.0,
                     "end_time": 1.0, "words": "an answer to nothing"})
    hyp.write_text(json.dumps(segments), encoding="utf-8")
    return ref, hyp


COMMANDS = {
    "cp": ([], "%cpWER 23.08 [ 3 / 13, 1 ins, 0 del, 2 sub ] missed speakers 0, "
               "false-alarm speakers 0"),
    "orc": ([], "%ORC-WER 23.08 [ 3 / 13, 1 ins, 0 del, 2 sub ]"),
    "tcp": (["--collar", "5"], "%tcpWER 23.08 [ 3 / 13, 1 ins, 0 del, 2 sub ] missed speakers "
                               "0, false-alarm speakers 0"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_sessions_on_one_side_are_refused(command: str, sessions_apart: tuple[Path, Path],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = sessions_apart
    extra, _ = COMMANDS[command]
    code, out, err = run(["transcripts", command, "--ref", str(ref), "--hyp", str(hyp),
                          *extra], capsys)
    assert (code, out) == (2, "")
    assert err == refusal("session", ref, hyp, "missing in the hypothesis (1): 'only-ref'; "
                          "missing in the reference (1): 'only-hyp'")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_partial_scores_the_common_sessions(command: str, sessions_apart: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = sessions_apart
    extra, line = COMMANDS[command]
    code, out, err = run(["transcripts", command, "--ref", str(ref), "--hyp", str(hyp),
                          *extra, "--partial"], capsys)
    assert code == 0
    assert out == f"{line}\n{PARTIAL_SESSIONS}\n"
    assert err == f"warning: {PARTIAL_SESSIONS}\n"


def test_cp_partial_json_equals_meeteval(sessions_apart: tuple[Path, Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = sessions_apart
    code, out, _ = run(["transcripts", "cp", "--ref", str(ref), "--hyp", str(hyp), "--json",
                        "--partial"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["cpwer"] == 0.230769231  # 3 / 13, 9 decimals
    assert {k: data[k] for k in STANDUP_COUNTS} == STANDUP_COUNTS
    assert data["partial"] == {"kind": "session", "scored_ids": 1,
                               "missing_in_hypothesis": ["only-ref"],
                               "missing_in_reference": ["only-hyp"]}
    api = pytest.importorskip("meeteval.wer.api", reason="meeteval is a test-only dependency")
    io = pytest.importorskip("meeteval.io")

    def seglst(path: Path, keep: str | None = None) -> Any:
        return io.SegLST([{"session_id": s.session_id, "speaker": s.speaker,
                           "start_time": s.start, "end_time": s.end,
                           "words": normalize(s.words)}
                          for s in formats.load(path).segments
                          if keep is None or s.session_id == keep])

    # meeteval's partial drops sessions only the system names but scores a session only
    # the reference names as empty output, so it gets the common session's reference only
    theirs = api.cpwer(seglst(ref, keep="en-standup"), seglst(hyp), partial=True)
    assert list(theirs) == ["en-standup"]
    assert {k: getattr(theirs["en-standup"], k) for k in STANDUP_COUNTS} == STANDUP_COUNTS


def test_the_unfixed_example_is_refused(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    hyp = tmp_path / "en-standup.json"
    hyp.write_text(HYP_JSON.read_text(encoding="utf-8").replace('"en-standup"', '"standup"'),
                   encoding="utf-8")
    code, out, err = run(["transcripts", "cp", "--ref", str(REF_STM), "--hyp", str(hyp)],
                         capsys)
    assert (code, out) == (2, "")
    assert err == refusal("session", REF_STM, hyp, "missing in the hypothesis (1): "
                          "'en-standup'; missing in the reference (1): 'standup'")
    # --partial cannot help: the two sides share no session
    code, out, err = run(["transcripts", "cp", "--ref", str(REF_STM), "--hyp", str(hyp),
                          "--partial"], capsys)
    assert (code, out) == (2, "")
    assert err == (f"error: {hyp}: no session id is named by both this file and the "
                   f"reference {REF_STM} (missing in the hypothesis (1): 'en-standup'; "
                   "missing in the reference (1): 'standup'): nothing to score, even with "
                   "--partial\n")


def test_wer_refuses_utterances_on_one_side(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("u1 the cat sat\nu2 on the mat\n", encoding="utf-8")
    hyp.write_text("u1 the cat sat down\nu3 elsewhere\n", encoding="utf-8")
    code, out, err = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp)], capsys)
    # unfixed: u2 was scored as 3 deletions, so WER 4 / 6 (and u3 refused, naming only it)
    assert (code, out) == (2, "")
    assert err == refusal("utterance", ref, hyp, "missing in the hypothesis (1): 'u2'; "
                          "missing in the reference (1): 'u3'")
    code, out, err = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp),
                          "--partial"], capsys)
    left = ("--partial: scored 1 utterance id named on both sides; left out: missing in the "
            "hypothesis (1): 'u2'; missing in the reference (1): 'u3'")
    # u1 only: 'down' inserted, 1 / 3 = 33.33 %
    assert code == 0
    assert out == f"%WER 33.33 [ 1 / 3, 1 ins, 0 del, 0 sub ]\n{left}\n"
    assert err == f"warning: {left}\n"
    code, out, _ = run(["transcripts", "wer", "--ref", str(ref), "--hyp", str(hyp),
                        "--partial", "--json"], capsys)
    data = json.loads(out)
    assert (data["wer"], data["utterances"], data["missing_hypotheses"]) == (0.333333333, 1, 1)
    assert data["partial"] == {"kind": "utterance", "scored_ids": 1,
                               "missing_in_hypothesis": ["u2"], "missing_in_reference": ["u3"]}


REF_RTTM = EXAMPLE / "ref" / "en-standup.rttm"
HYP_RTTM = EXAMPLE / "hyp" / "en-standup.rttm"


@pytest.fixture
def files_apart(tmp_path: Path) -> tuple[Path, Path]:
    """The example's en-standup RTTM pair with a file on each side only."""
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text(REF_RTTM.read_text() + "SPEAKER only-ref 1 0 5 <NA> <NA> A <NA> <NA>\n")
    hyp.write_text("SPEAKER only-hyp 1 0 5 <NA> <NA> X <NA> <NA>\n" + HYP_RTTM.read_text())
    return ref, hyp


def test_der_refuses_a_renamed_file(tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    hyp = tmp_path / "hyp.rttm"
    hyp.write_text(HYP_RTTM.read_text().replace(" en-standup ", " standup "))
    code, out, err = run(["transcripts", "der", "--ref", str(REF_RTTM), "--hyp", str(hyp)],
                         capsys)
    # unfixed: DER 226.15 %, every scored reference second missed and every system second a
    # false alarm: (6.5 + 8.2) / 6.5, the system speaking 3.0 + 1.6 + 1.2 + 2.4 = 8.2 s
    assert (code, out) == (2, "")
    assert err == refusal("file", REF_RTTM, hyp, "missing in the hypothesis (1): "
                          "'en-standup'; missing in the reference (1): 'standup'")


def test_der_partial_scores_the_common_files(files_apart: tuple[Path, Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = files_apart
    code, out, err = run(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                          "--json", "--partial"], capsys)
    data = json.loads(out)
    # collar +-0.25 s around the reference boundaries 0, 3, 3.5, 6, 6.5, 9: scored speech
    # alice 0.25-2.75 (2.5 s), bob 3.75-5.75 (2 s), alice 6.75-8.75 (2 s) = 6.5 s; alice is
    # spk1 and bob spk2, and spk1 speaks 5.0-5.75 of bob's scored time: 0.75 s confusion,
    # nothing missed, no false alarm outside the collars. DER 0.75 / 6.5 = 11.54 %.
    assert code == 0
    assert (data["der"], data["scored"], data["confusion"], data["missed"],
            data["false_alarm"]) == (0.115384615, 6.5, 0.75, 0.0, 0.0)
    assert list(data["files"]) == ["en-standup"]
    assert data["partial"] == {"kind": "file", "scored_ids": 1,
                               "missing_in_hypothesis": ["only-ref"],
                               "missing_in_reference": ["only-hyp"]}
    left = ("--partial: scored 1 file id named on both sides; left out: missing in the "
            "hypothesis (1): 'only-ref'; missing in the reference (1): 'only-hyp'")
    assert err == f"warning: {left}\n"
    code, out, _ = run(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                        "--partial"], capsys)
    assert code == 0 and out.endswith(f"\n{left}\n") and "11.54%" in out


def test_der_partial_equals_pyannote_on_the_common_file(files_apart: tuple[Path, Path],
                                                        tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    core = pytest.importorskip("pyannote.core", reason="pyannote.metrics is test-only")
    diarization = pytest.importorskip("pyannote.metrics.diarization")
    ref, hyp = files_apart
    uem = tmp_path / "all.uem"  # regions for the files left out too: they are dropped
    uem.write_text("en-standup 1 0 10\nonly-ref 1 0 10\nonly-hyp 1 0 10\n")
    code, out, _ = run(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp), "--uem",
                        str(uem), "--json", "--partial"], capsys)
    ours = json.loads(out)

    def annotation(path: Path) -> Any:
        ann = core.Annotation(uri="en-standup")
        for track, turn in enumerate(RTTM.load(path).turns):
            ann[core.Segment(turn.start, turn.end), track] = turn.speaker
        return ann

    metric = diarization.DiarizationErrorRate(collar=0.5)  # pyannote's total width: +-0.25
    detail = metric(annotation(REF_RTTM), annotation(HYP_RTTM),
                    uem=core.Timeline([core.Segment(0, 10)]), detailed=True)
    assert code == 0 and list(ours["files"]) == ["en-standup"]
    for key, theirs in (("scored", "total"), ("missed", "missed detection"),
                        ("false_alarm", "false alarm"), ("confusion", "confusion")):
        assert ours[key] == pytest.approx(detail[theirs], abs=1e-9), key
    assert ours["der"] == pytest.approx(detail["diarization error rate"], abs=1e-9)


def test_an_empty_hypothesis_is_refused_even_with_partial(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    hyp = tmp_path / "empty.rttm"
    hyp.write_text("")
    code, out, err = run(["transcripts", "der", "--ref", str(REF_RTTM), "--hyp", str(hyp),
                          "--partial"], capsys)
    assert (code, out) == (2, "")
    assert err == (f"error: {hyp}: no file id is named by both this file and the reference "
                   f"{REF_RTTM} (missing in the hypothesis (1): 'en-standup'): nothing to "
                   "score, even with --partial\n")


def _renamed_example(tmp_path: Path) -> Path:
    """A copy of the example whose en-standup system transcript names session 'standup'."""
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE, data)
    hyp = data / "hyp" / "en-standup.json"
    hyp.write_text(hyp.read_text(encoding="utf-8").replace('"en-standup"', '"standup"'),
                   encoding="utf-8")
    return data


def test_score_refuses_a_file_naming_another_session(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    data, out_dir = _renamed_example(tmp_path), tmp_path / "out"
    code, out, err = run(["transcripts", "score", "--manifest", str(data / "manifest.yaml"),
                          "--out", str(out_dir)], capsys)
    # unfixed: scored as en-standup (files are renamed to their sample), exit 0
    assert (code, out) == (2, "")
    assert err == (f"error: sample en-standup: {data / 'hyp' / 'en-standup.json'}: session "
                   f"ids differ from those of the reference {data / 'ref' / 'en-standup.stm'}"
                   ": missing in the hypothesis (1): 'en-standup'; missing in the reference "
                   "(1): 'standup' (--partial scores only the ids both name)\n")
    assert not out_dir.exists()


def test_score_refuses_reference_files_naming_two_sessions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE, data)
    rttm = data / "ref" / "en-standup.rttm"
    rttm.write_text(rttm.read_text().replace(" en-standup ", " standup "))
    manifest = data / "manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("      transcript: ref/en-standup.stm\n",
                                     "      transcript: ref/en-standup.stm\n"
                                     "      rttm: ref/en-standup.rttm\n"), encoding="utf-8")
    code, out, err = run(["transcripts", "score", "--manifest", str(manifest), "--out",
                          str(tmp_path / "out")], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: sample en-standup: {rttm}: session ids differ from those "
                          f"of the reference {data / 'ref' / 'en-standup.stm'}: missing in "
                          "the hypothesis (1): 'en-standup'; missing in the reference (1): "
                          "'standup'")


def test_score_partial_equals_the_manifest_without_the_sample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    yaml = pytest.importorskip("yaml")
    data = _renamed_example(tmp_path)
    code, out, err = run(["transcripts", "score", "--manifest", str(data / "manifest.yaml"),
                          "--out", str(tmp_path / "partial"), "--partial"], capsys)
    left = ("--partial: left out sample en-standup: hyp/en-standup.json: missing in the "
            "hypothesis (1): 'en-standup'; missing in the reference (1): 'standup'")
    assert code == 0
    assert out.endswith(f"\n{left}\n") and err == f"warning: {left}\n"
    document = yaml.safe_load((data / "manifest.yaml").read_text(encoding="utf-8"))
    document["samples"] = [s for s in document["samples"] if s["id"] != "en-standup"]
    (data / "without.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    assert main(["transcripts", "score", "--manifest", str(data / "without.yaml"),
                 "--out", str(tmp_path / "without")]) == 0
    capsys.readouterr()
    partial = json.loads((tmp_path / "partial" / "scenarios.json").read_text())
    assert partial.pop("left_out_samples") == [
        {"sample_id": "en-standup", "file": "hyp/en-standup.json",
         "missing_in_hypothesis": ["en-standup"], "missing_in_reference": ["standup"]}]
    assert partial == json.loads((tmp_path / "without" / "scenarios.json").read_text())
    for name in ("samples.jsonl", "summary.txt", "scenarios.md", "parity_moss.json",
                 "parity_lattifai.json", "timestamps_segment_diagnostic.json"):
        assert ((tmp_path / "partial" / name).read_bytes()
                == (tmp_path / "without" / name).read_bytes()), name
    command = json.loads((tmp_path / "partial" / "run.json").read_text())["command"]
    assert command[-1] == "--partial"


def test_the_shipped_example_pairs_match() -> None:
    """Every file of the example that names its session names its sample's."""
    from speecheval.transcripts.score.manifest import load_manifest

    manifest = load_manifest(EXAMPLE / "manifest.yaml")
    named = 0
    for sample in manifest.samples:
        files = [sample.reference.transcript, sample.reference.words, sample.reference.rttm,
                 *(p for run in sample.runs for p in (run.transcript, run.words, run.rttm))]
        for path in (p for p in files if p is not None):
            if path.suffix == ".rttm":
                sessions = set(RTTM.load(path).file_ids())
            elif issubclass(formats.format_of(path), SessionTaggedDocument):
                sessions = {s.session_id for s in formats.load(path).segments}
            else:
                continue
            assert sessions == {sample.id}, path
            named += 1
    # en-standup: STM + 2 x (SegLST, CTM, RTTM); en-review: STM; zh-en-codeswitch: 3 SegLST
    assert named == 11
    for path in (REF_RTTM, HYP_RTTM):
        assert RTTM.load(path).file_ids() == ("en-standup",)
    ref_ids = {line.split()[0] for line in (EXAMPLE / "ref" / "en-utterances.txt")
               .read_text(encoding="utf-8").splitlines()}
    hyp_ids = {line.split()[0] for line in (EXAMPLE / "hyp" / "en-utterances.txt")
               .read_text(encoding="utf-8").splitlines()}
    assert ref_ids == hyp_ids and len(ref_ids) == 5


PAIR_COMMANDS = frozenset({"wer", "cp", "orc", "tcp", "der"})


def readme_commands() -> list[list[str]]:
    """The README's ``transcripts wer/cp/orc/tcp/der`` example lines, comments removed and
    the shell variables its code blocks set (``E=examples/transcripts``) put in."""
    commands, variables = [], {}
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        name, is_set, value = line.partition("=")
        if is_set and name.isidentifier() and " " not in value:
            variables[name] = value
        for name, value in variables.items():
            line = line.replace(f"${name}", value)
        words = line.split()
        if words[:2] == ["speecheval", "transcripts"] and words[2:3] and (
                words[2] in PAIR_COMMANDS):
            commands.append(shlex.split(line.split("  #")[0])[1:])
    return commands


def test_the_readme_examples_score_the_shipped_files(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    commands = readme_commands()
    # every pair command has an example (wer has a second, in the console-output section)
    assert {c[1] for c in commands} == PAIR_COMMANDS
    monkeypatch.chdir(REPO)
    for args in commands:
        code, out, err = run(args, capsys)
        assert code == 0, (args, err)
        assert "--partial" not in out + err, args
