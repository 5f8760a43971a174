r"""Reading a signal-noise claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

* :func:`boundary_table`: the measured boundary :math:`\mathrm{SNR}^*` per seed over a ladder in :math:`n` or
  :math:`d` (Kou, Chen, Chen, Gu 2023, arXiv 2303.04145; Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526);
* :func:`bisection_resolution`: how closely the bisection located each rung's boundary;
* :func:`error_curves`: the test-error curve over Kou et al.'s :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)` per point
  :math:`(n, d)`;
* :func:`growth_prediction`: the early-phase slopes a law predicts at a stored row's parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..frames import per_seed

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...symbolic.law import Law

__all__ = ["bisection_resolution", "boundary_table", "error_curves", "growth_prediction"]


def boundary_table(frame: pd.DataFrame, variable: str) -> tuple[np.ndarray, np.ndarray, int]:
    r"""The values of ``variable`` (``"n"`` or ``"d"``), :math:`\mathrm{SNR}^*` as ``(seeds, points)`` over the seeds
    whose bisection bracketed the level at every point, and the number of seeds dropped."""
    xs = np.array(sorted(frame[variable].unique()), dtype=float)
    y = np.stack([per_seed(frame, "snr_star", **{variable: int(x)}) for x in xs], axis=1)
    keep = np.isfinite(y).all(axis=1) & (y > 0).all(axis=1)
    return xs, y[keep], int((~keep).sum())


def bisection_resolution(frame: pd.DataFrame, variable: str) -> np.ndarray:
    r"""Per value of ``variable`` (in the order of :func:`boundary_table`), the half-width in :math:`\log
    \mathrm{SNR}^*` of the bisection's last bracket, :math:`\rho = \log(\mathrm{snr\_high}/\mathrm{snr\_low}) /
    2^{\mathrm{iterations} + 1}`: the returned midpoint lies within :math:`\rho` of the seed's crossing
    (:func:`~.model.boundary_mu_norm` halves the bracket in :math:`\log\|\mu\|`, a fixed multiple of SNR at a point).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"d": [100, 10, 10], "snr_low": [0.1, 0.1, 0.1], "snr_high": [1.6, 1.6, 1.6],
    ...                       "iterations": [4, 3, 5]})
    >>> [round(float(r), 6) for r in bisection_resolution(frame, "d")]
    [0.173287, 0.086643]
    """
    per_row = np.log(frame["snr_high"] / frame["snr_low"]) / 2.0 ** (frame["iterations"].astype(float) + 1)
    return per_row.groupby(frame[variable]).max().sort_index().to_numpy(float)  # the widest of a rung's brackets


def error_curves(frame: pd.DataFrame) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    r"""Per point :math:`(n, d)`: the grid :math:`X_k` and the test errors as ``(seeds, K)``, seeds in order."""
    grid = sorted(int(c[4:]) for c in frame.columns if c.startswith("err_"))
    curves = {}
    for (n, d), part in frame.sort_values("seed").groupby(["n", "d"]):
        xs = part[[f"x_{k}" for k in grid]].iloc[0].to_numpy(float)
        curves[(int(n), int(d))] = (xs, part[[f"err_{k}" for k in grid]].to_numpy(float))
    return curves


def growth_prediction(law: Law, row: pd.Series) -> tuple[float, ...]:
    r"""``law.numbers(...)`` (the slopes of :math:`\max\gamma` and :math:`\bar\rho` per step) at a stored row's
    :math:`\eta, \|\mu\|, m, \tau, \sigma_\xi, d, n`."""
    return law.numbers(eta=row["eta"], mu=row["mu_norm"], m=row["width"], tau=row["label_noise"],
                       sigma_xi=row["sigma_xi"], d=row["d"], n=row["n"])
