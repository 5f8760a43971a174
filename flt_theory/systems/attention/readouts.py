r"""Reading an attention claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

The frame is the scan of ``attention/train`` over :math:`n \times \|\mu\|`, one row per point and seed
(:mod:`.model`; Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345).

* :func:`at_point`: the rows of one point :math:`(n, \|\mu\|)`, in seed order;
* :func:`crossings`: per seed and :math:`n`, the signal norm :math:`\|\mu\|^*` at which the test loss crosses
  :data:`LEVEL` :math:`= \frac12\log 2` (half the harmful limit), linear in :math:`\log\|\mu\|` between grid
  points: the benign/harmful boundary (at :math:`\sigma_\xi\sqrt d = 1`, :math:`\mathrm{SNR} = \|\mu\|`);
* :func:`loss_curves`: per :math:`n`, the test loss against :math:`n\,\mathrm{SNR}^2` (mean and sd over seeds);
* :func:`regime_curves`: at one :math:`n`, the mean observables against :math:`n\,\mathrm{SNR}^2`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["LEVEL", "at_point", "crossings", "loss_curves", "regime_curves"]

#: Test-loss level of the boundary: half of log 2 (the harmful limit).
LEVEL = 0.5 * math.log(2)


def at_point(frame: pd.DataFrame, n: int, mu: float) -> pd.DataFrame:
    r"""The rows at :math:`(n, \|\mu\|)` (``mu`` compared with ``np.isclose``), in seed order."""
    rows = frame[(frame["n"] == n) & np.isclose(frame["mu_norm"].astype(float), mu)]
    if rows.empty:
        raise KeyError(f"no measured rows at n = {n}, ||mu|| = {mu}")
    return rows.sort_values("seed")


def crossings(frame: pd.DataFrame, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    r"""Per seed and :math:`n`, the :math:`\|\mu\|^*` where the test loss crosses ``level`` (linear in
    :math:`\log\|\mu\|` between grid points; NaN where the scan does not straddle it): ``(ns, (seeds, ns))``.

    >>> frame = pd.DataFrame({"n": [8] * 4, "mu_norm": [0.1, 1.0] * 2, "seed": [0, 0, 1, 1],
    ...                       "test_loss": [0.7, 0.1, 0.7, 0.6]})
    >>> ns, star = crossings(frame, level=0.4)
    >>> ns.tolist(), [round(x, 4) for x in star[:, 0].tolist()]
    ([8], [0.3162, nan])
    """
    ns = np.array(sorted(int(n) for n in frame["n"].unique()))
    mus = np.array(sorted(float(m) for m in frame["mu_norm"].unique()))
    seeds = sorted(int(s) for s in frame["seed"].unique())
    star = np.full((len(seeds), len(ns)), np.nan)
    for j, n in enumerate(ns):
        table = frame[frame["n"] == n].pivot_table(index="seed", columns="mu_norm", values="test_loss").reindex(
            index=seeds, columns=mus)
        for i, curve in enumerate(table.to_numpy()):
            above = curve >= level
            for k in range(len(mus) - 1):
                if above[k] and not above[k + 1]:
                    w = (curve[k] - level) / (curve[k] - curve[k + 1])
                    star[i, j] = math.exp((1 - w) * math.log(mus[k]) + w * math.log(mus[k + 1]))
                    break
    return ns, star


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
