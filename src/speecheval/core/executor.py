"""One seam for every batch job: run a function over independent work items, here or on Ray.

Why one seam: scoring a tree, transcribing it or running sessions are all "the same
function over many independent items". Each command hands its items to an
:class:`Executor` and gets back one :class:`ItemResult` per item, **in item order**, never in
completion order, so the bytes a command writes do not depend on where or in what order
the items ran. Two executors exist:

- ``local`` (:class:`LocalExecutor`, the default and what ``--jobs`` sets): this process
  for one job, else a pool of worker processes on this machine;
- ``ray`` (:class:`RayExecutor`, ``--executor ray [--ray-address ADDR]``): tasks on a Ray
  cluster; Ray is imported only when this executor runs.

Work items, the function and its results must be plain picklable values (a module-level
function or a :func:`functools.partial` of one); nothing is shared between items but what
``setup`` prepares in each worker process (a loaded model, say).

Every item (and ``setup``) runs with one thread in each numeric thread pool (BLAS,
OpenMP; :mod:`speecheval.core.numeric_env`), wherever it runs: a pool's thread count can
change how a matrix product rounds, and Ray pins its workers to one thread anyway.

Per-item errors are kept: an exception raised by the function becomes that item's
:attr:`ItemResult.error` and the other items go on; the command decides what an error
means (bad input stops it, a system fault is recorded). A worker process that dies while
running an item (killed, out of memory, a crash in native code) has that item run again,
up to ``max_attempts`` times in all, and then the item's error is :class:`WorkerDied`. A
``cancel`` event stops the run early: the items not yet finished get :class:`Cancelled`.
An error of a kind listed in ``stop_on`` (bad input, say) stops the run at once and is
raised: the first such error to finish, which with several workers need not be the first
in item order.

:meth:`Executor.results` starts nothing before its first result is asked for;
:meth:`Executor.start` starts at once (a local pool's worker processes, a cluster's
tasks), so that a caller can load its own inputs meanwhile, and collects later. A local
pool's workers die with the process that made them (Linux), so a driver killed mid-run
leaves no worker writing on into what ``--resume`` will finish.
"""

from __future__ import annotations

import os
import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from .errors import InputError, WorkerDied
from .extras import require
from .log import current_level, set_level
from .numeric_env import pinned_threads
from .progress import Advance

T = TypeVar("T")
R = TypeVar("R")
StopOn = tuple[type[Exception], ...]
"""Kinds of item error that stop the whole run (see the module docstring)."""
Namer = Callable[[Any, int], str]
"""How a :class:`WorkerDied` names an item, given the item and its index (default:
:func:`item_name`); a caller whose items carry no sample id gives its own."""

EXECUTORS = ("local", "ray")
MAX_ATTEMPTS = 3
"""Times an item is run at most when its worker process dies under it."""


def process_ending(exitcode: int | None) -> str:
    """How a worker process ended, for :class:`WorkerDied`'s reason: by the signal that
    killed it (``killed by SIGKILL``, as the OOM killer ends one) or by its exit code.

    >>> process_ending(-9), process_ending(137), process_ending(None)
    ('killed by SIGKILL', 'exit code 137', 'ended, how unknown')
    """
    import signal

    if exitcode is None:
        return "ended, how unknown"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def item_name(item: object, index: int) -> str:
    """How an error names a work item: by its sample (a ``sample_id`` or ``id`` text of
    the item, or of a tuple item's first element), else a text or path item as it is,
    else by its position (``item 3``).

    >>> item_name(("a.wav", 7), 0), item_name(5, 2)
    ('a.wav', 'item 3')
    """
    for part in (item, item[0] if isinstance(item, tuple) and item else None):
        for attribute in ("sample_id", "id"):
            value = getattr(part, attribute, None)
            if isinstance(value, str):
                return f"sample {value}"
        if isinstance(part, str | os.PathLike):
            return os.fspath(part)
    return f"item {index + 1}"


class Cancelled(Exception):
    """The run was cancelled before this item finished."""

    def __init__(self) -> None:
        super().__init__("cancelled before this item finished")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Cancelled, ())


