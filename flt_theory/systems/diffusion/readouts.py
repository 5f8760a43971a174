r"""Reading a diffusion claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` and the
figure of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

The frame is the grid of ``diffusion/features`` over :math:`(n, \|\mu\|)`, one row per point and seed
(:mod:`.model`; Han, Huang, Cao, Zou 2025, arXiv 2412.01021; the classification CNN of Cao, Chen, Belkin, Gu 2022,
arXiv 2202.06526).

* :func:`point_rows`: the rows of each point :math:`(n, \|\mu\|)`, in seed order;
* :func:`point_grid`: a column as ``(seeds, points)`` with each point's :math:`n` and :math:`\mathrm{SNR}`;
* :func:`balanced_part`: the points of the balanced law's regime, :math:`\|\mu\| \le` :data:`BALANCED_MAX_MU`;
* :func:`signal_noise_ratio`: the CNN's :math:`\gamma/\rho` (the log-odds of its signal fraction
  :math:`\gamma/(\gamma+\rho)`);
* :func:`alignment_bands`: the denoiser's ratio :math:`R` or the CNN's :math:`\gamma/\rho` against
  :math:`n\,\mathrm{SNR}^2` (geometric mean, min and max over seeds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd

__all__ = ["BALANCED_MAX_MU", "alignment_bands", "balanced_part", "point_grid", "point_rows", "signal_noise_ratio"]

#: The largest signal norm the balanced law reads (patches of norm O(1), :mod:`.laws`); the denoiser runs only there.
BALANCED_MAX_MU = 0.5


def point_rows(frame: pd.DataFrame) -> Iterator[tuple[float, float, pd.DataFrame]]:
    r"""Per point :math:`(n, \|\mu\|)` in ascending order: ``n``, ``mu`` and its rows in seed order."""
    for n, mu in frame[["n", "mu_norm"]].drop_duplicates().sort_values(["n", "mu_norm"]).to_numpy():
        yield n, mu, frame[(frame["n"] == n) & np.isclose(frame["mu_norm"].astype(float), mu)].sort_values("seed")


def point_grid(frame: pd.DataFrame, column: str, *, where: Callable[[float], bool] | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, snr, values (seeds, points))`` over the points of ``frame`` (optionally those with ``where(n·SNR²)``).

    >>> frame = pd.DataFrame({"n": [16, 16, 64, 64], "mu_norm": [0.5] * 4, "seed": [1, 0, 0, 1],
    ...                       "n_snr2": [4.0, 4.0, 16.0, 16.0], "snr": [0.5] * 4, "ratio": [2.0, 1.0, 8.0, 9.0]})
    >>> ns, snrs, values = point_grid(frame, "ratio")
    >>> ns.tolist(), values.tolist()
    ([16.0, 64.0], [[1.0, 8.0], [2.0, 9.0]])
    """
    cols, ns, snrs = [], [], []
    for n, _, rows in point_rows(frame):
        if where is not None and not where(float(rows["n_snr2"].iloc[0])):
            continue
        cols.append(rows[column].to_numpy(float))
        ns.append(float(n))
        snrs.append(float(rows["snr"].iloc[0]))
    return np.array(ns), np.array(snrs), np.stack(cols, axis=1)


def balanced_part(frame: pd.DataFrame) -> pd.DataFrame:
    """The points of the balanced-feature law's regime (‖μ‖ ≤ :data:`BALANCED_MAX_MU`, patches of norm O(1))."""
    return frame[frame["mu_norm"].astype(float) <= BALANCED_MAX_MU]


def signal_noise_ratio(rows: pd.DataFrame) -> np.ndarray:
    r"""Per row, the CNN's :math:`\gamma/\rho` (both clipped at :math:`10^{-12}`); its log is the log-odds of the
    signal fraction :math:`\gamma/(\gamma+\rho)`."""
    return rows["gamma_max"].to_numpy(float).clip(min=1e-12) / rows["rho_max"].to_numpy(float).clip(min=1e-12)


def alignment_bands(frame: pd.DataFrame, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``(x, geometric mean, min, max)`` over seeds against :math:`x = n\,\mathrm{SNR}^2` of the denoiser's ratio
    :math:`R` (``which="denoiser"``; only the points where the denoiser ran) or of the CNN's :math:`\gamma/\rho`
    (``which="classification"``, both clipped at :math:`10^{-6}`)."""
    value = (frame["ratio"] if which == "denoiser"
             else frame["gamma_max"].clip(lower=1e-6) / frame["rho_max"].clip(lower=1e-6))
    data = frame.assign(value=value).dropna(subset=["value"])  # the denoiser runs only in the balanced law's regime
    stats = data.groupby("n_snr2")["value"]
    x = stats.mean().index.to_numpy(float)
    geo = np.exp(np.log(data["value"]).groupby(data["n_snr2"]).mean()).to_numpy()
    return x, geo, stats.min().to_numpy(), stats.max().to_numpy()
