r"""The experiment runner: registered pure experiments, resumable sweeps, an SQLite results store.

* :func:`experiment` registers ``f(params: dict, seed: int) -> dict[str, float]`` under a name;
* :func:`sweep` runs a grid × seeds, computing only what the store lacks (in-process, a process
  pool with ``jobs``, or Dask with ``scheduler``), and returns a DataFrame;
* :class:`ResultStore` / :func:`load_results`: the SQLite store (one row per point and seed, with
  provenance), safe against SIGKILL, foreign files and full disks; each row carries the code
  fingerprint of its experiment (:mod:`.fingerprint`) and is served only to that code.

The runner registers no experiment of its own: each system's ``declaration.py`` registers its
measurements (``flt sweep --list``), found through :func:`~flt_theory.runner.registry.add_experiment_source`.
"""

from .errors import (
    BackendError,
    CorruptStoreError,
    ExperimentError,
    ForeignStoreError,
    StoreConflictError,
    StoreError,
    StoreWriteError,
    UnknownExperimentError,
)
from .params import REQUIRED, Param, Params
from .registry import Experiment, add_experiment_source, experiment, get_experiment, registered_experiments
from .store import ResultStore, point_id
from .sweep import expand_grid, load_results, sweep

__all__ = [
    "BackendError",
    "CorruptStoreError",
    "Experiment",
    "ExperimentError",
    "Param",
    "Params",
    "REQUIRED",
    "ForeignStoreError",
    "ResultStore",
    "StoreConflictError",
    "StoreError",
    "StoreWriteError",
    "UnknownExperimentError",
    "add_experiment_source",
    "expand_grid",
    "experiment",
    "get_experiment",
    "load_results",
    "point_id",
    "registered_experiments",
    "sweep",
]
