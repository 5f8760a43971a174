"""Power-law fits and checks on synthetic data with a known exponent, and their negative controls."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _compare_helpers import raises_named_errors
from hypothesis import given, settings, strategies as st

from flt_theory import compare
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError

X = np.geomspace(1.0, 64.0, 7)
D, N = (a.ravel() for a in np.meshgrid([64.0, 128.0, 256.0, 512.0], [1e3, 4e3, 1.6e4]))


def noisy_power_law(seed: int, exponent: float = 1.5, seeds: int = 8) -> np.ndarray:
    """y = 3 x^b exp(0.05 ξ), shape (seeds, points)."""
    return 3.0 * X**exponent * np.exp(0.05 * np.random.default_rng(seed).standard_normal((seeds, X.size)))


def norm_law(seed: int) -> np.ndarray:
    """||w||^2 - 1 = 0.3 d / n up to 5% multiplicative noise, shape (8, 12)."""
    return 0.3 * D / N * np.exp(0.05 * np.random.default_rng(seed).standard_normal((8, D.size)))


# A true law fails a 95% check on 5% of data sets; the sweeps over data seeds check at 99% so that
# they hold for (nearly) any seed, while the negative controls keep the default 95%.
SURE = {"confidence": 0.99}


@pytest.mark.parametrize("seed", range(5))
def test_true_exponent_passes_and_wrong_one_fails(seed):
    y = noisy_power_law(seed)
    result = compare.assert_power_law(X, y, 1.5, name="y ~ x^1.5", **SURE)
    assert result.n_seeds == 8 and result.details["prefactor"] == pytest.approx(3.0, rel=0.05)
    assert re.fullmatch(
        r"y ~ x\^1\.5: exponent 1\.[45]\d* \[1\.4\d*, 1\.5\d*\] vs predicted 1\.5: PASS", result.message
    )
    compare.assert_fails(compare.check_power_law(X, y, 1.0))
    compare.assert_fails(compare.check_power_law(X, y, 1.6))


def test_tolerance_widens_the_interval_in_exponent_units():
    y = noisy_power_law(0)
    fit = compare.fit_power_law(X, y)
    off = fit.ci[1] + 0.05
    assert not compare.check_power_law(X, y, off) and compare.check_power_law(X, y, off, tolerance=0.06)


UNLUCKY = pytest.mark.xfail(
    strict=True,
    reason="data seed 2 is a 1-in-2000 draw: its 8 seeds agree on b2 three times more closely than "
    "typical (t = 7.4), so even the 99% interval excludes the truth; kept to show the limit of 8 seeds",
)


@pytest.mark.parametrize("seed", [0, 1, pytest.param(2, marks=UNLUCKY), 3])
def test_norm_law_in_d_and_n_jointly(seed):
    y = norm_law(seed)
    result = compare.assert_power_law_2d(D, N, y, (1, -1), name="norm law", **SURE)
    assert isinstance(result.measured, tuple) and len(result.ci) == 2
    assert result.details["confidence_per_exponent"] == pytest.approx(0.995)
    for wrong in [(1, -2), (2, -1), (0.5, -1)]:
        compare.assert_fails(compare.check_power_law_2d(D, N, y, wrong))


def test_same_rng_same_interval_other_rng_other_interval():
    y = noisy_power_law(0)
    assert compare.fit_power_law(X, y, rng=7) == compare.fit_power_law(X, y, rng=7)
    assert compare.fit_power_law(X, y, rng=7).ci != compare.fit_power_law(X, y, rng=8).ci


def test_fit_is_on_the_log_of_the_mean_over_seeds():
    """Seeds spread by ±s(x) around C x^b: the mean is exactly C x^b (slope b), while the mean of
    the logs bends with s(x). The fit must follow the mean."""
    spread = np.linspace(0.1, 0.9, X.size)
    y = 2.0 * X**-0.5 * (1 + np.array([[1.0], [-1.0]]) * spread)
    assert compare.fit_power_law(X, y).exponent == pytest.approx(-0.5, abs=1e-12)
    mean_of_logs_slope = np.polyfit(np.log(X), np.log(y).mean(axis=0), 1)[0]
    assert abs(mean_of_logs_slope + 0.5) > 0.05


@given(exponent=st.floats(-3, 3), prefactor=st.floats(1e-3, 1e3))
@settings(max_examples=40, deadline=None)
def test_exact_power_law_is_recovered(exponent, prefactor):
    y = prefactor * X**exponent * np.ones((3, 1))
    fit = compare.fit_power_law(X, y, n_resamples=50)
    assert abs(fit.exponent - exponent) < 1e-8 and fit.prefactor == pytest.approx(prefactor, rel=1e-8)
    assert compare.check_power_law(X, y, exponent, n_resamples=50)


@given(b1=st.floats(-3, 3), b2=st.floats(-3, 3))
@settings(max_examples=30, deadline=None)
def test_exact_2d_power_law_is_recovered(b1, b2):
    fit = compare.fit_power_law_2d(D, N, 0.7 * D**b1 * N**b2 * np.ones((2, 1)), n_resamples=20)
    assert np.allclose(fit.exponents, (b1, b2), atol=1e-8, rtol=0)


test_bad_input_raises_named_errors = raises_named_errors(
    [
        (lambda: compare.fit_power_law(X, -noisy_power_law(0)), InvalidParameterError,
         r"'y' parameter of fit_power_law must be > 0 \(a log-log fit needs positive values\) everywhere\. Got -"),
        (lambda: compare.fit_power_law(X - 1, noisy_power_law(0)), InvalidParameterError,
         r"'x' parameter of fit_power_law must be > 0 .* Got 0\.0 at index \(0,\)"),
        (lambda: compare.fit_power_law(X, np.where(X > 8, np.inf, noisy_power_law(0))), InvalidParameterError,
         r"'y' .* must be finite everywhere\. Got inf at index \(0, 4\)"),
        (lambda: compare.fit_power_law(X[:-1], noisy_power_law(0)), InvalidParameterError,
         r"'y' parameter of fit_power_law must have shape \(seeds, 6\) to match x of shape \(6,\)\. Got shape \(8, "
         r"7\)"),
        (lambda: compare.fit_power_law(X, noisy_power_law(0)[0]), InvalidParameterError,
         r"shape \(seeds, points\)\. Got shape \(7,\) instead"),
        (lambda: compare.fit_power_law(X, noisy_power_law(0, seeds=1)), InvalidParameterError,
         r"'y' .* at least 2 seeds .* Got shape \(1, 7\)"),
        (lambda: compare.fit_power_law(X[:1], noisy_power_law(0)[:, :1]), InvalidParameterError,
         r"'x' parameter of fit_power_law must have at least 2 points"),
        (lambda: compare.fit_power_law(np.ones(7), noisy_power_law(0)), InvalidParameterError,
         r"'x' parameter\(s\) of fit_power_law must vary independently"),
        (lambda: compare.fit_power_law_2d(D, 2 * D, norm_law(0)), InvalidParameterError,
         r"'x1' and 'x2' parameter\(s\) of fit_power_law_2d must vary independently.*Got rank 2"),
        (lambda: compare.check_power_law_2d(D, N, norm_law(0), (1, -1, 0)), InvalidParameterError,
         r"'predicted_exponents' .* pair \(b1, b2\)"),
        (lambda: compare.check_power_law(X, noisy_power_law(0), "1.5"), InvalidParameterTypeError,
         r"'predicted_exponent' parameter of check_power_law must be a real number"),
        (lambda: compare.check_power_law(X, noisy_power_law(0), 1.5, tolerance=-0.1), InvalidParameterError,
         r"'tolerance' .* >= 0\. Got -0\.1"),
    ],
)  # fmt: skip


def test_p_value_is_consistent_with_the_verdict():
    """check at confidence 1 - alpha FAILS iff p_value < alpha, for 1-d and 2-d (Bonferroni) checks."""
    y = noisy_power_law(0)
    for predicted in (1.4, 1.45, 1.5, 1.6):
        p_value = compare.check_power_law(X, y, predicted, n_resamples=500).details["p_value"]
        for confidence in (0.5, 0.9, 0.99):
            if abs(p_value - (1 - confidence)) > 1e-6:
                passed = compare.check_power_law(X, y, predicted, confidence=confidence, n_resamples=500).passed
                assert passed == (p_value >= 1 - confidence)
    norm = norm_law(0)
    for wrong in [(1, -1), (1, -1.05), (1.1, -1)]:
        p_value = compare.check_power_law_2d(D, N, norm, wrong, n_resamples=500).details["p_value"]
        for confidence in (0.9, 0.99):
            if abs(p_value - (1 - confidence)) > 1e-6:
                passed = compare.check_power_law_2d(D, N, norm, wrong, confidence=confidence, n_resamples=500).passed
                assert passed == (p_value >= 1 - confidence)
    assert compare.check_power_law_2d(D, N, norm, (1, -1)).details["labels"] == ["exponent of x1", "exponent of x2"]
