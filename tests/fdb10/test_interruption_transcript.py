"""A transcript word before R in an interruption sample: refused, naming the transcript
file, the sample, the word and both times."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, interrupt, write_tree

UI = "synthetic_user_interruption"


def test_a_word_before_r_names_the_transcript_file(tmp_path: Path) -> None:
    # S = 5 s, R = 7 s; the word "early" starts at 6.9 s, 0.1 s before R.
    tree = write_tree(tmp_path / "t", [Spec(UI, "u", 10.0, [("early", 6.9, 7.2)],
                                            interrupt(5.0, 7.0))])
    with pytest.raises(InputError) as info:
        score_tree(tree)
    assert info.value.sample_id == f"{UI}/u"
    assert info.value.path == str(tree / UI / "u" / "output.json")
    assert info.value.problem == ("transcript word 'early' starts at 6.900000 s, before R = "
                                  "7.000000 s (reference-asr cuts the audio at R)")
