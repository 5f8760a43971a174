r"""Counts against a binomial law: exact (Clopper–Pearson) intervals, a count-vs-probability check, and a
majority of seeds (a law that holds with high probability, :func:`check_majority`).

A count :math:`k` of successes in :math:`n` independent trials of probability :math:`p` (neurons
that start in a good set, seeds whose run succeeds, false rejections in :math:`R` calibration
repeats) is :math:`\mathrm{Bin}(n, p)`. Its exact interval (Clopper & Pearson 1934, "The use of
confidence or fiducial limits illustrated in the case of the binomial", Biometrika 26:404-413) is

.. math::

    \Bigl[\,B\bigl(\tfrac{\alpha}{2};\, k,\, n-k+1\bigr),\;
           B\bigl(1-\tfrac{\alpha}{2};\, k+1,\, n-k\bigr)\Bigr],

:math:`B(q; a, b)` the Beta quantile, with the lower end 0 at :math:`k = 0` and the upper end 1
at :math:`k = n`. It lies in [0, 1] and contains :math:`k/n`; its coverage is at least
:math:`1-\alpha` for every :math:`p` (it is conservative: the count is discrete). Inverting it
gives the central two-sided exact test: :math:`p_0` lies outside the interval iff
:math:`\min\{P_{p_0}(X \le k),\, P_{p_0}(X \ge k)\} < \alpha/2`, so the p-value of
:func:`check_count` is :math:`\min\{1,\, 2\min(P_{p_0}(X \le k), P_{p_0}(X \ge k))\}` and the
check FAILS at confidence :math:`1-\alpha` iff that p-value is :math:`< \alpha`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_real
from ..errors import InvalidParameterError
from ._arrays import check_confidence
from .result import CheckResult, fmt, fmt_ci, make_assert, make_result

__all__ = ["clopper_pearson", "binomial_p_value", "check_count", "assert_count", "check_majority", "assert_majority"]


def _count(k: int, n: int, caller: str) -> tuple[int, int]:
    n = check_int(n, "trials" if caller == "check_count" else "n", minimum=1, caller=caller)
    k = check_int(k, "k", minimum=0, caller=caller)
    if k > n:
        raise InvalidParameterError(
            f"The 'k' parameter of {caller} must be an int <= the number of trials {n}. Got {k} instead."
        )
    return k, n


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Exact (Clopper–Pearson) interval of a binomial proportion from ``k`` successes in ``n`` trials.

    :math:`[B(\alpha/2; k, n-k+1),\ B(1-\alpha/2; k+1, n-k)]` with :math:`B` the Beta quantile and
    :math:`\alpha = 1 - \text{confidence}` (0 and 1 at the ends; module docstring).

    Parameters
    ----------
    k : int
        Successes, ``0 <= k <= n``.
    n : int
        Trials, ``>= 1``.
    confidence : float
        Coverage (at least), in (0, 1).

    Returns
    -------
    (float, float)
        The interval, inside [0, 1] and containing ``k / n``.

    Examples
    --------
    >>> [round(v, 4) for v in clopper_pearson(5, 100)]
    [0.0164, 0.1128]
    >>> clopper_pearson(0, 10)[0], clopper_pearson(10, 10)[1]
    (0.0, 1.0)
    """
    from scipy import stats  # here, not at import: scipy.stats costs 0.5 s in every process that loads compare

    k, n = _count(k, n, "clopper_pearson")
    alpha = 1 - check_confidence(confidence, "clopper_pearson")
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return min(low, k / n), max(high, k / n)


def binomial_p_value(k: int, n: int, probability: float) -> float:
    r"""Central two-sided exact p-value of ``k`` successes in ``n`` trials under :math:`\mathrm{Bin}(n, p)`.

    :math:`\min\{1,\, 2\min(P(X \le k), P(X \ge k))\}`: the dual of :func:`clopper_pearson`
    (``probability`` lies outside the interval at confidence :math:`1-\alpha` iff this is
    :math:`< \alpha`).

    Examples
    --------
    >>> round(binomial_p_value(50, 1000, 0.05), 4), binomial_p_value(3, 10, 0.0)
    (1.0, 0.0)
    >>> binomial_p_value(80, 1000, 0.05) < 1e-4
    True
    """
    from scipy import stats  # as in clopper_pearson

    k, n = _count(k, n, "binomial_p_value")
    p = check_real(probability, "probability", minimum=0, maximum=1, caller="binomial_p_value")
    tails = min(float(stats.binom.cdf(k, n, p)), float(stats.binom.sf(k - 1, n, p)))
    return min(1.0, 2 * tails)


