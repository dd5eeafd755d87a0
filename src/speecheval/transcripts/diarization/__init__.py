"""Diarization scoring: DER (md-eval semantics), JER (dscore), speaker count, parity tracks.

Inputs are RTTM turns and an explicit UEM; outputs are the frozen, summable results of
:mod:`.result`. See ``docs/transcripts-diarization.md`` for the definitions and where they
differ from md-eval, dscore and pyannote.metrics.
"""
