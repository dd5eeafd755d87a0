"""The remote-model layer against real loopback servers: one request and its outcomes
(:mod:`speecheval.remote.client`), the OpenAI-compatible endpoint with its key, retries and
scrubbing (:mod:`speecheval.remote.endpoint`, :mod:`speecheval.remote.retry`) and the chat
model built on them (:mod:`speecheval.remote.chat`)."""

from __future__ import annotations

import json
import socket

import pytest
from hostile.deep_json import JsonAnswerServer, deep_array
from hostile.echo_secrets import echo_http
from hostile.scripted_http import Scripted, ScriptedHttp
from hostile.silent_handshake import SilentServer

from speecheval.core.errors import InputError
from speecheval.core.peer_json import MAX_CHARS
from speecheval.core.redact import run_scrubber
from speecheval.remote.chat import ChatModel, ChatSettings
from speecheval.remote.client import ErrorAnswer, NoAnswer, send
from speecheval.remote.endpoint import KeyRefused, OpenAIEndpoint, Rejected
from speecheval.remote.keys import api_key
from speecheval.remote.retry import GaveUp, Retry, RetryPolicy

KEY = "sk-remote-test-5566778899"
VARIABLE = "SPEECHEVAL_REMOTE_TEST_KEY"
CHAT = "/chat/completions"


def error(status: int, message: str, **headers: str) -> Scripted:
    body = json.dumps({"error": {"message": message, "type": "test"}}).encode()
    return Scripted(status, body, {"Content-Type": "application/json", **headers})


def completion(content: str, model: str = "m-1") -> Scripted:
    return Scripted(200, json.dumps({"model": model, "choices": [
        {"message": {"role": "assistant", "content": content}}]}).encode())


def endpoint(url: str, monkeypatch: pytest.MonkeyPatch, timeout_s: float = 10.0,
             key: str = KEY) -> OpenAIEndpoint:
    monkeypatch.setenv(VARIABLE, key)
    return OpenAIEndpoint(ChatSettings(url, "m-1", VARIABLE, timeout_s=timeout_s), key,
                          run_scrubber(env=[VARIABLE]))


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- one request ---------------------------------------------------------------------

def test_a_body_is_posted_and_no_body_is_a_get_read_up_to_the_limit() -> None:
    with ScriptedHttp(default=Scripted(200, b"0123456789")) as server:
        posted = send(server.url + "/x", body=b"hello", headers={"X-Test": "1"}, timeout_s=10)
        got = send(server.url + "/y", timeout_s=10, limit=4)
    assert (posted.status, posted.body, got.body) == (200, b"0123456789", b"0123")
    first, second = server.received
    assert (first.method, first.path, first.body, first.headers["X-Test"]) == (
        "POST", "/v1/x", b"hello", "1")
    assert (second.method, second.path) == ("GET", "/v1/y")


def test_an_error_status_gives_the_servers_message_and_its_retry_after() -> None:
    with ScriptedHttp([error(429, "slow\n  down", **{"Retry-After": "2.5"}),
                       error(503, "busy", **{"Retry-After": "soon"}),
                       error(503, "busy", **{"Retry-After": "nan"}),
                       Scripted(500, b"plain text, not JSON")]) as server:
        answers = []
        for _ in range(4):
            with pytest.raises(ErrorAnswer) as caught:
                send(server.url, body=b"{}", timeout_s=10)
            answers.append((caught.value.status, caught.value.detail,
                            caught.value.retry_after_s))
    assert answers == [(429, "slow down", 2.5), (503, "busy", None), (503, "busy", None),
                       (500, "plain text, not JSON", None)]
    assert str(caught.value) == "HTTP Error 500: Internal Server Error"


def test_a_deep_error_body_is_quoted_not_parsed() -> None:
    # 200,000 nested arrays: json.loads would raise RecursionError; the detail is the
    # body's first 300 characters instead
    with ScriptedHttp([Scripted(502, deep_array().encode())]) as server, \
            pytest.raises(ErrorAnswer) as caught:
        send(server.url, body=b"{}", timeout_s=10)
    assert caught.value.detail == "[" * 300


