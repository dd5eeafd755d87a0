"""Readers and writers for transcript and diarization file formats, one module per format.

:func:`load` reads a transcript in whichever registered format it is in (:mod:`.registry`).

The registry is imported when one of its names is first looked up here, not with the
package: a command that imports one module of it (``_io`` for ``transcripts wer``,
``rttm`` for ``der``) does not pay for the registry, the segment types and ``pkgutil``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["format_of", "load", "suffixes"]

if TYPE_CHECKING:
    from .registry import format_of, load, suffixes
else:
    def __getattr__(name: str) -> Any:
        """``format_of``, ``load`` and ``suffixes``, from :mod:`.registry` when first used."""
        if name not in __all__:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from . import registry

        value = getattr(registry, name)
        globals()[name] = value
        return value
