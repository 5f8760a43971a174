r"""Reading a dictionary claim's stored frame back into arrays: what the comparisons of :mod:`.declaration` read.

* :func:`values`: one stored column per seed (seed order) of the structured (:math:`\phi` with input structure,
  ``structured = 1``) or unstructured (:math:`\phi` uniform, ``structured = 0``) runs of ``dictionary/run``: the
  training-set :math:`\hat\gamma = \operatorname{Cov}_n(y, \phi_i)` (mean over :math:`i \in A`), the cluster
  fractions (neurons with :math:`|\cos| > 0.9` at :math:`\pm\sum_{i\in A}M_i` or at the wrong direction), and the
  test errors of the network and of fixed features of the same width.

Shi, Wei, Liang 2022 (ICLR; arXiv 2206.01717) for the quantities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

__all__ = ["values"]


def values(frame: pd.DataFrame, column: str, structured: int = 1) -> np.ndarray:
    """``column`` of the rows with ``structured`` (1: with input structure, 0: φ uniform), per seed in seed order."""
    rows = frame[frame["structured"] == structured].sort_values("seed")
    return rows[column].to_numpy(dtype=float)
