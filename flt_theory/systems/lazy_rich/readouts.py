r"""Reading a lazy-rich claim's stored frame back into arrays: what the comparisons and ladders of
:mod:`.declaration` read (one place, so that a ladder reads exactly what its check compared).

* :func:`width_table`: a reading of the first layer's displacement per seed over the widths :math:`N`,
  ``(seeds, widths)``: the raw :math:`\|W(T) - W(0)\|_F` (``abs_change``), the relative
  :math:`\|W(T) - W(0)\|_F/\|W(0)\|_F` (``rel_change``) or the per-neuron :math:`\frac1N\sum_i\|w_i(T) - w_i(0)\|`
  (``per_neuron_change``), as :mod:`.model` stores them;
* :func:`rescaled`: a reading times :math:`N^{-k}` per row, :math:`k` the rate of a finding (what is left of the
  reading once its width dependence is divided out).

The tutorial slide (:data:`.laws.TUTORIAL`) states :math:`\|W(t) - W(0)\|_F = O(1/\sqrt N)` (lazy, NTK) vs
:math:`\Omega(1)` (rich, mean field); Jacot, Gabriel, Hongler 2018 (arXiv 1806.07572) and Mei, Montanari, Nguyen
2018 (arXiv 1804.06561) for the two parameterisations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..frames import seed_table

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

__all__ = ["rescaled", "width_table"]


def width_table(frame: pd.DataFrame, reading: str) -> tuple[np.ndarray, np.ndarray]:
    """The widths (ascending) and ``reading`` at each, ``(seeds, widths)``
    (:func:`~flt_theory.systems.frames.seed_table`)."""
    return seed_table(frame, "width", reading)


def rescaled(rows: pd.DataFrame, reading: str, exponent: float) -> np.ndarray:
    r"""``reading`` times :math:`N^{-k}` per row, :math:`k` = ``exponent``."""
    return rows[reading].to_numpy(float) * rows["width"].to_numpy(float) ** -exponent
