"""``fdb10 record``: capture a system's sessions on a v1.0 dataset into a run directory.

A run directory is written so that killing the process at any moment leaves it
resumable and never half-written:

```
RUN/run.json                          status preparing | running | complete, and settings
RUN/samples/<subset>/<id>/input.wav   the exact PCM16 sent, at the session rate
RUN/samples/<subset>/<id>/received.wav  every agent audio byte as delivered, in order
RUN/samples/<subset>/<id>/trace.jsonl  every append (receipt) and agent event, with times
RUN/samples/<subset>/<id>/status.json  complete | error | skipped, with the reasons
```

A sample folder appears only when all four files are written (it is staged and renamed
by ``core.output.new_output_dir``), so a folder that exists is finished and is never
written again; ``--resume`` records the selected samples that have none. A fault of the
system under test makes that sample ``error`` and the run goes on; a sample the dataset
cannot supply is ``skipped`` with the dataset's reasons and is not the system's fault.
``--resume --retry failed`` also records again each sample whose latest attempt is an
``error``, and ``--retry ineligible`` each one export would not take (an error, or a
complete capture that fails export's checks, :mod:`.capture_checks`): the new attempt
goes to ``samples/<id>/attempts/<N>/`` beside the earlier ones (:mod:`.run_layout`).

The engine (:class:`Session`, :func:`start_sessions`, :func:`execute`,
:func:`resume_request`) knows sessions, not datasets: a v1.0 sample is one session, and
``fdb15 record`` (:mod:`speecheval.fdb.v15.capture.record`) runs two per sample on the same engine.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import platform
import shutil
from collections import Counter
from collections.abc import Callable, Container, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import numpy as np

from ... import __version__
from ...agents.receive_limits import MAX_EVENTS_PER_S, MAX_RECEIVED_RATIO
from ...agents.registry import check_server, open_transport
from ...core import peer_json
from ...core.audio import encode_wav, read_mono
from ...core.canonical_json import dumps, dumps_lines
from ...core.errors import InputError, WorkerDied
from ...core.executor import Executor
from ...core.hashing import sha256_bytes
from ...core.log import get_logger
from ...core.output import (
    atomic_write_text,
    check_new_output_dir,
    new_output_dir,
    new_run_dir,
)
from ...core.progress import Advance, progress
from ...core.provenance import package_version
from ...core.quiet_collector import collector_frozen
from ...core.redact import REDACTED, Redactor, Scrubber, redact_url, run_scrubber
from ...core.short_slice import request_short_slice
from ...remote.client import ErrorAnswer, NoAnswer, send
from .capture import Capture, CaptureSettings, capture_session
from .capture_checks import capture_reasons
from .dataset import INPUT_WAV, Dataset, DatasetSample, load_dataset
from .run_document import read_run_document
from .run_layout import (
    INPUT_FILE,
    RECEIVED_FILE,
    RUN_FILE,
    SAMPLES_DIR,
    STATUS_FILE,
    TRACE_FILE,
    attempt_folder,
    attempts,
    latest_folder,
)

RUN_KIND = "speecheval-fdb10-run"
SCHEMA_VERSION = 1
RETRY_CHOICES = ("failed", "ineligible")
SAMPLE_ID_FIELD = "{sample_id}"
PROBE_TIMEOUT_S = 2.0
log = get_logger(__name__)
T = TypeVar("T")


async def _off_loop(files: ThreadPoolExecutor | None, work: Callable[..., T],
                    *args: Any) -> T:
    """``work(*args)`` on ``files`` (None: the loop's default pool), awaited from the
    sending loop, in a copy of the caller's context (as ``asyncio.to_thread`` runs it)."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(
        files, partial(context.run, work, *args))


@dataclass(frozen=True)
class RecordRequest:
    """Everything a run needs, checked before anything is written."""

    dataset_root: Path
    agent: str
    options: dict[str, str]
    sample_ids: tuple[str, ...]
    settings: CaptureSettings
    concurrency: int = 1
    server_revision: str | None = None
    model: str | None = None
    dataset_label: str | None = None


