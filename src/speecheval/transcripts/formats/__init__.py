"""Readers and writers for transcript and diarization file formats, one module per format.

:func:`load` reads a transcript in whichever registered format it is in (:mod:`.registry`).
"""

from .registry import format_of, load, suffixes

__all__ = ["format_of", "load", "suffixes"]
