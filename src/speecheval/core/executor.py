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

Per-item errors are kept: an exception raised by the function becomes that item's
:attr:`ItemResult.error` and the other items go on; the command decides what an error
means (bad input stops it, a system fault is recorded). A worker process that dies while
running an item (killed, out of memory, a crash in native code) has that item run again,
up to ``max_attempts`` times in all, and then the item's error is :class:`WorkerDied`. A
``cancel`` event stops the run early: the items not yet finished get :class:`Cancelled`.
An error of a kind listed in ``stop_on`` (bad input, say) stops the run at once and is
raised: the first such error to finish, which with several workers need not be the first
in item order.
"""

from __future__ import annotations

import os
import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from .errors import InputError
from .progress import Advance

T = TypeVar("T")
R = TypeVar("R")
StopOn = tuple[type[Exception], ...]
"""Kinds of item error that stop the whole run (see the module docstring)."""

EXECUTORS = ("local", "ray")
MAX_ATTEMPTS = 3
"""Times an item is run at most when its worker process dies under it."""


class WorkerDied(Exception):
    """The worker process running an item died every time the item was tried."""

    def __init__(self, attempts: int) -> None:
        super().__init__(f"the worker process died while running this item "
                         f"({attempts} attempts)")
        self.attempts = attempts

    def __reduce__(self) -> tuple[Any, ...]:
        return (WorkerDied, (self.attempts,))


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


class Executor(ABC):
    """Runs a function over work items; see the module docstring for the contract."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], *,
            setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
            cancel: threading.Event | None = None, stop_on: StopOn = ()
            ) -> list[ItemResult[R]]:
        """Every item's result, in item order (see :meth:`results`)."""
        return list(self.results(fn, items, setup=setup, advance=advance, cancel=cancel,
                                 stop_on=stop_on))

    @abstractmethod
    def results(self, fn: Callable[[T], R], items: Sequence[T], *,
                setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
                cancel: threading.Event | None = None, stop_on: StopOn = ()
                ) -> Iterator[ItemResult[R]]:
        """Yield each item's result in item order, as soon as it and those before it are
        done; ``advance()`` is called once per finished item, in completion order.

        ``setup`` runs once in each worker process before its first item (to load a
        model, say); work that runs in this process does not call it, since this process
        is the one the caller has already prepared.
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
    """Items in this process (``jobs`` 1, or a single item), else in a process pool."""

    def __init__(self, jobs: int = 1, *, max_attempts: int = MAX_ATTEMPTS) -> None:
        self.jobs = jobs
        self.max_attempts = max_attempts

    def results(self, fn: Callable[[T], R], items: Sequence[T], *,
                setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
                cancel: threading.Event | None = None, stop_on: StopOn = ()
                ) -> Iterator[ItemResult[R]]:
        if self.jobs <= 1 or len(items) <= 1:
            yield from _in_this_process(fn, items, advance, cancel, stop_on)
        else:
            yield from _PoolRun(fn, items, setup, self.jobs, self.max_attempts, advance,
                                cancel, stop_on).results()


def _outcome(fn: Callable[[T], R], item: T) -> ItemResult[R]:
    try:
        return ItemResult(value=fn(item))
    except Exception as error:  # kept as the item's result, by contract
        return ItemResult(error=error)


def _in_this_process(fn: Callable[[T], R], items: Sequence[T], advance: Advance,
                     cancel: threading.Event | None, stop_on: StopOn
                     ) -> Iterator[ItemResult[R]]:
    for item in items:
        if cancel is not None and cancel.is_set():
            yield ItemResult(error=Cancelled())
            continue
        result = _checked(_outcome(fn, item), stop_on)
        advance()
        yield result


# In a pool's worker process: which items it has started (shared with the parent), so
# that when a worker dies the parent knows which items were running and which never began.
_started: Any = None


def _start_worker(started: Any, setup: Callable[[], None] | None) -> None:
    global _started
    _started = started
    if setup is not None:
        setup()


def _run_marked(fn: Callable[[T], R], item: T, index: int) -> R:
    _started[index] = 1
    return fn(item)


class _PoolRun(Generic[T, R]):
    """One :meth:`LocalExecutor.results` call over a process pool, with retries.

    When a worker dies, :class:`concurrent.futures.ProcessPoolExecutor` fails every item
    not yet finished. Those that never started are simply submitted to a fresh pool;
    those that were running are suspects, and each is run again alone, so an item that
    kills its worker every time is found and charged, and its neighbours are not.
    """

    def __init__(self, fn: Callable[[T], R], items: Sequence[T],
                 setup: Callable[[], None] | None, jobs: int, max_attempts: int,
                 advance: Advance, cancel: threading.Event | None, stop_on: StopOn) -> None:
        self.fn, self.items, self.setup = fn, items, setup
        self.jobs, self.max_attempts = jobs, max_attempts
        self.advance, self.cancel, self.stop_on = advance, cancel, stop_on
        self.done: dict[int, ItemResult[R]] = {}
        self.deaths: dict[int, int] = {}

    def results(self) -> Iterator[ItemResult[R]]:
        pending = list(range(len(self.items)))
        following = 0
        stalled = 0
        while pending:
            suspects: list[int] = []
            never_started: list[int] = []
            for _ in self._pool_round(pending, suspects, never_started):
                while following in self.done:
                    yield self.done.pop(following)
                    following += 1
            for index in suspects:
                self._alone(index)
            # a pool whose workers die before any item starts (in setup, say) is
            # started again at most max_attempts times
            stalled = stalled + 1 if len(never_started) == len(pending) else 0
            if stalled >= self.max_attempts:
                for index in never_started:
                    self._record(index, ItemResult(error=WorkerDied(stalled)))
                never_started = []
            pending = sorted(never_started)
        while following in self.done:
            yield self.done.pop(following)
            following += 1

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def _record(self, index: int, result: ItemResult[R]) -> None:
        self.done[index] = _checked(result, self.stop_on)
        self.advance()

    def _pool_round(self, indices: list[int], suspects: list[int],
                    never_started: list[int]) -> Iterator[None]:
        """Run ``indices`` in one pool, yielding after each finished item; if a worker
        dies, the items it broke are put in ``suspects`` (they were running) or
        ``never_started``."""
        import multiprocessing  # here: a run that needs no pool never imports it
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        started = multiprocessing.Array("b", len(self.items), lock=False)
        with ProcessPoolExecutor(max_workers=min(self.jobs, len(indices)),
                                 initializer=_start_worker,
                                 initargs=(started, self.setup)) as pool:
            futures: dict[Future[R], int] = {}
            for position, i in enumerate(indices):
                try:
                    futures[pool.submit(_run_marked, self.fn, self.items[i], i)] = i
                except BrokenProcessPool:  # a worker died already: submit the rest later
                    never_started.extend(indices[position:])
                    break
            waiting = set(futures)
            try:
                while waiting:
                    if self._cancelled():
                        pool.shutdown(wait=True, cancel_futures=True)
                        for future in waiting:
                            self.done[futures[future]] = ItemResult(error=Cancelled())
                        return
                    finished, waiting = wait(waiting, timeout=0.2,
                                             return_when=FIRST_COMPLETED)
                    for future in sorted(finished, key=futures.__getitem__):
                        index = futures[future]
                        error = future.exception()
                        if isinstance(error, BrokenProcessPool):
                            (suspects if started[index] else never_started).append(index)
                        else:
                            self._record(index, ItemResult(error=error) if error is not None
                                         else ItemResult(value=future.result()))
                    yield None
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        for index in suspects:
            self.deaths[index] = self.deaths.get(index, 0) + 1

    def _alone(self, index: int) -> None:
        """Run a suspect alone until it finishes or has died ``max_attempts`` times."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        while not self._cancelled():
            if self.deaths[index] >= self.max_attempts:
                self._record(index, ItemResult(error=WorkerDied(self.deaths[index])))
                return
            started = multiprocessing.Array("b", len(self.items), lock=False)
            with ProcessPoolExecutor(max_workers=1, initializer=_start_worker,
                                     initargs=(started, self.setup)) as pool:
                future = pool.submit(_run_marked, self.fn, self.items[index], index)
                error = future.exception()
            if isinstance(error, BrokenProcessPool):
                self.deaths[index] += 1
                continue
            self._record(index, ItemResult(error=error) if error is not None
                         else ItemResult(value=future.result()))
            return
        self.done[index] = ItemResult(error=Cancelled())


