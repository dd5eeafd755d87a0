"""``speecheval agents``: serve reference agents for recording and checking pipelines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from ..core.log import get_logger
from .local.server import COMMON_PROTOCOLS

_log = get_logger(__name__)


@click.group()
def agents() -> None:
    """Reference agents to record against."""


@agents.group()
def serve() -> None:
    """Serve an agent on this machine until Ctrl-C, printing its URL."""


@serve.command("replay")
@click.option("--outputs", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="Folder with <subset>/<id>/output.wav (a reference tree works).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="0 picks a free port.")
def replay(outputs: Path, host: str, port: int) -> None:
    """Stream each sample's output.wav back in real time (pcm-websocket protocol).

    Record with: -o url=ws://HOST:PORT/{sample_id} -o agent_sample_rate=<output.wav rate>.
    """
    from .replay import serve_replay_until_cancelled

    try:
        asyncio.run(serve_replay_until_cancelled(outputs, host=host, port=port))
    except KeyboardInterrupt:
        _log.info("stopped")


@serve.command("cascade")
@click.option("--protocol", type=click.Choice(COMMON_PROTOCOLS), default="native-realtime",
              show_default=True)
@click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="Cascade option (repeatable): silence_ms, min_speech_ms, vad_threshold, "
                   "chunk_ms, max_reply_words, workers, sample_rate, output_rate; see "
                   "docs/agents.md.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="0 picks a free port.")
def cascade(protocol: str, option_pairs: tuple[str, ...], host: str, port: int) -> None:
    """A real turn-based voice agent, offline: Silero end of turn, Whisper tiny.en, a
    templated reply, espeak-ng speech in real time; it stops when the user speaks."""
    from ..core.option_pairs import parse_option_pairs
    from .cascade import CascadeSettings, serve_cascade_until_cancelled

    options = parse_option_pairs(option_pairs)
    CascadeSettings.parse(protocol, options)  # bad options exit 2 before any model loads
    try:
        asyncio.run(serve_cascade_until_cancelled(protocol, options, host=host, port=port))
    except KeyboardInterrupt:
        _log.info("stopped")
