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
