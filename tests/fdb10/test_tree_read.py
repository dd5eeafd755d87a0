"""A malformed ``manifest.json`` or ``asr.json`` gets the same error whichever reader meets it.

``tree_read`` tries the plain reader (``tree_fast``) first and falls back to the schema
(``tree_schema``); a user must not be able to tell which ran. Each mutated file is read
by ``load_manifest`` / ``load_asr`` twice, as they are and with the plain reader left
out (every file through the schema), and the two must refuse it with the same message
(file, key, line and problem) or accept it alike. Both readers apply the rules of
``tree_rules``; the keys a sample may carry are listed there and declared by the
schema, and the two lists must be the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.fdb.common import tree_read, tree_rules
from speecheval.fdb.common.tree_read import load_asr, load_manifest
from speecheval.fdb.common.tree_schema import SampleEntry

from .test_tree_fast import ASR, MANIFEST, mutations

BROKEN_TEXT = ['{"kind": "fdb-v1.0-reference-tree", "kind": "x"}', "[]", "{", "",
               '{"kind": "fdb-v1.0-reference-tree", "schema_version": NaN}']


@pytest.mark.parametrize("kind", ["manifest", "asr"])
def test_both_readers_refuse_a_malformed_file_with_the_same_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    base = MANIFEST if kind == "manifest" else ASR
    path = tmp_path / ("manifest.json" if kind == "manifest" else "asr.json")
    texts = [json.dumps(m) for m in mutations(base)] + BROKEN_TEXT
    loader = load_manifest if kind == "manifest" else load_asr
    plain = "plain_manifest" if kind == "manifest" else "plain_asr"
    plain_reader = getattr(tree_read, plain)

    def read(fast: bool) -> str:
        """The message of the loader's error, or ``accepted``; without ``fast`` the
        plain reader is left out and every file goes through the schema."""
        with monkeypatch.context() as patch:
            if not fast:
                patch.setattr(tree_read, plain, lambda data: None)
            try:
                loader(tmp_path)
            except InputError as exc:
                return str(exc)
        return "accepted"

    refused = plain_accepted = 0
    for text in texts:
        path.write_text(text, encoding="utf-8")
        with_plain, schema_only = read(fast=True), read(fast=False)
        assert with_plain == schema_only, text
        refused += with_plain != "accepted"
        plain_accepted += plain_reader(path.read_bytes()) is not None
    assert refused > 100 and plain_accepted > 20  # both outcomes were exercised


def test_a_refused_sample_is_named_the_same_by_both_readers(tmp_path: Path) -> None:
    broken = json.loads(json.dumps(MANIFEST))
    broken["samples"][0]["task"] = "backchannel"
    (tmp_path / "manifest.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_manifest(tmp_path)
    assert "synthetic_pause_handling/1" in str(error.value)
    assert "does not match subset synthetic_pause_handling (pause_handling)" in str(
        error.value)


def test_the_rules_list_the_keys_the_schema_declares() -> None:
    fields = SampleEntry.model_fields
    required = {key for key, field in fields.items() if field.is_required()}
    assert required == tree_rules.SAMPLE_KEYS
    assert set(fields) - required == {*tree_rules.TRACE_RECORDS, *tree_rules.TRACE_LISTS}