def agent_options(options: Mapping[str, str], sample_id: str) -> dict[str, str]:
    """The options for one session: ``{sample_id}`` in the URL becomes the sample's id.

    >>> agent_options({"url": "ws://h/{sample_id}"}, "icc_backchannel/3")
    {'url': 'ws://h/icc_backchannel/3'}
    """
    out = dict(options)
    if SAMPLE_ID_FIELD in out.get("url", ""):
        out["url"] = out["url"].replace(SAMPLE_ID_FIELD, quote(sample_id, safe="/"))
    return out


def check_agent(agent: str, options: Mapping[str, str], sample_id: str,
                concurrency: int = 1) -> dict[str, Any]:
    """Build the transport once so bad options are exit 2 before writing; a transport
    that reads its server's capabilities checks them here (see ``check_server``)."""
    transport = open_transport(agent, agent_options(options, sample_id))
    check_server(transport, concurrency)
    describe = getattr(transport, "describe", None)
    return dict(describe()) if callable(describe) else {}


def probe_models(url: str | None, scrub: Scrubber) -> dict[str, Any]:
    """GET ``/v1/models`` next to the agent URL; a failure is recorded, never raised.

    The probe carries no credential (the URL's userinfo, query and headers stay
    behind), and of the answer only what is used is kept: the model ids of an OpenAI
    list (``{"data": [{"id": ...}]}``), scrubbed of the run's secrets like every text
    the server sends; the rest of the body (which a server may fill with anything, the
    request it saw included) is not stored.
    """
    if not url:
        return {"ok": False, "error": "no agent url"}
    parts = urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    probe = urlunsplit((scheme, netloc, "/v1/models", "", ""))
    described = redact_url(probe)
    try:
        reply = send(probe, timeout_s=PROBE_TIMEOUT_S, limit=65536, follow_redirects=True)
    except NoAnswer as exc:
        return {"url": described, "ok": False, "error": scrub(exc.text)}
    except (ErrorAnswer, ValueError) as exc:
        return {"url": described, "ok": False, "error": scrub(str(exc))}
    body = reply.body.decode("utf-8", errors="replace")
    return {"url": described, "ok": 200 <= reply.status < 300, "status": reply.status,
            "models": [scrub(model) for model in model_ids(body)]}


def model_ids(body: str) -> list[str]:
    """The ``id`` of each entry of ``data`` in a ``/v1/models`` answer (none when the
    answer is not that list).

    >>> model_ids('{"object": "list", "data": [{"id": "m-1", "owned_by": "x"}, {"id": 7}]}')
    ['m-1']
    """
    try:
        parsed: Any = peer_json.loads(body)  # the agent's server: bounded, like its messages
    except json.JSONDecodeError:
        return []
    entries = parsed.get("data") if isinstance(parsed, dict) else None
    if not isinstance(entries, list):
        return []
    return [entry["id"] for entry in entries
            if isinstance(entry, dict) and isinstance(entry.get("id"), str)]


@dataclass(frozen=True)
class Session:
    """One session to record into ``RUN/samples/<session_id>/``.

    ``input_path``, ``rate`` and ``duration_s`` are set for a session to run and None for
    one to skip (``problems`` says why); ``status_fields`` are copied into its status.json
    (for v1.0: the sample id, subset, task and the dataset file hashes).
    """

    session_id: str
    input_path: Path | None
    rate: int | None
    duration_s: float | None
    problems: tuple[str, ...]
    status_fields: dict[str, Any]


def dataset_session(sample: DatasetSample, root: Path) -> Session:
    """The one session of a v1.0 sample."""
    fields = {"sample_id": sample.sample_id, "subset": sample.subset, "task": sample.task,
              "dataset_files": dict(sorted(sample.files.items()))}
    if not sample.usable:
        return Session(sample.sample_id, None, None, None, sample.problems, fields)
    return Session(sample.sample_id, sample.folder(root) / INPUT_WAV, sample.input_rate,
                   sample.duration_s, (), fields)


def _pcm16(session: Session) -> bytes:
    """The session's input as PCM16 (a PCM16 file's own integers, exactly)."""
    assert session.input_path is not None
    audio = read_mono(session.input_path, sample_id=session.session_id)
    scaled = np.clip(np.round(audio.samples.astype(np.float64) * 32768.0), -32768, 32767)
    return scaled.astype("<i2").tobytes()