def test_a_cut_off_answer_a_refused_connection_and_silence_are_no_answer() -> None:
    with ScriptedHttp([Scripted(200, b'{"text": "twenty bytes"}', cut_to=5)]) as server, \
            pytest.raises(NoAnswer) as cut:
        send(server.url, body=b"{}", timeout_s=10)
    assert cut.value.reason == "the answer was cut off after 5 bytes"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(NoAnswer) as refused:
        send(url, body=b"{}", timeout_s=10)
    assert refused.value.reason.startswith(f"no answer from {url}: ")
    assert "Connection refused" in refused.value.text
    with SilentServer(hold_s=5) as silent, pytest.raises(NoAnswer) as timed_out:
        send(silent.http_url, body=b"{}", timeout_s=0.2)
    assert timed_out.value.reason == f"no answer from {silent.http_url}: timed out"
    assert silent.accepted == 1


def test_a_redirect_is_followed_only_when_asked() -> None:
    with ScriptedHttp(default=Scripted(200, b"elsewhere")) as other, \
            ScriptedHttp(default=Scripted(302, b"", {"Location": other.url})) as server:
        with pytest.raises(ErrorAnswer) as caught:
            send(server.url, headers={"Authorization": "Bearer x"}, timeout_s=10)
        assert other.received == []  # the key went nowhere else
        followed = send(server.url, timeout_s=10, follow_redirects=True)
    assert caught.value.status == 302
    assert followed.body == b"elsewhere" and len(other.received) == 1


# --- the endpoint ----------------------------------------------------------------------

def test_the_key_travels_in_the_authorization_header_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedHttp(default=completion("ok")) as server:
        body = endpoint(server.url, monkeypatch).post(b'{"model": "m"}',
                                                      "application/json")
    (request,) = server.received
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert KEY not in request.path and KEY.encode() not in request.body
    assert json.loads(body)["choices"][0]["message"]["content"] == "ok"


def test_429_and_5xx_are_retried_waiting_at_least_what_the_server_asks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    policy = RetryPolicy(max_attempts=3, backoff_s=0.01, max_backoff_s=5.0)
    seen: list[tuple[int, str, float | None]] = []
    with ScriptedHttp([error(429, "slow down", **{"Retry-After": "0.3"}),
                       error(503, "busy"), completion("yes")]) as server:
        remote = endpoint(server.url, monkeypatch)
        body = policy.run(lambda: remote.post(b"{}", "application/json"),
                          lambda n, failure: seen.append((n, failure.reason, failure.wait_s)))
    assert seen == [(1, "HTTP 429: slow down", 0.3), (2, "HTTP 503: busy", None)]
    assert json.loads(body)["choices"][0]["message"]["content"] == "yes"
    first, second, third = (request.at for request in server.received)
    # a lower bound only: sleeping 0.3 s takes at least 0.3 s however busy the machine
    assert second - first >= 0.3
    assert third - second >= 0.02  # backoff_s doubled after the second failure


def test_retries_are_bounded_and_a_silent_server_is_given_up_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    policy = RetryPolicy(max_attempts=2, backoff_s=0.01, max_backoff_s=0.01)
    with ScriptedHttp(default=error(503, "busy")) as server, pytest.raises(GaveUp) as busy:
        remote = endpoint(server.url, monkeypatch)
        policy.run(lambda: remote.post(b"{}", "application/json"))
    assert str(busy.value) == "HTTP 503: busy (gave up after 2 attempts)"
    assert len(server.received) == 2
    with SilentServer(hold_s=5) as silent, pytest.raises(GaveUp) as silence:
        remote = endpoint(silent.http_url, monkeypatch, timeout_s=0.2)
        policy.run(lambda: remote.post(b"{}", "application/json"))
    assert str(silence.value) == (f"no answer from {silent.http_url}{CHAT}: timed out "
                                  "(gave up after 2 attempts)")
    assert silent.accepted == 2


def test_a_refused_key_stops_and_another_4xx_is_not_retried(
        monkeypatch: pytest.MonkeyPatch) -> None:
    policy = RetryPolicy(max_attempts=3, backoff_s=0.01, max_backoff_s=0.01)
    with ScriptedHttp([error(401, "invalid key"), error(404, "no such model")]) as server:
        remote = endpoint(server.url, monkeypatch)
        with pytest.raises(KeyRefused) as refused:
            policy.run(lambda: remote.post(b"{}", "application/json"))
        with pytest.raises(Rejected) as rejected:
            policy.run(lambda: remote.post(b"{}", "application/json"))
    assert isinstance(refused.value, InputError) and refused.value.exit_code == 2
    assert str(refused.value) == (f"{server.url}{CHAT} refused the API key from {VARIABLE} "
                                  "(HTTP 401): invalid key")
    assert rejected.value.reason == "HTTP 404: no such model"
    assert len(server.received) == 2  # one request each: neither was retried


