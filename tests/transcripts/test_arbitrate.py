"""``speecheval transcripts arbitrate`` against a local server speaking the real HTTP API.

The server (``http.server`` on a real socket) answers ``POST /v1/chat/completions`` as
OpenAI's API does (``chat.completion`` objects, error objects, status codes). Its judges
read the prompt they are sent, as a model would: the reference and the labelled candidate
blocks, so what they vote for follows from the blind labels the client drew. The model
name picks a behaviour: ``careful`` votes for the candidate equal to the reference,
``contrarian`` for another one, ``unsure`` like careful with confidence 0.5, ``prose``
answers in words, ``cut`` sends a 2xx whose body stops early, ``flaky`` fails once with
HTTP 503 and then answers like careful, ``locked`` refuses the key (HTTP 401). Command
judges are a Python script reading the prompt on stdin the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from http_poll import POLL_S

from speecheval.cli import main
from speecheval.transcripts.arbitrate.aggregate import aggregate
from speecheval.transcripts.arbitrate.inputs import read_candidates
from speecheval.transcripts.arbitrate.judges import ChatJudge
from speecheval.transcripts.arbitrate.prompt import CRITERIA, Answer, blind, parse_answer

KEY = "sk-judge-test-123456"
BLOCK = re.compile(r"Candidate ([A-D]):\n<<<\n(.*?)\n>>>", re.DOTALL)
REFERENCE = re.compile(r"Reference transcript \(independent, human\):\n<<<\n(.*?)\n>>>",
                       re.DOTALL)


class JudgeServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.failed_once: set[str] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                assert self.path == "/v1/chat/completions"
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["authorization"] = self.headers.get("Authorization")
                server.requests.append(body)
                status, data, cut = server.answer(body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:cut])
                if cut < len(data):
                    self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes, int]:
        model = body["model"]
        if model == "locked":
            return 401, _error("Incorrect API key provided"), 10 ** 9
        if model == "flaky" and body["messages"][1]["content"] not in self.failed_once:
            self.failed_once.add(body["messages"][1]["content"])
            return 503, _error("overloaded"), 10 ** 9
        user = body["messages"][1]["content"]
        reference = REFERENCE.search(user).group(1)  # type: ignore[union-attr]
        blocks = dict(BLOCK.findall(user))
        right = next(label for label, text in blocks.items() if text == reference)
        wrong = next(label for label in blocks if label != right)
        best = wrong if model == "contrarian" else right
        scores = {label: {c: 5 if label == best else 2 for c in CRITERIA} for label in blocks}
        content = json.dumps({"scores": scores, "best": best,
                              "confidence": 0.5 if model == "unsure" else 0.9})
        if model == "prose":
            content = f"I think candidate {best} is the best one."
        data = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                           "model": f"{model}-served",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 10,
                                     "total_tokens": 20}}).encode()
        return 200, data, (len(data) // 2 if model == "cut" else len(data))


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JudgeServer]:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    state = JudgeServer()
    thread = threading.Thread(target=state.httpd.serve_forever, daemon=True,
                              kwargs={"poll_interval": POLL_S})
    thread.start()
    yield state
    state.httpd.shutdown()
    state.httpd.server_close()


REFS = {"ep1": "the meeting starts at nine with Anna", "ep2": "we ship version 2 on friday",
        "ep3": "not a human reference"}
CANDIDATES = {"ep1": {"good": "the meeting starts at nine with Anna",
                      "loopy": "the meeting the meeting the meeting",
                      "short": "the meeting"},
              "ep2": {"good": "we ship version 2 on friday", "loopy": "we ship version two"},
              "ep3": {"good": "x", "loopy": "y"}}


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps({"sample": s, "reference": t,
                                        "independent": s != "ep3"}) + "\n"
                            for s, t in REFS.items()), encoding="utf-8")
    cands = tmp_path / "cands.jsonl"
    cands.write_text("".join(json.dumps({"sample": s, "system": system, "text": text}) + "\n"
                             for s, by in CANDIDATES.items() for system, text in by.items()),
                     encoding="utf-8")
    return refs, cands


def arbitrate(server: JudgeServer, tmp_path: Path, models: list[str],
              capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str, Path]:
    refs, cands = write_inputs(tmp_path)
    out = tmp_path / "arb"
    judges = [a for i, m in enumerate(models) for a in ("--judge", f"j{i}={m}@{server.url}")]
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(out), "--api-key-env", "JUDGE_KEY", *judges, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, out


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_three_careful_judges_agree_blind(server: JudgeServer, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _, folder = arbitrate(server, tmp_path, ["careful"] * 3, capsys)
    assert code == 0
    assert out.splitlines() == [
        "ep1: consensus good, votes good 3, 3 valid judge(s)",
        "ep2: consensus good, votes good 3, 3 valid judge(s)",
        "ep3: skipped: the reference is not independent",
        f"wrote {folder}"]
    # the prompts name no system; the mapping is stored apart and decodes the votes
    for request in server.requests:
        text = json.dumps(request["messages"])
        assert not any(name in text for name in ("good", "loopy", "short"))
        assert request["authorization"] == f"Bearer {KEY}" and request["temperature"] == 0.0
    mapping = json.loads((folder / "mapping.json").read_text(encoding="utf-8"))["samples"]
    assert sorted(mapping["ep1"].values()) == ["good", "loopy", "short"]
    judgements = rows(folder / "judgements.jsonl")
    assert len(judgements) == 6 and all(j["valid"] for j in judgements)
    for j in judgements:
        assert mapping[j["sample"]][j["answer"]["best"]] == "good"
        prompt = (folder / "prompts" / f"{j['sample']}.json").read_bytes()
        assert j["prompt_sha256"] == hashlib.sha256(prompt).hexdigest()
        assert j["model"] == "careful" and j["model_reported"] == "careful-served"
        stdout = (folder / "judges" / j["judge"] / f"{j['sample']}.stdout").read_text()
        assert json.loads(stdout)["object"] == "chat.completion"
    agg = {r["sample"]: r for r in rows(folder / "aggregate.jsonl")}
    assert agg["ep1"]["human_review"] is False and agg["ep1"]["top_share"] == 1.0
    assert agg["ep1"]["mean_scores"]["good"]["numbers"] == 5.0
    assert agg["ep1"]["mean_scores"]["short"]["entities"] == 2.0
    meta = json.loads((folder / "arbitration.json").read_text(encoding="utf-8"))
    assert meta["command_version"] == "transcripts-arbitrate-1"
    assert [j["model"] for j in meta["judges"]] == ["careful"] * 3
    assert meta["skipped"] == [{"sample": "ep3", "reason": "the reference is not independent"}]
    assert KEY not in "".join(p.read_text() for p in folder.rglob("*") if p.is_file())


def test_a_two_two_split_and_low_confidence_go_to_human_review(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _, folder = arbitrate(server, tmp_path,
                                     ["careful", "contrarian", "careful", "contrarian"], capsys)
    assert code == 0
    agg = {r["sample"]: r for r in rows(folder / "aggregate.jsonl")}
    # ep2 has two candidates: 2 votes each, 50 % < 75 %, and a 2:2 split; no consensus
    assert agg["ep2"]["votes"] == {"good": 2, "loopy": 2}
    assert agg["ep2"]["consensus"] is None
    assert agg["ep2"]["human_review_reasons"] == ["top choice under 75 % of votes",
                                                  "votes split 2:2"]
    (tmp_path / "b").mkdir()
    code, out, _, folder = arbitrate(server, tmp_path / "b", ["unsure"] * 3, capsys)
    agg = {r["sample"]: r for r in rows(folder / "aggregate.jsonl")}
    assert agg["ep2"]["consensus"] == "good"
    assert agg["ep2"]["human_review_reasons"] == ["mean confidence under 0.65"]


def test_invalid_judges_do_not_count(server: JudgeServer, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _, folder = arbitrate(server, tmp_path, ["careful", "prose", "cut", "flaky"],
                                     capsys, "--max-attempts", "2")
    assert code == 0
    judgements = {(j["sample"], j["judge"]): j for j in rows(folder / "judgements.jsonl")}
    prose, cut, flaky = judgements["ep2", "j1"], judgements["ep2", "j2"], judgements["ep2", "j3"]
    assert (prose["valid"], prose["invalid_reason"]) == (False, "not JSON: Expecting value at "
                                                                "character 0")
    assert (cut["valid"], cut["attempts"]) == (False, 2)
    stderr = (folder / "judges" / "j2" / "ep2.stderr").read_text()
    assert stderr.startswith("attempt 1: the answer was cut off after")
    assert (flaky["valid"], flaky["attempts"]) == (True, 2)
    assert (folder / "judges" / "j3" / "ep2.stderr").read_text() == (
        "attempt 1: HTTP 503: overloaded")
    agg = {r["sample"]: r for r in rows(folder / "aggregate.jsonl")}
    assert agg["ep2"]["valid_judges"] == 2 and agg["ep2"]["consensus"] is None
    assert agg["ep2"]["human_review_reasons"] == ["fewer than 3 valid judges"]


def test_a_refused_key_stops_the_sending_with_no_output(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After the first HTTP 401 no request starts: 8 samples x 3 judges are 24 requests,
    8 at a time, and every answer is a 401, so each of the 8 workers sends at most one
    before it sees the refusal (unfixed: all 24 were sent). The command exits 2 with one
    line and writes nothing: the key is the user's to fix, and a rerun starts clean."""
    samples = [f"s{i}" for i in range(8)]
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text("".join(json.dumps({"sample": s, "reference": "hello world",
                                        "independent": True}) + "\n" for s in samples))
    cands.write_text("".join(json.dumps({"sample": s, "system": system, "text": text}) + "\n"
                             for s in samples
                             for system, text in (("a", "hello world"), ("b", "hello"))))
    out = tmp_path / "arb"
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(out), "--api-key-env", "JUDGE_KEY",
                 *[a for i in range(3) for a in ("--judge", f"j{i}=locked@{server.url}")]])
    err = capsys.readouterr().err
    sent = len(server.requests)
    assert code == 2 and 1 <= sent <= 8
    refusal = (f"{server.url}/chat/completions refused the API key from JUDGE_KEY "
               f"(HTTP 401): Incorrect API key provided")
    assert err.splitlines() == [f"error: {refusal}; stopped sending: {24 - sent} of 24 "
                                "judgements not asked; nothing written"]
    assert not out.exists()
    # (the key's redaction in a refusal is tested where the server echoes the key, with
    # the same ChatJudge (session/task_judge.open_judge):
    # tests/session/test_task_judge.py::test_a_refused_key_stops_the_run)