def finished(run: Path, sample_id: str, attempt: int = 1) -> bool:
    return (attempt_folder(run, sample_id, attempt) / STATUS_FILE).is_file()


def _write_sample(run: Path, sample_id: str, files: Mapping[str, bytes],
                  attempt: int = 1) -> None:
    """Stage the attempt's files and rename its folder into place (all or nothing)."""
    folder = attempt_folder(run, sample_id, attempt)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with new_output_dir(folder) as staging:
        for name, data in files.items():
            (staging / name).write_bytes(data)


def _status(session: Session, status: str, reasons: Sequence[str], **fields: Any) -> bytes:
    return dumps({**session.status_fields, "status": status, "reasons": list(reasons),
                  **fields}).encode()


async def record_session(run: Path, request: RecordRequest, session: Session,
                         attempt: int = 1, files: ThreadPoolExecutor | None = None) -> str:
    """Record attempt ``attempt`` of one session into its folder; returns its status.

    Reading the input and writing the files run off the loop, on ``files`` (the run's
    one file thread, :func:`_record_all`) or the loop's default pool: with K sessions
    on one loop, a 48 kHz input decoded on the loop delayed the other sessions' packets
    by over 100 ms.
    """
    if session.input_path is None:
        await _off_loop(files, _write_sample, run, session.session_id, {
            STATUS_FILE: _status(session, "skipped", session.problems)}, attempt)
        return "skipped"
    assert session.rate is not None and session.duration_s is not None
    pcm = await _off_loop(files, _pcm16, session)
    transport = open_transport(request.agent,
                               agent_options(request.options, session.session_id))
    capture = await capture_session(transport, pcm, session.rate, session.duration_s,
                                    request.settings)
    status = "error" if capture.reasons else "complete"
    await _off_loop(files, _write_capture, run, request, session, pcm, capture, status,
                    attempt)
    return status


def scrub_capture(capture: Capture, scrub: Scrubber) -> None:
    """Scrub, in place, every text the agent sent (transcripts, fault and close reasons)
    of the run's secrets before any of it is written: an agent that echoes its request
    must not put the key, the URL token or a header value into trace.jsonl or
    status.json."""
    capture.trace = scrub.data(capture.trace)
    capture.faults = [scrub(reason) for reason in capture.faults]


def _write_capture(run: Path, request: RecordRequest, session: Session, pcm: bytes,
                   capture: Capture, status: str, attempt: int) -> None:
    assert session.rate is not None
    # here, in the writing thread: a long trace scrubbed on the loop would delay the
    # packets of the sessions running beside this one
    scrub_capture(capture, run_scrubber(agent_options(request.options, session.session_id)))
    received = np.frombuffer(bytes(capture.received), dtype="<i2")
    # t0_monotonic is on the clock of the node that ran the session, named beside it
    header = {"type": "header", "sample_id": session.session_id, "rate": session.rate,
              "output_rate": capture.rate, "node": platform.node(),
              "t0_monotonic": capture.t0_monotonic,
              "packet_ms": request.settings.packet_ms, "duration_s": session.duration_s}
    files = {
        INPUT_FILE: encode_wav(np.frombuffer(pcm, dtype="<i2"), session.rate),
        RECEIVED_FILE: encode_wav(received, capture.rate),
        TRACE_FILE: dumps_lines([header, *capture.trace]).encode(),
    }
    files[STATUS_FILE] = _status(
        session, status, capture.reasons, input_rate=session.rate,
        output_rate=capture.rate, duration_s=session.duration_s, input_samples=len(pcm) // 2,
        received_samples=int(received.shape[0]),
        files={name: sha256_bytes(data) for name, data in sorted(files.items())})
    _write_sample(run, session.session_id, files, attempt)


