r"""Reading a giant-step claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

* :func:`curves`: a per-seed column over the ladder in :math:`\kappa` (:math:`n = \lceil d^\kappa\rceil`), per
  :math:`d`;
* :func:`second_moments`: the neurons' second-moment matrix :math:`M_t` in w*-coordinates after giant step
  :math:`t`, per seed (stored by :mod:`.model`), and ``_masses``, the total and least-direction mass of
  :math:`M_t` on a subspace;
* :func:`new_part`: the directions a staircase step adds, :math:`U_t \ominus U_{t-1}`.

Dandi, Krzakala, Loureiro, Pesce, Stephan 2023 (arXiv 2305.18270) for the quantities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..frames import per_seed

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...symbolic import Subspace

__all__ = ["curves", "new_part", "second_moments"]


def curves(frame: pd.DataFrame, column: str) -> tuple[list[float], dict[int, np.ndarray]]:
    """``kappas`` and, per ``d``, ``column`` as ``(seeds, kappas)``."""
    kappas = sorted(float(k) for k in frame["kappa"].unique())
    return kappas, {int(d): np.stack([per_seed(frame, column, d=d, kappa=k) for k in kappas], axis=1)
                    for d in sorted(frame["d"].unique())}


def second_moments(frame: pd.DataFrame, step: int, r: int) -> np.ndarray:
    r""":math:`M_t` per seed, ``(seeds, r, r)`` (see :mod:`.model`)."""
    rows = frame.sort_values("seed")
    return np.stack([[rows[f"m{step}_{a}{b}"].to_numpy(float) for b in range(r)] for a in range(r)],
                    axis=-1).transpose(1, 0, 2)


def _masses(moments: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total mass :math:`\\mathrm{tr}(BMB^\\top)` and least-direction mass :math:`\\lambda_{\\min}(BMB^\\top)`
    per seed."""
    if len(basis) == 0:
        zero = np.zeros(moments.shape[0])
        return zero, zero
    projected = basis @ moments @ basis.T
    return np.trace(projected, axis1=-2, axis2=-1), np.linalg.eigvalsh(projected)[..., 0]


def new_part(previous: Subspace, current: Subspace) -> np.ndarray:
    r"""Orthonormal rows of :math:`U_t \ominus U_{t-1}` in w*-coordinates (:meth:`Subspace.new_directions`)."""
    return current.new_directions(previous)
