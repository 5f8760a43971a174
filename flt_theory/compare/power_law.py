r"""Power laws :math:`y \approx C\, x_1^{b_1} \cdots x_k^{b_k}` fitted on log–log data, with a seed bootstrap.

The fit is ordinary least squares of :math:`\log \bar y` on :math:`(1, \log x_1, \dots, \log x_k)`
where :math:`\bar y` is the **mean over seeds** at each point. We fit the log of the mean rather
than the mean of the logs because the laws are statements about expectations
(:math:`\mathbb E\,\|w\|^2 - 1 \propto d\eta^2/(np^2)`, an expected test error): the mean of
:math:`\log y` estimates :math:`\log` of the geometric mean, whose slope differs from :math:`b`
whenever the relative spread of :math:`y` changes along the grid (a Jensen gap that depends on
:math:`x`). The confidence interval of each exponent is the seed bootstrap of :mod:`.bootstrap`
(calibrated for few seeds): whole seeds are resampled, so correlations between the points of one
run are kept.

A two-variable law such as :math:`\|w\|^2 - 1 \propto d\,\eta^2/(n p^2)` is fitted jointly in
:math:`(d, n)`: pass the grid flattened, e.g. ``D, N = np.meshgrid(ds, ns); x1, x2 = D.ravel(),
N.ravel()`` with ``y`` of shape ``(seeds, D.size)`` in the same order.

Verdict: a check PASSES iff every predicted exponent lies in its CI widened by ``tolerance``
(an absolute tolerance in exponent units). With several exponents each CI is taken at the
Bonferroni level :math:`1 - (1 - \text{confidence})/k`, so a true law passes with probability at
least ``confidence``. Checked on noise-free data (exact to 1e-8 for slopes in [-3, 3]) and on
multiplicative log-normal noise (tests/compare/test_compare_power_law.py).

**Ranges.** The exponents are unbounded reals, so their intervals need no range; the range of
:math:`y` (> 0, validated) enters only through :math:`\log \bar y`, finite on the data and on
every resample (a mean of positive values), and the prefactor :math:`C = e^{\hat a}` is positive
by construction. Hence no ``bounds`` argument here, unlike :func:`~flt_theory.compare.mean_ci`.

**p-value** (``details["p_value"]``): the largest :math:`\alpha` at which the check still passes
with its intervals formed at confidence :math:`1-\alpha` from the same replicates (Bonferroni
over the exponents included); the check FAILS at ``confidence`` iff ``p_value < 1 - confidence``
(:mod:`.family`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_real
from ..errors import InvalidParameterError
from ._arrays import as_array, check_nonnegative, check_options
from .bootstrap import BootstrapDistribution, RngLike, bootstrap_distribution
from .family import p_value_by_inversion
from .result import CheckResult, fmt, fmt_ci, make_assert, make_result, within

__all__ = [
    "PowerLawFit",
    "fit_power_law",
    "fit_power_law_2d",
    "check_power_law",
    "check_power_law_2d",
    "check_power_law_nd",
    "assert_power_law",
    "assert_power_law_2d",
    "fit_resolution_bound",
]

_LOG = "a log-log fit needs positive values"


@dataclass(frozen=True)
class PowerLawFit:
    r"""Fitted :math:`y \approx C \prod_j x_j^{b_j}` with bootstrap CIs of the exponents.

    Attributes
    ----------
    exponents : tuple of float
        :math:`(b_1, \dots, b_k)`.
    cis : tuple of (float, float)
        Bootstrap interval of each exponent at ``confidence``.
    prefactor : float
        :math:`C`.
    confidence : float
        Coverage of each interval.
    n_seeds : int
        Seeds behind the fit.
    cis_at : callable or None
        ``confidence -> cis`` from the same replicates (nested in ``confidence``); not compared.

    Examples
    --------
    >>> fit = PowerLawFit((1.5,), ((1.4, 1.6),), 3.0, 0.95, 8)
    >>> fit.exponent, fit.ci
    (1.5, (1.4, 1.6))
    """

    exponents: tuple[float, ...]
    cis: tuple[tuple[float, float], ...]
    prefactor: float
    confidence: float
    n_seeds: int
    cis_at: Callable[[float], tuple[tuple[float, float], ...]] | None = field(default=None, repr=False, compare=False)

    @property
    def exponent(self) -> float:
        """The exponent of a one-variable fit."""
        (b,) = self.exponents
        return b

    @property
    def ci(self) -> tuple[float, float]:
        """The exponent's interval of a one-variable fit."""
        (ci,) = self.cis
        return ci


