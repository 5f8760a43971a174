"""Exact binomial intervals and the count-vs-probability check (flt_theory.compare.count)."""

from __future__ import annotations

import numpy as np
import pytest
from _compare_helpers import raises_named_errors
from scipy import stats

from flt_theory.compare import (
    assert_count,
    assert_fails,
    assert_majority,
    binomial_p_value,
    check_count,
    check_majority,
    clopper_pearson,
)
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError


def test_clopper_pearson_ends_solve_their_defining_tail_equations():
    """P_high(X <= k) = alpha/2 and P_low(X >= k) = alpha/2; closed forms (alpha/2)^(1/n) at k = 0, n."""
    for k, n, confidence in [(5, 100, 0.95), (3, 7, 0.9), (1, 2, 0.99), (40, 41, 0.8)]:
        alpha = 1 - confidence
        low, high = clopper_pearson(k, n, confidence)
        assert stats.binom.cdf(k, n, high) == pytest.approx(alpha / 2, rel=1e-8)
        assert stats.binom.sf(k - 1, n, low) == pytest.approx(alpha / 2, rel=1e-8)
    assert clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025**0.1), rel=1e-12)
    assert clopper_pearson(10, 10) == pytest.approx((0.025**0.1, 1.0), rel=1e-12)


@pytest.mark.parametrize("n", [1, 5, 20, 80])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_exact_coverage_is_at_least_nominal_for_every_p(n, confidence):
    """Coverage P_p(p in CI) computed exactly (a sum over k of the binomial pmf) on a grid of p."""
    k = np.arange(n + 1)
    cis = np.array([clopper_pearson(int(j), n, confidence) for j in k])
    for p in np.linspace(0.001, 0.999, 97):
        coverage = stats.binom.pmf(k, n, p)[(cis[:, 0] <= p) & (p <= cis[:, 1])].sum()
        assert coverage >= confidence - 1e-9


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (50, 1000), (7, 30)])
def test_interval_is_inside_the_unit_interval_and_holds_the_estimate(k, n):
    low, high = clopper_pearson(k, n, 0.95)
    assert 0 <= low <= k / n <= high <= 1


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (50, 1000), (7, 30)])
def test_p_value_is_the_dual_of_the_interval(k, n):
    """p0 lies outside the CI at 1 - alpha iff the central exact p-value is < alpha."""
    for confidence in (0.8, 0.95, 0.99):
        low, high = clopper_pearson(k, n, confidence)
        for p0 in np.linspace(0, 1, 41):
            outside = not low <= p0 <= high
            p_value = binomial_p_value(k, n, float(p0))
            if abs(p_value - (1 - confidence)) > 1e-9:  # away from the boundary of the decision
                assert outside == (p_value < 1 - confidence), (k, n, confidence, p0, low, high, p_value)


def test_check_count_passes_the_law_and_fails_a_wrong_one():
    result = assert_count(50, 1000, 0.05, name="|S_sure^0| ~ Bin(km, p)")
    assert result.measured == 0.05 and result.details["p_value"] > 0.5 and result.n_seeds == 1
    assert result.ci[0] <= result.measured <= result.ci[1]
    wrong = assert_fails(check_count(50, 1000, 0.1))
    assert wrong.details["p_value"] < 1e-6 and wrong.message.startswith("count: count 50/1000 = 0.05 [")


def test_false_fail_rate_is_at_most_one_minus_confidence():
    """1000 counts drawn from the law: the check fails no more often than 1%, the exact guarantee."""
    draws = np.random.default_rng(0).binomial(200, 0.03, size=1000)
    fails = sum(not check_count(int(k), 200, 0.03) for k in draws)
    assert fails / 1000 <= 0.01 + 0.005  # measured: 0.6%


def test_majority_tolerates_a_rare_miss_but_not_a_coin_flip():
    """A with-high-probability law read on seeds: one miss in 16 passes, a fair coin fails, 6 of 6 is the least
    that 6 seeds can demonstrate."""
    rare = assert_majority([True] * 15 + [False], statement="error ≤ 0.05")
    assert rare.measured == 15 / 16 and rare.ci[0] > 0.5 and rare.details["count"] == 15
    coin = np.random.default_rng(1).random(16) < 0.5
    assert_fails(check_majority(coin))
    assert check_majority([True] * 6).passed and not check_majority([True] * 5 + [False]).passed
    assert not check_majority(np.ones(1000, bool) & (np.arange(1000) % 2 == 0)).passed


test_bad_input_raises_named_errors = raises_named_errors(
    [
        (lambda: clopper_pearson(11, 10), InvalidParameterError, r"'k' parameter of clopper_pearson must be an int <= "
                                                                 r""),
        (lambda: clopper_pearson(-1, 10), InvalidParameterError, r"'k' .* >= 0\. Got -1"),
        (lambda: clopper_pearson(1, 0), InvalidParameterError, r"'n' parameter of clopper_pearson .* >= 1\. Got 0"),
        (lambda: clopper_pearson(1.5, 10), InvalidParameterTypeError, r"'k' .* must be an int"),
        (lambda: clopper_pearson(1, 10, 1.0), InvalidParameterError, r"'confidence' .* < 1"),
        (lambda: check_count(1, 10, 1.5), InvalidParameterError, r"'probability' parameter of check_count .* <= 1"),
        (lambda: check_count(1, 0, 0.5), InvalidParameterError, r"'trials' parameter of check_count"),
        (lambda: check_majority([0.2, 0.9]), InvalidParameterError, r"'holds' parameter of check_majority .* booleans"),
        (lambda: check_majority([]), InvalidParameterError, r"'holds' parameter of check_majority .* non-empty"),
    ],
)  # fmt: skip