def test_labels_are_seeded_per_sample() -> None:
    texts = {"s1": "a", "s2": "b", "s3": "c", "s4": "d"}
    first = [blind(f"ep{i}", "ref", texts, seed=0).mapping for i in range(12)]
    assert first == [blind(f"ep{i}", "ref", texts, seed=0).mapping for i in range(12)]
    assert len({tuple(m.values()) for m in first}) > 1  # not one fixed order
    assert first != [blind(f"ep{i}", "ref", texts, seed=1).mapping for i in range(12)]


def test_run_directory_leaves_metrics_alone(server: JudgeServer, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "RUN"
    for system, text in (("good", "we ship version 2 on friday"),
                         ("loopy", "we ship version two")):
        folder = run_dir / "raw" / system / "native_whole_context" / "ep2" / "r1"
        folder.mkdir(parents=True)
        (folder / "response.txt").write_text(f"[0.0][S01]{text}[3.0][3.5][S0",
                                             encoding="utf-8")
        (folder / "stderr.txt").write_text("", encoding="utf-8")
        (folder / "meta.json").write_text('{"status": "succeeded"}', encoding="utf-8")
    metrics = run_dir / "derived" / "metrics" / "v1" / "metrics.json"
    metrics.parent.mkdir(parents=True)
    metrics.write_text('{"wer": 0.2}\n', encoding="utf-8")
    refs, _ = write_inputs(tmp_path)
    argv = ["transcripts", "arbitrate", str(run_dir), "--references", str(refs),
            "--api-key-env", "JUDGE_KEY",
            *[a for i in range(3) for a in ("--judge", f"j{i}=careful@{server.url}")]]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == ["ep1: skipped: 0 candidates (blind arbitration compares "
                                    "2 to 4)",
                                    "ep2: consensus good, votes good 3, 3 valid judge(s)",
                                    "ep3: skipped: the reference is not independent"]
    (made,) = (run_dir / "derived" / "arbitration").iterdir()
    assert json.loads((made / "arbitration.json").read_text())["track"] == "native_whole_context"
    assert metrics.read_text(encoding="utf-8") == '{"wer": 0.2}\n'
    assert sorted(p.name for p in (run_dir / "derived").iterdir()) == ["arbitration", "metrics"]
    # the same judges, candidates and seed again: refused, the first answers kept
    assert main(argv) == 2
    assert "already arbitrated" in capsys.readouterr().err


JUDGE_SCRIPT = '''
import json, re, sys, time
behaviour = sys.argv[1]
prompt = sys.stdin.read()
reference = re.search(r"Reference transcript \\(independent, human\\):\\n<<<\\n(.*?)\\n>>>",
                      prompt, re.DOTALL).group(1)
blocks = dict(re.findall(r"Candidate ([A-D]):\\n<<<\\n(.*?)\\n>>>", prompt, re.DOTALL))
best = next(label for label, text in blocks.items() if text == reference)
print("thinking...", file=sys.stderr)
if behaviour == "fail":
    sys.exit(4)
if behaviour == "slow":
    time.sleep(30)
criteria = ["semantic_fidelity", "completeness", "entities", "numbers", "hallucination_control"]
print(json.dumps({"scores": {l: {c: 4 for c in criteria} for l in blocks}, "best": best,
                  "confidence": 0.8}))
'''


def test_command_judges_keep_stdout_and_stderr(tmp_path: Path, server: JudgeServer,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "judge.py"
    script.write_text(JUDGE_SCRIPT, encoding="utf-8")
    refs, cands = write_inputs(tmp_path)
    out = tmp_path / "arb"
    python = shlex.quote(sys.executable)
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(out), "--api-key-env", "JUDGE_KEY", "--timeout", "2",
                 "--judge", f"http=careful@{server.url}",
                 "--judge-command", f"ok={python} {script} ok",
                 "--judge-command", f"bad={python} {script} fail",
                 "--judge-command", f"slow={python} {script} slow"])
    assert code == 0
    judgements = {(j["sample"], j["judge"]): j for j in rows(out / "judgements.jsonl")}
    assert judgements["ep2", "ok"]["valid"] is True
    assert judgements["ep2", "ok"]["model"] == f"{python} {script} ok"
    assert (out / "judges" / "ok" / "ep2.stderr").read_text() == "thinking...\n"
    assert json.loads((out / "judges" / "ok" / "ep2.stdout").read_text())["confidence"] == 0.8
    assert judgements["ep2", "bad"]["valid"] is False
    assert (out / "judges" / "bad" / "ep2.stderr").read_text() == (
        "thinking...\n\n[speecheval] exit status 4")
    assert judgements["ep2", "slow"]["valid"] is False
    assert (out / "judges" / "slow" / "ep2.stderr").read_text().endswith(
        "[speecheval] timed out after 2.0 s")
    agg = {r["sample"]: r for r in rows(out / "aggregate.jsonl")}
    assert agg["ep2"]["valid_judges"] == 2
    assert agg["ep2"]["human_review_reasons"] == ["fewer than 3 valid judges"]
    identity = json.loads((out / "arbitration.json").read_text())["judges"]
    assert [j["backend"] for j in identity] == ["openai-compatible chat completions",
                                                "command", "command", "command"]
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "arb2"), "--judge-command",
                 "x=/no/such/judge-program"])
    assert code == 2
    assert "judge x: cannot run '/no/such/judge-program': not found" in capsys.readouterr().err
    assert not (tmp_path / "arb2").exists()