def _fit(
    xs: dict[str, ArrayLike], y: ArrayLike, caller: str, confidence: float, n_resamples: int, rng: RngLike
) -> PowerLawFit:
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    k = len(xs)
    y = as_array(y, "y", caller, shape="(seeds, points)", min_len=2, positive=_LOG)
    columns = []
    for name, x in xs.items():
        x = as_array(x, name, caller, shape="(points,)", min_len=k + 1, positive=_LOG)
        if x.shape != y.shape[1:]:
            raise InvalidParameterError(
                f"The 'y' parameter of {caller} must have shape (seeds, {len(x)}) to match {name} of shape "
                f"{x.shape}. Got shape {y.shape} instead."
            )
        columns.append(np.log(x))
    design = np.column_stack([np.ones(y.shape[1]), *columns])
    if np.linalg.matrix_rank(design) < k + 1:
        raise InvalidParameterError(
            f"The {' and '.join(map(repr, xs))} parameter(s) of {caller} must vary independently: the columns "
            f"(1, {', '.join(f'log {n}' for n in xs)}) need rank {k + 1}. Got rank {np.linalg.matrix_rank(design)} "
            "instead."
        )
    solve = np.linalg.pinv(design).T  # (points, k + 1)
    dist = bootstrap_distribution(
        [y], lambda batch: np.log(batch.mean(axis=1)) @ solve, n_resamples=n_resamples, rng=rng
    )
    cis_at = _ExponentIntervals(dist)
    point = dist.point
    return PowerLawFit(
        exponents=tuple(float(b) for b in point[1:]),
        cis=cis_at(confidence),
        prefactor=float(np.exp(point[0])),
        confidence=confidence,
        n_seeds=len(y),
        cis_at=cis_at,
    )


class _ExponentIntervals:
    """``confidence -> ((low, high) per exponent)`` from the fit's replicates (picklable)."""

    def __init__(self, dist: BootstrapDistribution) -> None:
        self.dist = dist

    def __call__(self, confidence: float) -> tuple[tuple[float, float], ...]:
        low, high = self.dist.interval(confidence)
        return tuple((float(lo), float(hi)) for lo, hi in zip(low[1:], high[1:]))


def fit_power_law(
    x: ArrayLike, y: ArrayLike, *, confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0
) -> PowerLawFit:
    r"""Fit :math:`y \approx C x^b` by least squares of :math:`\log \bar y` on :math:`\log x`.

    Parameters
    ----------
    x : array_like, shape (points,)
        Positive abscissae, at least 2 distinct.
    y : array_like, shape (seeds, points)
        Positive measurements, at least 2 seeds.
    confidence : float
        Coverage of the bootstrap interval of :math:`b`.
    n_resamples : int
        Bootstrap replicates.
    rng : int or numpy.random.Generator
        Bootstrap seed; the same int gives the same interval.

    Returns
    -------
    PowerLawFit

    Raises
    ------
    InvalidParameterError
        Non-positive or non-finite values, mismatched shapes, fewer than 2 points or seeds.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 8.0])
    >>> fit = fit_power_law(x, 3.0 * x**1.5 * np.ones((4, 1)))
    >>> round(fit.exponent, 8), round(fit.prefactor, 8)
    (1.5, 3.0)
    """
    return _fit({"x": x}, y, "fit_power_law", confidence, n_resamples, rng)


