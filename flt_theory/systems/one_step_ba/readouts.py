r"""Reading a one-step claim's stored frame back into arrays: what the comparisons and the ladder of
:mod:`.declaration` read (one place, so that the ladder reads exactly what the risk check compared).

* :func:`values`: one stored column per seed, in seed order: the test risk after one step of size
  :math:`\eta = \tilde\eta\sqrt N` and the ridge readout (``risk``; :math:`\tilde\eta = 0` is random features), or
  the spike alignment :math:`|\langle u_1, \beta^*\rangle|` of the step's top left singular vector
  (``spike_alignment``);
* :func:`risks_by_step`: the risk per seed at each step size :math:`\tilde\eta` of a group of rows (ascending
  :math:`\tilde\eta`).

Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022 (arXiv 2205.01445) for the quantities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

__all__ = ["risks_by_step", "values"]


def values(rows: pd.DataFrame, column: str) -> np.ndarray:
    """``column`` per seed, in seed order."""
    return rows.sort_values("seed")[column].to_numpy(float)


def risks_by_step(rows: pd.DataFrame) -> list[np.ndarray]:
    r"""The risk per seed (:func:`values`) at each :math:`\tilde\eta` of ``rows``, ascending :math:`\tilde\eta`."""
    return [values(r, "risk") for _, r in rows.groupby("eta_tilde")]