def test_a_judge_program_that_cannot_be_executed_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A judge program without execute permission stops the run with one line, exit 2,
    and nothing written (unfixed: PermissionError came out as a traceback)."""
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text('{"sample": "s1", "reference": "hello world", "independent": true}\n')
    cands.write_text('{"sample": "s1", "system": "a", "text": "hello world"}\n'
                     '{"sample": "s1", "system": "b", "text": "hello word"}\n')
    program = tmp_path / "judge.sh"
    program.write_text("echo hi\n")
    program.chmod(0o644)
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "arb"), "--judge-command",
                 f"x={program}"])
    assert code == 2
    assert capsys.readouterr().err.splitlines()[-1:] == [
        f"error: judge x: cannot run '{program}': Permission denied; stopped sending: 0 of 1 "
        "judgements not asked; nothing written"]
    assert not (tmp_path / "arb").exists()


def test_a_reference_given_twice_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A row with both ``reference`` and ``reference_path`` is refused (exit 2, nothing
    written), naming the file, line and sample (unfixed: the path silently won)."""
    (tmp_path / "ep1.txt").write_text("hello there\n")
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text('{"sample": "s1", "reference": "hello world", "reference_path": "ep1.txt", '
                    '"independent": true}\n')
    cands.write_text('{"sample": "s1", "system": "a", "text": "hello world"}\n'
                     '{"sample": "s1", "system": "b", "text": "hello word"}\n')
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "arb"), "--judge-command",
                 f"x={sys.executable} -c pass"])
    assert code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert str(refs) in last
    assert "line 1: sample 's1' has both reference and reference_path; give one" in last
    assert not (tmp_path / "arb").exists()


