"""``speecheval transcripts``: transcription, diarization and timestamp scoring."""

from __future__ import annotations

import click

from .diarization.cli import der
from .score.cli import score
from .text.cli import cp, wer


@click.group()
def transcripts() -> None:
    """Score transcripts, speaker attribution and timestamps (WER/CER/MER, DER/JER, cpWER)."""


transcripts.add_command(der)
transcripts.add_command(cp)
transcripts.add_command(wer)
transcripts.add_command(score)