def check_count(
    k: int, trials: int, probability: float, *, name: str = "count", confidence: float = 0.99
) -> CheckResult:
    r"""Check a count :math:`k \sim \mathrm{Bin}(\text{trials}, p)` against the law's :math:`p`.

    PASSES iff ``probability`` lies in the exact Clopper–Pearson interval of
    :math:`k/\text{trials}` at ``confidence``: the law is the null hypothesis, and a true law
    FAILS with probability at most :math:`1 - \text{confidence}`.

    Parameters
    ----------
    k : int
        The observed count, ``0 <= k <= trials``.
    trials : int
        Number of independent trials, ``>= 1``.
    probability : float
        The law's success probability, in [0, 1].
    name : str
        Label of the check.
    confidence : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    CheckResult
        ``measured`` = :math:`k/\text{trials}`, ``ci`` its exact interval (inside [0, 1]);
        ``details``: ``count``, ``trials``, ``confidence`` and ``p_value``
        (:func:`binomial_p_value`).

    Examples
    --------
    >>> check_count(50, 1000, 0.05, name="demo").passed, check_count(50, 1000, 0.1, name="demo").passed
    (True, False)
    >>> check_count(50, 1000, 0.05, name="demo").message
    'demo: count 50/1000 = 0.05 [0.03393, 0.0705] vs law p = 0.05: PASS'
    """
    caller = "check_count"
    k, trials = _count(k, trials, caller)
    probability = check_real(probability, "probability", minimum=0, maximum=1, caller=caller)
    confidence = check_confidence(confidence, caller)
    low, high = clopper_pearson(k, trials, confidence)
    rate = k / trials
    return make_result(
        name=name,
        passed=low <= probability <= high,
        predicted=probability,
        measured=rate,
        ci=(low, high),
        n_seeds=1,
        summary=f"count {k}/{trials} = {fmt(rate)} {fmt_ci((low, high))} vs law p = {fmt(probability)}",
        details={
            "count": k,
            "trials": trials,
            "confidence": confidence,
            "p_value": binomial_p_value(k, trials, probability),
        },
    )


assert_count = make_assert(check_count)


def check_majority(
    holds: ArrayLike, *, name: str = "majority", statement: str = "the law holds", confidence: float = 0.95
) -> CheckResult:
    r"""Demonstrate that a per-seed statement holds with probability above 1/2: a law stated *with high
    probability* over the draw (Zou et al., Huang et al., Shi et al.), read on seeds rather than on the mean.

    ``holds`` marks, per seed, whether the statement held on that seed. PASSES iff the lower end of the exact
    Clopper–Pearson interval (module docstring) of the fraction of seeds where it held lies above 1/2
    (demonstrated: the data must show it). One seed that misses — a rare draw on which the finite-size
    network falls outside the law's regime — moves a mean across a bound but costs a count one seed:
    with 16 seeds, 15/16 gives a lower end 0.70 and 12/16 gives 0.48 (FAIL). With :math:`S` seeds it needs
    :math:`k` successes with :math:`B(\alpha/2; k, S-k+1) > 1/2`: all 6 of 6, 10 of 12, 13 of 16, 23 of 32 at 95%.

    Returns
    -------
    CheckResult
        ``measured`` = the fraction of seeds where the statement held, ``ci`` its exact interval; ``details``:
        ``count``, ``trials``, ``confidence``.

    Examples
    --------
    >>> check_majority([True] * 15 + [False], name="demo").passed, check_majority([True] * 5 + [False]).passed
    (True, False)
    >>> check_majority([True] * 15 + [False], name="demo", statement="error ≤ 0.05").message
    ... # doctest: +NORMALIZE_WHITESPACE
    'demo: 15/16 seeds with error ≤ 0.05, fraction 0.9375 [0.6977, 0.9984] vs > 1/2 [demonstrated,
    exact binomial]: PASS'
    """
    caller = "check_majority"
    flags = np.asarray(holds)
    if flags.ndim != 1 or not len(flags) or flags.dtype != bool:
        raise InvalidParameterError(
            f"The 'holds' parameter of {caller} must be a non-empty 1-d array of booleans (one per seed). "
            f"Got {flags.dtype} of shape {flags.shape} instead."
        )
    confidence = check_confidence(confidence, caller)
    k, total = int(flags.sum()), len(flags)
    low, high = clopper_pearson(k, total, confidence)
    return make_result(
        name=name,
        passed=low > 0.5,
        predicted=f"fraction of seeds with {statement} > 1/2",
        measured=k / total,
        ci=(low, high),
        n_seeds=total,
        summary=f"{k}/{total} seeds with {statement}, fraction {fmt(k / total)} {fmt_ci((low, high))} vs > 1/2 "
                f"[demonstrated, exact binomial]",
        details={"count": k, "trials": total, "confidence": confidence},
    )


assert_majority = make_assert(check_majority)
