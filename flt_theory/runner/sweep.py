r"""Resumable sweeps: a grid of parameter points × seeds, each point computed once and stored.

:func:`sweep` expands the grid, hashes every ``(experiment, params, seed)`` into its row id, asks
the store which ids it already holds *with the experiment's current code fingerprint*, and computes
only the others — in this process, in a local process pool (``jobs``) or on Dask (``scheduler``). A
stored row of another fingerprint (the experiment's code was edited since, or a row of schema 1) is
stale: it is recomputed and replaced, never returned, and counted in ``attrs["stale"]``. Each result
is written the moment it arrives, in its own transaction, so a sweep killed at any moment and run
again loses no completed point, duplicates none, and ends with the same table as an uninterrupted run
(the experiments are pure functions of their parameters and seed).

>>> from flt_theory.runner.registry import experiment
>>> @experiment("demo/affine", types={"a": float})
... def affine(params, seed):
...     return {"y": params["a"] * seed}
>>> df = sweep("demo/affine", grid={"a": [1, 2]}, seeds=2, progress=False)
>>> df[["a", "seed", "y"]].to_dict("list")
{'a': [1.0, 1.0, 2.0, 2.0], 'seed': [0, 1, 0, 1], 'y': [0.0, 1.0, 0.0, 2.0]}
>>> df.attrs["computed"], df.attrs["reused"], df.attrs["stale"]
(4, 0, 0)
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._validation import check_int
from ..errors import InvalidParameterError, InvalidParameterTypeError
from .cost import Cost, check_cost
from .errors import BackendError, DivergedPointError, ExperimentError, StoreConflictError
from .executors import InProcessBackend, PoolBackend, make_backend
from .points import PointTask, describe, run_point
from .provenance import static_provenance
from .registry import Experiment, get_experiment
from .store import ResultStore, canonical_json, make_row, point_id_from_json

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["expand_grid", "load_results", "progress_enabled", "sweep"]


def expand_grid(grid: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cartesian product of ``grid`` (name -> list of values; a scalar or str is one value), in
    the grid's key order with the last key varying fastest.

    >>> expand_grid({"d": [64, 128], "kappa": [1.0, 1.5], "target": "z + He2(z)"})[:2]
    [{'d': 64, 'kappa': 1.0, 'target': 'z + He2(z)'}, {'d': 64, 'kappa': 1.5, 'target': 'z + He2(z)'}]
    """
    if not isinstance(grid, Mapping):
        raise InvalidParameterTypeError(f"The 'grid' parameter must be a mapping name -> list of values. Got {grid!r} "
                                        "instead.")
    axes = []
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            values = [values]
        values = list(values)
        if not values:
            raise InvalidParameterError(f"The 'grid' parameter's axis {name!r} is empty; give at least one value.")
        axes.append(values)
    return [dict(zip(grid, combo)) for combo in itertools.product(*axes)]


#: The runner's own cost per (point, seed), checked before the seed list is built (bytes for a task tuple, a
#: stored row and a row of the returned frame; operations for its bookkeeping).
ROWS_COST = Cost(memory="2000*points*seeds", work="1e5*points*seeds")
#: One task of a sweep: (row id, normalised parameters, seed, the parameters' canonical JSON).
_Task = tuple[str, dict[str, Any], int, str]


def _seed_list(seeds: int | Iterable[int]) -> list[int]:
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        return list(range(check_int(seeds, "seeds", minimum=1, caller="sweep")))
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise InvalidParameterTypeError(
            f"The 'seeds' parameter of sweep must be an int (that many seeds 0..k-1) or an iterable of ints. "
            f"Got {seeds!r} instead."
        )
    values = list(dict.fromkeys(check_int(s, "seeds", minimum=0, maximum=2**63 - 1, caller="sweep") for s in seeds))
    if not values:
        raise InvalidParameterError("The 'seeds' parameter of sweep must hold at least one seed. Got none.")
    return values


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def progress_enabled(progress: bool | None = None) -> bool:
    """Whether to draw a progress bar: ``progress`` if given, else only on an interactive stderr
    and not under CI (environment ``CI`` true)."""
    if progress is not None:
        return bool(progress)
    return not _truthy(os.environ.get("CI")) and sys.stderr is not None and sys.stderr.isatty()


@contextlib.contextmanager
def progress_bar(
    total: int, *, initial: int = 0, desc: str = "", unit: str = "pt", enabled: bool = True
) -> Iterator[Any]:
    """A tqdm bar on stderr (with ETA), or a no-op with the same ``update`` method."""
    if not enabled:
        yield _NoBar()
        return
    from tqdm.auto import tqdm

    bar = tqdm(
        total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, mininterval=0.2,
        leave=True,
    )
    try:
        yield bar
    finally:
        bar.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def _open_store(store: str | os.PathLike[str] | ResultStore | None) -> tuple[ResultStore, bool]:
    if isinstance(store, ResultStore):
        return store, False
    return ResultStore(":memory:" if store is None else store), True


