"""Transcription-error scoring: normalisation, tokens, edit alignment, WER/CER/MER, cpWER.

Everything here except :mod:`.cli` works on text that a reader in
:mod:`speecheval.transcripts.formats` has already parsed; nothing reads files or the
clock, so the same text always gives the same numbers.
"""
