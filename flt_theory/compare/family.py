r"""Levels for a family of checks: p-values by inverting a check, Holm's step-down, per-claim levels.

A check at confidence :math:`1-\alpha` rejects a true law with probability about :math:`\alpha`
(:mod:`.bootstrap`); a run of :math:`m` such checks rejects at least one true law with probability
up to :math:`m\alpha`. Two ways to hold the whole run at a family-wise error rate (FWER)
:math:`\alpha`, valid under any dependence between the checks:

* **Bonferroni** (:func:`per_claim_level`): run every check at level :math:`\alpha/m`, i.e. at
  ``confidence = 1 - per_claim_level(alpha, m)``. Šidák's :math:`1-(1-\alpha)^{1/m}` is
  slightly larger and exact for independent checks (``method="sidak"``).
* **Holm** (:func:`holm`, Holm 1979, "A simple sequentially rejective multiple test procedure",
  Scand. J. Statist. 6:65-70): sort the p-values :math:`p_{(1)} \le \dots \le p_{(m)}` and reject
  :math:`H_{(1)}, \dots, H_{(j)}` for the largest prefix with
  :math:`p_{(i)} \le \alpha/(m-i+1)` for every :math:`i \le j`. It rejects everything Bonferroni
  rejects, and more. Adjusted p-values (:func:`holm_adjusted`):
  :math:`\tilde p_{(i)} = \max_{j \le i} \min\{1, (m-j+1)\,p_{(j)}\}`; :math:`H_{(i)}` is
  rejected iff :math:`\tilde p_{(i)} \le \alpha`.

**The p-value of a check** (``CheckResult.details["p_value"]``, where the law is the null
hypothesis: power laws, transitions, ``check_at_least``/``check_at_most`` and orderings in
``mode="consistent"``, counts) is :func:`p_value_by_inversion` of the check itself: the largest
:math:`\alpha` at which the check still PASSES when its intervals are formed at confidence
:math:`1-\alpha` from the same data and the same bootstrap replicates. So the check at
confidence :math:`1-\alpha` FAILS iff ``p_value < alpha`` (up to the bisection's resolution),
by construction rather than by a second formula. One-sided checks read one end of a two-sided
interval, so their p-value is conservative (about twice the one-sided one). Checks whose data
must *demonstrate* a claim (subspaces, ``mode="demonstrated"``) have no p-value: their
false-FAIL rate is a power, not a level.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError

__all__ = ["holm", "holm_adjusted", "per_claim_level", "p_value_by_inversion"]

#: Smallest p-value that :func:`p_value_by_inversion` resolves; below it the p-value is reported as 0.
P_FLOOR = 1e-12


def _p_values(p_values: ArrayLike, caller: str) -> np.ndarray:
    if isinstance(p_values, (str, bytes)):
        raise InvalidParameterTypeError(
            f"The 'p_values' parameter of {caller} must be a sequence of reals in [0, 1]. Got {p_values!r} instead."
        )
    try:
        array = np.asarray(p_values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterTypeError(
            f"The 'p_values' parameter of {caller} must be a sequence of reals in [0, 1]. Got {p_values!r} instead."
        ) from None
    if array.ndim != 1 or not len(array):
        raise InvalidParameterError(
            f"The 'p_values' parameter of {caller} must be a non-empty 1-d sequence of reals in [0, 1]. "
            f"Got shape {array.shape} instead."
        )
    bad = ~((array >= 0) & (array <= 1))  # NaN too
    if bad.any():
        index = int(np.argmax(bad))
        raise InvalidParameterError(
            f"The 'p_values' parameter of {caller} must be in [0, 1] everywhere. Got {array[index]} at index "
            f"{index} instead."
        )
    return array


def _alpha(alpha: float, caller: str) -> float:
    value = check_real(alpha, "alpha", minimum=0, strict_minimum=True, maximum=1, caller=caller)
    if value == 1:
        raise InvalidParameterError(f"The 'alpha' parameter of {caller} must be < 1. Got {value} instead.")
    return value


def holm_adjusted(p_values: Sequence[float] | ArrayLike) -> tuple[float, ...]:
    r"""Holm-adjusted p-values :math:`\tilde p_{(i)} = \max_{j \le i} \min\{1, (m-j+1)\, p_{(j)}\}`, in input order.

    Parameters
    ----------
    p_values : sequence of float, shape (claims,)
        One p-value per claim, each in [0, 1].

    Returns
    -------
    tuple of float
        The adjusted p-values; claim ``i`` is rejected at family-wise level :math:`\alpha` iff
        its adjusted p-value is <= :math:`\alpha`.

    Examples
    --------
    >>> holm_adjusted([0.01, 0.04, 0.03, 0.5])
    (0.04, 0.09, 0.09, 0.5)
    """
    p = _p_values(p_values, "holm_adjusted")
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return tuple(float(v) for v in adjusted)


def holm(p_values: Sequence[float] | ArrayLike, alpha: float = 0.05) -> tuple[bool, ...]:
    r"""Holm's step-down procedure: which claims to reject at family-wise error rate ``alpha``.

    Rejects :math:`H_{(1)}, \dots, H_{(j)}` (p-values sorted increasingly) for the largest
    :math:`j` with :math:`p_{(i)} \le \alpha / (m - i + 1)` for all :math:`i \le j` (Holm 1979);
    the chance of rejecting any true claim is at most ``alpha`` whatever the dependence between
    the claims.

    Parameters
    ----------
    p_values : sequence of float, shape (claims,)
        One p-value per claim, each in [0, 1] (e.g. ``result.details["p_value"]``).
    alpha : float
        Family-wise error rate, in (0, 1).

    Returns
    -------
    tuple of bool
        ``True`` where the claim is rejected (its law FAILS), in input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.5], alpha=0.05)       # 0.01 <= 0.05/4; then 0.03 > 0.05/3 stops
    (True, False, False, False)
    >>> holm([0.01, 0.04, 0.03, 0.5], alpha=0.10)
    (True, True, True, False)
    """
    alpha = _alpha(alpha, "holm")
    return tuple(p <= alpha for p in holm_adjusted(p_values))


def per_claim_level(
    alpha: float, n_claims: int, *, method: Literal["bonferroni", "sidak"] = "bonferroni"
) -> float:
    r"""The level :math:`\alpha_1` at which to run each of ``n_claims`` checks for a family-wise level ``alpha``.

    ``"bonferroni"``: :math:`\alpha_1 = \alpha / m` (any dependence). ``"sidak"``:
    :math:`\alpha_1 = 1 - (1 - \alpha)^{1/m}` (exact for independent checks, slightly larger).
    Run each check at ``confidence = 1 - per_claim_level(alpha, m)``.

    Parameters
    ----------
    alpha : float
        Family-wise error rate, in (0, 1).
    n_claims : int
        Number of claims :math:`m \ge 1`.
    method : {'bonferroni', 'sidak'}
        Which correction.

    Returns
    -------
    float

    Examples
    --------
    >>> per_claim_level(0.05, 25)
    0.002
    >>> round(per_claim_level(0.05, 25, method="sidak"), 7)
    0.0020496
    """
    alpha = _alpha(alpha, "per_claim_level")
    m = check_int(n_claims, "n_claims", minimum=1, caller="per_claim_level")
    if method == "bonferroni":
        return alpha / m
    if method == "sidak":
        return float(-np.expm1(np.log1p(-alpha) / m))
    raise InvalidParameterError(
        f"The 'method' parameter of per_claim_level must be 'bonferroni' or 'sidak'. Got {method!r} instead."
    )


def p_value_by_inversion(passes: Callable[[float], bool], *, iterations: int = 48) -> float:
    r"""The largest :math:`\alpha` at which a check still PASSES at confidence :math:`1 - \alpha`.

    ``passes(confidence)`` re-runs a verdict from the same data and replicates at another
    confidence; its intervals must be nested (a higher confidence never narrows them), so the set
    of passing :math:`\alpha` is an interval :math:`(0, \alpha^*]`. :math:`\alpha^*` is found by
    bisection on :math:`\log \alpha` over :math:`[10^{-12}, 1]` to a relative precision of
    about :math:`10^{-13}`; it is 1 when the check passes even at confidence 0 and 0 when it fails
    at :math:`1 - 10^{-12}`.

    Parameters
    ----------
    passes : callable
        ``confidence -> bool``, for confidences in [0, 1).
    iterations : int
        Bisection steps.

    Returns
    -------
    float
        The p-value :math:`\alpha^*`: the check at confidence :math:`1-\alpha` FAILS iff
        :math:`\alpha > \alpha^*`.

    Examples
    --------
    The two-sided z-test of 0 from an estimate 1.96 with standard error 1 has p-value 0.05:

    >>> from scipy import stats
    >>> round(p_value_by_inversion(lambda c: 1.96 <= stats.norm.ppf(0.5 + c / 2)), 4)
    0.05
    """
    if passes(0.0):
        return 1.0
    if not passes(1 - P_FLOOR):
        return 0.0
    low, high = math.log(P_FLOOR), 0.0  # passes at exp(low), fails at exp(high)
    for _ in range(iterations):
        middle = (low + high) / 2
        if passes(1 - math.exp(middle)):
            low = middle
        else:
            high = middle
    return math.exp(low)
