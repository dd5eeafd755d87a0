"""Segments whose words are their normalised tokens: the input of the scorers that split a
segment's words on whitespace (ORC-WER, tcpWER), shared by ``transcripts orc``/``tcp`` and
``transcripts score``, so that each reads the same tokens cpWER counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..formats.segment import Segment
from .normalize import normalize
from .tokenize import Unit, tokens


def tokenized_segments(segments: Sequence[Segment], unit: Unit) -> list[Segment]:
    """Each segment with its text replaced by its normalised tokens in ``unit``, joined
    by spaces (so a whitespace split gives exactly the tokens cpWER counts).

    >>> [s.words for s in tokenized_segments([Segment("r", "A", 0.0, 1.0, "Hello, World!")],
    ...                                      "word")]
    ['hello world']
    """
    return [replace(s, words=" ".join(tokens(normalize(s.words), unit))) for s in segments]
