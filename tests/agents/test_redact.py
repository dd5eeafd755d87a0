"""``speecheval.agents.redact``: what an options description keeps, and what scrubbing finds."""

from __future__ import annotations

import base64
import json

import pytest

from speecheval.agents.redact import REDACTED, Redactor, is_secret_name
from speecheval.agents.registry import open_transport
from speecheval.core.errors import InputError


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

