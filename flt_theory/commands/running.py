"""What the commands that run experiments share (``flt check``, ``flt calibrate``, ``flt sweep``): the backend options
and the exit codes of a failure.

Exit codes follow the ``flt`` contract (:mod:`flt_theory.cli`): bad input (a store that is not ours, an unknown
name, a bad option, a diverged point of the user's parameters) exits 2, a failure while running (an experiment
raised, a full disk, an unreachable cluster) exits 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..errors import FLTError

__all__ = ["backend_options", "failure", "scheduler_of"]


def failure(exc: FLTError) -> click.ClickException:
    """The click exception of a library error: exit 2 for bad input, 1 for a failure while running (module
    docstring), as one line without the workers' tracebacks."""
    from ..runner.errors import BackendError, DivergedPointError, ExperimentError, StoreWriteError

    if isinstance(exc, DivergedPointError):  # the user's parameters: exit 2, one line
        return click.UsageError(" ".join(str(exc).split("Worker traceback:")[0].split()))
    if isinstance(exc, (BackendError, ExperimentError, StoreWriteError)):
        return click.ClickException(" ".join(str(exc).split("Worker traceback:")[0].split()))
    return click.UsageError(str(exc))


def scheduler_of(scheduler: str | None, dask: str | None) -> str | None:
    """The scheduler a run uses: ``--scheduler ADDRESS``, ``"local"`` for ``--dask local``, or None (not both)."""
    if scheduler and dask:
        raise click.UsageError("--scheduler and --dask are mutually exclusive; give one of them")
    return "local" if dask == "local" else scheduler


def backend_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--jobs``, ``--scheduler`` and ``--dask`` options of a command that runs experiments."""
    func = click.option("--dask", type=click.Choice(["local"]), default=None,
                        help="Start a local Dask cluster (loopback, no dashboard) and run on it.")(func)
    func = click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="Run on an existing Dask cluster (its scheduler address).")(func)
    func = click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
                        help="Worker processes (1: in this process); Dask workers with --dask local.")(func)
    return func