def fit_resolution_bound(x: ArrayLike, resolution: ArrayLike) -> float:
    r"""The largest change of :func:`fit_power_law`'s exponent when each :math:`\log \bar y_j` moves by at most
    ``resolution[j]`` (:math:`\rho_j`, e.g. a bisection's half-bracket, which the seeds do not average out): the
    least-squares slope is :math:`b = \sum_j w_j \log \bar y_j` with :math:`w_j = (u_j - \bar u)/\sum_i (u_i -
    \bar u)^2`, :math:`u = \log x`, so the bound is :math:`\sum_j \rho_j |w_j|`.

    >>> round(fit_resolution_bound([1.0, np.e, np.e**2], [0.1, 0.1, 0.1]), 12)
    0.1
    """
    u = np.log(as_array(x, "x", "fit_resolution_bound", shape="(points,)", min_len=2, positive=_LOG))
    rho = as_array(resolution, "resolution", "fit_resolution_bound", shape="(points,)", min_len=2)
    if rho.shape != u.shape or np.any(rho < 0):
        raise InvalidParameterError(f"The 'resolution' parameter of fit_resolution_bound must hold one value >= 0 per "
                                    f"point ({len(u)}). Got {rho.tolist()} instead.")
    weights = (u - u.mean()) / np.sum((u - u.mean()) ** 2)
    return float(np.abs(weights) @ rho)


