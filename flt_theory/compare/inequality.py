r"""One-sided laws (:math:`\mathbb E\,X \ge b`, :math:`\mathbb E\,X \le b`) and orderings of regimes.

Which side of the confidence interval (CI) of the mean decides is the ``mode``:

* ``"consistent"`` (default of :func:`check_at_least` / :func:`check_at_most`): the law is the
  null hypothesis and PASSES unless the data exclude it. A lower bound
  ":math:`\text{error} \ge b + o(1)`" passes iff the CI's **upper** end is
  :math:`\ge b - \text{slack}`, and fails once the whole CI lies below the bound. This is the
  falsifiable reading for bounds that may be tight: when :math:`\mathbb E\,X = b` exactly, a
  true law still passes with probability :math:`\ge 1 - \alpha/2`, whereas demanding the lower
  end above :math:`b` would fail it about half the time. Negative controls (a bound the data
  clearly violate) show the check's power.
* ``"demonstrated"``: the data must show the claim, i.e. the whole CI lies on the claimed side
  (lower end :math:`\ge b - \text{slack}` for at-least). Use it for claims with a margin built
  in; :mod:`~.compare.subspace` and :func:`check_ordering` (default) read the CI this way.

``slack = tolerance + rel_tol * |bound|``. The mean's CI comes from
:func:`~flt_theory.compare.bootstrap.mean_ci` (Student t below 5 seeds, bootstrap from there on).

**Bounded quantities.** Error rates, accuracies and fractions lie in [0, 1], ratios in
:math:`[0, \infty)`: pass ``bounds=(0, 1)`` (or ``(0, inf)``) and the mean's CI is formed on the
logit (log) scale, inside the range (:mod:`.bootstrap`). The default ``bounds=None`` keeps the
plain-scale interval: these checks take any measurement, so no range is assumed. In
``mode="consistent"`` a true tight law (:math:`\mathbb E\,X = b`) should FAIL about
:math:`\alpha/2` of the time; for a right-skewed error rate (Beta(1, 49) per seed, 200 data
sets at nominal 95%) the plain interval false-FAILs 9.5% (3 seeds) and 8.0% (8 seeds), the
logit-scale one 5.0% and 6.0% (tests/compare/test_compare_inequality.py).

**p-values.** In ``mode="consistent"`` (the law is the null hypothesis) ``details["p_value"]``
is the largest :math:`\alpha` at which the check still passes at confidence :math:`1-\alpha`
(:func:`~flt_theory.compare.family.p_value_by_inversion`; conservative, as one end of a
two-sided interval decides), for a family-wise level across claims (:mod:`.family`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError
from ._arrays import Bounds, Mode, as_array, check_bounds, check_mode, check_nonnegative, check_options, check_within
from .bootstrap import Estimate, RngLike, bootstrap_distribution, mean_interval
from .family import p_value_by_inversion
from .result import FLOAT_SLACK, CheckResult, fmt, fmt_ci, make_assert, make_result

__all__ = [
    "check_at_least",
    "check_at_most",
    "check_every_at_most",
    "check_ordering",
    "assert_at_least",
    "assert_at_most",
    "assert_every_at_most",
    "assert_ordering",
]


def one_sided(estimate: Estimate, bound: float, *, at_least: bool, mode: Mode) -> bool:
    """Whether ``estimate`` satisfies ``>= bound`` (or ``<= bound``) under ``mode``.

    >>> est = Estimate(1.0, 0.8, 1.2, 0.95, 8)
    >>> [one_sided(est, 1.1, at_least=True, mode=mode) for mode in ("consistent", "demonstrated")]
    [True, False]
    """
    return _one_sided(estimate.ci, bound, at_least=at_least, mode=mode)


def _one_sided(ci: tuple[float, float], bound: float, *, at_least: bool, mode: Mode) -> bool:
    slack = FLOAT_SLACK * max(1.0, abs(bound))
    low, high = ci
    if at_least:
        return bool((high if mode == "consistent" else low) >= bound - slack)
    return bool((low if mode == "consistent" else high) <= bound + slack)


def _scale(bounds: Bounds | None) -> str:
    if bounds is None:
        return "plain"
    finite = [v for v in bounds if np.isfinite(v)]
    return "logit" if len(finite) == 2 else "log" if finite else "plain"


def _check_bound(
    measured: ArrayLike,
    bound: float,
    at_least: bool,
    mode: Mode,
    tolerance: float,
    rel_tol: float,
    name: str,
    confidence: float,
    n_resamples: int,
    rng: RngLike,
    caller: str,
    bounds: Bounds | None,
) -> CheckResult:
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    bounds = check_bounds(bounds, caller)
    values = check_within(
        as_array(measured, "measured", caller, shape="(seeds,)", min_len=2), bounds, "measured", caller
    )
    bound = check_real(bound, "bound", caller=caller)
    mode = check_mode(mode, caller)
    slack = check_nonnegative(tolerance, "tolerance", caller)
    slack += check_nonnegative(rel_tol, "rel_tol", caller) * abs(bound)
    estimate = mean_interval(values, confidence=confidence, n_resamples=n_resamples, rng=rng, bounds=bounds)
    relation = ">=" if at_least else "<="
    shifted = bound - slack if at_least else bound + slack
    details: dict[str, Any] = {
        "bound": bound, "slack": slack, "mode": mode, "method": estimate.method, "scale": _scale(bounds)
    }
    if bounds is not None:
        details["bounds"] = bounds
    if mode == "consistent":
        details["p_value"] = p_value_by_inversion(
            lambda level: _one_sided(estimate.at(level), shifted, at_least=at_least, mode=mode)
        )
    return make_result(
        name=name,
        passed=one_sided(estimate, shifted, at_least=at_least, mode=mode),
        predicted=f"{relation} {fmt(bound)}",
        measured=estimate.value,
        ci=estimate.ci,
        n_seeds=estimate.n_seeds,
        summary=f"mean {fmt(estimate.value)} {fmt_ci(estimate.ci)} vs bound {relation} {fmt(bound)}"
        + (f" (slack {fmt(slack)})" if slack else "")
        + f" [{mode}, {estimate.method}" + (f", {details['scale']} scale]" if bounds is not None else "]"),
        details=details,
    )


def check_at_least(
    measured: ArrayLike, bound: float, *, mode: Mode = "consistent", tolerance: float = 0.0, rel_tol: float = 0.0,
    name: str = "at least", confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
    bounds: Bounds | None = None,
) -> CheckResult:
    r"""Check the lower-bound law :math:`\mathbb E[\text{measured}] \ge \text{bound}`.

    ``mode="consistent"``: PASSES iff the CI's upper end >= ``bound - slack`` (fails only when the
    data exclude the law). ``mode="demonstrated"``: PASSES iff the CI's lower end >= ``bound - slack``.

    Parameters
    ----------
    measured : array_like, shape (seeds,)
        One value per seed (e.g. a test error), at least 2.
    bound : float
        The theory's lower bound.
    mode : {'consistent', 'demonstrated'}
        Which end of the CI decides (module docstring).
    tolerance, rel_tol : float
        ``slack = tolerance + rel_tol * |bound|`` (the :math:`o(1)`), both >= 0.
    name : str
        Label of the check.
    confidence, n_resamples, rng
        Options of the mean's CI.
    bounds : (float, float), optional
        The range of the measured quantity, e.g. ``(0, 1)`` for an error rate: the CI is formed on
        the logit (log) scale and stays inside it (module docstring). Default: plain scale.

    Returns
    -------
    CheckResult
        ``details``: ``bound``, ``slack``, ``mode``, ``method``, ``scale`` and, in
        ``mode="consistent"``, ``p_value`` (module docstring).

    Examples
    --------
    >>> error = 0.30 + 0.01 * np.random.default_rng(0).standard_normal(8)
    >>> check_at_least(error, 0.30).passed, check_at_least(error, 0.40).passed
    (True, False)
    >>> check_at_least(error, 0.40).details["p_value"] < 0.05 < check_at_least(error, 0.30).details["p_value"]
    True

    An error rate near 0 over 3 seeds: its interval stays inside [0, 1] with ``bounds``.

    >>> check_at_most([0.002, 0.011, 0.004], 0.05, bounds=(0, 1)).message
    'at most: mean 0.005667 [0.000709, 0.04377] vs bound <= 0.05 [consistent, t, logit scale]: PASS'
    """
    return _check_bound(
        measured, bound, True, mode, tolerance, rel_tol, name, confidence, n_resamples, rng, "check_at_least",
        bounds,
    )


def check_at_most(
    measured: ArrayLike, bound: float, *, mode: Mode = "consistent", tolerance: float = 0.0, rel_tol: float = 0.0,
    name: str = "at most", confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
    bounds: Bounds | None = None,
) -> CheckResult:
    r"""The mirror of :func:`check_at_least`: check the upper-bound law :math:`\mathbb E[\text{measured}] \le
    \text{bound}`.

    ``mode="consistent"``: PASSES iff the CI's lower end <= ``bound + slack``.
    ``mode="demonstrated"``: PASSES iff the CI's upper end <= ``bound + slack``.
    Parameters and ``details`` as in :func:`check_at_least`.

    Examples
    --------
    >>> error = 0.30 + 0.01 * np.random.default_rng(0).standard_normal(8)
    >>> check_at_most(error, 0.30).passed, check_at_most(error, 0.20).passed
    (True, False)
    """
    return _check_bound(
        measured, bound, False, mode, tolerance, rel_tol, name, confidence, n_resamples, rng, "check_at_most",
        bounds,
    )


def check_ordering(
    values_by_regime: Sequence[ArrayLike],
    *,
    mode: Mode = "demonstrated",
    name: str = "ordering",
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> CheckResult:
    r"""Check that the means over seeds are strictly decreasing from one regime to the next.

    Each successive gap :math:`\bar v_i - \bar v_{i+1}` gets a bootstrap CI, regimes resampled
    independently (their seeds may differ in number). ``mode="demonstrated"`` (default): PASSES iff
    every gap's lower end is > 0. ``mode="consistent"``: PASSES iff no gap's upper end is <= 0 (no
    pair significantly out of order). For an increasing claim pass the regimes reversed.

    Parameters
    ----------
    values_by_regime : sequence of array_like, each of shape (seeds_i,)
        At least 2 regimes, each with at least 2 seeds, in the claimed decreasing order.
    mode : {'demonstrated', 'consistent'}
        Which end of each gap's CI decides.
    name : str
        Label of the check.
    confidence, n_resamples, rng
        Bootstrap options (each gap's CI has coverage ``confidence``).

    Returns
    -------
    CheckResult
        ``measured`` and ``ci``: the gaps and their CIs; ``details["means"]``: the regime means,
        ``details["labels"]``: ``"gap i-(i+1)"``; in ``mode="consistent"`` ``details["p_value"]``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> errors = [m + 0.01 * rng.standard_normal(8) for m in (0.5, 0.3, 0.1)]
    >>> check_ordering(errors).passed, check_ordering(errors[::-1]).passed
    (True, False)
    """
    caller = "check_ordering"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    mode = check_mode(mode, caller)
    if isinstance(values_by_regime, (str, bytes)) or not isinstance(values_by_regime, Sequence):
        raise InvalidParameterTypeError(
            f"The 'values_by_regime' parameter of {caller} must be a sequence of arrays of shape (seeds,). "
            f"Got {type(values_by_regime).__name__} instead."
        )
    if len(values_by_regime) < 2:
        raise InvalidParameterError(
            f"The 'values_by_regime' parameter of {caller} must hold at least 2 regimes. "
            f"Got {len(values_by_regime)} instead."
        )
    groups = [
        as_array(values, f"values_by_regime[{i}]", caller, shape="(seeds,)", min_len=2)
        for i, values in enumerate(values_by_regime)
    ]

    def gaps(*batches: np.ndarray) -> np.ndarray:
        means: NDArray[np.float64] = np.stack([b.mean(axis=1) for b in batches], axis=-1)
        return means[:, :-1] - means[:, 1:]

    dist = bootstrap_distribution(groups, gaps, n_resamples=n_resamples, rng=rng)
    value, (low, high) = dist.point, dist.interval(confidence)

    def ordered(lows: np.ndarray, highs: np.ndarray) -> bool:
        return bool(np.all(lows > 0 if mode == "demonstrated" else highs > 0))

    passed = ordered(low, high)
    cis = tuple((float(lo), float(hi)) for lo, hi in zip(low, high))
    details: dict[str, Any] = {"means": [float(g.mean()) for g in groups], "mode": mode}
    details["labels"] = [f"gap {i}-{i + 1}" for i in range(len(groups) - 1)]
    if mode == "consistent":
        details["p_value"] = p_value_by_inversion(lambda level: ordered(*dist.interval(level)))
    return make_result(
        name=name,
        passed=passed,
        predicted="strictly decreasing",
        measured=tuple(float(v) for v in value),
        ci=cis,
        n_seeds=min(len(g) for g in groups),
        summary="gaps " + ", ".join(f"{fmt(v)} {fmt_ci(c)}" for v, c in zip(value, cis)) + f" vs all > 0 [{mode}]",
        details=details,
    )


assert_at_least = make_assert(check_at_least)
assert_at_most = make_assert(check_at_most)
assert_ordering = make_assert(check_ordering)


def check_every_at_most(values: ArrayLike, bound: float, *, name: str = "every seed") -> CheckResult:
    """PASSES iff every seed's value is at most ``bound`` (relative slack 1e-6 for the float of a stopping rule).

    For a per-seed condition such as "training stopped at loss ≤ ε": the mean of values stopped at ε sits at ε,
    so no interval of it can lie strictly below; the interval reported is the per-seed range.

    >>> check_every_at_most([0.04, 0.05], 0.05).passed, check_every_at_most([0.04, 0.06], 0.05).passed
    (True, False)
    """
    values = np.asarray(values, dtype=float)
    reached = values <= bound * (1 + 1e-6)
    return make_result(name=name, passed=bool(reached.all()), predicted=f"<= {bound:g} on every seed",
                       measured=float(values.mean()), ci=(float(values.min()), float(values.max())),
                       n_seeds=len(values),
                       summary=f"{int(reached.sum())}/{len(values)} seeds ≤ {bound:g} (interval: per-seed range)")


assert_every_at_most = make_assert(check_every_at_most)