def _run_document(kind: str, request: RecordRequest, dataset_part: dict[str, Any],
                 status: str, transport: dict[str, Any], probe: dict[str, Any]
                 ) -> dict[str, Any]:
    """run.json: ``dataset_part`` is the dataset's description with its file hashes."""
    described = Redactor(request.options).describe()
    return {
        "kind": kind, "schema_version": SCHEMA_VERSION, "status": status,
        "speecheval_version": __version__, "python": platform.python_version(),
        "packages": {name: package_version(name) for name in ("numpy", "soundfile",
                                                               "websockets")},
        "agent": {"name": request.agent, "options": described, "transport": transport},
        "server": {"revision": request.server_revision, "model": request.model,
                   "probe": probe},
        "dataset": {**dataset_part, "label": request.dataset_label},
        "selection": list(request.sample_ids),
        "settings": {**asdict(request.settings), "concurrency": request.concurrency},
    }


def _set_status(run: Path, status: str) -> None:
    document = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
    document["status"] = status
    atomic_write_text(run / RUN_FILE, dumps(document))


async def _record_all(run: Path, request: RecordRequest, pending: Sequence[Session],
                      plan: Mapping[str, int], advance: Advance) -> None:
    """Every pending session on this loop, ``request.concurrency`` at once, their files
    read and written on one thread. Why one: the writing is mostly Python (the trace's
    canonical JSON, the scrubbing) and holds the interpreter lock, and with a thread of
    the default pool per session that ended the sending loop waited its turn behind
    each of them: eight 30 s sessions ending at once held it 147 ms, sixteen 60 s ones
    190 ms (one thread: 15 and 64 ms; 5-20 ms with nothing to write, on that loaded
    machine). The default pool stays free for the transports (a WebRTC offer, a name
    lookup)."""
    gate = asyncio.Semaphore(request.concurrency)

    async def one(session: Session, files: ThreadPoolExecutor) -> None:
        async with gate:
            await record_session(run, request, session, plan[session.session_id], files)
            advance()

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="record-files") as files:
        await asyncio.gather(*(one(session, files) for session in pending))


def _sending_thread() -> None:
    """Prepare the thread whose event loop will send the packets: short scheduler
    slices, so that a busy or niced machine lets it run soon after each 80 ms timer
    (:mod:`...core.short_slice`). The loop then runs with the collector's full passes
    kept short (:mod:`...core.quiet_collector`)."""
    log.debug("scheduler slice of the sending thread: %s", request_short_slice())


def _sweep_partials(run: Path) -> None:
    """Remove the staging folders a killed run left (never a finished sample)."""
    for staging in (run / SAMPLES_DIR).rglob(".*.partial"):
        shutil.rmtree(staging, ignore_errors=True)


def record_alone(run: Path, request: RecordRequest, session: Session,
                 plan: Mapping[str, int] | None = None) -> str:
    """One session as a work item of the executor: on an event loop of its own in this
    worker process, so its packets keep their own absolute schedule from its own t0
    whatever the sessions of other workers (or nodes) are doing; the worker writes the
    session's folder itself. A session already recorded is not recorded again: when a
    worker dies, a neighbour that had finished its folder may be run a second time.
    ``plan`` gives the attempt to record (1 when absent)."""
    attempt = (plan or {}).get(session.session_id, 1)
    if finished(run, session.session_id, attempt):
        folder = attempt_folder(run, session.session_id, attempt)
        return str(json.loads((folder / STATUS_FILE).read_text())["status"])
    _sending_thread()
    with collector_frozen():
        return asyncio.run(record_session(run, request, session, attempt))


def _worker_died(run: Path, session: Session, reason: str, attempt: int) -> None:
    """The folder of a session whose worker process died every time it was tried: an
    error with the reason, a trace of its header alone, and no audio."""
    trace = dumps_lines([{"type": "header", "sample_id": session.session_id,
                          "rate": session.rate, "node": None}]).encode()
    _write_sample(run, session.session_id, {TRACE_FILE: trace, STATUS_FILE: _status(
        session, "error", [reason], input_rate=session.rate, duration_s=session.duration_s,
        input_samples=0, received_samples=0, files={TRACE_FILE: sha256_bytes(trace)})},
        attempt)