@dataclass(frozen=True)
class ItemResult(Generic[R]):
    """One work item's outcome: its value, or the exception that took its place."""

    value: R | None = None
    error: BaseException | None = None

    def get(self) -> R:
        """The value; the item's error is raised instead if it has one."""
        if self.error is not None:
            raise self.error
        return cast(R, self.value)


def _do_nothing(units: int = 1) -> None:
    """The progress callback when the caller gives none."""


class Run(ABC, Generic[R]):
    """A run already started by :meth:`Executor.start`: its results are collected with
    :meth:`results`; :meth:`close` (or leaving its ``with`` block) cancels the items not
    yet started and waits for those running."""

    def __enter__(self) -> Run[R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def results(self, advance: Advance = _do_nothing) -> Iterator[ItemResult[R]]:
        """Yield each item's result in item order, as soon as it and those before it are
        done; ``advance()`` is called once per finished item, in completion order."""

    @abstractmethod
    def close(self) -> None:
        """Cancel the items not yet started and wait for those running."""


class Executor(ABC):
    """Runs a function over work items; see the module docstring for the contract."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], *,
            setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
            cancel: threading.Event | None = None, stop_on: StopOn = (),
            name: Namer = item_name) -> list[ItemResult[R]]:
        """Every item's result, in item order (see :meth:`results`)."""
        return list(self.results(fn, items, setup=setup, advance=advance, cancel=cancel,
                                 stop_on=stop_on, name=name))

    def results(self, fn: Callable[[T], R], items: Sequence[T], *,
                setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
                cancel: threading.Event | None = None, stop_on: StopOn = (),
                name: Namer = item_name) -> Iterator[ItemResult[R]]:
        """Yield each item's result in item order, as soon as it and those before it are
        done; ``advance()`` is called once per finished item, in completion order.
        Nothing starts before the first result is asked for (see :meth:`start`)."""
        with self.start(fn, items, setup=setup, cancel=cancel, stop_on=stop_on,
                        name=name) as run:
            yield from run.results(advance)

    def fork_safe(self) -> Executor:
        """This executor, for work whose libraries are not safe in a process forked after
        they ran here (torch, onnxruntime and Praat start thread pools): local workers are
        then started fresh (``spawn``) instead of forked. The results are the same."""
        return self

    @abstractmethod
    def start(self, fn: Callable[[T], R], items: Sequence[T], *,
              setup: Callable[[], None] | None = None,
              cancel: threading.Event | None = None, stop_on: StopOn = (),
              name: Namer = item_name) -> Run[R]:
        """Start running ``fn`` over ``items`` now, in the background where the executor
        has one (worker processes, a cluster), so that the caller can load its own inputs
        meanwhile; collect with :meth:`Run.results`. Work that runs in this process waits
        for :meth:`Run.results`.

        ``setup`` runs once in each worker process before its first item (to load a
        model, say); work that runs in this process does not call it, since this process
        is the one the caller has already prepared. ``name`` names an item in its
        :class:`WorkerDied`.
        """


def _checked(result: ItemResult[R], stop_on: StopOn) -> ItemResult[R]:
    """``result``, unless its error is one that stops the run: then that error is raised."""
    if stop_on and isinstance(result.error, stop_on):
        raise result.error
    return result


def default_jobs() -> int:
    """Worker processes to use when ``--jobs`` is not given: one per available core."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def make_executor(kind: str = "local", *, jobs: int | None = None,
                  ray_address: str | None = None) -> Executor:
    """The executor the command-line options ask for (``--executor``, ``--jobs``,
    ``--ray-address``); a bad combination is an :class:`InputError` (exit 2)."""
    if kind not in EXECUTORS:
        raise InputError(f"--executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")
    if kind == "local":
        if ray_address is not None:
            raise InputError("--ray-address needs --executor ray")
        return LocalExecutor(jobs if jobs is not None else default_jobs())
    return RayExecutor(ray_address, num_cpus=jobs)


class LocalExecutor(Executor):
    """Items in this process (``jobs`` 1, or a single item), else in a process pool.

    ``small_items``: the items are short (Silero on a few outputs, some 60 ms), so the round
    trip to a worker per item would show; they are sent in chunks instead, about 16 per
    worker, the last ones smaller (:func:`chunk_sizes`: the last chunk decides when the
    slower worker ends). Results, progress and retries stay per item.

    ``mp_context``: how worker processes start (``fork``, ``spawn``, ``forkserver``; None:
    the platform's default, fork on Linux); see :meth:`fork_safe`.
    """

    def __init__(self, jobs: int = 1, *, max_attempts: int = MAX_ATTEMPTS,
                 small_items: bool = False, mp_context: str | None = None) -> None:
        self.jobs = jobs
        self.max_attempts = max_attempts
        self.small_items = small_items
        self.mp_context = mp_context

    def fork_safe(self) -> LocalExecutor:
        return LocalExecutor(self.jobs, max_attempts=self.max_attempts,
                             small_items=self.small_items, mp_context="spawn")

    def start(self, fn: Callable[[T], R], items: Sequence[T], *,
              setup: Callable[[], None] | None = None,
              cancel: threading.Event | None = None, stop_on: StopOn = (),
              name: Namer = item_name) -> Run[R]:
        if self.jobs <= 1 or len(items) <= 1:
            return _InThisProcess(fn, items, cancel, stop_on)
        import multiprocessing  # here: a run that needs no pool never imports it

        return _PoolRun(fn, items, setup, self.jobs, self.max_attempts, cancel, stop_on,
                        self.small_items, multiprocessing.get_context(self.mp_context), name)


def _outcome(fn: Callable[[T], R], item: T) -> ItemResult[R]:
    """``fn(item)`` with one thread in each numeric pool (:func:`pinned_threads`), so
    that the item computes the same bytes here, in a worker and on Ray."""
    try:
        with pinned_threads():
            return ItemResult(value=fn(item))
    except Exception as error:  # kept as the item's result, by contract
        return ItemResult(error=error)


class _InThisProcess(Run[R]):
    """The items one after another in this process, when their results are asked for."""

    def __init__(self, fn: Callable[[T], R], items: Sequence[T],
                 cancel: threading.Event | None, stop_on: StopOn) -> None:
        self.fn: Callable[[Any], R] = fn
        self.items: Sequence[Any] = items
        self.cancel, self.stop_on = cancel, stop_on

    def results(self, advance: Advance = _do_nothing) -> Iterator[ItemResult[R]]:
        for item in self.items:
            if self.cancel is not None and self.cancel.is_set():
                yield ItemResult(error=Cancelled())
                continue
            result = _checked(_outcome(self.fn, item), self.stop_on)
            advance()
            yield result

    def close(self) -> None:
        """Nothing runs in the background."""


# In a pool's worker process: which items it has started (shared with the parent), so
# that when a worker dies the parent knows which items were running and which never began.
_started: Any = None


def _start_worker(parent: int, started: Any, setup: Callable[[], None] | None,
                  level: int) -> None:
    """A pool worker's start: the driver's ``-v``/``-q`` level (a spawned worker starts
    from the default one; a forked one would keep it anyway), its death tied to the
    driver's, and the run's setup."""
    global _started
    import signal

    from .child_groups import end_by_sigterm

    # a forked worker inherits the program's SIGTERM handler (core/termination.py); a
    # pool stops its workers with SIGTERM and must see them end by it, once the programs
    # the worker started in sessions of their own are killed (core/child_groups.py)
    signal.signal(signal.SIGTERM, end_by_sigterm)
    set_level(level)
    _die_with(parent)
    _started = started
    if setup is not None:
        with pinned_threads():
            setup()


PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal this process gets when the thread that made it ends."""


def _die_with(parent: int) -> None:
    """Have this worker killed when its driver dies (Linux), even by SIGKILL: an orphan
    still working would publish items into the output a ``--resume`` is finishing."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: an orphan ends with its queue
        return
    if os.getppid() != parent:  # the driver died before prctl took effect
        os._exit(1)


STARTED_DONE = -1
"""An item's mark in a pool's ``started`` array once finished; 0 until it starts, and
while it runs the process id of the worker running it (so a mark above 0 is running)."""


def _run_chunk(fn: Callable[[T], R], chunk: list[tuple[int, T]]) -> list[ItemResult[R]]:
    """Some items one after another in a pool's worker, each marked started (this
    worker's process id) and then finished, so that if the worker dies the parent knows
    which item it died on, and which process's ending to report."""
    results = []
    for index, item in chunk:
        _started[index] = os.getpid()
        results.append(_outcome(fn, item))
        _started[index] = STARTED_DONE
    return results


class _PoolRun(Run[R]):
    """One run over a process pool, with retries; its first pool starts when it is made.

    When a worker dies, :class:`concurrent.futures.ProcessPoolExecutor` fails every item
    not yet finished. Those that never started are simply submitted to a fresh pool;
    those that were running are suspects, and each is run again alone, so an item that
    kills its worker every time is found and charged, and its neighbours are not.
    """

    def __init__(self, fn: Callable[[T], R], items: Sequence[T],
                 setup: Callable[[], None] | None, jobs: int, max_attempts: int,
                 cancel: threading.Event | None, stop_on: StopOn, small_items: bool,
                 context: Any, name: Namer) -> None:
        self.fn: Callable[[Any], R] = fn
        self.name = name
        self.context = context  # multiprocessing's: how worker processes start
        self.items: Sequence[Any] = items
        self.setup = setup
        self.small_items = small_items
        self.jobs, self.max_attempts = jobs, max_attempts
        self.advance: Advance = _do_nothing
        self.cancel, self.stop_on = cancel, stop_on
        self.done: dict[int, ItemResult[R]] = {}
        self.deaths: dict[int, int] = {}
        self.endings: dict[int, str] = {}  # how each suspect's last worker ended
        self._round: _PoolRound[R] | None = _PoolRound(self, list(range(len(items))))

    def results(self, advance: Advance = _do_nothing) -> Iterator[ItemResult[R]]:
        self.advance = advance
        following = 0
        stalled = 0
        while self._round is not None:
            current = self._round
            for _ in current.collect():
                while following in self.done:
                    yield self.done.pop(following)
                    following += 1
            for index in current.suspects:
                self._alone(index)
            # a pool whose workers die before any item starts (in setup, say) is
            # started again at most max_attempts times
            never_started = current.never_started
            if self.cancelled():  # no new pool just to cancel them
                for index in never_started:
                    self.done[index] = ItemResult(error=Cancelled())
                never_started = []
            stalled = stalled + 1 if len(never_started) == len(current.indices) else 0
            if stalled >= self.max_attempts:
                for index in never_started:
                    self.record(index, ItemResult(error=self._died(index, stalled,
                                                                   current.ending())))
                never_started = []
            self._round = _PoolRound(self, sorted(never_started)) if never_started else None
        while following in self.done:
            yield self.done.pop(following)
            following += 1

    def close(self) -> None:
        if self._round is not None:
            self._round.close()
            self._round = None

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def record(self, index: int, result: ItemResult[R]) -> None:
        self.done[index] = _checked(result, self.stop_on)
        self.advance()

    def _died(self, index: int, attempts: int, ending: str) -> WorkerDied:
        return WorkerDied(attempts, ending, self.name(self.items[index], index))

    def _alone(self, index: int) -> None:
        """Run a suspect alone until it finishes or has died ``max_attempts`` times."""
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        while not self.cancelled():
            if self.deaths[index] >= self.max_attempts:
                self.record(index, ItemResult(error=self._died(index, self.deaths[index],
                                                               self.endings[index])))
                return
            started = self.context.Array("i", len(self.items), lock=False)
            with ProcessPoolExecutor(max_workers=1, mp_context=self.context,
                                     initializer=_start_worker,
                                     initargs=(os.getpid(), started, self.setup,
                                               current_level())) as pool:
                future = pool.submit(_run_chunk, self.fn, [(index, self.items[index])])
                workers = _workers(pool)
                error = future.exception()
            if isinstance(error, BrokenProcessPool):  # the pool's one worker has ended
                self.deaths[index] += 1
                self.endings[index] = _pool_ending(workers.values())
                continue
            self.record(index, ItemResult(error=error) if error is not None
                        else future.result()[0])
            return
        self.done[index] = ItemResult(error=Cancelled())


class _PoolRound(Generic[R]):
    """Some items of a :class:`_PoolRun` in one process pool, submitted when it is made
    (so the worker processes start at once); if a worker dies, :meth:`collect` sorts the
    items it broke into ``suspects`` (they were running) and ``never_started``."""

    def __init__(self, run: _PoolRun[R], indices: list[int]) -> None:
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        self.run, self.indices = run, indices
        self.suspects: list[int] = []
        self.suspected_workers: dict[int, int] = {}  # a suspect's worker's process id
        self.never_started: list[int] = []
        self.started = run.context.Array("i", len(run.items), lock=False)
        self.pool = ProcessPoolExecutor(max_workers=min(run.jobs, len(indices)),
                                        mp_context=run.context, initializer=_start_worker,
                                        initargs=(os.getpid(), self.started, run.setup,
                                                  current_level()))
        self.workers = _workers(self.pool)
        self.futures: dict[Future[list[ItemResult[R]]], list[int]] = {}
        start = 0
        for size in (chunk_sizes(len(indices), run.jobs) if run.small_items
                     else [1] * len(indices)):
            chunk = indices[start:start + size]
            try:
                self.futures[self.pool.submit(
                    _run_chunk, run.fn, [(i, run.items[i]) for i in chunk])] = chunk
            except BrokenProcessPool:  # a worker died already: submit the rest later
                self.never_started.extend(indices[start:])
                break
            start += size

    def collect(self) -> Iterator[None]:
        """Record each item's result in the run as it finishes, yielding after each."""
        from concurrent.futures.process import BrokenProcessPool

        run = self.run
        waiting = set(self.futures)
        try:
            while waiting:
                if run.cancelled():
                    self.pool.shutdown(wait=True, cancel_futures=True)
                    for future in waiting:
                        for index in self.futures[future]:
                            run.done[index] = ItemResult(error=Cancelled())
                    return
                finished, waiting = wait(waiting, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=self.futures.__getitem__):
                    self._collected(self.futures[future], future, BrokenProcessPool)
                yield None
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stop the items, do not wait them out
            self.stop_workers()
            raise
        finally:
            self.close()
        for index in self.suspects:  # the pool is shut down: its workers have ended
            run.deaths[index] = run.deaths.get(index, 0) + 1
            worker = self.workers.get(self.suspected_workers[index])
            run.endings[index] = process_ending(worker.exitcode if worker else None)

    def ending(self) -> str:
        """How this round's workers ended, when none of them began an item."""
        return _pool_ending(self.workers.values())

    def _collected(self, chunk: list[int], future: Future[list[ItemResult[R]]],
                   broken: type[Exception]) -> None:
        """Record a finished chunk's results; if its worker died, the item it was running
        is a suspect, and those it never began or whose results died with it go again."""
        error = future.exception()
        if isinstance(error, broken):
            for index in chunk:
                if self.started[index] > 0:  # running: the id of the worker running it
                    self.suspects.append(index)
                    self.suspected_workers[index] = self.started[index]
                else:
                    self.never_started.append(index)
        elif error is not None:  # a result that could not come back, say
            for index in chunk:
                self.run.record(index, ItemResult(error=error))
        else:
            for index, result in zip(chunk, future.result(), strict=True):
                self.run.record(index, result)

    def close(self) -> None:
        """Cancel the items not yet started and wait for those running."""
        self.pool.shutdown(wait=True, cancel_futures=True)

    def stop_workers(self) -> None:
        """SIGTERM every worker still running; each kills the programs it started in
        sessions of their own and ends (core/child_groups.py)."""
        for worker in self.workers.values():
            if worker.is_alive():
                worker.terminate()


def chunk_sizes(n_items: int, jobs: int) -> list[int]:
    """How many small items each chunk sent to a pool of ``jobs`` workers holds, in order.

    About 16 chunks per worker (``n_items // (16 * jobs)`` items each), then smaller ones:
    a chunk holds at most a quarter of what each worker has left to do
    (``left // (4 * jobs)``), down to one item. The workers take chunks in turn, so the
    last chunk to finish decides when the run ends; small final chunks leave one worker
    idle for at most about one item instead of a whole chunk.

    >>> sizes = chunk_sizes(196, 2)  # 196 // 32 = 6 items a chunk while 48 or more are left
    >>> sizes[:25] == [6] * 25, sizes[25:35], sizes[35:] == [1] * 14, sum(sizes)
    (True, [5, 5, 4, 4, 3, 3, 2, 2, 2, 2], True, 196)
    >>> chunk_sizes(5, 2)
    [1, 1, 1, 1, 1]
    """
    full = max(1, n_items // (16 * jobs))
    sizes = []
    left = n_items
    while left > 0:
        sizes.append(next_batch_size(left, full, jobs))
        left -= sizes[-1]
    return sizes


def next_batch_size(left: int, most: int, jobs: int) -> int:
    """How many of the ``left`` items the next batch for a pool of ``jobs`` workers takes:
    at most ``most``, at most a quarter of what each worker has left (``left // (4 *
    jobs)``, ``jobs`` below 1 counting as 1), and at least one. Batches shrink towards the
    end so that the last one keeps the other workers idle for about one item.

    >>> next_batch_size(196, 6, 2), next_batch_size(28, 6, 2), next_batch_size(3, 6, 0)
    (6, 3, 1)
    """
    return max(1, min(most, left // (4 * max(1, jobs))))


def _workers(pool: Any) -> dict[int, Any]:
    """A process pool's worker processes by process id, kept after its shutdown to read
    how they ended. ``concurrent.futures`` has no public view of them: this is its
    ``_processes`` dict (the same object from the first submit to the end, in every
    CPython since 3.8); shutdown only drops the pool's reference to it."""
    return cast(dict[int, Any], pool._processes)


ENDING_WAIT_S = 2.0
"""How long the status of each of a broken pool's workers is awaited, one after another
(a loaded machine may not have reaped it yet; a live worker is not waited for longer)."""


def _pool_ending(workers: Iterable[Any]) -> str:
    """How the worker processes of a broken pool ended, told by one of them: a pool
    that breaks sends SIGTERM to the workers still alive, so an ending of another kind is
    the one that broke it; among several, the first in text order (the same every run).

    >>> class Ended:
    ...     def __init__(self, exitcode): self.exitcode = exitcode
    ...     def join(self, timeout=None): pass
    >>> _pool_ending([Ended(-15), Ended(None), Ended(-9)]), _pool_ending([Ended(-15)])
    ('killed by SIGKILL', 'killed by SIGTERM')
    """
    workers = list(workers)
    for worker in workers:  # a broken pool's workers are ending: wait for their status
        if worker.exitcode is None:
            worker.join(timeout=ENDING_WAIT_S)
    endings = sorted({process_ending(worker.exitcode) for worker in workers
                      if worker.exitcode is not None})
    return next((e for e in endings if e != "killed by SIGTERM"),
                endings[0] if endings else process_ending(None))


# In a Ray worker process: the runs whose setup has already been done here.
_prepared: set[str] = set()


def _ray_item(run_id: str,
              payload: tuple[Callable[[Any], Any], Callable[[], None] | None, int],
              item: Any) -> Any:
    """One work item as a Ray task: the driver's ``-v``/``-q`` level, the run's setup once
    per worker process, then ``fn``, with one thread in each numeric pool, as locally
    (:func:`pinned_threads`)."""
    fn, setup, level = payload
    set_level(level)   # a Ray worker process serves many drivers' tasks: set on each
    with pinned_threads():
        if setup is not None and run_id not in _prepared:
            setup()
            _prepared.add(run_id)
        return fn(item)


class RayExecutor(Executor):
    """Each item is one Ray task, retried by Ray when its worker process dies.

    With ``address`` it joins that cluster (``ray.init(address=...)``; ``"auto"`` finds
    one started on this machine with ``ray start``); without, it uses ``$RAY_ADDRESS`` or
    starts a private local cluster with ``num_cpus`` CPUs (default: all). An address
    that does not answer within :data:`~speecheval.core.ray_probe.CONNECT_TIMEOUT_S` is
    an :class:`InputError` (:func:`~speecheval.core.ray_probe.probe_ray_address`). A Ray
    connection already open in this process is used as it is and left open.
    """

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 max_attempts: int = MAX_ATTEMPTS) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.max_attempts = max_attempts

    def start(self, fn: Callable[[T], R], items: Sequence[T], *,
              setup: Callable[[], None] | None = None,
              cancel: threading.Event | None = None, stop_on: StopOn = (),
              name: Namer = item_name) -> Run[R]:
        ray = _import_ray()
        owned = not ray.is_initialized()
        if owned:
            self._connect(ray)
        try:
            return _RayRun(ray, owned, fn, items, setup, self.max_attempts, cancel, stop_on,
                           name)
        except BaseException:
            if owned:
                ray.shutdown()
            raise

    def _connect(self, ray: Any) -> None:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "logging_level": "WARNING"}
        address = self.address or os.environ.get("RAY_ADDRESS")
        try:
            if address:
                # here: the probe's socket module is for Ray alone (some 3 ms of import)
                from .ray_probe import probe_ray_address

                probe_ray_address(address)  # ray.init alone retries for minutes
                ray.init(address=self.address, **options)
            else:
                ray.init(num_cpus=self.num_cpus, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise InputError(f"cannot reach the Ray cluster at {address}: "
                             f"{str(error).splitlines()[0]}") from error


class _RayRun(Run[R]):
    """Every item submitted as a Ray task when the run is made; :meth:`close` cancels
    the unfinished ones and leaves the cluster if this run joined it."""

    def __init__(self, ray: Any, owned: bool, fn: Callable[[T], R], items: Sequence[T],
                 setup: Callable[[], None] | None, max_attempts: int,
                 cancel: threading.Event | None, stop_on: StopOn, name: Namer = item_name
                 ) -> None:
        self.ray, self.owned, self.name = ray, owned, name
        self.max_attempts, self.cancel, self.stop_on = max_attempts, cancel, stop_on
        task = ray.remote(_ray_item).options(max_retries=max_attempts - 1,
                                             retry_exceptions=False)
        payload = ray.put((fn, setup, current_level()))
        run_id = uuid.uuid4().hex
        self.items: Sequence[Any] = items
        self.refs = [task.remote(run_id, payload, item) for item in items]
        self.unfinished: set[Any] = set(self.refs)
        self.closed = False

    def results(self, advance: Advance = _do_nothing) -> Iterator[ItemResult[R]]:
        """Results in item order as the tasks finish."""
        position = {ref: index for index, ref in enumerate(self.refs)}
        done: dict[int, ItemResult[R]] = {}
        waiting = list(self.refs)
        following = 0
        while waiting:
            if self.cancel is not None and self.cancel.is_set():
                for ref in waiting:
                    done[position[ref]] = ItemResult(error=Cancelled())
                break
            finished, waiting = self.ray.wait(waiting, num_returns=1, timeout=0.2)
            for ref in finished:
                self.unfinished.discard(ref)
                done[position[ref]] = _checked(self._outcome(ref, position[ref]),
                                               self.stop_on)
                advance()
            while following in done:
                yield done.pop(following)
                following += 1
        while following in done:
            yield done.pop(following)
            following += 1

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for ref in self.unfinished:  # cancelled, stopped by an error, or abandoned
            self.ray.cancel(ref)
        if self.owned:
            self.ray.shutdown()

    def _outcome(self, ref: Any, index: int) -> ItemResult[R]:
        """The task's value or error; a task whose worker process was lost every time Ray
        tried it (crashed, killed by Ray's memory monitor, or on a node that died) is
        the item's :class:`WorkerDied`, as a dead worker is locally."""
        from ray.exceptions import (
            NodeDiedError,
            OutOfMemoryError,
            RayTaskError,
            WorkerCrashedError,
        )

        try:
            return ItemResult(value=self.ray.get(ref))
        except RayTaskError as error:
            return ItemResult(error=error.cause if error.cause is not None else error)
        except (WorkerCrashedError, OutOfMemoryError, NodeDiedError) as error:
            ending = ("killed by Ray's memory monitor" if isinstance(error, OutOfMemoryError)
                      else "its node died" if isinstance(error, NodeDiedError)
                      else "crashed or was killed, exit status not reported by Ray")
            return ItemResult(error=WorkerDied(self.max_attempts, ending,
                                               self.name(self.items[index], index)))


def _import_ray() -> Any:
    """Ray, imported only when the ray executor runs; exit 2 if it is not installed."""
    return require("ray", needed_for="--executor ray", extra="ray")