def fit_power_law_2d(
    x1: ArrayLike,
    x2: ArrayLike,
    y: ArrayLike,
    *,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> PowerLawFit:
    r"""Fit :math:`y \approx C x_1^{b_1} x_2^{b_2}` jointly (e.g. a norm law in :math:`d` and :math:`n`).

    Parameters
    ----------
    x1, x2 : array_like, shape (points,)
        Positive coordinates of each point (a flattened grid); ``(1, log x1, log x2)`` must be
        linearly independent, so at least 3 points not on one line in log space.
    y : array_like, shape (seeds, points)
        Positive measurements, at least 2 seeds.
    confidence, n_resamples, rng
        As in :func:`fit_power_law`; each exponent's interval has coverage ``confidence``.

    Returns
    -------
    PowerLawFit
        ``exponents == (b1, b2)``.

    Examples
    --------
    >>> d, n = (a.ravel() for a in np.meshgrid([64.0, 128.0, 256.0], [1e3, 4e3, 1.6e4]))
    >>> fit = fit_power_law_2d(d, n, 0.5 * d / n * np.ones((3, 1)))
    >>> tuple(round(b, 8) for b in fit.exponents)
    (1.0, -1.0)
    """
    return _fit({"x1": x1, "x2": x2}, y, "fit_power_law_2d", confidence, n_resamples, rng)


def _verdict(
    fit: PowerLawFit, predicted: Sequence[float], tolerance: float, name: str, caller: str, labels: Sequence[str]
) -> CheckResult:
    tolerance = check_nonnegative(tolerance, "tolerance", caller)
    one = len(predicted) == 1
    shown = ", ".join(f"{fmt(b)} {fmt_ci(c)}" for b, c in zip(fit.exponents, fit.cis))
    predicted_value = predicted[0] if one else tuple(predicted)
    k = len(predicted)

    def passes(cis: Sequence[tuple[float, float]]) -> bool:
        return all(within(p, lo, hi, tolerance) for p, (lo, hi) in zip(predicted, cis))

    details: dict[str, Any] = {
        "prefactor": fit.prefactor, "confidence_per_exponent": fit.confidence, "tolerance": tolerance
    }
    if not one:
        details["labels"] = list(labels)
    if fit.cis_at is not None:
        cis_at = fit.cis_at
        details["p_value"] = p_value_by_inversion(lambda level: passes(cis_at(1 - (1 - level) / k)))
    return make_result(
        name=name,
        passed=passes(fit.cis),
        predicted=predicted_value,
        measured=fit.exponents[0] if one else fit.exponents,
        ci=fit.cis[0] if one else fit.cis,
        n_seeds=fit.n_seeds,
        summary=f"exponent{'' if one else 's'} {shown} vs predicted {fmt(predicted_value)}"
        + (f" ± {fmt(tolerance)}" if tolerance else ""),
        details=details,
    )


def check_power_law(
    x: ArrayLike,
    y: ArrayLike,
    predicted_exponent: float,
    *,
    name: str = "power law",
    tolerance: float = 0.0,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> CheckResult:
    r"""Check :math:`y \propto x^{b}` with :math:`b` = ``predicted_exponent``.

    PASSES iff ``predicted_exponent`` lies in the bootstrap CI of the fitted exponent widened by
    ``tolerance`` on both sides: the law fails only when the data exclude it.

    Parameters
    ----------
    x : array_like, shape (points,)
    y : array_like, shape (seeds, points)
        As in :func:`fit_power_law`.
    predicted_exponent : float
        The theory's exponent.
    name : str
        Label of the check in its message.
    tolerance : float
        Absolute slack in exponent units (finite-size corrections), >= 0.
    confidence, n_resamples, rng
        As in :func:`fit_power_law`.

    Returns
    -------
    CheckResult
        ``measured`` is the fitted exponent, ``details["prefactor"]`` the fitted :math:`C`,
        ``details["p_value"]`` the check's p-value (module docstring), ``details["effective"]`` the effective
        exponents between consecutive sizes (:mod:`.limit`; shown, not decided on).

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    >>> noise = np.exp(0.05 * np.random.default_rng(0).standard_normal((8, 5)))
    >>> y = 3.0 * x**1.5 * noise
    >>> check_power_law(x, y, 1.5).passed, check_power_law(x, y, 1.0).passed
    (True, False)
    """
    predicted = check_real(predicted_exponent, "predicted_exponent", caller="check_power_law")
    fit = fit_power_law(x, y, confidence=confidence, n_resamples=n_resamples, rng=rng)
    result = _verdict(fit, (predicted,), tolerance, name, "check_power_law", ("exponent",))
    result.details["effective"] = _effective(x, y, confidence, n_resamples, rng)
    return result


def _effective(x: ArrayLike, y: ArrayLike, confidence: float, n_resamples: int,
               rng: RngLike) -> list[dict[str, Any]] | None:
    """The effective exponents along ``x`` sorted (:func:`~.limit.effective_exponents`: the local slopes between
    consecutive sizes, each with its paired-seed interval), shown beside the one fit; None where sizes repeat."""
    from .limit import effective_exponents

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    order = np.argsort(xs)
    if len(np.unique(xs)) != len(xs) or isinstance(rng, np.random.Generator):
        return None  # repeated sizes have no local slope; a shared generator must not be advanced here
    return effective_exponents(xs[order], ys[:, order], confidence=confidence, n_resamples=n_resamples, rng=rng)


def check_power_law_2d(
    x1: ArrayLike,
    x2: ArrayLike,
    y: ArrayLike,
    predicted_exponents: tuple[float, float],
    *,
    name: str = "power law 2d",
    tolerance: float = 0.0,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
    labels: tuple[str, str] = ("exponent of x1", "exponent of x2"),
) -> CheckResult:
    r"""Check :math:`y \propto x_1^{b_1} x_2^{b_2}` with ``predicted_exponents`` :math:`(b_1, b_2)`
    (``labels`` name the two exponents in the result, e.g. ``("exponent of d", "exponent of n")``).

    PASSES iff each predicted exponent lies in its CI widened by ``tolerance``; each CI is at the
    Bonferroni level ``1 - (1 - confidence) / 2`` so the joint coverage is at least ``confidence``.

    Parameters
    ----------
    x1, x2 : array_like, shape (points,)
    y : array_like, shape (seeds, points)
        As in :func:`fit_power_law_2d`.
    predicted_exponents : (float, float)
        The theory's exponents, e.g. ``(1, -1)`` for :math:`d/n`.
    name, tolerance, confidence, n_resamples, rng
        As in :func:`check_power_law`.

    Returns
    -------
    CheckResult
        ``measured`` and ``ci`` are pairs (one entry per exponent, ``details["labels"]``);
        ``details["p_value"]`` as in :func:`check_power_law`.

    Examples
    --------
    >>> d, n = (a.ravel() for a in np.meshgrid([64.0, 128.0, 256.0], [1e3, 4e3, 1.6e4]))
    >>> noise = np.exp(0.05 * np.random.default_rng(0).standard_normal((8, 9)))
    >>> y = 0.5 * d / n * noise
    >>> check_power_law_2d(d, n, y, (1, -1)).passed, check_power_law_2d(d, n, y, (1, -2)).passed
    (True, False)
    """
    caller = "check_power_law_2d"
    if isinstance(predicted_exponents, (str, bytes)) or np.shape(predicted_exponents) != (2,):
        raise InvalidParameterError(
            f"The 'predicted_exponents' parameter of {caller} must be a pair (b1, b2) of reals. "
            f"Got {predicted_exponents!r} instead."
        )
    predicted = tuple(check_real(b, "predicted_exponents", caller=caller) for b in predicted_exponents)
    confidence = check_options(confidence, n_resamples, caller)[0]
    fit = fit_power_law_2d(x1, x2, y, confidence=1 - (1 - confidence) / 2, n_resamples=n_resamples, rng=rng)
    return _verdict(fit, predicted, tolerance, name, caller, tuple(labels))


def check_power_law_nd(
    xs: Mapping[str, ArrayLike],
    y: ArrayLike,
    predicted_exponents: Mapping[str, float],
    *,
    name: str = "power law",
    tolerance: float = 0.0,
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
) -> CheckResult:
    r"""Check :math:`y \propto \prod_i x_i^{b_i}` jointly in any number of variables, one predicted exponent per
    named variable (e.g. a law :math:`\rho_{\max} \propto (d/n)^{1/2}` on a grid in :math:`(n, d)`: ``xs =
    {"n": ..., "d": ...}``, ``predicted_exponents = {"n": -0.5, "d": 0.5}``).

    PASSES iff each predicted exponent lies in its CI widened by ``tolerance``; each CI is at the Bonferroni level
    :math:`1 - (1 - \text{confidence})/k` (:math:`k` variables), so the joint coverage is at least ``confidence``.
    ``xs`` maps each name to its coordinates at every point (a flattened grid; ``(1, log x_1, ..., log x_k)``
    linearly independent); ``y`` has shape (seeds, points). The result's ``details["labels"]`` are
    ``"exponent of NAME"``.

    >>> n, d = (a.ravel() for a in np.meshgrid([16.0, 32.0, 64.0], [1e3, 1e4]))
    >>> y = (d / n) ** 0.5 * np.exp(0.05 * np.random.default_rng(0).standard_normal((8, 6)))
    >>> check_power_law_nd({"n": n, "d": d}, y, {"n": -0.5, "d": 0.5}).passed
    True
    >>> check_power_law_nd({"n": n, "d": d}, y, {"n": -1.0, "d": 0.5}).passed
    False
    """
    caller = "check_power_law_nd"
    if not isinstance(xs, Mapping) or not xs or not isinstance(predicted_exponents, Mapping) \
            or set(predicted_exponents) != set(xs):
        raise InvalidParameterError(
            f"The 'predicted_exponents' parameter of {caller} must give one exponent per variable of 'xs' "
            f"({sorted(xs) if isinstance(xs, Mapping) else xs!r}). Got {predicted_exponents!r} instead.")
    names = list(xs)
    predicted = tuple(check_real(predicted_exponents[k], "predicted_exponents", caller=caller) for k in names)
    confidence = check_options(confidence, n_resamples, caller)[0]
    fit = _fit(dict(xs), y, caller, 1 - (1 - confidence) / len(names), n_resamples, rng)
    return _verdict(fit, predicted, tolerance, name, caller, tuple(f"exponent of {k}" for k in names))


assert_power_law = make_assert(check_power_law)
assert_power_law_2d = make_assert(check_power_law_2d)