def execute(run: Path, request: RecordRequest, sessions: Sequence[Session],
            executor: Executor | None = None, retry: str | None = None) -> dict[str, Any]:
    """Record every session without a folder (and, with ``retry``, a new attempt of
    every session :func:`retry_wanted` names), then mark the run complete: on one event
    loop here (``request.concurrency`` at once), or one session per work item on
    ``executor`` (see :func:`record_alone`). Returns :func:`count_run`'s counts."""
    _set_status(run, "running")
    _sweep_partials(run)
    plan = record_plan(run, sessions, retry)
    pending = [session for session in sessions if session.session_id in plan]
    with progress(len(pending), "recording") as advance:
        if executor is None:
            _sending_thread()
            with collector_frozen():
                asyncio.run(_record_all(run, request, pending, plan, advance))
        else:
            recorded = executor.results(partial(record_alone, run, request, plan=plan),
                                        pending, advance=advance)
            for session, result in zip(pending, recorded, strict=True):
                if isinstance(result.error, WorkerDied):
                    _worker_died(run, session, str(result.error), plan[session.session_id])
                else:
                    result.get()
            _sweep_partials(run)  # a worker stopped while it staged a folder left one
    _set_status(run, "complete")
    return count_run(run, sessions)


def record_plan(run: Path, sessions: Sequence[Session], retry: str | None
                ) -> dict[str, int]:
    """The attempt to record of each session that needs one: 1 for a session with no
    folder, the next number for one ``retry`` names."""
    plan = {}
    for session in sessions:
        done = attempts(run, session.session_id)
        if not done:
            plan[session.session_id] = 1
        elif retry is not None and retry_wanted(run, session, retry):
            plan[session.session_id] = done[-1] + 1
    return plan


def retry_wanted(run: Path, session: Session, retry: str) -> bool:
    """Whether ``--retry failed`` (the latest attempt is an error) or ``--retry
    ineligible`` (export would not take it: an error, or a complete capture that fails
    export's checks) records ``session`` again. A skipped session is never retried: the
    dataset, not the system, lacked it."""
    folder = latest_folder(run, session.session_id)
    status = str(json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))["status"])
    if status in ("error", "skipped"):
        return status == "error"
    if retry == "failed" or session.duration_s is None:
        return False
    return bool(capture_reasons(folder, session.duration_s, session.session_id))


def count_run(run: Path, sessions: Sequence[Session]) -> dict[str, Any]:
    """The latest attempt of every session counted: ``complete``, ``error``,
    ``skipped``, ``eligible`` (complete and passing export's checks) and ``reasons``
    (the reason codes of the complete ones that do not pass, each with its count)."""
    counts: dict[str, Any] = {"complete": 0, "error": 0, "skipped": 0, "eligible": 0}
    reasons: Counter[str] = Counter()
    for session in sessions:
        folder = latest_folder(run, session.session_id)
        status = json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))["status"]
        counts[status] += 1
        if status == "complete" and session.duration_s is not None:
            found = capture_reasons(folder, session.duration_s, session.session_id)
            counts["eligible"] += not found
            reasons.update(found)
    counts["reasons"] = dict(sorted(reasons.items()))
    return counts


def dataset_sessions(dataset: Dataset, sample_ids: Sequence[str]) -> list[Session]:
    by_id = dataset.by_id()
    return [dataset_session(by_id[sid], dataset.root) for sid in sample_ids]


def start_run(run: Path, request: RecordRequest, dataset: Dataset,
              executor: Executor | None = None) -> dict[str, Any]:
    """A new run: check everything, write run.json (preparing), record, complete.

    ``dataset`` is the one ``request.sample_ids`` were selected from.
    """
    return start_sessions(run, request, RUN_KIND,
                          {**dataset.describe(), "files": dataset.file_hashes()},
                          dataset_sessions(dataset, request.sample_ids), executor)


