"""The bounded parser for JSON from a network peer: what it refuses, and where."""

from __future__ import annotations

import json

import pytest

from speecheval.core.peer_json import (
    MAX_CHARS,
    MAX_DEPTH,
    PeerJSONLimit,
    TooDeep,
    TooLong,
    loads,
)


def _refusal(text: str, **limits: int) -> tuple[str, int]:
    with pytest.raises(PeerJSONLimit) as caught:
        loads(text, **limits)
    return caught.value.reason, caught.value.pos


def test_depth_up_to_the_limit_parses_and_one_more_is_refused_at_its_bracket() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) == json.loads("[" * 64 + "]" * 64)
    # '{"a": ' is 6 characters; the object is level 1, so with 64 arrays inside the 64th
    # "[" (char 6 + 63 = 69) opens level 65
    assert _refusal('{"a": ' + "[" * 64 + "]" * 64 + "}") == (
        "nested deeper than 64 levels at char 69", 69)
    assert _refusal("[" * 200_000 + "]" * 200_000) == (
        "nested deeper than 64 levels at char 64", 64)
    with pytest.raises(TooDeep):
        loads("[" * 65 + "]" * 65)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"text": "[" * 1000 + '\\" {{{' + "}" * 3})
    assert loads(text) == {"text": "[" * 1000 + '\\" {{{}}}'}
    # an escaped quote does not end the string, so the brackets after it are still text
    assert loads('["\\"[[[[[[[[[[", 1]', max_depth=2) == ['"[[[[[[[[[[', 1]


def test_a_refusal_is_a_decode_error_that_handlers_of_bad_json_catch() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads("[" * 100 + "]" * 100)
    with pytest.raises(ValueError, match="longer than 16777216 characters"):
        loads(" " * (MAX_CHARS + 1))


def test_an_unterminated_string_is_the_parsers_own_error() -> None:
    # the scan consumes the open string to the end (brackets in it are text), and the
    # standard parser then names the problem
    with pytest.raises(json.JSONDecodeError) as caught:
        loads('[1, "abc' + "[" * 100)
    assert not isinstance(caught.value, PeerJSONLimit)
    assert caught.value.msg == "Unterminated string starting at"
    assert caught.value.pos == 4


def test_length_is_checked_before_anything_is_parsed() -> None:
    assert _refusal("[1, 2, 3]", max_chars=8) == ("longer than 8 characters (9)", 8)
    with pytest.raises(TooLong):
        loads("[" * 100, max_chars=99)  # the length is checked first, the nesting after
    # a file a system wrote is bounded in depth only
    assert loads(" " * MAX_CHARS + "[1]", max_chars=None) == [1]
    with pytest.raises(TooDeep):
        loads("[" * 65 + "]" * 65, max_chars=None)
    assert loads("[1, 2, 3]", max_chars=9) == [1, 2, 3]
