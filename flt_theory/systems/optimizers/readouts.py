r"""Reading a training-choice claim's stored frame back into arrays: what the comparisons of :mod:`.declaration`
and the figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

The frame holds one row per (point, seed) of ``optimizers/run`` (:func:`.model.optimizer_rows`): the final
observables of the run and its trajectory at ``samples`` recorded steps (``step_k``, ``gamma_k``, ``rho_k``, ...).

* :func:`runs`: the rows of one optimizer (at one :math:`\|\mu\|`), in seed order;
* :func:`final_test_errors`, :func:`train_losses`, :func:`fitted`: per-seed final test error, training loss and
  whether the run fitted the training set;
* :func:`signal_norms`: the measured :math:`\|\mu\|`, ascending;
* :func:`noise_rate_ratio`: sign-GD's early noise rate over a law's prediction, per seed (Zou, Cao, Li, Gu 2023,
  arXiv 2108.11371);
* :func:`trajectory`: the recorded steps and one coefficient's values, ``(seeds, samples)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..frames import per_seed

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...symbolic.law import Law

__all__ = [
    "final_test_errors", "fitted", "noise_rate_ratio", "runs", "signal_norms", "train_losses", "trajectory",
]


def runs(frame: pd.DataFrame, optimizer: str | None = None, mu_norm: float | None = None) -> pd.DataFrame:
    r"""The rows of ``optimizer`` (every optimizer's without it) at :math:`\|\mu\|` = ``mu_norm`` (compared with
    ``np.isclose``; every :math:`\|\mu\|` without it), in seed order."""
    rows = frame if mu_norm is None else frame[np.isclose(frame["mu_norm"].astype(float), mu_norm)]
    return (rows if optimizer is None else rows[rows["optimizer"] == optimizer]).sort_values("seed")


def final_test_errors(frame: pd.DataFrame, optimizer: str, **where: Any) -> np.ndarray:
    """Final test error of ``optimizer`` per seed at the rows matching ``where``, ``(seeds,)``."""
    return per_seed(frame, "test_error", optimizer=optimizer, **where)


def train_losses(frame: pd.DataFrame, optimizer: str, **where: Any) -> np.ndarray:
    """Training loss (on the clean labels) of ``optimizer`` at the stop per seed, at the rows matching ``where``."""
    return per_seed(frame, "train_loss", optimizer=optimizer, **where)


def fitted(frame: pd.DataFrame, optimizer: str, **where: Any) -> np.ndarray:
    r"""Whether each seed's run reached training loss :math:`\le \varepsilon` (the stored ``eps``, up to a relative
    :math:`10^{-6}`), ``(seeds,)`` bool."""
    eps = float(frame["eps"].iloc[0])
    return train_losses(frame, optimizer, **where) <= eps * (1 + 1e-6)


def signal_norms(frame: pd.DataFrame) -> list[float]:
    r"""The measured :math:`\|\mu\|`, ascending."""
    return sorted(frame["mu_norm"].astype(float).unique())


def noise_rate_ratio(frame: pd.DataFrame, law: Law) -> np.ndarray:
    r"""Sign-GD's early per-step increase of :math:`\langle w_{y_i,r}, \zeta_i\rangle` (``noise_rate``) over
    ``law.number(eta, s, sigma_xi)`` at each row, in seed order, ``(seeds,)``."""
    rows = frame[frame["optimizer"] == "sign-gd"].sort_values("seed")
    predicted = np.array([law.number(eta=r["eta"], s=r["sparsity"], sigma_xi=r["sigma_xi"])
                          for _, r in rows.iterrows()])
    return rows["noise_rate"].to_numpy(float) / predicted


def trajectory(rows: pd.DataFrame, key: str) -> tuple[np.ndarray, np.ndarray]:
    """The recorded steps (mean over the rows) and the values of ``key_k`` as ``(seeds, samples)``."""
    k = 0
    columns = []
    while f"{key}_{k}" in rows.columns:
        columns.append(k)
        k += 1
    steps = rows[[f"step_{k}" for k in columns]].to_numpy(float).mean(0)
    return steps, rows[[f"{key}_{k}" for k in columns]].to_numpy(float)
