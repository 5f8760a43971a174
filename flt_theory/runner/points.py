"""One sweep point as a picklable task, and the function every backend runs on it.

:func:`run_point` imports the module that registered the experiment (so a spawned or remote worker
finds it by name), runs it, and returns the values with the worker's provenance and, in a worker, the
experiment's code fingerprint there (a sweep refuses rows computed by other code than its own). With
``capture=True`` (workers) an exception is returned as text, because arbitrary exceptions do not
always pickle; in-process it is raised as :class:`~flt_theory.runner.errors.ExperimentError` with
the original as its cause.
"""

from __future__ import annotations

import datetime as _dt
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from ..errors import DivergenceError
from .errors import DivergedPointError, ExperimentError
from .executors import dask_worker_threads, set_torch_threads
from .provenance import worker_provenance
from .registry import get_experiment

__all__ = ["PointTask", "describe", "run_point"]


@dataclass(frozen=True)
class PointTask:
    """What a worker needs to compute one point."""

    ids: tuple[str, ...]  # one row id per seed
    experiment: str
    module: str
    params: dict[str, Any] = field(hash=False)
    seeds: tuple[int, ...]
    threads: int | None = None  # torch threads to set (pool workers), None: leave / Dask rule
    parent_pid: int | None = None  # the sweeping process (Dask: do not touch threads there)
    capture: bool = True


def describe(experiment: str, params: dict[str, Any], seed: int | tuple[int, ...]) -> str:
    """``name(k=v, ...) seed s`` (or ``seeds s1, s2``) for messages.

    >>> describe("demo", {"d": 64, "kappa": 1.5}, 3), describe("demo", {}, (0, 1))
    ('demo(d=64, kappa=1.5) seed 3', 'demo() seeds 0, 1')
    """
    seeds = seed if isinstance(seed, tuple) else (seed,)
    which = f"seed {seeds[0]}" if len(seeds) == 1 else "seeds " + ", ".join(map(str, seeds))
    return f"{experiment}({', '.join(f'{k}={v!r}' for k, v in params.items())}) {which}"


def run_point(task: PointTask) -> dict[str, Any]:
    """Run ``task`` (one point, its seeds in one call when the experiment is batched); return
    ``{"ids", "ok", "values" (one dict per seed), "wall_time" (per seed), "finished_at", "code_fingerprint"
    (None in-process: it is the sweep's own), ...provenance}`` or, when it failed and ``task.capture``,
    ``{"ids", "ok": False, "error", "traceback"}``."""
    try:
        exp = get_experiment(task.experiment, task.module)
        if task.threads is not None:
            set_torch_threads(task.threads)
        elif task.parent_pid is not None:
            dask_worker_threads(task.parent_pid)
        start = time.perf_counter()
        values = exp.run_seeds(task.params, task.seeds)
        wall = (time.perf_counter() - start) / len(task.seeds)
    except Exception as exc:
        if not task.capture:
            kind = DivergedPointError if isinstance(exc, (DivergedPointError, DivergenceError)) else ExperimentError
            raise kind(
                f"{describe(task.experiment, task.params, task.seeds)} failed: {type(exc).__name__}: {exc}"
            ) from exc
        return {
            "ids": task.ids, "ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
            "diverged": isinstance(exc, (DivergedPointError, DivergenceError)),
        }
    return {
        "ids": task.ids,
        "ok": True,
        "values": values,
        "wall_time": wall,
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "code_fingerprint": exp.code_fingerprint if task.capture else None,
        **worker_provenance(task.params),
    }
