"""The ``speecheval`` command: one entry point, one sub-app per benchmark.

Errors that users can act on (bad input, a failing system under test) are printed as one
line naming the file, the sample and the problem, with the exit code of
:mod:`speecheval.core.errors`; a traceback means a bug in speecheval.
"""

from __future__ import annotations

import sys

import click

from . import __version__
from .agents.cli import agents
from .core.errors import EXIT_BAD_INPUT, SpeechEvalError
from .fdb.v10.cli import fdb10
from .fdb.v15.cli import fdb15
from .session.cli import session
from .transcripts.cli import transcripts


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="speecheval")
def app() -> None:
    """Measure spoken-dialogue systems from their audio."""


app.add_command(agents)
app.add_command(fdb10)
app.add_command(fdb15)
app.add_command(session)
app.add_command(transcripts)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (usage errors are exit 2, as click does)."""
    try:
        # Without standalone mode click returns ctx.exit()'s code instead of exiting.
        result = app.main(args=argv, prog_name="speecheval", standalone_mode=False)
    except SpeechEvalError as exc:
        click.echo(f"error: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return EXIT_BAD_INPUT
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return EXIT_BAD_INPUT
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
