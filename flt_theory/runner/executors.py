r"""Where points run: in this process, in a local process pool, or on a Dask cluster.

Every backend maps a top-level function over picklable items and yields the results as they
complete; only the calling process writes to the store, so the store never sees concurrent
writers from one sweep.

Threads. A pool of ``jobs`` workers gives each ``max(1, cores // jobs)`` torch threads (set
through ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` before torch loads in the worker, and
``torch.set_num_threads``), so that ``jobs`` workers never oversubscribe the cores. A Dask worker
process gives each of its task threads ``max(1, cores // nthreads)``. In-process runs (and a Dask
cluster with ``processes=False``, which shares this process) leave the caller's setting alone, except that the
environment variable ``FLT_THREADS`` (:func:`flt_theory.numeric.backend.configure_threads`), where set, applies to
every in-process run of every system (on a shared machine ``FLT_THREADS=1``: two threads on a busy second core run
many times slower than one).

Start method. Pool workers are *spawned* (fresh interpreters): forking a process whose torch has
already started its OpenMP thread pool can deadlock the child. As with any spawned pool, a script
that calls ``sweep(..., jobs=N)`` must do so under ``if __name__ == "__main__":`` (the workers
import the main script).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._validation import check_int
from ..errors import InvalidParameterError, InvalidParameterTypeError
from .errors import BackendError

__all__ = ["Backend", "DaskBackend", "InProcessBackend", "PoolBackend", "make_backend", "set_torch_threads",
           "shared_backend"]

_DASK_HINT = "install it with: pip install 'dask[distributed]'"
#: How long to wait for an existing Dask scheduler to answer.
CONNECT_TIMEOUT = "10s"
#: Dask tasks carry several points once a point's cost is known, so that a task lasts about this
#: long (a Dask task costs milliseconds of scheduling; a pool dispatch, ~0.2 ms) ...
TARGET_TASK_SECONDS = 0.25
#: ... but never more than this many points.
MAX_CHUNK = 64


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def set_torch_threads(threads: int) -> None:
    """Give torch ``threads`` intra-op threads in this process (environment too, for a later import)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


_DASK_THREADS_SET = False


