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
