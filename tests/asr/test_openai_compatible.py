"""The openai-compatible backend against a local server that speaks the real HTTP API.

The server (``http.server`` on a real socket) parses each multipart request with the
standard library's email parser, independently of the client's encoder, and answers as
OpenAI's ``/v1/audio/transcriptions`` does with ``response_format=verbose_json`` and word
timestamps; a script of answers makes it fail, refuse, throttle or cut its answers off.
Its words follow from the audio it receives, so the cut at R can be checked to the sample.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from fdb10.test_reference_asr import untranscribed
from http_poll import POLL_S

from speecheval.asr.base import SAMPLE_RATE, RecognitionFailed, TimedWord
from speecheval.asr.openai_compatible import OpenAICompatibleRecogniser, OpenAISettings
from speecheval.cli import main
from speecheval.core.audio import read_mono
from speecheval.fdb.common.reference_asr import plan_jobs

KEY = "sk-test-0123456789abcdef"
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class Received:
    """One request as the server parsed it."""

    authorization: str | None
    fields: dict[str, list[str]]
    audio: np.ndarray
    rate: int
    subtype: str


def edge_answer(received: Received) -> Answer:
    """verbose_json with "first" at 0-0.25 s and "last" over the last 0.5 s it heard."""
    length = received.audio.size / received.rate
    words = [{"word": "first", "start": 0.0, "end": 0.25},
             {"word": " last", "start": length - 0.5, "end": length}]
    body = {"task": "transcribe", "language": "english", "duration": length,
            "text": "first last", "words": words, "segments": []}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Answer:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(
        body).encode()


@dataclass
class Server:
    url: str
    received: list[Received] = field(default_factory=list)
    script: list[Callable[[Received], Answer]] = field(default_factory=list)
    """Answers for the next requests, in order; after them every request gets edge_answer."""
    truncate_to: dict[int, int] = field(default_factory=dict)
    """Request number -> bytes of the body actually sent before the connection closes."""


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            assert self.path == "/v1/audio/transcriptions"
            body = self.rfile.read(int(self.headers["Content-Length"]))
            message = BytesParser(policy=HTTP).parsebytes(
                f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body)
            fields: dict[str, list[str]] = {}
            audio = np.zeros(0)
            rate, subtype = 0, ""
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if name == "file":
                    payload = part.get_payload(decode=True)
                    info = sf.info(io.BytesIO(payload))
                    audio, rate = sf.read(io.BytesIO(payload), dtype="float32")
                    subtype = f"{info.channels}ch {info.subtype}"
                else:
                    fields.setdefault(name, []).append(part.get_content().strip())
            received = Received(self.headers.get("Authorization"), fields, audio, rate, subtype)
            number = len(state.received)
            state.received.append(received)
            answer = state.script.pop(0) if state.script else edge_answer
            status, headers, data = answer(received)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:state.truncate_to.get(number, len(data))])
            if number in state.truncate_to:
                self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_port}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True,
                              kwargs={"poll_interval": POLL_S})
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def recogniser(server: Server, monkeypatch: pytest.MonkeyPatch, **settings: Any
               ) -> OpenAICompatibleRecogniser:
    monkeypatch.setenv("ASR_TEST_KEY", KEY)
    return OpenAICompatibleRecogniser(OpenAISettings(
        base_url=server.url, model="whisper-1", api_key_env="ASR_TEST_KEY",
        **{"backoff_s": 0.01, **settings}))


def test_a_request_as_the_api_defines_it_and_its_words(server: Server,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    samples = (np.sin(np.arange(3 * SAMPLE_RATE) / 7) * 0.3).astype(np.float32)
    words = recogniser(server, monkeypatch).words(samples)
    # 3 s of audio: "first" at 0-0.25 s, "last" at 3 - 0.5 = 2.5 to 3.0 s, text stripped.
    assert words == [TimedWord("first", 0.0, 0.25), TimedWord("last", 2.5, 3.0)]
    (got,) = server.received
    assert got.authorization == f"Bearer {KEY}"
    assert got.fields == {"model": ["whisper-1"], "response_format": ["verbose_json"],
                          "timestamp_granularities[]": ["word"], "language": ["en"],
                          "temperature": ["0.0"]}
    assert (got.rate, got.subtype, got.audio.size) == (SAMPLE_RATE, "1ch PCM_16", samples.size)
    assert np.max(np.abs(got.audio - samples)) < 1 / 32767


def test_429_and_5xx_are_retried_with_a_bound(server: Server,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    asr = recogniser(server, monkeypatch, max_attempts=3)
    server.script = [lambda r: error(503, "overloaded"),
                     lambda r: error(429, "slow down", {"Retry-After": "0"})]
    assert [w.text for w in asr.words(np.zeros(SAMPLE_RATE, np.float32))] == ["first", "last"]
    assert len(server.received) == 3 and asr.retries == 2
    server.script = [lambda r: error(500, "boom")] * 5
    with pytest.raises(RecognitionFailed, match=r"HTTP 500: boom \(gave up after 3 attempts\)"):
        asr.words(np.zeros(SAMPLE_RATE, np.float32))
    # 3 more requests, not 5: the bound holds; 2 + 2 retries counted.
    assert len(server.received) == 6 and asr.retries == 4


def test_a_truncated_answer_is_retried_then_fails_with_the_reason(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    asr = recogniser(server, monkeypatch, max_attempts=2)
    server.truncate_to = {0: 20, 1: 20}
    with pytest.raises(RecognitionFailed, match="cut off after 20 bytes.*after 2 attempts"):
        asr.words(np.zeros(SAMPLE_RATE, np.float32))
    assert len(server.received) == 2


def test_no_server_is_retried_then_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = Server(url=f"http://127.0.0.1:{port}/v1")
    asr = recogniser(closed, monkeypatch, max_attempts=2)
    with pytest.raises(RecognitionFailed, match=f"no answer from http://127.0.0.1:{port}/v1/"
                                                "audio/transcriptions.*after 2 attempts"):
        asr.words(np.zeros(SAMPLE_RATE, np.float32))
    assert asr.retries == 1


@pytest.mark.parametrize(("body", "reason"), [
    (b'{"text": "hello", "words": [{"word": "hello", "start": 0.5', "not JSON"),
    (b'{"text": "hello"}', 'no "words" list'),
    (b'{"text": "hello", "words": []}', 'text but an empty "words"'),
    (b'{"text": "hi", "words": [{"word": "hi", "start": 0.9, "end": 0.2}]}',
     r"words\[0\] is not a word"),
])
def test_a_malformed_answer_fails_without_a_retry(server: Server, monkeypatch: pytest.MonkeyPatch,
                                                  body: bytes, reason: str) -> None:
    asr = recogniser(server, monkeypatch)
    server.script = [lambda r: (200, {"Content-Type": "application/json"}, body)]
    with pytest.raises(RecognitionFailed, match=reason):
        asr.words(np.zeros(SAMPLE_RATE, np.float32))
    assert len(server.received) == 1 and asr.retries == 0


def test_a_redirect_is_not_followed(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    asr = recogniser(server, monkeypatch)
    # Following it would send the key to the Location; the sample fails instead.
    server.script = [lambda r: (302, {"Location": server.url + "/audio/transcriptions"}, b"")]
    with pytest.raises(RecognitionFailed, match="HTTP 302"):
        asr.words(np.zeros(SAMPLE_RATE, np.float32))
    assert len(server.received) == 1


# The command on the mini tree ---------------------------------------------------------


def command(tree: Path, server: Server, *extra: str) -> list[str]:
    return ["fdb10", "reference-asr", "--tree", str(tree), "--backend", "openai-compatible",
            "--base-url", server.url, "--model", "whisper-1", "--jobs", "1", *extra]


def test_the_command_writes_official_transcripts_cut_at_r(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # The third request is throttled once: retried, counted, and the words are the same.
    server.script = [edge_answer, edge_answer, lambda r: error(429, "rate limited",
                                                               {"Retry-After": "0"})]
    eligible = len(plan_jobs(tree))
    assert main(command(tree, server)) == 0
    out = capsys.readouterr().out
    assert f"transcribed {eligible} samples" in out and "1 requests retried" in out
    assert len(server.received) == eligible + 1
    sample = tree / "synthetic_user_interruption" / "8"
    S, R = json.loads((sample / "interrupt.json").read_text())[0]["timestamp"]
    T = read_mono(sample / "output.wav").duration_s
    chunks = json.loads((sample / "output.json").read_text())["chunks"]
    # The server heard [R, T] = 14.0 - 6.4 = 7.6 s: "first" at its 0 s is R = 6.4, "last"
    # spans its last 0.5 s, T - 0.5 = 13.5 to T = 14.0.
    assert chunks == [{"text": "first", "timestamp": [6.4, 6.65]},
                      {"text": "last", "timestamp": [pytest.approx(13.5), 14.0]}]
    assert (R, T) == (6.4, 14.0)
    turn = json.loads((tree / "candor_turn_taking" / "1" / "output.json").read_text())
    assert turn["chunks"][0]["timestamp"] == [0.0, 0.25]
    asr_text = (tree / "asr.json").read_text()
    identity = json.loads(asr_text)["asr"]
    assert identity["backend"] == "openai-compatible"
    assert identity["endpoint"] == server.url + "/audio/transcriptions"
    assert identity["model"] == "whisper-1" and identity["api_key_env"] == "OPENAI_API_KEY"
    assert identity["retry"]["max_attempts"] == 4
    written = [asr_text] + [p.read_text() for p in tree.glob("*/*/output.json")]
    assert not any(KEY in text for text in written) and KEY not in out


def test_a_wrong_key_stops_the_run_without_showing_it(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.setenv("MY_ASR_KEY", KEY)
    # OpenAI's own 401 message quotes the key it was given; this server quotes all of it.
    server.script = [lambda r: error(401, f"Incorrect API key provided: {KEY}.")]
    assert main(command(tree, server, "--api-key-env", "MY_ASR_KEY")) == 2
    err = capsys.readouterr().err
    assert "refused the API key from MY_ASR_KEY (HTTP 401): Incorrect API key provided: " \
           "REDACTED." in err
    assert KEY not in err and "Traceback" not in err
    assert len(server.received) == 1
    assert not (tree / "asr.json").exists() and not list(tree.glob("*/*/output.json"))


def test_a_malformed_answer_fails_that_sample_and_writes_nothing(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    third = plan_jobs(tree)[2].sample_id
    server.script = [edge_answer, edge_answer,
                     lambda r: (200, {"Content-Type": "application/json"}, b'{"text": "a"}')]
    assert main(command(tree, server)) == 3
    err = capsys.readouterr().err
    eligible = len(plan_jobs(tree))
    # Every sample was tried; only the third failed, and the line says why.
    assert len(server.received) == eligible
    assert f"failed on 1 of {eligible} samples, nothing was written: sample {third}: " \
           'the answer has no "words" list' in err
    assert not (tree / "asr.json").exists() and not list(tree.glob("*/*/output.json"))


@pytest.mark.parametrize(("args", "env", "message"), [
    ((), {}, "reads its API key from the environment variable OPENAI_API_KEY, which is not set"),
    (("--nemo", "x.nemo"), {"OPENAI_API_KEY": KEY}, "--backend openai-compatible takes no --nemo"),
])
def test_bad_settings_exit_2(tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                             env: dict[str, str], message: str) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(command(tree, server, *args)) == 2
    assert message in capsys.readouterr().err
    assert not server.received and not (tree / "asr.json").exists()


def test_a_base_url_with_credentials_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert main(["fdb10", "reference-asr", "--tree", "nowhere", "--backend",
                 "openai-compatible", "--base-url", "http://user:pw@127.0.0.1:9/v1",
                 "--model", "m"]) == 2
    assert "must not carry credentials" in capsys.readouterr().err


def test_every_sample_failing_names_ten_and_counts_the_rest(
        tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    eligible = [job.sample_id for job in plan_jobs(tree)]
    server.script = [lambda r: error(400, "unsupported model")] * len(eligible)
    assert main(command(tree, server)) == 3
    err = capsys.readouterr().err
    # A 400 is not retried: one request per sample. Ten samples are named, in tree order.
    assert len(server.received) == len(eligible)
    assert f"failed on {len(eligible)} of {len(eligible)} samples" in err
    assert f"sample {eligible[9]}: HTTP 400: unsupported model; and " \
           f"{len(eligible) - 10} more" in err and f"sample {eligible[10]}:" not in err
