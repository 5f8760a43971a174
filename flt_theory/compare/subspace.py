r"""Subspace verdicts from masses: was a subspace :math:`U` learned, and nothing else?

A mass is the mean over neurons of :math:`\|P_S w_i\|^2 / \|w_i\|^2` for a subspace :math:`S`,
one value per seed, shape ``(seeds,)``, in [0, 1]. At random initialisation
(:math:`w_i^0 \sim \mathrm{Unif}(S^{d-1})`) the mass on a :math:`k`-dimensional :math:`S` is
:math:`k/d`: the **baseline**, given either as that number or as masses measured at
initialisation, shape ``(seeds_init,)`` (resampled independently of the trained seeds).

Both checks are verdicts with a margin chosen by the caller (``min_mass`` well below the
predicted mass, ``max_ratio`` well above 1), so the data must **demonstrate** them: the whole
confidence interval must lie on the claimed side, and a noisy or under-seeded experiment FAILS.

* :func:`check_subspace_learned` PASSES iff the lower CI end of the mass on :math:`U` is
  >= ``min_mass`` (absolute), or >= ``min_factor`` x the baseline of :math:`U`
  (``baseline_on_U``, defaulting to ``baseline``) — give exactly one of the two — AND the upper
  CI end of (mass on :math:`V^* \ominus U`) / baseline is <= ``max_ratio``.
* :func:`check_not_learned` PASSES iff the upper CI end of mass / baseline is <= ``max_ratio``.

**Intervals inside the range.** A mass lies in [0, 1] by definition (and is validated so), so
both checks infer ``bounds=(0, 1)``: the CI of a mean mass is formed on the logit scale
(:mod:`.bootstrap`) and never leaves [0, 1]; the ratio to a fixed baseline :math:`\beta` is that
interval divided by :math:`\beta` (inside :math:`[0, 1/\beta]`), and the ratio to a measured
baseline is bootstrapped on the log scale (inside :math:`[0, \infty)`). Near 0, where the
masses of unlearned directions sit, the logit interval is right-skewed like the masses
themselves: measured non-coverage at nominal 5% for a mean mass of 0.01 is 4.5-6.1% from 2 to
16 seeds on 2000 data sets (the table in :mod:`.bootstrap`; re-measured on 300 in
tests/compare/test_compare_subspace.py), against 5.1-8.1% for the plain interval, which also
reaches below 0. ``bounds=None`` restores the plain-scale interval.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_real
from ..errors import InvalidParameterError
from ._arrays import Bounds, as_array, check_bounds, check_options, check_within, is_scalar
from .bootstrap import Estimate, RngLike, as_generator, batched_interval, mean_interval
from .inequality import one_sided
from .result import CheckResult, fmt, fmt_ci, make_assert, make_result

__all__ = ["check_subspace_learned", "check_not_learned", "assert_subspace_learned", "assert_not_learned"]

_RATIO = "a ratio to the baseline needs a positive baseline"


def _mass(values: ArrayLike, name: str, caller: str, bounds: Bounds | None) -> np.ndarray:
    mass = as_array(values, name, caller, shape="(seeds,)", min_len=2, unit_interval=True)
    return check_within(np.clip(mass, 0.0, 1.0), bounds, name, caller)  # clip: 1 + 1e-9 is accepted as 1


def _baseline_mean(baseline: float | ArrayLike, name: str, caller: str) -> float:
    if is_scalar(baseline):
        return check_real(baseline, name, minimum=0, strict_minimum=True, maximum=1, caller=caller)
    return float(as_array(baseline, name, caller, shape="(seeds_init,)", min_len=2, positive=_RATIO).mean())


def _ratio_to_baseline(
    mass: np.ndarray,
    baseline: float | ArrayLike,
    caller: str,
    confidence: float,
    n_resamples: int,
    rng: RngLike,
    bounds: Bounds | None,
) -> Estimate:
    """CI of mean(mass) / baseline; a measured baseline is resampled as an independent group."""
    if is_scalar(baseline):
        scale = _baseline_mean(baseline, "baseline", caller)
        est = mean_interval(mass, confidence=confidence, n_resamples=n_resamples, rng=rng, bounds=bounds)
        ratio_bounds = None if bounds is None else (bounds[0] / scale, bounds[1] / scale)
        return Estimate(
            est.value / scale, est.low / scale, est.high / scale, confidence, est.n_seeds, est.method, ratio_bounds
        )
    base = as_array(baseline, "baseline", caller, shape="(seeds_init,)", min_len=2, positive=_RATIO)
    ratio_bounds = None if bounds is None else (0.0, np.inf)
    value, low, high = batched_interval(
        [mass, base],
        lambda m, b: m.mean(axis=1) / b.mean(axis=1),
        n_resamples=n_resamples,
        confidence=confidence,
        rng=rng,
        bounds=ratio_bounds,
    )
    return Estimate(
        float(value), float(low), float(high), confidence, min(len(mass), len(base)), "bootstrap", ratio_bounds
    )


def check_subspace_learned(
    mass_on_U: ArrayLike,
    mass_on_complement: ArrayLike,
    baseline: float | ArrayLike,
    *,
    min_mass: float | None = None,
    min_factor: float | None = None,
    baseline_on_U: float | ArrayLike | None = None,
    max_ratio: float = 2.0,
    name: str = "subspace learned",
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
    bounds: Bounds | None = (0.0, 1.0),
) -> CheckResult:
    r"""Check that :math:`U` was learned and the rest of :math:`V^*` stayed at its random level.

    Parameters
    ----------
    mass_on_U : array_like, shape (seeds,)
        Mass on :math:`U` per seed, in [0, 1].
    mass_on_complement : array_like, shape (seeds,)
        Mass on :math:`V^* \ominus U` per seed, in [0, 1].
    baseline : float or array_like of shape (seeds_init,)
        Random-initialisation mass on :math:`V^* \ominus U` (e.g. its dimension / d), or masses
        measured at initialisation.
    min_mass : float, optional
        Absolute threshold: passes only if the lower CI end of the mass on :math:`U` >= ``min_mass``.
    min_factor : float, optional
        Relative threshold: the lower CI end must be >= ``min_factor`` x mean baseline of :math:`U`.
        Exactly one of ``min_mass`` and ``min_factor`` must be given.
    baseline_on_U : float or array_like of shape (seeds_init,), optional
        Random-initialisation mass on :math:`U` for ``min_factor``; defaults to ``baseline``.
    max_ratio : float
        The upper CI end of (mass on the complement) / baseline must be <= ``max_ratio``.
    name : str
        Label of the check.
    confidence, n_resamples, rng
        Options of the CIs (one generator drawn from ``rng`` serves both).
    bounds : (float, float) or None
        Range of the masses; the default (0, 1) forms the CIs on the logit scale, inside the
        range (module docstring); None gives the plain-scale intervals.

    Returns
    -------
    CheckResult
        ``measured``/``ci``: the mass on :math:`U`; ``details``: the complement ratio and its CI,
        the threshold, and which half of the verdict held.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> on_U = 0.9 + 0.02 * rng.standard_normal(8)
    >>> on_rest = 0.02 + 0.002 * rng.standard_normal(8)       # baseline 2/100
    >>> check_subspace_learned(on_U, on_rest, 0.02, min_mass=0.5).passed
    True
    >>> check_subspace_learned(on_rest, on_U, 0.02, min_mass=0.5).passed   # roles swapped
    False
    """
    caller = "check_subspace_learned"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    if (min_mass is None) == (min_factor is None):
        raise InvalidParameterError(
            f"Exactly one of the 'min_mass' and 'min_factor' parameters of {caller} must be given. "
            f"Got min_mass={min_mass!r}, min_factor={min_factor!r} instead."
        )
    if min_mass is not None:
        threshold = check_real(min_mass, "min_mass", minimum=0, maximum=1, caller=caller)
    else:
        factor = check_real(min_factor, "min_factor", minimum=0, caller=caller)
        u_name, u_baseline = ("baseline", baseline) if baseline_on_U is None else ("baseline_on_U", baseline_on_U)
        threshold = factor * _baseline_mean(u_baseline, u_name, caller)
    max_ratio = check_real(max_ratio, "max_ratio", minimum=0, strict_minimum=True, caller=caller)
    bounds = check_bounds(bounds, caller)
    on_u = _mass(mass_on_U, "mass_on_U", caller, bounds)
    rest = _mass(mass_on_complement, "mass_on_complement", caller, bounds)
    generator = as_generator(rng)
    learned = mean_interval(on_u, confidence=confidence, n_resamples=n_resamples, rng=generator, bounds=bounds)
    ratio = _ratio_to_baseline(rest, baseline, caller, confidence, n_resamples, generator, bounds)
    u_ok = one_sided(learned, threshold, at_least=True, mode="demonstrated")
    rest_ok = one_sided(ratio, max_ratio, at_least=False, mode="demonstrated")
    return make_result(
        name=name,
        passed=u_ok and rest_ok,
        predicted=f"mass on U >= {fmt(threshold)}, complement <= {fmt(max_ratio)} x baseline",
        measured=learned.value,
        ci=learned.ci,
        n_seeds=min(learned.n_seeds, ratio.n_seeds),
        summary=f"mass on U {fmt(learned.value)} {fmt_ci(learned.ci)} vs >= {fmt(threshold)}; complement/baseline "
        f"{fmt(ratio.value)} {fmt_ci(ratio.ci)} vs <= {fmt(max_ratio)}",
        details={
            "threshold": threshold,
            "complement_ratio": ratio.value,
            "complement_ratio_ci": ratio.ci,
            "max_ratio": max_ratio,
            "U_learned": u_ok,
            "complement_not_learned": rest_ok,
            "bounds": bounds,
        },
    )


def check_not_learned(
    mass: ArrayLike,
    baseline: float | ArrayLike,
    *,
    max_ratio: float = 2.0,
    name: str = "not learned",
    confidence: float = 0.95, n_resamples: int = 2000, rng: RngLike = 0,
    bounds: Bounds | None = (0.0, 1.0),
) -> CheckResult:
    r"""Check that the mass on a subspace stayed at its random-initialisation level.

    PASSES iff the upper CI end of mean(mass) / baseline is <= ``max_ratio``.

    Parameters
    ----------
    mass : array_like, shape (seeds,)
        Mass on the subspace per seed, in [0, 1].
    baseline : float or array_like of shape (seeds_init,)
        Its random-initialisation value (dimension / d) or masses measured at initialisation.
    max_ratio : float
        Largest tolerated mass / baseline, > 0.
    name : str
        Label of the check.
    confidence, n_resamples, rng
        Options of the CI.
    bounds : (float, float) or None
        As in :func:`check_subspace_learned`.

    Returns
    -------
    CheckResult
        ``measured``/``ci``: the ratio mass / baseline (inside [0, 1 / baseline] for a fixed
        baseline, [0, inf) for a measured one).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> at_init = 0.01 + 0.001 * rng.standard_normal(8)                 # 1/d, d = 100
    >>> check_not_learned(0.011 + 0.001 * rng.standard_normal(8), at_init).passed
    True
    >>> check_not_learned(0.3 + 0.01 * rng.standard_normal(8), 0.01).passed
    False
    """
    caller = "check_not_learned"
    confidence, n_resamples = check_options(confidence, n_resamples, caller)
    max_ratio = check_real(max_ratio, "max_ratio", minimum=0, strict_minimum=True, caller=caller)
    bounds = check_bounds(bounds, caller)
    ratio = _ratio_to_baseline(
        _mass(mass, "mass", caller, bounds), baseline, caller, confidence, n_resamples, rng, bounds
    )
    return make_result(
        name=name,
        passed=one_sided(ratio, max_ratio, at_least=False, mode="demonstrated"),
        predicted=f"<= {fmt(max_ratio)} x baseline",
        measured=ratio.value,
        ci=ratio.ci,
        n_seeds=ratio.n_seeds,
        summary=f"mass/baseline {fmt(ratio.value)} {fmt_ci(ratio.ci)} vs <= {fmt(max_ratio)}",
        details={"max_ratio": max_ratio, "bounds": bounds, "ratio_bounds": ratio.bounds},
    )


assert_subspace_learned = make_assert(check_subspace_learned)
assert_not_learned = make_assert(check_not_learned)