def dask_worker_threads(parent_pid: int) -> None:
    """In a Dask worker process (not the caller's own process), set torch threads to cores // nthreads."""
    global _DASK_THREADS_SET
    if _DASK_THREADS_SET or os.getpid() == parent_pid:
        return
    try:
        from distributed import get_worker

        nthreads = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return
    set_torch_threads(max(1, _cores() // max(1, nthreads)))
    _DASK_THREADS_SET = True


class Backend:
    """Maps ``fn`` over items, yielding results in completion order (a context manager)."""

    name = "backend"
    workers = 1

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (idempotent)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessBackend(Backend):
    """Run every item in this process, in order; exceptions propagate."""

    name = "in-process"

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        if os.environ.get("FLT_THREADS", "").strip():
            from ..numeric.backend import configure_threads

            configure_threads()
        for item in items:
            yield fn(item)


def _exit_with_parent(parent: int, interval: float = 0.5) -> None:
    """Exit this worker when the sweeping process is gone (killed with SIGKILL, say): a pool worker
    blocked on its task queue would otherwise wait forever."""

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="flt-parent-watch", daemon=True).start()


def _pool_initializer(threads: int, sys_path: list[str], parent: int) -> None:
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    set_torch_threads(threads)
    _exit_with_parent(parent)


class PoolBackend(Backend):
    """A local pool of ``jobs`` spawned worker processes, ``max(1, cores // jobs)`` torch threads each."""

    name = "process-pool"

    def __init__(self, jobs: int):
        self.workers = jobs
        self.threads = max(1, _cores() // jobs)
        self._pool = self._start()

    def _start(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_pool_initializer,
            initargs=(self.threads, list(sys.path), os.getpid()),
        )

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        it = iter(items)
        window = 4 * self.workers
        pending: set[cf.Future[Any]] = set()

        def fill() -> None:
            for item in it:
                pending.add(self._pool.submit(fn, item))
                if len(pending) >= window:
                    return

        try:
            fill()
            while pending:
                done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    pending.discard(future)
                    result = future.result()
                    yield result
                fill()
        except cf.process.BrokenProcessPool as exc:
            # a worker died, during a task or while idle (then submit raises): a broken pool refuses every later
            # task, so the next use starts fresh workers
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._start()
            raise BackendError(
                f"a worker process of the pool died ({exc}). Re-run to resume. If this sweep was started "
                "from a script, put the call under `if __name__ == '__main__':` — the workers are "
                "spawned and import the main script."
            ) from None
        finally:
            for future in pending:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _run_chunk(fn: Callable[[Any], Any], items: list[Any]) -> tuple[list[Any], float]:
    """Run ``fn`` on each item (one Dask task); also return the seconds per item."""
    start = time.perf_counter()
    results = [fn(item) for item in items]
    return results, (time.perf_counter() - start) / max(1, len(items))


def local_cluster_options(workers: int) -> dict[str, Any]:
    """Options of the LocalCluster that ``scheduler="local"`` starts: ``workers`` single-threaded
    processes on loopback, no dashboard, and the scheduler's HTTP endpoint on a free port (not
    8787, which another cluster may hold)."""
    return {
        "n_workers": workers, "threads_per_worker": 1, "processes": True, "host": "127.0.0.1",
        "dashboard_address": None, "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
    }


class DaskBackend(Backend):
    """Submit items to a Dask cluster: ``"local"`` starts a LocalCluster on loopback (``jobs``
    single-threaded worker processes, no dashboard), an address connects to an existing scheduler,
    a ``distributed.Client`` is used as it is (and not closed).

    The first tasks carry one item each; then each task carries enough items to last about
    :data:`TARGET_TASK_SECONDS` (at most :data:`MAX_CHUNK`), which amortises Dask's per-task cost.
    Results are yielded, and so stored, as each task completes."""

    name = "dask"

    def __init__(self, scheduler: Any, jobs: int = 1):
        try:
            import distributed
        except ImportError:
            raise BackendError("the Dask backend needs the 'distributed' package, which is not installed; "
                               f"{_DASK_HINT}") from None
        self._cluster = None
        self._own_client = True
        if isinstance(scheduler, distributed.Client):
            self.client, self._own_client = scheduler, False
        elif scheduler == "local":
            n = jobs if jobs > 1 else _cores()
            try:
                # distributed's constructors carry no annotations (here and below)
                self._cluster = distributed.LocalCluster(**local_cluster_options(n))  # type: ignore[no-untyped-call]
                self.client = distributed.Client(self._cluster)  # type: ignore[no-untyped-call]
            except Exception as exc:  # noqa: BLE001 - any start failure is reported the same way
                self.close()
                raise BackendError(f"could not start a local Dask cluster: {type(exc).__name__}: {exc}") from None
        else:
            try:
                self.client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError, ValueError) as exc:
                raise BackendError(
                    f"could not connect to the Dask scheduler at {scheduler!r}: {type(exc).__name__}: {exc}"
                ) from None
        # distributed's Client.nthreads carries no annotations
        self.workers = max(1, sum(self.client.nthreads().values()))  # type: ignore[no-untyped-call]

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        from distributed import Future, as_completed

        it = iter(items)
        outstanding: set[Future[tuple[list[Any], float]]] = set()
        per_item: list[float] = []  # running estimate of one item's seconds

        def chunk_size() -> int:
            if not per_item:
                return 1
            return max(1, min(MAX_CHUNK, int(TARGET_TASK_SECONDS / max(per_item[0], 1e-6))))

        def submit(tasks: int) -> list[Future[tuple[list[Any], float]]]:
            futures = []
            for _ in range(tasks):
                chunk = list(itertools.islice(it, chunk_size()))
                if not chunk:
                    break
                futures.append(self.client.submit(_run_chunk, fn, chunk, pure=False))
            outstanding.update(futures)
            return futures

        # distributed's as_completed carries no annotations (its constructor, batches, update)
        queue = as_completed(submit(4 * self.workers), with_results=True)  # type: ignore[no-untyped-call]
        try:
            for batch in queue.batches():  # type: ignore[no-untyped-call]
                for future, (results, seconds) in batch:
                    outstanding.discard(future)
                    per_item[:] = [seconds if not per_item else 0.7 * per_item[0] + 0.3 * seconds]
                    yield from results
                queue.update(submit(len(batch)))  # type: ignore[no-untyped-call]
        finally:
            for future in outstanding:
                future.cancel()  # type: ignore[no-untyped-call]  # distributed's Future.cancel: unannotated

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None and self._own_client:
            client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


class _Borrowed(Backend):
    """Another owner's open backend, used without closing it (a calibration runs hundreds of sweeps on one pool
    instead of spawning one per sweep: spawning two workers and importing torch costs seconds each time)."""

    def __init__(self, backend: Backend):
        self.backend, self.name, self.workers = backend, backend.name, backend.workers

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        return self.backend.imap_unordered(fn, items)


@contextlib.contextmanager
def shared_backend(jobs: Any = 1, scheduler: Any = None) -> Iterator[Backend | None]:
    """One backend for every sweep of a run (``flt check``, ``flt calibrate``, a law's verification), closed at its
    end: a pool of 2 spawned workers takes about 2.5 s to start, which a pool per sweep paid again each time. None
    where the run is in-process (``jobs`` 1 and no ``scheduler``), or where ``jobs`` is not an int > 1 and no
    scheduler is given (each sweep then refuses or runs ``jobs`` itself)."""
    if scheduler is None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs <= 1):
        yield None
        return
    backend = make_backend(jobs, scheduler)
    try:
        yield backend
    finally:
        backend.close()


def make_backend(jobs: int = 1, scheduler: Any = None) -> Backend:
    """The backend for ``jobs`` and ``scheduler``: in-process (``jobs=1``, no scheduler), a process
    pool (``jobs > 1``), Dask (``scheduler="local"``, ``"tcp://host:port"``, or a Client), or an open
    :class:`Backend` passed as ``scheduler`` (shared, left open)."""
    jobs = check_int(jobs, "jobs", minimum=1)
    if isinstance(scheduler, Backend):  # an open backend shared by many sweeps: its owner closes it
        return _Borrowed(scheduler)
    if scheduler is None:
        return InProcessBackend() if jobs == 1 else PoolBackend(jobs)
    if isinstance(scheduler, str):
        if scheduler != "local" and "://" not in scheduler and ":" not in scheduler:
            raise InvalidParameterError(
                f"The 'scheduler' parameter must be 'local', an address such as 'tcp://host:8786', or a "
                f"distributed.Client. Got {scheduler!r} instead."
            )
        return DaskBackend(scheduler, jobs)
    if type(scheduler).__name__ == "Client":
        return DaskBackend(scheduler, jobs)
    raise InvalidParameterTypeError(
        f"The 'scheduler' parameter must be None, 'local', an address or a distributed.Client. Got {scheduler!r} "
        f"of type {type(scheduler).__name__} instead."
    )
