r"""Reading an in-context claim's stored frame back into what the comparisons of :mod:`.declaration` and the
figures of :mod:`.figures` both read (one place, so that a figure draws exactly what its check compared).

* :func:`risk_curve`: the frame of ``in-context/features`` (Kim, Suzuki 2024, arXiv 2402.01258) split by the
  number :math:`K` of pretraining tasks, with the number :math:`k` of features: the unseen-task risk
  ``risk_new`` against :math:`K`, which the law :math:`\max(0, 1 - K/k)` predicts;
* :func:`concept_setting`: the setting of a frame of ``in-context/concepts`` (Bu, Huang, Han, Nitanda, Suzuki,
  Zhang, Wong 2024, arXiv 2411.02199): concepts :math:`K`, dimension :math:`D`, prompt length :math:`L` and the
  number of seeds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["concept_setting", "risk_curve"]


def risk_curve(frame: pd.DataFrame) -> tuple[int, list[tuple[int, pd.DataFrame]]]:
    """``(k, [(K, rows), ...])``: the number of features and the rows of each measured ``K`` (``tasks``), ascending.

    >>> frame = pd.DataFrame({"tasks": [8, 1, 8], "k": [4, 4, 4], "seed": [0, 0, 1], "risk_new": [0.1, 0.7, 0.0]})
    >>> k, curve = risk_curve(frame)
    >>> k, [(K, rows["risk_new"].tolist()) for K, rows in curve]
    (4, [(1, [0.7]), (8, [0.1, 0.0])])
    """
    ks = sorted(int(t) for t in frame["tasks"].unique())
    return int(frame["k"].iloc[0]), [(K, frame[frame["tasks"] == K]) for K in ks]


def concept_setting(frame: pd.DataFrame) -> dict[str, Any]:
    r"""``concepts``, ``dim`` and ``length`` of the frame's first row, and ``seeds``, the number of seeds."""
    first = frame.iloc[0]
    return {"concepts": first["concepts"], "dim": first["dim"], "length": first["length"],
            "seeds": frame["seed"].nunique()}