# In a Ray worker process: the runs whose setup has already been done here.
_prepared: set[str] = set()


def _ray_item(run_id: str, payload: tuple[Callable[[Any], Any], Callable[[], None] | None],
              item: Any) -> Any:
    """One work item as a Ray task: the run's setup once per worker process, then ``fn``."""
    fn, setup = payload
    if setup is not None and run_id not in _prepared:
        setup()
        _prepared.add(run_id)
    return fn(item)


class RayExecutor(Executor):
    """Each item is one Ray task, retried by Ray when its worker process dies.

    With ``address`` it joins that cluster (``ray.init(address=...)``; ``"auto"`` finds
    one started on this machine with ``ray start``); without, it uses ``$RAY_ADDRESS`` or
    starts a private local cluster with ``num_cpus`` CPUs (default: all). A Ray
    connection already open in this process is used as it is and left open.
    """

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 max_attempts: int = MAX_ATTEMPTS) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.max_attempts = max_attempts

    def results(self, fn: Callable[[T], R], items: Sequence[T], *,
                setup: Callable[[], None] | None = None, advance: Advance = _do_nothing,
                cancel: threading.Event | None = None, stop_on: StopOn = ()
                ) -> Iterator[ItemResult[R]]:
        ray = _import_ray()
        owned = not ray.is_initialized()
        if owned:
            self._connect(ray)
        unfinished: set[Any] = set()
        try:
            task = ray.remote(_ray_item).options(max_retries=self.max_attempts - 1,
                                                 retry_exceptions=False)
            payload = ray.put((fn, setup))
            run_id = uuid.uuid4().hex
            refs = [task.remote(run_id, payload, item) for item in items]
            unfinished.update(refs)
            yield from self._collect(ray, refs, unfinished, advance, cancel, stop_on)
        finally:
            for ref in unfinished:  # cancelled, stopped by an error, or abandoned
                ray.cancel(ref)
            if owned:
                ray.shutdown()

    def _connect(self, ray: Any) -> None:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "logging_level": "WARNING"}
        try:
            if self.address is not None or os.environ.get("RAY_ADDRESS"):
                ray.init(address=self.address, **options)
            else:
                ray.init(num_cpus=self.num_cpus, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise InputError(f"cannot reach the Ray cluster at "
                             f"{self.address or os.environ.get('RAY_ADDRESS')}: "
                             f"{str(error).splitlines()[0]}") from error

    def _collect(self, ray: Any, refs: list[Any], unfinished: set[Any], advance: Advance,
                 cancel: threading.Event | None, stop_on: StopOn) -> Iterator[ItemResult[R]]:
        """Results in item order as the tasks finish; ``unfinished`` is kept up to date."""
        position = {ref: index for index, ref in enumerate(refs)}
        done: dict[int, ItemResult[R]] = {}
        waiting = list(refs)
        following = 0
        while waiting:
            if cancel is not None and cancel.is_set():
                for ref in waiting:
                    done[position[ref]] = ItemResult(error=Cancelled())
                break
            finished, waiting = ray.wait(waiting, num_returns=1, timeout=0.2)
            for ref in finished:
                unfinished.discard(ref)
                done[position[ref]] = _checked(self._outcome(ray, ref), stop_on)
                advance()
            while following in done:
                yield done.pop(following)
                following += 1
        while following in done:
            yield done.pop(following)
            following += 1

    def _outcome(self, ray: Any, ref: Any) -> ItemResult[R]:
        from ray.exceptions import RayTaskError, WorkerCrashedError

        try:
            return ItemResult(value=ray.get(ref))
        except RayTaskError as error:
            return ItemResult(error=error.cause if error.cause is not None else error)
        except WorkerCrashedError:
            return ItemResult(error=WorkerDied(self.max_attempts))


def _import_ray() -> Any:
    """Ray, imported only when the ray executor runs; exit 2 if it is not installed."""
    try:
        import ray
    except ImportError as error:
        raise InputError("--executor ray needs Ray: pip install 'speecheval[ray]' "
                         f"({error})") from error
    return ray
