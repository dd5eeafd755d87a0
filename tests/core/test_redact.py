"""``speecheval.core.redact``: what an options description keeps, and what scrubbing finds."""

from __future__ import annotations

import base64
import json

import pytest

from speecheval.agents.registry import open_transport
from speecheval.core.errors import InputError
from speecheval.core.redact import (
    BASE_ENVIRONMENT,
    REDACTED,
    Redactor,
    child_environment,
    is_secret_name,
    run_scrubber,
)


def test_description_keeps_settings_and_drops_every_credential() -> None:
    options = {
        "url": "wss://bob:hunter22@api.example.test:8443/v1/rt?model=m-1&token=t0ken99#frag",
        "headers": '{"Authorization": "Bearer abcdef123", "X-Client": "cli-v2"}',
        "start_message": '{"auth": {"key": "k-998877"}, "lang": "en"}',
        "api_key": "sk-plain-0001",
        "api_key_env": "MY_KEY_VAR",
        "model": "gpt-realtime",
        "ping_interval_s": "5",
        "transcripts": ["hello there"],
        "response_ms": 800,
        "interruptible": True,
    }
    assert Redactor(options).describe() == {
        "url": "wss://REDACTED@api.example.test:8443/v1/rt?model=m-1&token=REDACTED#REDACTED",
        "headers": json.dumps({"Authorization": REDACTED, "X-Client": REDACTED},
                              sort_keys=True),
        "start_message": json.dumps({"auth": {"key": REDACTED}, "lang": "en"},
                                    sort_keys=True),
        "api_key": REDACTED,
        "api_key_env": "MY_KEY_VAR",  # the variable's name, not its value
        "model": "gpt-realtime",
        "ping_interval_s": "5",
        "transcripts": ["hello there"],
        "response_ms": 800,
        "interruptible": True,
    }


def test_headers_as_a_map_and_as_text_that_is_not_json() -> None:
    assert Redactor({"headers": {"X-Token": "v-123456"}}).describe() == {
        "headers": {"X-Token": REDACTED}}
    assert Redactor({"headers": "Authorization: Bearer z"}).describe() == {"headers": REDACTED}


def test_scrub_finds_every_form_a_server_echoes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY_VAR", "sk-from-env-777")
    monkeypatch.setenv("SERVICE_TOKEN", "tok-from-env-555")  # caught by its name
    redactor = Redactor({"url": "ws://bob:p%40ss-word@h/?sig=sig-4455",
                         "api_key_env": "MY_KEY_VAR",
                         "headers": {"Authorization": "Bearer abcdef123"}})
    basic = base64.b64encode(b"bob:p@ss-word").decode()
    # the whole header value goes, and its token alone where the server quotes only that
    text = (f"denied: Authorization: Basic {basic}; Bearer abcdef123; token abcdef123; "
            "key sk-from-env-777; tok-from-env-555; password p@ss-word (p%40ss-word); "
            "?sig=sig-4455")
    assert redactor.scrub(text) == (
        f"denied: Authorization: Basic {REDACTED}; {REDACTED}; token {REDACTED}; "
        f"key {REDACTED}; {REDACTED}; password {REDACTED} ({REDACTED}); ?sig={REDACTED}")


def test_environment_values_are_read_when_scrubbing_not_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    redactor = Redactor({"api_key_env": "MY_KEY_VAR"})
    monkeypatch.setenv("MY_KEY_VAR", "sk-set-later-31337")
    assert "sk-set-later-31337" not in repr(vars(redactor))
    assert redactor.scrub("key sk-set-later-31337") == f"key {REDACTED}"


def test_short_values_are_described_but_not_searched_for() -> None:
    # "true" as a secret would turn every "true" in an error message into REDACTED
    redactor = Redactor({"auth": "true"})
    assert redactor.describe() == {"auth": REDACTED}
    assert redactor.scrub("verbose=true") == "verbose=true"


@pytest.mark.parametrize(("name", "secret"), [
    ("token", True), ("access_token", True), ("X-Api-Key", True), ("apikey", True),
    ("client_secret", True), ("password", True), ("Authorization", True), ("key", True),
    ("signature", True), ("Cookie", True), ("api_key_env", False), ("model", False),
    ("keepalive_s", False), ("voice", False),
])
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


@pytest.mark.parametrize("transport", ["pcm-websocket", "openai-realtime", "native-realtime"])
@pytest.mark.parametrize(("url", "problem"), [
    ("ws://u:pw-5ecret-1@host:99999/x?token=tok-5ecret-2", "Port out of range 0-65535"),
    ("http://u:pw-5ecret-1@host/x?token=tok-5ecret-2", "scheme isn't ws or wss"),
    ("ws://u:pw-5ecret-1@[host/x?token=tok-5ecret-2", "Invalid IPv6 URL"),
])
def test_a_bad_url_is_refused_up_front_without_its_credentials(transport: str, url: str,
                                                               problem: str) -> None:
    # refused when the transport is built, before any session; websockets' own message
    # repeats the whole URL, so it must not be passed on
    with pytest.raises(InputError) as caught:
        open_transport(transport, {"url": url})
    message = str(caught.value)
    assert message.startswith("bad agent url ") and message.endswith(f": {problem}")
    assert "5ecret" not in message



def test_one_scrubber_for_every_secret_of_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASR_VARIABLE", "asr-key-112233")      # named: not a secret name
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-445566")    # caught by its name
    monkeypatch.setenv("UNNAMED_VARIABLE", "plain-778899")    # neither: not a secret
    scrub = run_scrubber({"url": "ws://h/?token=qtok-9988"},
                         {"headers": {"X-Key": "hval-7766"}}, env=["ASR_VARIABLE"])
    text = "qtok-9988 hval-7766 asr-key-112233 tok-445566 plain-778899"
    assert scrub(text) == "REDACTED REDACTED REDACTED REDACTED plain-778899"
    # bytes as a server sent them, percent-encoded or JSON-escaped forms too
    assert scrub.raw(b'{"w": "asr-key-112233", "q": "qtok-9988"}') == (
        b'{"w": "REDACTED", "q": "REDACTED"}')
    # JSON-like data: every text at any depth, map keys included
    assert scrub.data({"tok-445566": [{"text": "say hval-7766"}, 3, None]}) == {
        "REDACTED": [{"text": "say REDACTED"}, 3, None]}


def test_a_child_gets_the_base_environment_and_the_named_variables_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin")
    monkeypatch.delenv("TZ", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-given")
    monkeypatch.setenv("HF_TOKEN", "hf-given")
    environment = child_environment(["HF_TOKEN", "NOT_SET_ANYWHERE"])
    assert environment["PATH"] == "/usr/bin" and environment["HF_TOKEN"] == "hf-given"
    assert set(environment) <= {*BASE_ENVIRONMENT, "HF_TOKEN"}
    assert "TZ" not in environment and "NOT_SET_ANYWHERE" not in environment