def sweep(
    experiment: str | Experiment,
    grid: Mapping[str, Any] | None = None,
    *,
    points: Sequence[Mapping[str, Any]] | None = None,
    seeds: int | Iterable[int] = 1,
    store: str | os.PathLike[str] | ResultStore | None = None,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool | None = None,
    provenance: bool = False,
    fresh: bool = False,
) -> pd.DataFrame:
    r"""Run ``experiment`` on ``grid`` (or ``points``) × ``seeds``; compute only what ``store`` lacks.

    Parameters
    ----------
    experiment
        A registered name (:func:`~flt_theory.runner.registry.experiment`), e.g.
        ``"giant-step/one-step-mass"``.
    grid
        ``{name: values}``; the cartesian product is swept (:func:`expand_grid`).
    points
        Instead of ``grid``: an explicit list of parameter dicts.
    seeds
        ``k`` (seeds ``0..k-1``) or the seed values; each (point, seed) is one row.
    store
        SQLite file (created if missing; resumed if it exists), a :class:`ResultStore`, or None for
        an in-memory store (nothing kept after the call).
    jobs
        Worker processes (``1``: in this process), or Dask workers for ``scheduler="local"``.
        Workers are spawned and import the main script: call ``sweep(..., jobs=N)`` from a script
        under ``if __name__ == "__main__":``. Each worker gets ``cores // jobs`` torch threads.
    scheduler
        ``"local"`` (start a LocalCluster), ``"tcp://host:port"`` (an existing Dask scheduler), or a
        ``distributed.Client``.
    progress
        Progress bar on stderr; default: only on a terminal and not under CI.
    provenance
        Add the provenance columns (versions, git commit, device, dtype, wall time, ...) and ``id``.
    fresh
        Recompute every point even when the store holds it (its stored rows are replaced).

    Returns
    -------
    pandas.DataFrame
        One row per (point, seed) in grid order, seeds fastest: ``experiment``, the parameters,
        ``seed``, the results. ``attrs``: ``computed`` and ``reused`` row counts, ``stale`` (how many of
        the computed rows replaced stored rows of other code: :attr:`Experiment.code_fingerprint`),
        ``store``, ``experiment``.

    Raises
    ------
    UnknownExperimentError, InvalidParameterError
        Before anything runs. ExperimentError: a point raised (the points completed before it are
        stored); StoreError and its subclasses: the store is unusable (nothing is lost);
        StoreConflictError: another process replaced rows of this sweep meanwhile; BackendError: a worker
        runs other code than this process.
    """
    exp = get_experiment(experiment)
    if grid is not None and points is not None:
        raise InvalidParameterError("Give the sweep a 'grid' or a list of 'points', not both.")
    raw_points: Sequence[Mapping[str, Any]]
    if points is None:
        raw_points = expand_grid(grid if grid is not None else {})
    else:
        if isinstance(points, Mapping) or not isinstance(points, Iterable):
            raise InvalidParameterTypeError(f"The 'points' parameter of sweep must be a list of dicts. Got {points!r} "
                                            "instead.")
        raw_points = list(points)
    normalized: dict[str, dict[str, Any]] = {}  # canonical JSON -> params, first occurrence order
    for p in raw_points:
        params = exp.normalize(p)
        normalized.setdefault(canonical_json(params, "The parameters"), params)
    count = seeds if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1 else None
    if count is not None:  # before a list of that many seeds is built
        check_cost(ROWS_COST, {"points": len(normalized), "seeds": count}, what=f"the sweep of {exp.name!r}",
                   label=lambda name: f"The {name!r} parameter of sweep")
        for params in normalized.values():
            exp.check_budget(params, count)
    seed_list = _seed_list(seeds)
    tasks = [
        (point_id_from_json(exp.name, text, seed, exp.version), params, seed, text)
        for text, params in normalized.items()
        for seed in seed_list
    ]
    ids = [t[0] for t in tasks]
    param_order = list(next(iter(normalized.values()))) if normalized else []

    if count is None:  # sizes that would exceed the machine are refused before anything runs
        for params in normalized.values():
            exp.check_budget(params, len(seed_list))
    code = exp.code_fingerprint
    st, own = _open_store(store)
    try:
        if fresh:
            st.delete(ids)
        stored = st.fingerprints(ids)
        done = {i for i, stored_code in stored.items() if stored_code == code}
        todo = [t for t in tasks if t[0] not in done]
        computed = _run(exp, todo, st, len(tasks), jobs, scheduler, progress, code) if todo else 0
        frame = st.frame(ids=ids, provenance=provenance, param_order=param_order, code_fingerprint=code)
    finally:
        if own:
            st.close()
    if len(frame) != len(tasks):
        raise StoreConflictError(
            f"{len(tasks) - len(frame)} of the {len(tasks)} rows of {exp.name!r} in results store {st.path!r} were "
            "replaced or deleted by another process while this sweep ran (one sweeping them with other code, or "
            "--fresh); no stale row was returned — re-run to recompute them."
        )
    frame.attrs.update(computed=computed, reused=len(tasks) - len(todo), stale=len(stored) - len(done), store=st.path,
                       experiment=exp.name)
    return frame


