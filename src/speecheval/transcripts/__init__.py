"""Transcription, diarization and timestamp scoring for long podcast and meeting audio.

The public Python API of the transcripts family: the functions below score in-memory
values or files and return typed results (``to_dict()`` for the lossless form; counts
add with ``+`` and ``sum()``). The ``speecheval transcripts`` commands call these same
functions. Everything not listed in ``__all__`` is private and may change.

>>> from speecheval import transcripts
>>> transcripts.wer("the cat sat", "the cat sat down").error_rate
0.3333333333333333
"""

from .api import UnsupportedHypothesis, cp, der, der_by_file, load, orc, tcp, wer

__all__ = ["UnsupportedHypothesis", "cp", "der", "der_by_file", "load", "orc", "tcp", "wer"]
