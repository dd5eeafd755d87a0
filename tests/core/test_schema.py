"""core.schema: JSON and YAML read strictly, errors naming file, key path, line and sample."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest
import yaml
from hostile.yaml_bombs import billion_laughs
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field, field_validator

from speecheval.core.errors import InputError
from speecheval.core.schema import (
    Document,
    Schema,
    _JsonLines,
    load,
    load_document,
    parse_document,
    validate,
)


class Start(Schema):
    after: Literal["session_start", "previous_turn_end"] = "previous_turn_end"
    delay_ms: float = 0.0


class Audio(Schema):
    file: Path | None = None
    synth: str | None = None


class Turn(Schema):
    id: str
    audio: Audio
    start: Start = Start()
    expect: Literal["respond", "stop", "ignore"] = "respond"


class Tone(Schema):
    hz: float


class Noise(Schema):
    level_db: float


class Scenario(Schema):
    name: str
    sample_rate: int = 16_000
    turns: tuple[Turn, ...]
    background: Tone | Noise | None = None
    assertions: dict[str, float] = Field(default_factory=dict, alias="assert")

    @field_validator("sample_rate")
    @classmethod
    def _rate(cls, value: int) -> int:
        if value < 8000:
            raise ValueError(f"must be >= 8000, got {value}")
        return value


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problem(tmp_path: Path, name: str, text: str, **kwargs: object) -> str:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as caught:
        load(Scenario, path, what="scenario", **kwargs)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message  # one line, as every input error
    return message.removeprefix(f"{path}: ") if message.startswith(str(path)) else message


YAML_OK = """\
name: demo
turns:
  - id: greet
    audio: {synth: hum}
    start: {after: session_start, delay_ms: 5}
  - id: stop
    audio:
      file: clips/stop.wav