def _answers(bests: str, confidence: float) -> list[Answer]:
    scores = {c: 3 for c in CRITERIA}
    return [Answer({"A": scores, "B": scores}, best, confidence) for best in bests]


@pytest.mark.parametrize(("bests", "confidence", "consensus", "reasons"), [
    # 3 of 4 is exactly 75 %: not under it; 0.65 is not under 0.65
    ("AAAB", 0.65, "x", []),
    ("AAB", 0.9, "x", ["top choice under 75 % of votes"]),  # 2 of 3 = 66.7 %
    ("AAA", 0.64, "x", ["mean confidence under 0.65"]),
    ("AA", 0.9, None, ["fewer than 3 valid judges"]),
    ("AABB", 0.9, None, ["top choice under 75 % of votes", "votes split 2:2"]),
    ("", 0.9, None, ["fewer than 3 valid judges"]),
])
def test_consensus_thresholds(bests: str, confidence: float, consensus: str | None,
                              reasons: list[str]) -> None:
    out = aggregate(_answers(bests, confidence), {"A": "x", "B": "y"})
    assert (out["consensus"], out["human_review_reasons"]) == (consensus, reasons)
    assert out["human_review"] is bool(reasons)
    assert out["valid_judges"] == len(bests)


GOOD_ROW = {c: 4 for c in CRITERIA}


