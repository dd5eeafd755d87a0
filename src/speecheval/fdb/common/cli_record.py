"""The options and the driver every record command shares (``fdb10 record`` and
``fdb15 record``): :func:`session_options` and :func:`record_or_resume`.

Exit codes of a record command: 0 every selected sample recorded (or skipped for a
dataset problem), 2 bad input (nothing written), 3 some sample failed because of the
system under test (the run directory is complete and says which and why). The last line
printed says how many complete sessions pass export's capture checks, so a run whose
sends fell behind is seen at once, and ``--resume RUN --retry ineligible`` records just
those again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...cli_executor import executor_options
from ...core.errors import EXIT_SYSTEM_FAILED, InputError
from ...core.option_pairs import parse_option_pairs
from ...core.output import FORCE_HELP, replacing

if TYPE_CHECKING:
    from ...core.executor import Executor
    from .record import RecordRequest


def session_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options every record command takes (the agent, the run directory or the run to
    resume, and how sessions run), shared by ``fdb10 record`` and ``fdb15 record``;
    :func:`record_or_resume` reads them."""
    options = [
        click.option("--agent", default=None, metavar="NAME|module:Class",
                     help="pcm-websocket, openai-realtime, native-realtime, vllm-omni-duplex "
                          "or module:Class."),
        click.option("-o", "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
                     help="Transport option (repeatable); {sample_id} in url becomes the "
                          "session's id."),
        click.option("--out", "out", type=click.Path(path_type=Path),
                     help="New run directory."),
        click.option("--resume", "resume", type=click.Path(path_type=Path, file_okay=False),
                     help="Finish the pending sessions of this run directory instead."),
        click.option("--retry", "retry", type=click.Choice(["failed", "ineligible"]),
                     default=None,
                     help="With --resume: also record again each session whose latest "
                          "attempt is an error (failed), or that export would not take "
                          "(ineligible: an error or a failed pacing, window or rate "
                          "check); earlier attempts are kept."),
        click.option("--force", "force", is_flag=True, default=False,
                     help=f"{FORCE_HELP} Not with --resume."),
        click.option("--concurrency", type=click.IntRange(min=1), default=1,
                     show_default=True, help="Sessions at once, on one event loop."),
        click.option("--jobs", type=click.IntRange(min=1), default=None,
                     help="Sessions at once, each in a worker process on its own event "
                          "loop (instead of --concurrency) [default: --concurrency "
                          "applies; with --executor ray, the CPUs of a private cluster]."),
        click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=10.0,
                     show_default=True,
                     help="Seconds a connect, send, end or close may block."),
        click.option("--grace", "grace_s", type=click.FloatRange(min=0.0), default=1.0,
                     show_default=True, help="Seconds of receiving after T."),
        click.option("--max-received-ratio", type=click.FloatRange(min=0, min_open=True),
                     default=10.0, show_default=True,
                     help="Most agent audio kept per session, as a multiple of the input's "
                          "length; an agent that sends more is a fault."),
        click.option("--max-events-per-second", "max_events_per_s",
                     type=click.FloatRange(min=0, min_open=True), default=1000.0,
                     show_default=True,
                     help="Most agent events (messages) kept per session, per second of "
                          "the input; an agent that sends more is a fault."),
        click.option("--server-revision", default=None,
                     help="The server's revision (recorded)."),
        click.option("--model", default=None, help="The model served (recorded)."),
        click.option("--dataset-label", default=None,
                     help="An operator label for the dataset."),
    ]
    for option in reversed(options):
        command = option(command)
    return executor_options(command)


def checked_line(counts: dict[str, Any]) -> str:
    """How many complete sessions export will take, and why the others not.

    >>> checked_line({"complete": 10, "eligible": 7, "reasons": {"input_pacing": 3}})
    '7 of 10 complete pass the pacing, window and rate checks; 3 do not (input_pacing 3)'
    """
    failing = counts["complete"] - counts["eligible"]
    line = (f"{counts['eligible']} of {counts['complete']} complete pass the pacing, window "
            f"and rate checks")
    if not failing:
        return line
    why = ", ".join(f"{code} {n}" for code, n in counts["reasons"].items())
    return f"{line}; {failing} do not ({why})"


def _executor(shared: dict[str, Any]) -> Executor | None:
    """Where the sessions run: None for this process's own event loop (``--concurrency``),
    else the executor of ``--jobs``/``--executor`` (one session per work item)."""
    from ...core.executor import make_executor

    jobs, kind, address = shared["jobs"], shared["executor"], shared["ray_address"]
    if kind == "local" and address is None and jobs in (None, 1):
        return None
    if shared["concurrency"] != 1:
        raise InputError("--concurrency runs sessions on one event loop here; with --jobs "
                         "or --executor ray each worker runs one session at a time: give "
                         "one or the other")
    return make_executor(kind, jobs=jobs, ray_address=address)


def record_or_resume(root: Path | None, shared: dict[str, Any], *,
                     select: Callable[[], tuple[Any, tuple[str, ...]]],
                     start: Callable[[Path, RecordRequest, Any, Executor | None],
                                     dict[str, Any]],
                     resume_run: Callable[[Path, dict[str, str], Executor | None, str | None],
                                          dict[str, Any]],
                     counted: str = "") -> None:
    """Run a record command: a new run (``select()`` gives the dataset and the selected
    sample ids, ``start`` records them) or ``--resume``; print the counts, exit 3 when a
    session failed. ``shared`` holds the values of :func:`session_options`."""
    from .capture import CaptureSettings
    from .record import RecordRequest
    from .run_layout import RUN_FILE

    options = parse_option_pairs(shared["option_pairs"])
    executor = _executor(shared)
    resume, out, agent = shared["resume"], shared["out"], shared["agent"]
    if resume is not None:
        if shared["force"]:
            raise click.UsageError("--force starts the run again from nothing; --resume "
                                   "finishes it: give one or the other")
        if out is not None or root is not None or agent is not None:
            raise click.UsageError("--resume takes the run's own settings; give only -o "
                                   "for options that run.json redacted")
        counts = resume_run(resume, options, executor, shared["retry"])
        destination = resume
    else:
        if shared["retry"] is not None:
            raise click.UsageError("--retry records again the sessions of a run: give it "
                                   "with --resume RUN")
        if root is None or agent is None or out is None:
            raise click.UsageError("record needs --dataset-root, --agent and --out "
                                   "(or --resume RUN)")
        dataset, sample_ids = select()
        request = RecordRequest(
            dataset_root=root, agent=agent, options=options, sample_ids=sample_ids,
            settings=CaptureSettings(grace_s=shared["grace_s"], timeout_s=shared["timeout_s"],
                                     max_received_ratio=shared["max_received_ratio"],
                                     max_events_per_s=shared["max_events_per_s"]),
            concurrency=shared["concurrency"], server_revision=shared["server_revision"],
            model=shared["model"], dataset_label=shared["dataset_label"])
        with replacing(out, force=shared["force"], shape=RUN_FILE):
            counts = start(out, request, dataset, executor)
        destination = out
    click.echo(f"recorded {destination}: {counted}{counts['complete']} complete, "
               f"{counts['error']} error, {counts['skipped']} skipped")
    click.echo(checked_line(counts))
    if counts["error"]:
        raise click.exceptions.Exit(EXIT_SYSTEM_FAILED)
