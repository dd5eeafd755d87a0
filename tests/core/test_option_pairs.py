"""The one ``-o KEY=VALUE`` parser (``core/option_pairs.py``) and the commands that use it.

``session run`` and ``session mock-server`` had a parser of their own that stripped the
key and refused a blank one, while the shared one (``session load``, ``fdb10 record``,
``agents serve cascade``) kept ``" url"`` as a key and took ``"  "`` for one; now every
command reads a pair the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.core.option_pairs import parse_option_pairs, yaml_values


def test_a_pair_is_split_at_the_first_equals_sign_with_the_key_stripped() -> None:
    assert parse_option_pairs((" url =ws://h/?a=b", "empty=", "x=1", "x= 2 ")) == {
        "url": "ws://h/?a=b", "empty": "", "x": " 2 "}


@pytest.mark.parametrize("pair", ["novalue", "=x", "  =x"])
def test_a_pair_without_a_key_or_an_equals_sign_is_refused(pair: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_option_pairs(("ok=1", pair))
    assert str(caught.value) == f"-o expects key=value, got {pair!r}"


def test_values_for_in_process_agents_are_read_as_yaml() -> None:
    assert yaml_values({"n": "3", "t": "[a, b]", "s": "", "f": "no"}) == {
        "n": 3, "t": ["a", "b"], "s": "", "f": False}
    with pytest.raises(InputError) as caught:
        yaml_values({"t": "[a"})
    assert str(caught.value).startswith("-o t: value '[a': line 1: not valid YAML: ")


SCENARIO = """name: quick
adapter:
  type: pcm-websocket
turns:
  - id: hi
    audio: {synth: tone, duration_ms: 400}
"""


@pytest.mark.parametrize("command", [["session", "run"], ["session", "load"]])
def test_session_run_and_load_refuse_a_blank_key_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    # session load took "  " for a key, refused later as an unknown transport option
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    out = tmp_path / "out"
    assert main([*command, str(scenario), "--url", "ws://127.0.0.1:9", "-o", "  =x",
                 "--out", str(out)]) == 2
    assert capsys.readouterr().err == "error: -o expects key=value, got '  =x'\n"
    assert not out.exists()
