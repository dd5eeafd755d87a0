"""No credential reaches a file or a stream of ``session run``, whichever agent runs.

Every transport gets secrets planted where users put them: URL userinfo (with
characters that must be percent-encoded), a ``?token=`` query value, handshake headers
and an API-key environment variable. The agent then fails with an error event that
echoes the whole request back (path, query, every header including Authorization), as a
careless server does. The test reads every byte written under the run directory and
everything printed, and looks for each secret in every form a server could echo it
(plain, percent-encoded, as HTTP basic auth). The fault must still be reported, with
the secrets replaced, so the echo is known to have happened.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from hostile.echo_secrets import CANARIES, EchoAgent, leaked

from speecheval.cli import main

from .helpers import serving, write_scenario

USER = "leaky-user-31"
PASSWORD = "p@ss/w0rd!Secret"
QUERY_TOKEN = "qtok-5ecret-9f3a"
HEADER_TOKEN = "htok-5ecret-77b1"
OTHER_HEADER = "hval-5ecret-0c2e"
ENV_KEY = "sk-envkey-5ecret-4242"
KEY_VARIABLE = "SPEECHEVAL_TEST_KEY_VARIABLE"  # named by -o api_key_env (not a secret name)
SECRET_FORMS = [USER, PASSWORD, quote(PASSWORD, safe=""), QUERY_TOKEN, HEADER_TOKEN,
                OTHER_HEADER, ENV_KEY,
                base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode("ascii")]
HEADERS = json.dumps({"Authorization": f"Bearer {HEADER_TOKEN}", "X-Trace": OTHER_HEADER})
ECHOING_AGENT = {"fault": "error", "fault_after_ms": "300", "echo_request": "true",
                 "voice": "synthetic"}

SCENARIO = """
name: secrets
tail_ms: 300
adapter:
  type: websocket
  options: {url: "wss://scenario-user:SCENARIO_PASSWORD@example.test/?token=SCENARIO_TOKEN"}
turns:
  - id: ask
    audio: {synth: tone, duration_ms: 800, freq_hz: 300}
    start: {after: session_start, delay_ms: 100}
"""


def _secret_url(url: str) -> str:
    """``url`` with userinfo and a token added: ws://user:password@host:port/path?token=..."""
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    return f"{scheme}://{USER}:{quote(PASSWORD, safe='')}@{host}/{path}?token={QUERY_TOKEN}"


def _run(tmp_path: Path, capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    out = tmp_path / "run"
    code = main(["session", "run", str(write_scenario(tmp_path, SCENARIO)), *args,
                 "--out", str(out)])
    captured = capfd.readouterr()
    written = "".join(path.read_bytes().decode("latin-1") for path in sorted(out.rglob("*"))
                      if path.is_file())
    everything = written + captured.out + captured.err
    leaked = [form for form in SECRET_FORMS + ["SCENARIO_PASSWORD", "SCENARIO_TOKEN"]
              if form in everything]
    assert not leaked, f"leaked {leaked}"
    return code, (out / "report.json").read_text()


@pytest.fixture(autouse=True)
def _key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, ENV_KEY)
    monkeypatch.setenv("LEAKY_TOKEN", ENV_KEY)  # the custom agents' default key variable


@pytest.mark.parametrize(("protocol", "kind", "extra"), [
    ("pcm-websocket", "turn", ["-o", f"headers={HEADERS}"]),
    ("openai-realtime", "turn", ["-o", f"api_key_env={KEY_VARIABLE}"]),
    ("native-realtime", "duplex", ["-o", f"api_key_env={KEY_VARIABLE}"]),
])
def test_socket_transports_keep_secrets_out(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                            protocol: str, kind: str,
                                            extra: list[str]) -> None:
    with serving(ECHOING_AGENT, kind=kind, protocol=protocol) as url:
        code, text = _run(tmp_path, capfd, "--agent", protocol,
                          "-o", f"url={_secret_url(url)}", *extra)
    report = json.loads(text)
    assert code == 3
    fault = report["sessions"][0]["fault"]
    # the agent did echo the request (its path, a header), with the secrets replaced
    assert "simulated agent failure for request" in fault and "REDACTED" in fault, fault
    options = report["agent"]["options"]
    host = url.split("://", 1)[1].split("/", 1)[0]
    assert options["url"].startswith(f"ws://REDACTED@{host}/")
    assert options["url"].endswith("?token=REDACTED")
    if protocol == "pcm-websocket":
        assert json.loads(options["headers"]) == {"Authorization": "REDACTED",
                                                  "X-Trace": "REDACTED"}
        assert "Bearer REDACTED" in fault or "Authorization: REDACTED" in fault
    else:
        assert options["api_key_env"] == KEY_VARIABLE  # the name is kept, not the value
        assert "Authorization: Bearer REDACTED" in fault


def test_custom_transport_is_scrubbed_by_the_session(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # LeakyTransport quotes URL, token, headers and its default key variable LEAKY_TOKEN
    # (named by no option: caught because the variable's name says it holds a token)
    code, text = _run(tmp_path, capfd, "--agent", "tests.agents.custom_transport:LeakyTransport",
                      "-o", f"url={_secret_url('ws://127.0.0.1:9/v1')}",
                      "-o", f"token={HEADER_TOKEN}", "-o", f"headers={HEADERS}")
    report = json.loads(text)
    assert code == 3
    fault = report["sessions"][0]["fault"]
    assert fault.startswith("rejected ws://REDACTED@127.0.0.1:9/v1?token=REDACTED token "
                            "REDACTED headers ") and fault.endswith(" key REDACTED"), fault
    assert report["agent"]["options"]["token"] == "REDACTED"


def test_virtual_agents_are_scrubbed_too(tmp_path: Path,
                                         capfd: pytest.CaptureFixture[str]) -> None:
    code, text = _run(tmp_path, capfd, "--agent",
                      "tests.agents.custom_transport:LeakyVirtualAgent",
                      "-o", f"token={HEADER_TOKEN}")
    report = json.loads(text)
    assert code == 3 and report["clock"] == "virtual"
    assert report["sessions"][0]["fault"] == ("agent raised RuntimeError: bad token REDACTED, "
                                              "key REDACTED")


def test_mock_run_writes_no_secret(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # the key variables are set and the scenario's adapter block holds another agent's
    # credentials: none of it may appear in the mock's run
    code, text = _run(tmp_path, capfd, "--agent", "mock", "-o", "response_ms=500")
    assert code == 0
    assert json.loads(text)["agent"] == {"name": "mock", "options": {"response_ms": 500}}


def test_an_agent_echoing_its_handshake_as_transcripts_leaves_no_secret(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # the shared echoing agent (tests/hostile): its transcript event is the request it saw
    with EchoAgent(fault=False) as agent:
        code, text = _run(tmp_path, capfd, "--agent", "pcm-websocket",
                          "-o", f"url={CANARIES.url(agent.url)}",
                          "-o", f"headers={CANARIES.headers()}")
    written = "".join(path.read_bytes().decode("latin-1")
                      for path in sorted((tmp_path / "run").rglob("*")) if path.is_file())
    assert not leaked(written)
    assert code == 0, text
    assert "request /agent?token=REDACTED " in written
    assert "X-Trace: REDACTED" in written
