"""Fixtures shared by the tests (the session's wiring is the repository's ``conftest.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from flt_theory.runner.executors import InProcessBackend


@pytest.fixture
def counted_backends() -> tuple[Any, list[InProcessBackend], list[InProcessBackend]]:
    """A stand-in for ``make_backend``: ``(make, made, closed)``, ``make(jobs, scheduler=None)`` returning a new
    in-process backend each call, recorded in ``made`` and, once closed, in ``closed``."""
    made: list[InProcessBackend] = []
    closed: list[InProcessBackend] = []

    class Counted(InProcessBackend):
        def close(self) -> None:
            closed.append(self)
            super().close()

    def make(jobs: int, scheduler: Any = None) -> InProcessBackend:
        made.append(Counted())
        return made[-1]

    return make, made, closed
