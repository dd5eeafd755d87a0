"""``speecheval transcripts``: transcription, diarization and timestamp scoring.

Each subcommand's module is imported when it runs (:mod:`speecheval.cli_lazy`).
"""

from __future__ import annotations

import click

from ..cli_lazy import Lazy, LazyGroup

COMMANDS = {
    "der": Lazy("speecheval.transcripts.diarization.cli:der"),
    "cp": Lazy("speecheval.transcripts.text.cli:cp"),
    "orc": Lazy("speecheval.transcripts.text.cli:orc"),
    "tcp": Lazy("speecheval.transcripts.text.cli:tcp"),
    "wer": Lazy("speecheval.transcripts.text.cli:wer"),
    "score": Lazy("speecheval.transcripts.score.cli:score"),
    "run": Lazy("speecheval.transcripts.run.cli:run"),
    "lineage": Lazy("speecheval.transcripts.run.cli:lineage"),
    "import": Lazy("speecheval.transcripts.run.cli:import_older"),
    "gate": Lazy("speecheval.transcripts.gate.cli:gate"),
    "arbitrate": Lazy("speecheval.transcripts.arbitrate.cli:arbitrate"),
}


@click.group(cls=LazyGroup, lazy=COMMANDS)
def transcripts() -> None:
    """Score transcripts, speaker attribution and timestamps (WER/CER/MER, DER/JER, cpWER)."""
