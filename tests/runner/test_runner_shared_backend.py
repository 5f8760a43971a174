"""A backend passed as the scheduler is shared by many sweeps and left open (calibration reuses one pool)."""

from flt_theory.runner.executors import Backend, InProcessBackend, make_backend


class _Counting(InProcessBackend):
    closed = 0

    def close(self) -> None:
        type(self).closed += 1


def test_an_open_backend_is_borrowed_not_closed():
    owner = _Counting()
    with make_backend(2, owner) as borrowed:
        assert isinstance(borrowed, Backend) and borrowed is not owner
        assert list(borrowed.imap_unordered(lambda x: x * x, [1, 2, 3])) == [1, 4, 9]
    assert _Counting.closed == 0
    owner.close()
    assert _Counting.closed == 1


def test_in_process_runs_take_flt_threads_from_the_environment(monkeypatch):
    """``FLT_THREADS`` (the advice on shared machines of docs/guide/development.md) applies to in-process runs of
    every system, not only to the giant step; unset, the caller's torch setting is left alone (the control)."""
    import torch

    from flt_theory.runner.executors import InProcessBackend

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        monkeypatch.delenv("FLT_THREADS", raising=False)
        assert list(InProcessBackend().imap_unordered(abs, [-1])) == [1] and torch.get_num_threads() == 2
        monkeypatch.setenv("FLT_THREADS", "1")
        assert list(InProcessBackend().imap_unordered(abs, [-1])) == [1] and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_shared_backend_is_none_in_process_and_one_closed_backend_otherwise(counted_backends, monkeypatch):
    """``shared_backend`` makes one backend for a run with jobs > 1 or a scheduler and closes it at the end; in-process
    (jobs 1) and for a jobs value the sweeps must refuse themselves, none."""
    from flt_theory.runner import executors

    make, made, closed = counted_backends
    monkeypatch.setattr(executors, "make_backend", make)
    for jobs in (1, 0, "2", True):
        with executors.shared_backend(jobs) as backend:
            assert backend is None
    with executors.shared_backend(2) as backend:
        assert made == [backend] and closed == []
    assert closed == made


def test_a_pool_whose_worker_died_runs_the_next_sweep_on_fresh_workers():
    """A worker that dies fails its sweep with a BackendError; the pool's next sweep starts fresh workers (a pool
    shared by a run's claims would otherwise fail every claim after the first death)."""
    import os

    import pytest

    from flt_theory.runner.errors import BackendError
    from flt_theory.runner.executors import PoolBackend

    with PoolBackend(1) as pool:
        with pytest.raises(BackendError, match="a worker process of the pool died"):
            list(pool.imap_unordered(os._exit, [3]))
        assert sorted(pool.imap_unordered(abs, [-1, -2])) == [1, 2]
        # a worker that dies while idle (between two sweeps: the OOM killer, say) breaks the pool before any task:
        # submit raises, and that is the same BackendError and the same fresh start
        import signal
        import time

        for process in list(pool._pool._processes.values()):
            os.kill(process.pid, signal.SIGKILL)
        time.sleep(0.5)  # the pool's manager thread notices the dead worker and marks the pool broken
        with pytest.raises(BackendError, match="a worker process of the pool died"):
            list(pool.imap_unordered(abs, [-3]))
        assert sorted(pool.imap_unordered(abs, [-4, -5])) == [4, 5]
