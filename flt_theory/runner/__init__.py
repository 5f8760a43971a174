r"""The experiment runner: registered pure experiments, resumable sweeps, an SQLite results store.

* :func:`experiment` registers ``f(params: dict, seed: int) -> dict[str, float]`` under a name;
* :func:`sweep` runs a grid × seeds, computing only what the store lacks (in-process, a process
  pool with ``jobs``, or Dask with ``scheduler``), and returns a DataFrame;
* :class:`ResultStore` / :func:`load_results`: the SQLite store (one row per point and seed, with
  provenance), safe against SIGKILL, foreign files and full disks.

Built-in experiment: ``giant-step/one-step-mass`` (:mod:`flt_theory.runner.experiments`).
"""

from .errors import (
    BackendError,
    CorruptStoreError,
    ExperimentError,
    ForeignStoreError,
    StoreError,
    StoreWriteError,
    UnknownExperimentError,
)
from .registry import Experiment, experiment, get_experiment, registered_experiments
from .store import ResultStore, point_id
from .sweep import expand_grid, load_results, sweep

__all__ = [
    "BackendError",
    "CorruptStoreError",
    "Experiment",
    "ExperimentError",
    "ForeignStoreError",
    "ResultStore",
    "StoreError",
    "StoreWriteError",
    "UnknownExperimentError",
    "expand_grid",
    "experiment",
    "get_experiment",
    "load_results",
    "point_id",
    "registered_experiments",
    "sweep",
]