def task_count(exp: Experiment, points: int, seeds: int) -> int:
    """How many tasks a sweep of ``points`` points and ``seeds`` seeds runs (as ``_batches`` groups them): one per
    point of a batched experiment, else one per point and seed — the most workers it can keep busy.

    >>> from types import SimpleNamespace
    >>> task_count(SimpleNamespace(batched=True), 5, 8), task_count(SimpleNamespace(batched=False), 5, 8)
    (5, 40)
    """
    return points if exp.batched else points * seeds


def _batches(exp: Experiment, todo: list[_Task]) -> list[list[_Task]]:
    """The tasks of ``todo`` as batches: one per point for a batched experiment, else one per seed."""
    if not exp.batched:
        return [[t] for t in todo]
    groups: dict[str, list[_Task]] = {}
    for t in todo:
        groups.setdefault(t[3], []).append(t)
    return list(groups.values())


def _run(exp: Experiment, todo: list[_Task], st: ResultStore, total: int, jobs: int, scheduler: Any,
         progress: bool | None, code: str) -> int:
    static = static_provenance()
    computed = 0
    with make_backend(jobs, scheduler) as backend:
        in_process = isinstance(backend, InProcessBackend)
        threads = backend.threads if isinstance(backend, PoolBackend) else None
        parent = None if in_process or threads is not None else os.getpid()
        by_id = {t[0]: t for t in todo}
        items = (
            PointTask(tuple(t[0] for t in batch), exp.name, exp.module, batch[0][1], tuple(t[2] for t in batch),
                      threads=threads, parent_pid=parent, capture=not in_process)
            for batch in _batches(exp, todo)
        )
        with progress_bar(total, initial=total - len(todo), desc=exp.name, enabled=progress_enabled(progress)) as bar:
            for outcome in backend.imap_unordered(run_point, items):
                first = by_id[outcome["ids"][0]]
                if not outcome["ok"]:
                    seeds = tuple(by_id[i][2] for i in outcome["ids"])
                    raise (DivergedPointError if outcome.get("diverged") else ExperimentError)(
                        f"{describe(exp.name, first[1], seeds)} failed: {outcome['error']}; the {st.count(exp.name)} "
                        f"points of {exp.name!r} stored so far are kept — fix it and re-run to resume.\n"
                        f"Worker traceback:\n{outcome['traceback']}"
                    )
                worker_code = outcome.get("code_fingerprint")
                if worker_code is not None and worker_code != code:
                    raise BackendError(
                        f"a worker computed {describe(exp.name, first[1], tuple(by_id[i][2] for i in outcome['ids']))} "
                        f"with other code than this process (code fingerprint {worker_code[:12]} there, {code[:12]} "
                        f"here: its flt_theory or {exp.module!r} differs); its rows were not stored. Run the workers "
                        "on the same source files as the sweeping process."
                    )
                provenance = {k: outcome[k] for k in ("device", "dtype", "host", "torch_threads")}
                for pid, values in zip(outcome["ids"], outcome["values"]):
                    _, params, seed, params_json = by_id[pid]
                    st.put(make_row(exp.name, params, seed, values, wall_time=outcome["wall_time"],
                                    finished_at=outcome["finished_at"], params_json=params_json, version=exp.version,
                                    code_fingerprint=code, **static, **provenance))
                    computed += 1
                bar.update(len(outcome["ids"]))
    return computed


def load_results(
    store: str | os.PathLike[str] | ResultStore, experiment: str | None = None, *, provenance: bool = False
) -> pd.DataFrame:
    """Every stored row (of ``experiment``) as a DataFrame, sorted by experiment, parameters and
    seed; the file is opened read-only. It is what the store holds, stale rows included: with
    ``provenance=True`` the ``code_fingerprint`` column tells which code computed each row.

    >>> load_results(ResultStore(":memory:")).columns.tolist()
    ['experiment', 'seed']
    """
    if isinstance(store, ResultStore):
        return store.frame(experiment=experiment, provenance=provenance)
    with ResultStore(store, readonly=True) as st:
        return st.frame(experiment=experiment, provenance=provenance)