def test_what_the_server_sends_back_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    with echo_http() as echo:  # its completion's content is the request it saw, headers too
        body = endpoint(echo.url, monkeypatch).post(b"{}", "application/json")
    assert KEY.encode() not in body and b"Bearer REDACTED" in body
    with ScriptedHttp([error(400, f"your key {KEY} is wrong"),
                       error(400, "k9z is not a model")]) as server:
        with pytest.raises(Rejected) as quoted:
            endpoint(server.url, monkeypatch).post(b"{}", "application/json")
        # a key too short for the run's scrubber is still taken out of what quotes it
        with pytest.raises(Rejected) as short:
            endpoint(server.url, monkeypatch, key="k9z").post(b"{}",
                                                              "application/json")
    assert quoted.value.reason == "HTTP 400: your key REDACTED is wrong"
    assert short.value.reason == "HTTP 400: REDACTED is not a model"


def test_a_missing_key_variable_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "")
    with pytest.raises(InputError, match="^no key in the variable$"):
        api_key(VARIABLE, "no key in the variable")
    monkeypatch.setenv(VARIABLE, KEY)
    assert api_key(VARIABLE, "unused") == KEY


def test_a_bound_no_attempt_fits_in_is_refused() -> None:
    with pytest.raises(InputError, match="^max_attempts must be at least 1, got 0$"):
        RetryPolicy(0, 1.0, 30.0).check()
    assert RetryPolicy(3, 1.0, 30.0).wait_s(2, Retry("HTTP 429", wait_s=0.5)) == 2.0


# --- a chat model ----------------------------------------------------------------------

def chat(url: str, monkeypatch: pytest.MonkeyPatch) -> ChatModel:
    monkeypatch.setenv(VARIABLE, KEY)
    return ChatModel("judge", ChatSettings(url, "m-1", VARIABLE, backoff_s=0.01), key=KEY)


def test_a_chat_model_keeps_every_failed_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedHttp([error(503, "busy"), completion("yes", model="served-m")]) as server:
        reply = chat(server.url, monkeypatch).ask([{"role": "user", "content": "ok?"}])
    assert (reply.content, reply.model_reported, reply.attempts, reply.stop) == (
        "yes", "served-m", 2, None)
    assert reply.stderr == "attempt 1: HTTP 503: busy"
    sent = json.loads(server.received[-1].body)
    assert sent == {"model": "m-1", "messages": [{"role": "user", "content": "ok?"}],
                    "temperature": 0.0}


def test_a_deep_or_huge_chat_answer_is_no_answer_with_the_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    huge = b'"' + b"a" * MAX_CHARS + b'"'
    with JsonAnswerServer({"deep": deep_array().encode(), "huge": huge}) as server:
        deep = chat(server.url("deep"), monkeypatch).ask([])
        long = chat(server.url("huge"), monkeypatch).ask([])
    assert (deep.content, deep.attempts) == (None, 1)
    assert deep.stderr == "attempt 1: the answer is not JSON: nested deeper than 64 levels " \
                          "at char 64"
    assert long.stderr == (f"attempt 1: the answer is not JSON: longer than {MAX_CHARS} "
                           f"characters ({MAX_CHARS + 2})")
    assert len(deep.stdout) == 2 * 200_000  # the body is kept whole for a later reader


def test_a_refused_key_is_a_reply_that_stops_the_run(monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    with ScriptedHttp([error(403, f"key {KEY} is not allowed")]) as server:
        reply = chat(server.url, monkeypatch).ask([])
    assert reply.stop == (f"{server.url}{CHAT} refused the API key from {VARIABLE} "
                          "(HTTP 403): key REDACTED is not allowed")
    assert reply.stderr == "attempt 1: HTTP 403: key REDACTED is not allowed"
    assert (reply.content, reply.attempts) == (None, 1)
