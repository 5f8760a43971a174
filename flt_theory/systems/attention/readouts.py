r"""Reading an attention claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

The frame is the scan of ``attention/train`` over :math:`n \times \|\mu\|`, one row per point and seed
(:mod:`.model`; Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345).

* :func:`at_point`: the rows of one point :math:`(n, \|\mu\|)`, in seed order;
* :func:`crossings`: per seed and :math:`n`, the signal norm :math:`\|\mu\|^*` at which the test loss crosses
  :data:`LEVEL` :math:`= \frac12\log 2` (half the harmful limit), linear in :math:`\log\|\mu\|` between grid
  points: the benign/harmful boundary (at :math:`\sigma_\xi\sqrt d = 1`, :math:`\mathrm{SNR} = \|\mu\|`);
* :func:`crossing_resolution`: per :math:`n`, the error the interpolation of :func:`crossings` can leave;
* :func:`loss_curves`: per :math:`n`, the test loss against :math:`n\,\mathrm{SNR}^2` (mean and sd over seeds);
* :func:`regime_curves`: at one :math:`n`, the mean observables against :math:`n\,\mathrm{SNR}^2`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["LEVEL", "at_point", "crossing_resolution", "crossings", "loss_curves", "regime_curves"]

#: Test-loss level of the boundary: half of log 2 (the harmful limit).
LEVEL = 0.5 * math.log(2)


def at_point(frame: pd.DataFrame, n: int, mu: float) -> pd.DataFrame:
    r"""The rows at :math:`(n, \|\mu\|)` (``mu`` compared with ``np.isclose``), in seed order."""
    rows = frame[(frame["n"] == n) & np.isclose(frame["mu_norm"].astype(float), mu)]
    if rows.empty:
        raise KeyError(f"no measured rows at n = {n}, ||mu|| = {mu}")
    return rows.sort_values("seed")


def _crossing_cells(frame: pd.DataFrame, level: float) -> tuple[np.ndarray, np.ndarray, list[list[tuple]]]:
    r"""``(ns, log_mus, cells)``: the measured :math:`n`, the grid of :math:`\log\|\mu\|`, and per :math:`n` and seed
    (seed order) ``(curve, k)``: the seed's test-loss curve on the grid and the first cell ``k`` where it falls
    through ``level`` (``curve[k] >= level > curve[k + 1]``; None where the scan does not straddle it)."""
    ns = np.array(sorted(int(n) for n in frame["n"].unique()))
    mus = np.array(sorted(float(m) for m in frame["mu_norm"].unique()))
    seeds = sorted(int(s) for s in frame["seed"].unique())
    cells = []
    for n in ns:
        table = frame[frame["n"] == n].pivot_table(index="seed", columns="mu_norm", values="test_loss").reindex(
            index=seeds, columns=mus)
        row = []
        for curve in table.to_numpy():
            above = curve >= level
            row.append((curve, next((k for k in range(len(mus) - 1) if above[k] and not above[k + 1]), None)))
        cells.append(row)
    return ns, np.log(mus), cells


def crossings(frame: pd.DataFrame, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    r"""Per seed and :math:`n`, the :math:`\|\mu\|^*` where the test loss crosses ``level`` (linear in
    :math:`\log\|\mu\|` between grid points; NaN where the scan does not straddle it): ``(ns, (seeds, ns))``.

    >>> frame = pd.DataFrame({"n": [8] * 4, "mu_norm": [0.1, 1.0] * 2, "seed": [0, 0, 1, 1],
    ...                       "test_loss": [0.7, 0.1, 0.7, 0.6]})
    >>> ns, star = crossings(frame, level=0.4)
    >>> ns.tolist(), [round(x, 4) for x in star[:, 0].tolist()]
    ([8], [0.3162, nan])
    """
    ns, u, cells = _crossing_cells(frame, level)
    star = np.full((len(cells[0]) if cells else 0, len(ns)), np.nan)
    for j, row in enumerate(cells):
        for i, (curve, k) in enumerate(row):
            if k is not None:
                w = (curve[k] - level) / (curve[k] - curve[k + 1])
                star[i, j] = math.exp((1 - w) * u[k] + w * u[k + 1])
    return ns, star


def crossing_resolution(frame: pd.DataFrame, level: float = LEVEL) -> np.ndarray:
    r"""Per :math:`n`, the error that the linear interpolation of :func:`crossings` can leave in
    :math:`\log\|\mu\|^*`, largest over the seeds: with :math:`y(u)` the test loss against :math:`u =
    \log\|\mu\|` and the crossing in the cell :math:`[u_k, u_{k+1}]` of width :math:`h`, linear interpolation is off
    by at most :math:`|y''| h^2/8` in :math:`y`, so by :math:`|y''| h^2/(8|y'|)` in :math:`u` (to first order), with
    :math:`y'` the cell's slope and :math:`|y''|` the larger of the second differences over the cell and either
    neighbour (an estimate from the grid, not a bound: a curve that bends between grid points hides its curvature);
    at most the cell's width, and that width where the grid has no neighbour to estimate it (the crossing and its
    interpolation both lie in the cell). The seeds' curves share one shape, so their interpolation errors nearly agree
    and the seeds do not average them out: the error is a resolution
    (:func:`~flt_theory.compare.check_limit_power_law`'s ``resolution``).

    >>> mus = np.geomspace(0.05, 1.0, 8)
    >>> frame = pd.DataFrame({"n": 16, "mu_norm": mus, "seed": 0, "test_loss": np.log(2) / (1 + 16 * mus**2)})
    >>> bool(0.0 < crossing_resolution(frame)[0] < 0.05)
    True
    """
    ns, u, cells = _crossing_cells(frame, level)
    out = np.zeros(len(ns))
    for j, row in enumerate(cells):
        for curve, k in row:
            if k is None:
                continue
            slope = (curve[k + 1] - curve[k]) / (u[k + 1] - u[k])
            bends = [abs(2 * ((curve[a + 2] - curve[a + 1]) / (u[a + 2] - u[a + 1])
                              - (curve[a + 1] - curve[a]) / (u[a + 1] - u[a])) / (u[a + 2] - u[a]))
                     for a in (k - 1, k) if a >= 0 and a + 2 < len(u)]
            bends = [b for b in bends if math.isfinite(b)]  # a neighbour not measured (NaN) estimates nothing
            h = u[k + 1] - u[k]
            out[j] = max(out[j], min(h * h / 8 * max(bends) / abs(slope), h) if bends and slope else h)
    return out


def loss_curves(frame: pd.DataFrame) -> dict[int, tuple[np.ndarray, pd.Series, pd.Series]]:
    r"""Per :math:`n` (ascending): :math:`n\|\mu\|^2` (:math:`= n\,\mathrm{SNR}^2`) over the scan's
    :math:`\|\mu\|`, and the test loss's mean and sd over seeds there."""
    curves = {}
    for n in sorted(frame["n"].unique()):
        rows = frame[frame["n"] == n].groupby("mu_norm")["test_loss"]
        mean, sd = rows.mean(), rows.std()
        curves[n] = (n * mean.index.to_numpy(float) ** 2, mean, sd)
    return curves


def regime_curves(frame: pd.DataFrame, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    r"""At ``n``: :math:`n\,\mathrm{SNR}^2` over the scan's :math:`\|\mu\|` and, there, the means over seeds of
    the test loss, the attention on the signal token and the value's noise/signal alignment ratio."""
    rows = frame[frame["n"] == n].groupby("mu_norm")
    x = n * np.array(sorted(frame["mu_norm"].unique()), dtype=float) ** 2
    share = (rows["value_noise"].mean() / rows["value_signal"].mean().abs()).to_numpy()
    return x, {"test_loss": rows["test_loss"].mean().to_numpy(),
               "attention_signal": rows["attention_signal"].mean().to_numpy(), "share": share}
