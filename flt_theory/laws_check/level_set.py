r"""Level sets of a simulated observable: the parameter value :math:`x^*` where :math:`\mathbb E[\mathrm{OBS}](x^*)`
crosses a level :math:`L`, per grid point, with one crossing per disjoint group of seeds.

A level-set law (``flt verify --law "eta* ~ (n*p**2/d)**(1/2)" --where "norm_growth = 1"``) is a statement about
such crossings: with the norm law :math:`\|w^1\|^2 - 1 \asymp d\eta^2/(np^2)` of Dandi et al. 2023 ("How two-layer
neural networks learn, one (giant) step at a time", arXiv 2305.18270) the level 1 is reached at
:math:`\eta^* \propto (np^2/d)^{1/2}`. :func:`solve_crossings` finds them for many points at once (each round of
evaluations is one call of ``evaluate``, so one runner sweep):

1. **Bracket** on the seed-mean curve: evaluate the start value and twice it (half it where twice is not admissible);
   the sign of the change gives the direction; then double (or halve) beyond the evaluated range, at most
   :data:`MAX_STEPS` times per point, until the mean crosses :math:`L`. A point whose mean never crosses within the
   admissible range (``admissible`` refuses the next value) or the bound is refused with an error naming it.
2. **Bisect** in :math:`\log x` (the geometric midpoint; rounded for an integer parameter) until the narrowest
   bracket :math:`[x_-, x_+]` has :math:`x_+/x_- \le 1 +` :data:`REL_TOL` (an integer parameter: until
   :math:`x_+ - x_- \le 1`).
3. **Cross per seed group**: the seeds are split into disjoint groups; each group's mean curve, on the same
   evaluated values (the same seeds at every value of a point: common random numbers), is interpolated linearly in
   :math:`(\log x, \log \mathrm{OBS})` between the two evaluated values that straddle :math:`L` nearest the
   seed-mean crossing (linearly in OBS where a value is not positive). A group whose curve does not cross inside
   the evaluated values extends the evaluations outward (step 1's doubling, same bound): crossings are only ever
   interpolated, never extrapolated.

The interpolation is exact for an observable that is a power of :math:`x` between evaluated values (the norm
growth after one step is :math:`\propto \eta^2`); otherwise its error is second order in the bracket's width.

>>> import numpy as np
>>> noise = np.random.default_rng(0).lognormal(0.0, 0.1, size=(2, 8))   # (points, seeds)
>>> def evaluate(requests):   # OBS = c_i * x**2 per seed, the crossing of 1 at x = c_i**(-1/2)
...     return np.array([noise[i] * [1.0, 4.0][i] * x**2 for i, x in requests])
>>> result = solve_crossings(evaluate, [1.0, 1.0], 1.0, groups=4, integer=False)
>>> bool(np.allclose(result.crossing, (noise.mean(axis=1) * [1.0, 4.0]) ** -0.5))   # exact for a power of x
True
>>> result.groups.shape   # (groups, points): the rows of the fit
(4, 2)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["MAX_STEPS", "REL_TOL", "EVALUATIONS", "Crossings", "interpolate_crossing", "solve_crossings"]

#: Doublings or halvings beyond the evaluated range allowed per point (a factor 2**12 = 4096 either way).
MAX_STEPS = 12
#: Relative width of the final bracket of the seed-mean crossing (2%).
REL_TOL = 0.02
#: The multiple of one evaluation's cost that a plan's estimate uses, the evaluations a point typically takes
#: (2 to start, 1-2 to bracket, 6 bisections from a factor-2 bracket).
EVALUATIONS = 10


@dataclasses.dataclass(frozen=True)
class Crossings:
    """The crossings of every point: ``crossing`` (points,) of the seed-mean curve, ``groups`` (groups, points)
    one per seed group, ``values`` and ``means`` the evaluated parameter values (sorted) and the seed-mean there."""

    crossing: np.ndarray
    groups: np.ndarray
    values: list[np.ndarray]
    means: list[np.ndarray]


def _straddles(curve: np.ndarray, level: float) -> np.ndarray:
    """Indices ``j`` with ``curve[j]`` and ``curve[j + 1]`` on either side of ``level`` (or on it)."""
    side = curve - level
    return np.flatnonzero(side[:-1] * side[1:] <= 0)


def _crossing_in(values: np.ndarray, curve: np.ndarray, level: float, j: int) -> float:
    x0, x1 = math.log(values[j]), math.log(values[j + 1])
    y0, y1 = curve[j], curve[j + 1]
    if y0 > 0 and y1 > 0:
        y0, y1, target = math.log(y0), math.log(y1), math.log(level)
    else:
        target = level
    t = 0.5 if y1 == y0 else (target - y0) / (y1 - y0)
    return math.exp(x0 + t * (x1 - x0))


def interpolate_crossing(values: np.ndarray, curve: np.ndarray, level: float, near: float) -> float | None:
    r"""Where ``curve`` (evaluated at the sorted positive ``values``) crosses ``level``: linear in
    :math:`(\log x, \log y)` between the straddling pair whose crossing is nearest ``near`` (in :math:`\log x`);
    None when no pair straddles.

    >>> round(interpolate_crossing(np.array([1.0, 2.0, 4.0]), np.array([1.0, 4.0, 16.0]), 2.0, near=1.0), 12)
    1.414213562373
    """
    crossings = [_crossing_in(values, curve, level, int(j)) for j in _straddles(curve, level)]
    if not crossings:
        return None
    return min(crossings, key=lambda c: abs(math.log(c / near)))


def _narrowest(values: np.ndarray, curve: np.ndarray, level: float, start: float) -> int | None:
    js = _straddles(curve, level)
    if len(js) == 0:
        return None
    return int(min(js, key=lambda j: (values[j + 1] / values[j], abs(math.log(values[j] / start)))))


class _Point:
    """The evaluations of one point: sorted values, per-seed observations (values, seeds), steps taken outward."""

    def __init__(self, start: float) -> None:
        self.start, self.values, self.obs, self.steps = start, np.empty(0), np.empty((0, 0)), 0

    def add(self, value: float, row: np.ndarray) -> None:
        rows = row[None, :] if self.obs.size == 0 else np.vstack([self.obs, row[None, :]])
        values = np.append(self.values, value)
        order = np.argsort(values, kind="stable")
        self.values, self.obs = values[order], rows[order]


def solve_crossings(
    evaluate: Callable[[list[tuple[int, float]]], np.ndarray],
    starts: Sequence[float],
    level: float,
    *,
    groups: int,
    integer: bool,
    admissible: Callable[[int, float], bool] = lambda i, x: True,
    labels: Sequence[str] | None = None,
    observable: str = "OBS",
    parameter: str = "x",
    rel_tol: float = REL_TOL,
) -> Crossings:
    r"""Solve every point's crossing of ``level`` (module docstring: bracket, bisect, cross per seed group).

    Parameters
    ----------
    evaluate
        ``[(point index, value), ...] -> array (requests, seeds)``: the observable per seed, the same seeds for every
        request (one runner sweep per call).
    starts
        The value each point starts from (positive).
    level
        The level :math:`L > 0`.
    groups
        Disjoint seed groups (contiguous blocks of the seed axis, :func:`numpy.array_split`), at least 2.
    integer
        Whether the parameter takes integer values.
    admissible
        ``(point index, value) -> bool``: whether the experiment accepts the value there (its ranges, its size
        limits); bracketing stops at the first refused value.
    labels, observable, parameter
        Names for the errors (``labels[i]`` describes point ``i``).
    rel_tol
        Relative width of the final bracket.

    Raises
    ------
    InvalidParameterError
        Naming ``--where`` and the point, when a point's mean (or a seed group's) does not cross ``level`` within
        :data:`MAX_STEPS` doublings or the admissible range, or does not change with the parameter.
    """
    labels = list(labels) if labels is not None else [f"point {i}" for i in range(len(starts))]
    points = [_Point(float(s)) for s in starts]
    blocks: list[np.ndarray] = []

    def refuse(i: int, why: str) -> InvalidParameterError:
        p = points[i]
        mean = p.obs.mean(axis=1)
        shown = f"seed-mean {observable}={mean[0]:.3g} at {parameter}={p.values[0]:g}"
        if len(mean) > 1:
            shown += f" ... {mean[-1]:.3g} at {parameter}={p.values[-1]:g}, {len(mean)} values evaluated"
        return InvalidParameterError(f"--where: {why} at {labels[i]} ({shown}).")

    def step(value: float, up: bool) -> float:
        new = value * 2 if up else value / 2
        return int(round(new)) if integer else new

    def outward(i: int, up: bool) -> float:
        p = points[i]
        p.steps += 1
        value = step(p.values[-1] if up else p.values[0], up)
        if p.steps > MAX_STEPS or value <= 0 or value in p.values or not admissible(i, value):
            raise refuse(i, f"{observable} does not cross {level:g} as {parameter} {'grows' if up else 'shrinks'} "
                            f"within the experiment's admissible range and {MAX_STEPS} doublings")
        return value

    def next_value(i: int) -> float | None:
        p = points[i]
        if len(p.values) == 1:  # the second start: twice the first, else half
            twice = step(p.start, True)
            return twice if admissible(i, twice) else outward(i, False)
        mean = p.obs.mean(axis=1)
        direction = np.sign(mean[-1] - mean[0])
        if direction == 0:
            raise refuse(i, f"{observable} does not change with {parameter}")
        j = _narrowest(p.values, mean, level, p.start)
        if j is None:
            return outward(i, (mean[0] < level) == (direction > 0))
        lo, hi = p.values[j], p.values[j + 1]
        middle = int(round(math.sqrt(lo * hi))) if integer else math.sqrt(lo * hi)
        if hi / lo > 1 + rel_tol and lo < middle < hi:
            return middle
        near = _crossing_in(p.values, mean, level, j)
        for block in blocks:
            curve = p.obs[:, block].mean(axis=1)
            if interpolate_crossing(p.values, curve, level, near) is None:
                return outward(i, (curve[0] < level) == (direction > 0))
        return None

    requests = [(i, p.start) for i, p in enumerate(points)]
    while requests:
        rows = np.asarray(evaluate(requests), dtype=float)
        if not np.isfinite(rows).all():
            i, value = requests[int(np.flatnonzero(~np.isfinite(rows).all(axis=1))[0])]
            raise InvalidParameterError(f"--where: {observable} is not finite at {labels[i]}, {parameter}={value:g}.")
        if not blocks:
            blocks = np.array_split(np.arange(rows.shape[1]), groups)
        for (i, value), row in zip(requests, rows):
            points[i].add(value, row)
        requests = [(i, v) for i in range(len(points)) if (v := next_value(i)) is not None]
    crossing, by_group = [], []
    for p in points:
        mean = p.obs.mean(axis=1)
        j = _narrowest(p.values, mean, level, p.start)
        assert j is not None  # every point was bracketed above
        near = _crossing_in(p.values, mean, level, j)
        crossing.append(near)
        by_group.append([interpolate_crossing(p.values, p.obs[:, b].mean(axis=1), level, near) for b in blocks])
    return Crossings(
        crossing=np.array(crossing),
        groups=np.array(by_group, dtype=float).T,
        values=[p.values for p in points],
        means=[p.obs.mean(axis=1) for p in points],
    )
