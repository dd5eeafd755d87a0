"""``speecheval session``: run, validate and serve live voice-agent sessions."""

from __future__ import annotations

import click


@click.group()
def session() -> None:
    """Play a scripted user track into a voice agent and measure the conversation."""