@pytest.mark.parametrize(("answer", "problem"), [
    ({"scores": {"A": GOOD_ROW, "B": GOOD_ROW}, "best": "B", "confidence": 1}, None),
    ({"scores": {"A": GOOD_ROW}, "best": "A", "confidence": 0.5},
     '"scores" must be an object with exactly the labels A, B'),
    ({"scores": {"A": GOOD_ROW, "B": {**GOOD_ROW, "numbers": 6}}, "best": "A",
      "confidence": 0.5}, "scores.B.numbers must be an integer 1-5, got 6"),
    ({"scores": {"A": GOOD_ROW, "B": {**GOOD_ROW, "numbers": True}}, "best": "A",
      "confidence": 0.5}, "scores.B.numbers must be an integer 1-5, got True"),
    ({"scores": {"A": GOOD_ROW, "B": {"numbers": 3}}, "best": "A", "confidence": 0.5},
     "scores.B must have exactly semantic_fidelity, completeness, entities, numbers, "
     "hallucination_control"),
    ({"scores": {"A": GOOD_ROW, "B": GOOD_ROW}, "best": "C", "confidence": 0.5},
     "\"best\" must be one of A, B, got 'C'"),
    ({"scores": {"A": GOOD_ROW, "B": GOOD_ROW}, "best": "A", "confidence": 1.5},
     '"confidence" must be a number 0-1, got 1.5'),
    ({"scores": {"A": GOOD_ROW, "B": GOOD_ROW}, "best": "A", "confidence": 0.5, "why": "x"},
     "unexpected keys why"),
])
def test_answer_schema(answer: dict[str, Any], problem: str | None) -> None:
    for text in (json.dumps(answer), f"```json\n{json.dumps(answer)}\n```"):
        if problem is None:
            assert parse_answer(text, ["A", "B"]).best == answer["best"]
        else:
            with pytest.raises(ValueError, match=re.escape(problem)):
                parse_answer(text, ["A", "B"])
    with pytest.raises(ValueError, match="not JSON"):
        parse_answer("Sure! " + json.dumps(answer), ["A", "B"])