def start_sessions(run: Path, request: RecordRequest, kind: str, dataset_part: dict[str, Any],
                   sessions: Sequence[Session], executor: Executor | None = None
                   ) -> dict[str, Any]:
    """A new run of ``kind`` recording ``sessions``: check the selection and the agent,
    write run.json (preparing), record, complete."""
    if not request.sample_ids:
        raise InputError("the selection holds no sample", path=request.dataset_root)
    refuse_inside_dataset(run, request.dataset_root)
    target = check_new_output_dir(run)
    transport = check_agent(request.agent, request.options, sessions[0].session_id,
                            request.concurrency)
    probed = agent_options(request.options, "probe")
    probe = probe_models(probed.get("url"), run_scrubber(probed))
    with new_run_dir(target) as folder:
        (folder / SAMPLES_DIR).mkdir()
        atomic_write_text(folder / RUN_FILE, dumps(
            _run_document(kind, request, dataset_part, "preparing", transport, probe)))
        return execute(folder, request, sessions, executor)


def refuse_inside_dataset(run: Path, dataset_root: Path) -> None:
    """A run directory inside the dataset root is bad input: its files would change the
    dataset's computed revision, so the run could never be resumed or exported."""
    inside, root = run.resolve(), dataset_root.resolve()
    if inside == root or root in inside.parents:
        raise InputError(f"the run directory {run} is inside the dataset root "
                         f"{dataset_root}: its files would change the dataset's revision "
                         f"and the run could never be resumed; choose an --out outside it")


def resume_request(run: Path, overrides: Mapping[str, str],
                   kind: str = RUN_KIND) -> RecordRequest:
    """The request of an earlier run of ``kind``, with ``-o`` values given again for
    redacted ones."""
    path = run / RUN_FILE
    if not path.is_file():
        raise InputError("not a record run directory (no run.json)", path=run)
    document = read_run_document(path, kind)
    options = {str(k): str(v) for k, v in document["agent"]["options"].items()}
    options.update(overrides)
    hidden = sorted(key for key, value in options.items() if REDACTED in value)
    if hidden:
        raise InputError(f"option(s) {', '.join(hidden)} were redacted in run.json; give "
                         "them again with -o KEY=VALUE", path=path)
    settings = document["settings"]
    return RecordRequest(
        dataset_root=Path(document["dataset"]["root"]), agent=document["agent"]["name"],
        options=options, sample_ids=tuple(document["selection"]),
        settings=CaptureSettings(packet_ms=settings["packet_ms"], grace_s=settings["grace_s"],
                                 timeout_s=settings["timeout_s"],
                                 max_received_ratio=settings.get("max_received_ratio",
                                                                 MAX_RECEIVED_RATIO),
                                 max_events_per_s=settings.get("max_events_per_s",
                                                               MAX_EVENTS_PER_S)),
        concurrency=settings["concurrency"], server_revision=document["server"]["revision"],
        model=document["server"]["model"], dataset_label=document["dataset"]["label"])


def resume_run(run: Path, overrides: Mapping[str, str], executor: Executor | None = None,
               retry: str | None = None) -> dict[str, Any]:
    """Finish the pending samples of ``run`` (and, with ``retry``, record again those it
    names: :func:`retry_wanted`); the dataset must still have its revision."""
    request = resume_request(run, overrides)
    dataset = load_dataset(request.dataset_root)
    check_revision(run, request, dataset.revision)
    check_selection(run, request, dataset.by_id())
    check_agent(request.agent, request.options, request.sample_ids[0], request.concurrency)
    return execute(run, request, dataset_sessions(dataset, request.sample_ids), executor,
                   retry)


def check_revision(run: Path, request: RecordRequest, revision: str) -> None:
    """Resuming needs the dataset the run recorded: the same computed revision."""
    document = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
    if revision != document["dataset"]["revision"]:
        raise InputError(f"the dataset at {request.dataset_root} has revision "
                         f"{revision[:16]}, the run recorded "
                         f"{document['dataset']['revision'][:16]}", path=run / RUN_FILE)


def check_selection(run: Path, request: RecordRequest, known: Container[str]) -> None:
    """Every sample run.json selects must be in the dataset: an edited selection is bad
    input, not a KeyError."""
    unknown = [sid for sid in request.sample_ids if sid not in known]
    if unknown:
        raise InputError(f"run.json selects {len(unknown)} sample(s) the dataset at "
                         f"{request.dataset_root} does not have: {', '.join(unknown[:5])}",
                         path=run / RUN_FILE)
