r"""Reading a virtual-covariance claim's stored frame back into arrays: what the comparisons and ladders of
:mod:`.declaration` read (one place, so that a ladder reads exactly what its check compared).

* :func:`layers`: the layers :math:`l` with a stored residual :math:`\|R_l(\gamma)\|_F` (Theorem 2's residual
  :math:`W_{l+}^\top W_{l+} - W_l^\top W_l - [\widetilde{\mathrm{cov}}(H_{l+}) - \widetilde{\mathrm{cov}}(H_l)]`,
  :mod:`.model`);
* :func:`residual_table`: one layer's :math:`\|R_l(\gamma)\|_F` as ``(seeds, gammas)``;
* :func:`typical_residual`: per seed, the geometric mean over configurations and layers of the positive
  :math:`\|R\|_F` (a layer whose gradients all vanish has :math:`R = 0` at every :math:`\gamma`), and
  :func:`typical_residual_table`, the same as ``(seeds, gammas)`` with its step sizes;
* :func:`loss_ratio`: a ratio of stored losses per seed (:math:`L_{\rm VCL}(T)/L_{\rm GD}(T)`,
  :math:`L_{\rm VCL}(T)/L(0)`).

Cha & Lee, developed in Cha, Beaglehole, Radhakrishnan, Lee 2026 (arXiv 2605.06258), for the quantities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["layers", "loss_ratio", "residual_table", "typical_residual", "typical_residual_table"]


def layers(frame: pd.DataFrame) -> list[int]:
    """The layers whose ``residual_l{l}`` column has a value in ``frame``, in order."""
    return sorted(int(c.split("_l")[-1]) for c in frame.columns if c.startswith("residual_l")
                  and frame[c].notna().any())


def residual_table(rows: pd.DataFrame, gammas: Sequence[float], layer: int) -> np.ndarray:
    r""":math:`\|R_l(\gamma)\|_F` of ``layer`` as ``(seeds, gammas)``, seeds in order."""
    column = f"residual_l{layer}"
    return np.stack([rows[rows["gamma"] == g].sort_values("seed")[column].to_numpy(float) for g in gammas], axis=1)


def typical_residual(rows: pd.DataFrame) -> np.ndarray:
    r"""Per seed (in seed order): the geometric mean over the configurations and layers of ``rows`` of the
    positive :math:`\|R\|_F` (a layer whose gradients all vanish has :math:`R = 0` at every :math:`\gamma`)."""
    columns = [f"residual_l{layer}" for layer in layers(rows)]
    out = []
    for _, seed_rows in rows.groupby("seed"):
        found = seed_rows[columns].to_numpy(float).ravel()
        found = found[np.isfinite(found) & (found > 0)]
        out.append(float(np.exp(np.mean(np.log(found)))))
    return np.asarray(out)


def typical_residual_table(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    r"""The step sizes :math:`\gamma` of ``frame`` in order and :func:`typical_residual` at each,
    ``(seeds, gammas)``."""
    gammas = np.array(sorted(float(g) for g in frame["gamma"].unique()))
    table = np.stack([typical_residual(frame[np.isclose(frame["gamma"].astype(float), g)]) for g in gammas], axis=1)
    return gammas, table


def loss_ratio(frame: pd.DataFrame, numerator: str, denominator: str) -> np.ndarray:
    """``numerator / denominator`` (two stored losses) per seed, in seed order."""
    rows = frame.sort_values("seed")
    return rows[numerator].to_numpy(float) / rows[denominator].to_numpy(float)
