"""Serve a local agent until interrupted: ``python -m speecheval.agents.local KIND PROTOCOL``.

Used by the lateness benchmark to keep the agent's CPU work out of the measuring
process; ``-o key=value`` takes the options of :class:`LocalAgentServer`.
"""

from __future__ import annotations

import asyncio
import sys

import click

from ...core.errors import SpeechEvalError
from .server import serve_until_cancelled


@click.command()
@click.argument("kind")
@click.argument("protocol")
@click.option("-o", "--option", "pairs", multiple=True, metavar="KEY=VALUE")
@click.option("--port", type=int, default=0, show_default=True)
def main(kind: str, protocol: str, pairs: tuple[str, ...], port: int) -> None:
    """Serve a local agent on 127.0.0.1 and print its URL."""
    bad = [pair for pair in pairs if "=" not in pair]
    if bad:
        raise click.BadParameter(f"expected KEY=VALUE, got {bad[0]!r}", param_hint="-o")
    options = dict(pair.split("=", 1) for pair in pairs)
    try:
        asyncio.run(serve_until_cancelled(kind, protocol, options, port=port))
    except SpeechEvalError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
