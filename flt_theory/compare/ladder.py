r"""Size ladders: how an estimate moves as the governing size grows.

A law about a limit ("the slope tends to :math:`-1/4`") or a finding that corrects one ("the slope stays
strictly between :math:`-1/3` and :math:`-1/4`") is only as good as its behaviour along growing sizes: a
deviation from the literal statement that shrinks as the size grows is a finite-size effect, not a finding.
A *ladder* is the list of rungs ``{"size": {name: value}, "estimate": x, "ci": [lo, hi]}``, one per size,
each estimate with its own 95% interval (over seeds); :func:`ladder_trend` fits the trend of a deviation
in :math:`\log_{10}` of the size.

The trend. With rungs :math:`(s_k, x_k, [l_k, u_k])` and the literal value :math:`x_0`, the deviation
:math:`\delta_k = x_k - x_0` has standard error :math:`\sigma_k = (u_k - l_k)/(2 \cdot 1.96)` (normal reading
of each rung's interval). Weighted least squares of :math:`\delta_k` on :math:`t_k = \log_{10} s_k` gives the
slope :math:`b` (change of the deviation per decade) with :math:`\mathrm{se}(b) = (\sum_k w_k (t_k -
\bar t)^2)^{-1/2}`, :math:`w_k = \sigma_k^{-2}`, and the deviation extrapolated one decade past the largest
rung, :math:`\delta(t_{\max} + 1)`, with its standard error. A deviation is *shrinking* when the trend's
interval lies entirely on the side that moves it toward 0 (:math:`b\,\mathrm{sign}(\bar\delta) < 0` at 95%),
*persisting* when it does not and every rung's interval excludes the literal value.

>>> rungs = [{"size": {"n": s}, "estimate": x, "ci": [x - 0.01, x + 0.01]}
...          for s, x in ((10, 0.2), (100, 0.1), (1000, 0.0))]
>>> t = ladder_trend(rungs, size="n", literal=0.0)
>>> round(t["slope_per_decade"], 3), t["shrinking"], t["persisting"]
(-0.1, True, False)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["Z95", "ladder_trend"]

#: The two-sided 95% normal quantile used to read a rung's interval as a standard error.
Z95 = 1.959963984540054


def _rung_numbers(rungs: Sequence[Mapping[str, Any]], size: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sizes, estimates, errors = [], [], []
    for rung in rungs:
        try:
            s, x = float(rung["size"][size]), float(rung["estimate"])
            lo, hi = (float(v) for v in rung["ci"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidParameterError(f"a ladder rung needs size[{size!r}], estimate and ci [lo, hi]. Got "
                                        f"{dict(rung)!r}.") from exc
        if not (s > 0 and all(map(math.isfinite, (s, x, lo, hi)))) or hi < lo:
            raise InvalidParameterError("a ladder rung needs a positive size and a finite estimate inside a finite "
                                        f"ci. Got {dict(rung)!r}.")
        sizes.append(s)
        estimates.append(x)
        errors.append(max((hi - lo) / (2 * Z95), 1e-12))
    return np.log10(np.asarray(sizes)), np.asarray(estimates), np.asarray(errors)


def ladder_trend(rungs: Sequence[Mapping[str, Any]], *, size: str, literal: float) -> dict[str, Any]:
    """The trend of ``estimate - literal`` in ``log10(size)`` along ``rungs`` (module docstring).

    Returns ``{"decades", "slope_per_decade", "slope_ci", "deviation_next_decade", "deviation_next_decade_ci",
    "shrinking", "persisting", "rungs"}``. Needs at least 3 rungs at distinct sizes.
    """
    t, x, se = _rung_numbers(rungs, size)
    if len(np.unique(t)) < 3:
        raise InvalidParameterError(f"a ladder trend needs at least 3 distinct sizes of {size!r}. Got "
                                    f"{len(np.unique(t))}.")
    delta, w = x - float(literal), 1.0 / se**2
    t_bar = float(np.sum(w * t) / np.sum(w))
    sxx = float(np.sum(w * (t - t_bar) ** 2))
    slope = float(np.sum(w * (t - t_bar) * delta) / sxx)
    intercept = float(np.sum(w * delta) / np.sum(w))  # the deviation at t_bar
    slope_se = 1.0 / math.sqrt(sxx)
    t_next = float(t.max()) + 1.0
    next_dev = intercept + slope * (t_next - t_bar)
    next_se = math.sqrt(1.0 / float(np.sum(w)) + (t_next - t_bar) ** 2 / sxx)
    side = math.copysign(1.0, intercept) if intercept else 0.0
    lo, hi = slope - Z95 * slope_se, slope + Z95 * slope_se
    shrinking = bool((side > 0 and hi < 0) or (side < 0 and lo > 0))
    excluded = bool(np.all(np.abs(delta) > Z95 * se))
    return {
        "decades": float(t.max() - t.min()),
        "slope_per_decade": slope,
        "slope_ci": [lo, hi],
        "deviation_next_decade": next_dev,
        "deviation_next_decade_ci": [next_dev - Z95 * next_se, next_dev + Z95 * next_se],
        "shrinking": shrinking,
        "persisting": (not shrinking) and excluded,
        "rungs": len(t),
    }