assert: {max_wer: 0.2}
"""


def test_valid_yaml_and_json_give_the_same_model(tmp_path: Path) -> None:
    from_yaml = load(Scenario, write(tmp_path, "s.yaml", YAML_OK))
    data = yaml.safe_load(YAML_OK)
    from_json = load(Scenario, write(tmp_path, "s.json", json.dumps(data, indent=2)))
    assert from_yaml == from_json
    # lists become the declared tuples, strings the declared paths
    assert from_yaml.turns[1].audio.file == Path("clips/stop.wav")
    assert from_yaml.turns[0].start.delay_ms == 5.0 and from_yaml.assertions == {"max_wer": 0.2}


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("dup.yaml", "name: x\nturns: []\nname: y\n",
     "name (line 3): key 'name' appears twice (first on line 1)"),
    ("dup_nested.yaml", "name: x\nturns:\n  - id: a\n    audio:\n      synth: a\n"
                        "      synth: b\n",
     "turns[0].audio.synth (line 6): key 'synth' appears twice (first on line 5)"),
    ("dup.json", '{\n  "name": "x",\n  "turns": [\n    {"id": "a",\n     "id": "b"}\n  ]\n}',
     "turns[0].id (line 5): key 'id' appears twice (first on line 4)"),
    ("dup_root.json", '{"name": "x",\n"name": "y"}',
     "name (line 2): key 'name' appears twice (first on line 1)"),
])
def test_duplicate_keys_are_refused_with_both_lines(tmp_path: Path, name: str, text: str,
                                                    expected: str) -> None:
    assert problem(tmp_path, name, text) == expected


def test_unknown_keys_are_refused_with_their_line_and_the_allowed_keys(tmp_path: Path) -> None:
    assert problem(tmp_path, "typo.yaml", "name: x\nturns:\n  - id: a\n    audio: {}\n"
                   "    start:\n      dealy_ms: 5\n") == (
        "turns[0].start.dealy_ms (line 6): unknown key; allowed keys are after, delay_ms")
    assert problem(tmp_path, "top.yaml", "name: x\nturns: []\nmax_turns: 3\n") == (
        "max_turns (line 3): unknown key; allowed keys are assert, background, name, "
        "sample_rate, turns")


def test_wrong_types_name_their_line_and_value(tmp_path: Path) -> None:
    assert problem(tmp_path, "t.yaml", "name: x\nsample_rate: fast\nturns: []\n") == (
        "sample_rate (line 2): must be a whole number, got 'fast'")
    # a string is never a number, a number never a string or a boolean
    assert problem(tmp_path, "t.json", '{"name": "x",\n "turns": [],\n "assert": {"w": "0.2"}}'
                   ) == "assert.w (line 3): must be a number, got '0.2'"
    assert problem(tmp_path, "n.json", '{"name": 5, "turns": []}') == (
        "name (line 1): must be a string, got 5")
    assert problem(tmp_path, "lit.yaml", "name: x\nturns:\n  - id: a\n    audio: {}\n"
                   "    expect: maybe\n") == (
        "turns[0].expect (line 5): must be one of 'respond', 'stop' or 'ignore', got 'maybe'")
    assert problem(tmp_path, "v.yaml", "name: x\nsample_rate: 4000\nturns: []\n") == (
        "sample_rate (line 2): must be >= 8000, got 4000")  # a validator's own words
    assert problem(tmp_path, "inf.yaml", "name: x\nturns: []\nassert: {w: .inf}\n") == (
        "assert.w (line 3): must be a finite number, got inf")
    assert problem(tmp_path, "root.yaml", "- a\n- b\n") == (
        "scenario (line 1): must be a mapping, got a list")


def test_nested_list_paths_and_lines_in_json_and_yaml(tmp_path: Path) -> None:
    text = ('{\n  "name": "x",\n  "turns": [\n    {"id": "a", "audio": {"synth": "hum"}},\n'
            '    {"id": "b",\n     "audio": {"synth": "hum", "volume": 3}}\n  ]\n}\n')
    assert problem(tmp_path, "x.json", text) == (
        "turns[1].audio.volume (line 6): unknown key; allowed keys are file, synth")
    # dumped as: name, turns, "- id: a", audio, synth, "- id: b", audio, synth, volume
    assert problem(tmp_path, "x.yaml", yaml.safe_dump(json.loads(text), sort_keys=False)) == (
        "turns[1].audio.volume (line 9): unknown key; allowed keys are file, synth")


def test_a_missing_key_points_at_the_mapping_that_lacks_it(tmp_path: Path) -> None:
    assert problem(tmp_path, "m.yaml", "name: x\nturns:\n  - id: a\n  - id: b\n"
                   "    audio: {synth: tone}\n") == "turns[0].audio (line 3): is required"
    assert problem(tmp_path, "r.yaml", "# a comment\nturns: []\n") == (
        "name (line 2): is required")


def test_samples_are_named_by_their_id_or_explicitly(tmp_path: Path) -> None:
    text = "name: x\nturns:\n  - id: a\n    audio: {}\n  - id: b7\n    audio: {synth: 3}\n"
    path = write(tmp_path, "s.yaml", text)
    assert problem(tmp_path, "s.yaml", text, sample_key="id") == (
        f"sample b7: {path}: turns[1].audio.synth (line 6): must be a string, got 3")
    assert problem(tmp_path, "s.yaml", text, sample_id="17").startswith(f"sample 17: {path}: ")


def test_a_union_reports_the_member_that_got_furthest(tmp_path: Path) -> None:
    # background is a Tone or a Noise: the Tone member matched the key and failed on it
    assert problem(tmp_path, "u.yaml", "name: x\nturns: []\nbackground:\n  hz: loud\n") == (
        "background.hz (line 4): must be a number, got 'loud'")


def test_yaml_oddities(tmp_path: Path) -> None:
    assert problem(tmp_path, "k.yaml", "name: x\nturns: []\nyes: 1\n") == (
        "scenario (line 3): key 'yes' is not a string (YAML reads it as True); quote it")
    assert problem(tmp_path, "e.yaml", "# nothing\n") == "scenario is empty"
    assert problem(tmp_path, "s.yaml", "name: x\nturns: [\n") == (
        "line 3: not valid YAML: expected the node content, but found '<stream end>'")
    # a date stays the text it is written as (JSON has no dates)
    assert load(Scenario, write(tmp_path, "d.yaml", "name: 2024-01-01\nturns: []\n")).name == (
        "2024-01-01")
    merged = "base: &b {synth: hum}\nturns:\n  - id: a\n    audio: {<<: *b, file: x.wav}\n"
    document = parse_document(merged, "yaml")
    assert document.data["turns"][0]["audio"] == {"synth": "hum", "file": "x.wav"}


def test_reading_errors(tmp_path: Path) -> None:
    assert problem(tmp_path, "j.json", '{\n  "name": "x",\n  "turns": [,]\n}') == (
        "line 3: not valid JSON: Expecting value")
    with pytest.raises(InputError, match=r"m\.txt: manifest must be a \.json, \.yaml, \.yml"):
        load_document(write(tmp_path, "m.txt", "{}"), what="manifest")
    with pytest.raises(InputError, match="manifest is missing"):
        load_document(tmp_path / "absent.yaml", what="manifest")
    latin = tmp_path / "l.yaml"
    latin.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="l.yaml: file is not UTF-8 text"):
        load_document(latin)
    with pytest.raises(InputError, match=r"only JSON"):
        load_document(write(tmp_path, "o.yaml", "a: 1"), what="only JSON", formats=("json",))


def test_part_of_a_document_and_plain_data(tmp_path: Path) -> None:
    document = load_document(write(tmp_path, "s.yaml", "name: x\nagent:\n  start:\n"
                                                       "    after: later\n"))
    with pytest.raises(InputError, match=r"s\.yaml: agent\.start\.after \(line 4\): must be "
                                         r"one of 'session_start' or 'previous_turn_end'"):
        validate(Start, document, at=("agent", "start"))
    # options given on a command line have no file and no lines
    with pytest.raises(InputError) as caught:
        validate(Start, {"delay_ms": "x"}, what="options")
    assert str(caught.value) == "delay_ms: must be a number, got 'x'"
    assert validate(Start, {"delay_ms": 3}) == Start(delay_ms=3.0)


def test_validators_see_the_file_being_read(tmp_path: Path) -> None:
    seen: list[object] = []

    class Probe(Schema):
        x: int

        @field_validator("x")
        @classmethod
        def _look(cls, value: int, info: object) -> int:
            seen.append(info.context)  # type: ignore[attr-defined]
            return value

    path = write(tmp_path, "p.json", '{"x": 1}')
    load(Probe, path, context={"base": 2})
    assert seen == [{"path": path, "base": 2}]


# --- line numbers of JSON, checked against PyYAML's marks on the same text ------------

keys = st.text("abcxyz_", min_size=1, max_size=4)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text("ab{}[],:\" \\", max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 1, 2]))
def test_json_lines_agree_with_yaml_marks(data: object, indent: int | None) -> None:
    """JSON text is YAML too: PyYAML's node marks are an independent oracle for the line
    of every key and item that the JSON scanner records."""
    text = json.dumps(data, indent=indent)
    from_yaml = parse_document(text, "yaml")
    assert from_yaml.data == data
    assert _JsonLines(text, None).scan() == from_yaml._lines


def test_document_line_falls_back_to_the_nearest_ancestor() -> None:
    document = parse_document('{\n "a": {\n  "b": [\n   1,\n   {"c": 2}\n  ]\n }\n}', "json")
    assert isinstance(document, Document)
    assert [document.line(p) for p in [(), ("a",), ("a", "b"), ("a", "b", 0),
                                       ("a", "b", 1, "c"), ("a", "b", 7), ("a", "zz")]] == [
        1, 2, 3, 4, 5, 3, 2]


def test_cli_start_up_does_not_import_pydantic() -> None:
    """Schemas are imported by the commands that read files, not by ``speecheval --help``."""
    code = ("import sys\nfrom speecheval.cli import main\nmain(['--help'])\n"
            "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


BOMB_PROBLEM = ("its YAML aliases (*name) would expand it by more than 100000 nodes; write "
                "the repeated parts out instead")


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    # 6 levels: 9**6 = 531441 strings from 67 written nodes, which the old reader walked
    # and converted one by one; 9 levels (9**9 = 387 million) grew without end
    for levels in (6, 9):
        path = write(tmp_path, "bomb.yaml", billion_laughs(levels))
        with pytest.raises(InputError) as info:
            load_document(path)
        assert str(info.value) == f"{path}: {BOMB_PROBLEM}"


def test_aliases_may_add_up_to_the_budget() -> None:
    # ``a`` is a list of 99 scalars (100 nodes with the list); each alias in ``b`` adds
    # those 100 nodes again, so k aliases add 100 * k: 1000 add exactly 100000 (accepted),
    # 1001 add 100100 (refused). The written nodes (root, a, its list and 99 items, b, its
    # list: 104) are not counted.
    def document(k: int) -> str:
        return "a: &a [" + ", ".join(["0"] * 99) + "]\nb: [" + ", ".join(["*a"] * k) + "]\n"

    data = parse_document(document(1000), "yaml").data
    assert len(data["b"]) == 1000 and data["b"][999] == [0] * 99
    with pytest.raises(InputError) as info:
        parse_document(document(1001), "yaml")
    assert str(info.value) == BOMB_PROBLEM


def test_a_nul_or_deep_nesting_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    # the NUL stopped the reader before any error handling (a ReaderError traceback);
    # 2000 nested lists a RecursionError
    path = write(tmp_path, "nul.yaml", "name: x\nturns:\n  - id: \"a\0b\"\n")
    with pytest.raises(InputError) as info:
        load_document(path, what="scenario")
    assert str(info.value) == (f"{path}: line 3: not valid YAML: special characters are "
                               "not allowed (character #x0000)")
    with pytest.raises(InputError) as info:
        parse_document("x: " + "[" * 2000 + "]" * 2000, "yaml")
    assert str(info.value) == "not valid YAML: nested too deeply to be read"
    # the same in JSON: 100000 nested lists were a RecursionError traceback
    path = write(tmp_path, "deep.json", '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(InputError) as info:
        load_document(path)
    assert str(info.value) == f"{path}: not valid JSON: nested too deeply to be read"


def test_nesting_is_limited_to_100_levels(tmp_path: Path) -> None:
    # the root mapping is level 1, so 99 nested lists inside it reach level 100 (read) and
    # 100 reach level 101 (refused); at 600 levels the line finder, needed for an error,
    # overflowed the recursion (a RecursionError traceback)
    def nested(lists: int) -> str:
        return '{"turns": ' + "[" * lists + "]" * lists + ', "bogus": 1}'

    assert parse_document(nested(99), "json").data["bogus"] == 1
    for lists in (100, 600):
        path = write(tmp_path, "deep.json", nested(lists))
        with pytest.raises(InputError) as info:
            load(Scenario, path, what="scenario")
        assert str(info.value) == f"{path}: not valid JSON: nested more than 100 levels deep"
    # a YAML list that holds itself nests without end
    with pytest.raises(InputError) as info:
        parse_document("name: x\nturns: &a [*a]\n", "yaml")
    assert str(info.value) == "not valid YAML: nested more than 100 levels deep"
