"""Reading a claim's stored measurement: the frame of one runner experiment, one row per point and seed.

Size ladders (:attr:`~flt_theory.systems.declaration.Claim.ladder`, :mod:`flt_theory.compare.ladder`) are read
from it by the helpers below, shared by every system: :func:`ladder_by` (a per-seed quantity at each value of a size
column, mean and 95% interval per rung), :func:`local_slope_ladder` (the local exponent of a power law between
adjacent sizes, per seed) and :func:`seed_table` (a reading as a ``(seeds, sizes)`` table).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from ..compare import effective_exponent_bounds, mean_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ladder_by", "ladder_rung", "local_slope_ladder", "per_seed", "seed_table"]


def per_seed(frame: pd.DataFrame, column: str, **where: Any) -> np.ndarray:
    """``column`` at the rows matching ``where`` (floats compared with ``np.isclose``), in seed order, ``(seeds,)``.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"d": [64, 64, 128], "kappa": [1.0, 1.0, 1.0], "seed": [1, 0, 0], "m": [0.2, 0.1, 0.3]})
    >>> per_seed(frame, "m", d=64, kappa=1.0).tolist()
    [0.1, 0.2]
    """
    rows = frame
    for key, value in where.items():
        if isinstance(value, float):
            rows = rows[np.isclose(rows[key].astype(float), float(value))]
        else:
            rows = rows[rows[key] == value]
    if rows.empty:
        raise KeyError(f"no measured rows with {where}")
    return rows.sort_values("seed")[column].to_numpy(dtype=float)


# -- size ladders (:attr:`~flt_theory.systems.declaration.Claim.ladder`) ------------------------------------------

#: A rung's optional law value: a number, or a function of the rung's size value.
RungValue = Union[float, Callable[[float], float], None]


def _at(value: RungValue, size: float) -> float | None:
    if value is None:
        return None
    return float(value(size) if callable(value) else value)


def ladder_rung(size: Mapping[str, float], values: Any, *, predicted: float | None = None,
                literal: float | None = None) -> dict[str, Any]:
    r"""One rung of a size ladder: the mean of the per-seed ``values`` with its 95% interval
    (:func:`~flt_theory.compare.mean_ci`: Student t below 5 seeds, the bootstrap from there on), the law's
    ``predicted`` value and the ``literal`` statement's value where given.

    >>> ladder_rung({"n": 8}, [1.0, 2.0, 3.0], predicted=2.0)
    {'size': {'n': 8}, 'estimate': 2.0, 'ci': [-0.484..., 4.484...], 'predicted': 2.0}
    """
    est = mean_ci(np.asarray(values, dtype=float))
    rung: dict[str, Any] = {"size": dict(size), "estimate": float(est.value),
                            "ci": [float(est.ci[0]), float(est.ci[1])]}
    for key, value in (("predicted", predicted), ("literal", literal)):
        if value is not None:
            rung[key] = float(value)
    return rung


def ladder_by(frame: pd.DataFrame, column: str, values: str | Callable[[pd.DataFrame], Any], *,
              size: Callable[[float], Mapping[str, float]] | None = None, predicted: RungValue = None,
              literal: RungValue = None, descending: bool = False) -> list[dict[str, Any]]:
    r"""A size ladder over the distinct values of ``column`` (ascending, or ``descending``): at each, the rows of
    that value, their per-seed ``values`` (a column, or a function of the rows returning one value per seed,
    in seed order) as a :func:`ladder_rung`; its size is ``size(value)`` (default ``{column: value}``) and
    ``predicted`` / ``literal`` are numbers or functions of the value.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"n": [8, 8, 8, 16, 16, 16], "seed": [0, 1, 2] * 2, "x": [1.0, 2, 3, 2, 3, 4]})
    >>> [(r["size"], r["estimate"], r["literal"]) for r in ladder_by(frame, "n", "x", literal=0.0)]
    [({'n': 8}, 2.0, 0.0), ({'n': 16}, 3.0, 0.0)]
    """
    rungs = []
    for value in sorted(frame[column].unique(), reverse=descending):
        rows = frame[frame[column] == value].sort_values("seed")
        per = rows[values].to_numpy(float) if isinstance(values, str) else values(rows)
        number = value.item() if hasattr(value, "item") else value
        rungs.append(ladder_rung(size(number) if size else {column: number}, per,
                                 predicted=_at(predicted, number), literal=_at(literal, number)))
    return rungs


def seed_table(frame: pd.DataFrame, column: str, values: str) -> tuple[np.ndarray, np.ndarray]:
    r"""``(sizes, table)``: the distinct values of ``column`` (ascending) and ``values`` at each, one row per seed
    and one column per size, ``(seeds, sizes)`` (NaN where a seed lacks a size).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"N": [4, 4, 16, 16], "seed": [1, 0, 0, 1], "y": [2.0, 1.0, 3.0, 4.0]})
    >>> sizes, table = seed_table(frame, "N", "y")
    >>> sizes.tolist(), table.tolist()
    ([4.0, 16.0], [[1.0, 3.0], [2.0, 4.0]])
    """
    table = frame.pivot_table(index="seed", columns=column, values=values, aggfunc="mean").sort_index(axis=1)
    return table.columns.to_numpy(float), table.to_numpy(float)


def local_slope_ladder(sizes: Any, table: Any, *, name: str, predicted: RungValue = None,
                       literal: RungValue = None, size: Callable[[float], Mapping[str, float]] | None = None,
                       resolution: Any = None) -> list[dict[str, Any]]:
    r"""The local exponent of a power law between adjacent sizes: for sizes :math:`s_1 < \dots < s_K` and positive
    per-seed readings ``table`` :math:`y` of shape ``(seeds, K)``, rung :math:`k` is the mean over seeds of
    :math:`\log(y_{k+1}/y_k)/\log(s_{k+1}/s_k)` with its 95% interval (seeds with a missing or non-positive
    reading at either size dropped), at the size :math:`\sqrt{s_ks_{k+1}}` (``{name: ...}``, or ``size(...)``);
    ``predicted`` / ``literal`` as in :func:`ladder_by`; ``resolution`` (per size, in the order of ``sizes``): a bound
    on the error of :math:`\log y` that the seeds share, which widens rung :math:`k`'s interval by
    :func:`~flt_theory.compare.effective_exponent_bounds`. A law that fits one exponent across the sizes is read
    rung by rung: the exponent it states is the ``predicted`` line, and a trend of the rungs towards it
    (:func:`~flt_theory.compare.ladder_trend`) says it holds better as the size grows.

    >>> rungs = local_slope_ladder([10, 100, 1000], [[1.0, 0.1, 0.01], [2.0, 0.2, 0.02]], name="n", predicted=-1)
    >>> [(round(r["size"]["n"], 3), round(r["estimate"], 6), r["predicted"]) for r in rungs]
    [(31.623, -1.0, -1.0), (316.228, -1.0, -1.0)]
    >>> rungs = local_slope_ladder([1000, 10, 100], [[0.01, 1.0, 0.1], [0.02, 2.0, 0.2]], name="n",
    ...                            resolution=[0.3, 0.1, 0.2])   # unsorted: widened by (0.1+0.2)/ln 10, (0.2+0.3)/ln 10
    >>> [[round(c, 4) for c in r["ci"]] for r in rungs]
    [[-1.1303, -0.8697], [-1.2171, -0.7829]]
    """
    s = np.asarray(sizes, dtype=float)
    y = np.asarray(table, dtype=float)
    order = np.argsort(s)
    s, y = s[order], y[:, order]
    widen = (effective_exponent_bounds(s, np.asarray(resolution, dtype=float)[order]) if resolution is not None
             else np.zeros(max(len(s) - 1, 0)))
    rungs = []
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.where(y > 0, y, np.nan))
    for k in range(len(s) - 1):
        slopes = (logs[:, k + 1] - logs[:, k]) / math.log(s[k + 1] / s[k])
        at = math.sqrt(s[k] * s[k + 1])
        rung = ladder_rung(size(at) if size else {name: at}, slopes[np.isfinite(slopes)],
                           predicted=_at(predicted, at), literal=_at(literal, at))
        rung["ci"] = [rung["ci"][0] - float(widen[k]), rung["ci"][1] + float(widen[k])]
        rungs.append(rung)
    return rungs
