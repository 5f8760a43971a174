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
  in; :mod:`.subspace` and :func:`check_ordering` (default) read the CI this way.

``slack = tolerance + rel_tol * |bound|``. The mean's CI comes from
:func:`~flt_theory.compare.bootstrap.mean_ci` (Student t below 5 seeds, bootstrap from there on).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError
from ._arrays import Mode, as_array, check_mode, check_nonnegative, check_options
from .bootstrap import Estimate, RngLike, batched_interval, mean_interval
from .result import FLOAT_SLACK, CheckResult, fmt, fmt_ci, make_assert, make_result

__all__ = [
    "check_at_least",
    "check_at_most",
    "check_ordering",
    "assert_at_least",
    "assert_at_most",
    "assert_ordering",
]


def one_sided(estimate: Estimate, bound: float, *, at_least: bool, mode: Mode) -> bool:
    """Whether ``estimate`` satisfies ``>= bound`` (or ``<= bound``) under ``mode``.

    >>> est = Estimate(1.0, 0.8, 1.2, 0.95, 8)
    >>> [one_sided(est, 1.1, at_least=True, mode=mode) for mode in ("consistent", "demonstrated")]
    [True, False]
    """
    slack = FLOAT_SLACK * max(1.0, abs(bound))
    if at_least:
        return bool((estimate.high if mode == "consistent" else estimate.low) >= bound - slack)
    return bool((estimate.low if mode == "consistent" else estimate.high) <= bound + slack)


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
) -> CheckResult:
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    values = as_array(measured, "measured", caller, shape="(seeds,)", min_len=2)
    bound = check_real(bound, "bound", caller=caller)
    mode = check_mode(mode, caller)
    slack = check_nonnegative(tolerance, "tolerance", caller)
    slack += check_nonnegative(rel_tol, "rel_tol", caller) * abs(bound)
    estimate = mean_interval(values, confidence=confidence, n_resamples=n_resamples, rng=rng)
    relation = ">=" if at_least else "<="
    return make_result(
        name=name,
        passed=one_sided(estimate, bound - slack if at_least else bound + slack, at_least=at_least, mode=mode),
        predicted=f"{relation} {bound:g}",
        measured=estimate.value,
        ci=estimate.ci,
        n_seeds=estimate.n_seeds,
        summary=f"mean {fmt(estimate.value)} {fmt_ci(estimate.ci)} vs bound {relation} {fmt(bound)}"
        + (f" (slack {fmt(slack)})" if slack else "")
        + f" [{mode}, {estimate.method}]",
        details={"bound": bound, "slack": slack, "mode": mode, "method": estimate.method},
    )


def check_at_least(
    measured: ArrayLike,
    bound: float,
    *,
    mode: Mode = "consistent",
    tolerance: float = 0.0,
    rel_tol: float = 0.0,
    name: str = "at least",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    rng: RngLike = 0,
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

    Returns
    -------
    CheckResult

    Examples
    --------
    >>> error = 0.30 + 0.01 * np.random.default_rng(0).standard_normal(8)
    >>> check_at_least(error, 0.30).passed, check_at_least(error, 0.40).passed
    (True, False)
    """
    return _check_bound(
        measured, bound, True, mode, tolerance, rel_tol, name, confidence, n_resamples, rng, "check_at_least"
    )


def check_at_most(
    measured: ArrayLike,
    bound: float,
    *,
    mode: Mode = "consistent",
    tolerance: float = 0.0,
    rel_tol: float = 0.0,
    name: str = "at most",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    rng: RngLike = 0,
) -> CheckResult:
    r"""Check the upper-bound law :math:`\mathbb E[\text{measured}] \le \text{bound}`.

    ``mode="consistent"``: PASSES iff the CI's lower end <= ``bound + slack``.
    ``mode="demonstrated"``: PASSES iff the CI's upper end <= ``bound + slack``.
    Parameters as in :func:`check_at_least`.

    Examples
    --------
    >>> error = 0.30 + 0.01 * np.random.default_rng(0).standard_normal(8)
    >>> check_at_most(error, 0.30).passed, check_at_most(error, 0.20).passed
    (True, False)
    """
    return _check_bound(
        measured, bound, False, mode, tolerance, rel_tol, name, confidence, n_resamples, rng, "check_at_most"
    )


def check_ordering(
    values_by_regime: Sequence[ArrayLike],
    *,
    mode: Mode = "demonstrated",
    name: str = "ordering",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    rng: RngLike = 0,
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
        ``measured`` and ``ci``: the gaps and their CIs; ``details["means"]``: the regime means.

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
        means = np.stack([b.mean(axis=1) for b in batches], axis=-1)
        return means[:, :-1] - means[:, 1:]

    value, low, high = batched_interval(groups, gaps, n_resamples=n_resamples, confidence=confidence, rng=rng)
    passed = bool(np.all(low > 0 if mode == "demonstrated" else high > 0))
    cis = tuple((float(lo), float(hi)) for lo, hi in zip(low, high))
    return make_result(
        name=name,
        passed=passed,
        predicted="strictly decreasing",
        measured=tuple(float(v) for v in value),
        ci=cis,
        n_seeds=min(len(g) for g in groups),
        summary="gaps " + ", ".join(f"{fmt(v)} {fmt_ci(c)}" for v, c in zip(value, cis)) + f" vs all > 0 [{mode}]",
        details={"means": [float(g.mean()) for g in groups], "mode": mode},
    )


assert_at_least = make_assert(check_at_least)
assert_at_most = make_assert(check_at_most)
assert_ordering = make_assert(check_ordering)
