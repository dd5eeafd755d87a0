"""The spec's long-audio tracks (长音频三轨协议), reported apart and never mixed.

A module of names only, so the CLI can offer them without importing the runner.
"""

from __future__ import annotations

NATIVE = "native_whole_context"
COMPLETE = "production_complete_file"
CHUNKED = "production_complete_file/chunked"
GOLD = "gold_diagnostic_window"
TRACKS = (NATIVE, COMPLETE, CHUNKED, GOLD)


def track_dir(track: str) -> str:
    """The folder name of a track: its id with ``/`` written as ``.``."""
    return track.replace("/", ".")
