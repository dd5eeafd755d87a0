"""``speecheval transcripts``: transcription, diarization and timestamp scoring."""

from __future__ import annotations

import click


@click.group()
def transcripts() -> None:
    """Score transcripts, speaker attribution and timestamps (WER/CER/MER, DER/JER, cpWER)."""
