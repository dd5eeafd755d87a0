"""No secret of a run reaches a file or a stream of ``fdb10 record``, ``reference-export``
or ``reference-asr``, however the system under test echoes it.

The agent (:class:`hostile.echo_secrets.EchoAgent`) is given the canaries where users put
them (URL userinfo, a ``?token=`` query value, handshake headers) and sends the request
it saw back as an agent transcript, in its ``/v1/models`` list and (``fault``) in an
error event; the ASR server (:class:`hostile.echo_secrets.EchoHttp`) answers with the
request as its words, the ``Authorization: Bearer <key>`` header included. Every byte
written under the run and the tree, and everything printed, is searched for every form
of every canary; the echo itself must still be there, scrubbed, so it is known to have
happened.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile.echo_secrets import CANARIES, EchoAgent, echo_http, leaked

from speecheval.cli import main

from .capturekit import read_status, read_trace, short_dataset
from .test_reference_asr import untranscribed

KEY_VARIABLE = "SPEECHEVAL_ECHO_VARIABLE"  # named by --api-key-env (not a secret name)


def _written(*folders: Path) -> str:
    return "".join(path.read_bytes().decode("latin-1") for folder in folders
                   for path in sorted(folder.rglob("*")) if path.is_file())


@pytest.fixture(autouse=True)
def _key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_CANARY_TOKEN", CANARIES.env_key)  # caught by its name


@pytest.mark.parametrize("fault", [False, True])
def test_record_and_export_keep_the_echoed_secrets_out(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], fault: bool) -> None:
    dataset = short_dataset(tmp_path / "ds", count=1, duration_s=0.5)
    run, tree = tmp_path / "run", tmp_path / "tree"
    with EchoAgent(fault=fault) as agent:
        code = main(["fdb10", "record", "--dataset-root", str(dataset),
                     "--agent", "pcm-websocket", "-o", f"url={CANARIES.url(agent.url)}",
                     "-o", f"headers={CANARIES.headers()}", "--out", str(run),
                     "--grace", "0.3", "--timeout", "3"])
    assert code == (3 if fault else 0)
    assert main(["fdb10", "reference-export", "--run", str(run), "--dataset-root",
                 str(dataset), "--out", str(tree)]) == 0
    printed = capfd.readouterr()
    assert not leaked(_written(run, tree) + printed.out + printed.err)
    # the agent did echo its handshake: the path, the headers, with the secrets replaced
    sample = "icc_backchannel/1"
    [echo] = [e["text"] for e in read_trace(run, sample) if e["type"] == "transcript"]
    assert echo.startswith("request /agent?token=REDACTED ")
    # the userinfo went as basic auth; the whole header value "Bearer <key>" is replaced
    assert "Authorization: Basic REDACTED" in echo and "Authorization: REDACTED" in echo
    assert "X-Trace: REDACTED" in echo
    status = read_status(run, sample)
    if fault:
        assert status["status"] == "error"
        assert status["reasons"] == [f"agent error event: {echo}"]
    else:
        assert status["status"] == "complete"
    # of the /v1/models answer only the model ids are kept, scrubbed; the probe sent no
    # credential (no userinfo, no query)
    probe = json.loads((run / "run.json").read_text())["server"]["probe"]
    host = agent.url.split("/")[2]
    assert probe["url"] == f"http://{host}/v1/models" and probe["ok"] is True
    assert probe["models"][:2] == ["echo-model", "key-REDACTED"]
    assert probe["models"][2].startswith("seen request /v1/models ")
    assert "Authorization" not in probe["models"][2]  # not even as basic auth
    assert set(probe) == {"url", "ok", "status", "models"}
    manifest = json.loads((tree / "manifest.json").read_text())
    assert manifest["capture"]["sources"][0]["server"]["probe"] == probe


def test_reference_asr_scrubs_the_key_a_server_echoes_as_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    tree, _ = untranscribed(tmp_path)
    monkeypatch.setenv(KEY_VARIABLE, CANARIES.header_key)
    with echo_http() as server:
        code = main(["fdb10", "reference-asr", "--tree", str(tree), "--backend",
                     "openai-compatible", "--base-url", server.url, "--model", "m",
                     "--api-key-env", KEY_VARIABLE, "--jobs", "1"])
    printed = capfd.readouterr()
    assert code == 0, printed.err
    assert not leaked(_written(tree) + printed.out + printed.err)
    transcript = json.loads((tree / "candor_turn_taking" / "1" / "output.json").read_text())
    words = [chunk["text"] for chunk in transcript["chunks"]]
    # the server's words are its request: the key came back as a word, replaced
    assert words[:2] == ["request", "/v1/audio/transcriptions"]
    assert "Bearer" in words and words[words.index("Bearer") + 1] == "REDACTED"
