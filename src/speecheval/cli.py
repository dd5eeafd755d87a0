"""The ``speecheval`` command: one entry point, one sub-app per benchmark.

Errors that users can act on (bad input, a failing system under test) are printed as one
line naming the file, the sample and the problem, with the exit code of
:mod:`speecheval.core.errors`; so is a worker process that died on an item every time it
was tried (exit 4). A traceback means a bug in speecheval.

Every command takes ``-v``/``-q`` (:mod:`.cli_verbosity`). A call of :func:`main` puts back
the level it found when it ends, so one ``-q`` does not silence the next call in a
process, while a command that runs others through :func:`main` (``fdb10 demo``) keeps its
own ``-q`` or ``-v`` for them.
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

import click

from . import __version__
from .cli_lazy import Lazy, LazyGroup
from .cli_verbosity import with_verbosity
from .core.errors import EXIT_BAD_INPUT, EXIT_TOOL_FAILED, SpeechEvalError, WorkerDied
from .core.log import current_level, get_logger, set_level
from .core.numeric_env import pinned_threads
from .core.termination import EXIT_TERMINATED, unwind_on_sigterm, was_terminated

# Each family is imported when its command runs; the listing uses these texts, which are
# the groups' docstrings (tests/test_cli_imports.py checks they stay the same).
FAMILIES = {
    "agents": Lazy("speecheval.agents.cli:agents", "Reference agents to record against."),
    "fdb10": Lazy("speecheval.fdb.v10.cli:fdb10",
                  "Full-Duplex-Bench v1.0: reference trees and unified turn-taking scores."),
    "fdb15": Lazy("speecheval.fdb.v15.cli:fdb15",
                  "Full-Duplex-Bench v1.5 overlap scenarios: build, record, score, judge and "
                  "report."),
    "session": Lazy("speecheval.session.cli:session",
                    "Play a scripted user track into a voice agent and measure the "
                    "conversation."),
    "transcripts": Lazy("speecheval.transcripts.cli:transcripts",
                        "Score transcripts, speaker attribution and timestamps (WER/CER/MER, "
                        "DER/JER, cpWER)."),
}


@click.group(cls=LazyGroup, lazy=FAMILIES,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="speecheval")
def app() -> None:
    """Measure spoken-dialogue systems from their audio."""


with_verbosity(app)
_log = get_logger(__name__)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (usage errors are exit 2, as click does)."""
    outer = current_level()
    try:
        return _main(argv)
    finally:
        set_level(outer)


def _main(argv: list[str] | None) -> int:
    try:
        # Without standalone mode click returns ctx.exit()'s code instead of exiting.
        with pinned_threads():  # numbers that do not depend on a thread count
            result = app.main(args=argv, prog_name="speecheval", standalone_mode=False)
    except SpeechEvalError as exc:
        _log.error("error: %s", exc)
        return exc.exit_code
    except WorkerDied as exc:  # a command that records no such item lets it through
        _log.error("error: %s: %s", exc.item, exc)
        return EXIT_TOOL_FAILED
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return EXIT_BAD_INPUT
    except click.exceptions.Abort as exc:
        if was_terminated(exc):
            _log.error("terminated")
            return EXIT_TERMINATED
        _log.error("aborted")
        return EXIT_BAD_INPUT
    return result if isinstance(result, int) else 0


def run() -> NoReturn:
    """The ``speecheval`` program: :func:`main`, then exit with its code.

    What the command leaves is frozen first (``gc.freeze``), so that the interpreter's
    last garbage collection, at exit, does not walk it: some 17 ms of a 0.4 s warm
    ``fdb10 unified-score``. ``atexit`` handlers still run, and so does the finalizer of
    every object that the module teardown frees; only objects already caught in
    reference cycles are never finalized (the commands close their files themselves).
    The process's memory goes back to the system as it ends. Only the program does
    this: a caller of :func:`main` (the tests) keeps its collector as it was.

    SIGTERM unwinds the command as Ctrl-C does (:mod:`speecheval.core.termination`):
    whatever it started is stopped, and it exits 143."""
    unwind_on_sigterm()
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