def test_imports_are_candidates_with_their_trust_facts(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A compatible import is a candidate beside the run's own (its flags in the record
    and in its lineage); an incompatible one is kept out of the vote, on the diagnostic
    track only, and the arbitration record says so."""
    from run_fixtures import cli, fake_run

    current = fake_run(tmp_path / "b")
    # older runs, copied from this one rather than run again (a second faster): one of
    # another system version (same PCM), one also made from other input audio
    older, other_pcm = tmp_path / "a", tmp_path / "c"
    shutil.copytree(current, older)
    shutil.copytree(current, other_pcm)
    for run, version in ((older, "fake 0.9"), (other_pcm, "fake 0.8")):
        (run / "run.json").write_text((run / "run.json").read_text().replace(
            "fake 1.0", version), encoding="utf-8")
    pcm = json.loads((current / "lineage.jsonl").read_text().splitlines()[0])["input_sha256"]
    (other_pcm / "lineage.jsonl").write_text((other_pcm / "lineage.jsonl").read_text().replace(
        pcm, "f" * 64), encoding="utf-8")
    assert cli("import", current, older) == 0
    assert cli("import", current, other_pcm) == 0
    digest_ok = hashlib.sha256((older / "run.json").read_bytes()).hexdigest()[:12]
    digest_bad = hashlib.sha256((other_pcm / "run.json").read_bytes()).hexdigest()[:12]
    refs = tmp_path / "refs.jsonl"
    # what the fake system says on 70 s at 16 kHz with seed 0
    refs.write_text(json.dumps({"sample": "blocks", "reference": "seed 0 samples 1120000",
                                "independent": True}) + "\n", encoding="utf-8")
    capsys.readouterr()
    argv = ["transcripts", "arbitrate", str(current), "--references", str(refs),
            "--api-key-env", "JUDGE_KEY",
            *[a for i in range(3) for a in ("--judge", f"j{i}=careful@{server.url}")]]
    assert main(argv) == 0, capsys.readouterr().err
    (made,) = (current / "derived" / "arbitration").iterdir()
    imported = f"fake.imported-{digest_ok}"
    mapping = json.loads((made / "mapping.json").read_text())["samples"]["blocks"]
    assert sorted(mapping.values()) == ["fake", imported]
    record = json.loads((made / "arbitration.json").read_text())
    key = "fake/production_complete_file/blocks/r1"
    # each candidate's text is its derived transcript's, the one `transcripts score` reads
    assert record["candidate_origins"]["blocks"] == {
        "fake": {"origin": "run", "raw": f"raw:{key}", "text": f"transcript:{key}@seglst/1"},
        imported: {"origin": "imported", "raw": f"imported:{digest_ok}/{key}",
                   "exact_input_match": True, "protocol_compatibility": "compatible",
                   "incompatibilities": [], "identity_confidence": "recorded",
                   "track_use": "production_complete_file",
                   "text": f"transcript:imported:{digest_ok}/{key}@seglst/1"}}
    (diagnostic,) = record["diagnostic_only"]
    assert (diagnostic["candidate"], diagnostic["exact_input_match"],
            diagnostic["protocol_compatibility"], diagnostic["track_use"]) == (
        f"fake.imported-{digest_bad}", False, "incompatible", "diagnostic")
    assert "never a candidate in the blind vote" in diagnostic["use"]
    # every prompt shows exactly the two voting candidates
    assert all(len(BLOCK.findall(r["messages"][1]["content"])) == 2 for r in server.requests)
    lineage = [json.loads(line) for line in (current / "lineage.jsonl").read_text().splitlines()]
    judged = {r["system"]: r for r in lineage if r["kind"] == "arbitration"}
    assert sorted(judged) == ["fake", imported]
    assert judged[imported]["parent"] == f"imported:{digest_ok}/{key}"
    assert judged[imported]["identity_confidence"] == "recorded"
    assert "identity_confidence" not in judged["fake"]


def test_json_lines_break_at_line_feeds_only(tmp_path: Path) -> None:
    """JSON allows U+2028 unescaped in a string (json.dumps with ensure_ascii=False
    writes it so): such a line is one object (unfixed: str.splitlines cut it, "line 1:
    not JSON")."""
    path = tmp_path / "cands.jsonl"
    path.write_text(json.dumps({"sample": "s1", "system": "a", "text": "one\u2028two"},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_candidates(path) == {"s1": {"a": "one two"}}


def test_a_judge_name_that_is_no_folder_name_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A judge's name names its folder: ``../../x`` would have put that judge's answers
    outside the output folder, written as they came (unfixed); it is refused, exit 2."""
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text('{"sample": "s1", "reference": "hello world", "independent": true}\n')
    cands.write_text('{"sample": "s1", "system": "a", "text": "hello world"}\n'
                     '{"sample": "s1", "system": "b", "text": "hello word"}\n')
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "out" / "arb"), "--judge-command",
                 f"../../x={sys.executable} -c pass"])
    assert code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"error: --judge-command '../../x={sys.executable} -c pass': the judge name must be "
        "letters, digits, '.', '_' or '-' (it names the judge's folder), got '../../x'")
    assert not (tmp_path / "out").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("url", ["{url}?token=canary-7f3", "http://u:canary-7f3@{host}/v1",
                                 "{url}#canary-7f3"])
def test_a_judge_url_with_a_secret_is_refused_in_arbitrates_words(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        url: str) -> None:
    """The refusal spoke of --base-url and asr.json, which arbitrate has not; it names the
    judge, where the URL would be recorded and where the key comes from, and does not
    echo the URL (its query or userinfo may be the secret). No request is sent."""
    refs, cands = write_inputs(tmp_path)
    host = server.url.split("/")[2]
    code = main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "arb"), "--api-key-env", "JUDGE_KEY",
                 "--judge", f"j1=m@{server.url}", "--judge",
                 "j2=m@" + url.format(url=server.url, host=host)])
    assert code == 2
    err = capsys.readouterr().err
    assert err == ("error: --judge j2: the URL after '@' must not carry credentials, a query "
                   "or a fragment (it is recorded in arbitration.json); the judges' API key "
                   "comes from the environment variable JUDGE_KEY, named by --api-key-env\n")
    assert server.requests == [] and not (tmp_path / "arb").exists()


def test_a_judge_url_that_is_not_http_is_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    refs, cands = write_inputs(tmp_path)
    assert main(["transcripts", "arbitrate", "--references", str(refs), "--candidates",
                 str(cands), "--out", str(tmp_path / "arb"), "--judge",
                 "j1=m@ftp://127.0.0.1/v1"]) == 2
    assert capsys.readouterr().err == (
        "error: --judge j1: the URL after '@' must be an http(s) URL such as "
        "http://127.0.0.1:8000/v1\n")


def test_a_model_name_may_hold_an_at_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    # the URL starts at the '@' before its scheme, as the last '@' did before
    monkeypatch.setenv("JUDGE_KEY", KEY)
    judge = ChatJudge.parse("j=org@v2@http://127.0.0.1:9/v1", "JUDGE_KEY")
    assert (judge.model, judge.endpoint) == ("org@v2", "http://127.0.0.1:9/v1/chat/completions")


def test_judges_see_the_text_score_reads_and_a_crowded_run_is_refused(
        server: JudgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Five systems are more than one blind vote takes: refused, exit 2, nothing written
    (unfixed: a folder of skipped samples); ``--system`` picks. The judges see the text
    ``transcripts score`` reads: all of a plain-text answer (unfixed: empty, it was read
    as one cut segment) and a derived transcript's cut last segment."""
    run_dir = tmp_path / "RUN"
    answers = {"plain": "we ship version 2 on friday", "cut": "[0.0][S01]we ship[2.0][2.5]ver",
               "c": "[0.0]c[1.0]", "d": "[0.0]d[1.0]", "e": "[0.0]e[1.0]"}
    for system, text in answers.items():
        folder = run_dir / "raw" / system / "native_whole_context" / "ep2" / "r1"
        folder.mkdir(parents=True)
        (folder / "response.txt").write_text(text, encoding="utf-8")
        (folder / "meta.json").write_text('{"status": "succeeded"}', encoding="utf-8")
    key = "cut/native_whole_context/ep2/r1"
    derived = run_dir / "derived" / key / "transcript@seglst-1.json"
    derived.parent.mkdir(parents=True)
    derived.write_text(json.dumps([
        {"session_id": "ep2", "speaker": "S01", "start_time": 0.0, "end_time": 2.0,
         "words": "we ship"},
        {"session_id": "ep2", "speaker": "S01", "start_time": 2.5, "words": "ver"}]),
        encoding="utf-8")
    (run_dir / "lineage.jsonl").write_text(json.dumps({
        "id": f"transcript:{key}@seglst/1", "kind": "transcript",
        "path": f"derived/{key}/{derived.name}", "parent": f"raw:{key}"}) + "\n",
        encoding="utf-8")
    refs, _ = write_inputs(tmp_path)
    argv = ["transcripts", "arbitrate", str(run_dir), "--references", str(refs),
            "--api-key-env", "JUDGE_KEY",
            *[a for i in range(3) for a in ("--judge", f"j{i}=careful@{server.url}")]]
    capsys.readouterr()
    assert main(argv) == 2
    assert (f"{run_dir}: 1 sample(s) have more than 4 candidates, more than one blind vote "
            "takes (sample ep2: c, cut, d, e, plain); pick at most 4 with --system; nothing "
            "written") in capsys.readouterr().err
    assert not (run_dir / "derived" / "arbitration").exists() and not server.requests
    assert main([*argv, "--system", "plain", "--system", "nosuch"]) == 2
    assert "--system: the run has no nosuch in track native_whole_context" in (
        capsys.readouterr().err)
    assert main([*argv, "--system", "plain", "--system", "cut"]) == 0
    assert "ep2: consensus plain, votes plain 3, 3 valid judge(s)" in capsys.readouterr().out
    shown = {text for r in server.requests
             for _, text in BLOCK.findall(r["messages"][1]["content"])}
    assert shown == {"we ship version 2 on friday", "we ship ver"}
    (made,) = (run_dir / "derived" / "arbitration").iterdir()
    record = json.loads((made / "arbitration.json").read_text())
    assert record["systems"] == ["cut", "plain"]
    assert {k: v["text"] for k, v in record["candidate_origins"]["ep2"].items()} == {
        "cut": f"transcript:{key}@seglst/1", "plain": "raw output (gate reading)"}
