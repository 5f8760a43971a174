r"""Reading a good-sets claim's stored frame back into arrays: what the comparisons and the ladder of
:mod:`.declaration` read (one place, so that a ladder reads exactly what its check compared).

* :func:`values`: one stored column per seed, in seed order;
* :func:`exits`: the exits from :math:`S_{j,\text{sure}}` per seed, every kind summed (:data:`EXIT_KINDS`: the
  neuron loses its feature, a second coordinate reaches the pot level, or it is demoted to
  :math:`S_{j,\text{pot}}`);
* :func:`net_entries`: the net growth :math:`\max(|S_\text{sure}^T| - |S_\text{sure}^0|, 0)` per seed (at least
  that many neurons entered :math:`S_\text{sure}` after :math:`t = 0`), and :func:`growth_ratio`,
  :math:`|S_\text{sure}^T|/\max(1, |S_\text{sure}^0|)`;
* :func:`inclusion_violations`: per inclusion law :math:`A \subseteq B` its violations per seed (for
  :math:`S_\text{sure}^t \subseteq S_\text{sure}^0` a lower bound: :func:`net_entries`).

Allen-Zhu & Li 2020 (arXiv 2005.10190) for the sets :math:`S_{j,\text{sure}}`, :math:`S_{j,\text{pot}}`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from .laws import SETS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import sympy as sp

__all__ = ["EXIT_KINDS", "exits", "growth_ratio", "inclusion_violations", "net_entries", "values"]

#: The three ways of leaving S_sure (:mod:`.model`); only the first loses the feature.
EXIT_KINDS = ("exit_sure_lost", "exit_sure_second", "exit_sure_demoted")


def values(frame: pd.DataFrame, column: str) -> np.ndarray:
    """``column`` per seed, in seed order."""
    return frame.sort_values("seed")[column].to_numpy(dtype=float)


def exits(frame: pd.DataFrame) -> np.ndarray:
    """Exits from S_sure per seed, the kinds of :data:`EXIT_KINDS` summed."""
    return cast(np.ndarray, sum(values(frame, c) for c in EXIT_KINDS))  # EXIT_KINDS is not empty: never the start 0


def net_entries(frame: pd.DataFrame) -> np.ndarray:
    """:math:`\\max(|S_\\text{sure}^T| - |S_\\text{sure}^0|, 0)` per seed."""
    return np.maximum(values(frame, "sure_final") - values(frame, "sure_initial"), 0.0)


def growth_ratio(frame: pd.DataFrame) -> np.ndarray:
    """:math:`|S_\\text{sure}^T|/\\max(1, |S_\\text{sure}^0|)` per seed."""
    return values(frame, "sure_final") / np.maximum(values(frame, "sure_initial"), 1.0)


#: Per inclusion law ``lhs ⊆ value``: the stored column of its violations, or :func:`net_entries`.
_INCLUSION_VIOLATIONS = {
    (SETS["sure"], SETS["pot"]): lambda frame: values(frame, "outside_pot"),
    (SETS["pot"], SETS["sure"]): lambda frame: values(frame, "outside_sure"),
    (SETS["sure"], SETS["sure0"]): net_entries,
}


def inclusion_violations(frame: pd.DataFrame, subset: sp.Symbol, superset: sp.Symbol) -> np.ndarray:
    """Violations per seed of the inclusion ``subset ⊆ superset`` (symbols of :data:`.laws.SETS`)."""
    return _INCLUSION_VIOLATIONS[(subset, superset)](frame)
