"""Seeded bootstrap over the seed axis: reproducibility, coverage, fallbacks and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flt_theory.compare import Estimate, bootstrap_groups, bootstrap_statistic, mean_ci
from flt_theory.compare.bootstrap import calibrated_interval
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError

SAMPLES = np.random.default_rng(0).normal(1.0, 0.3, size=(10, 4))


def _spread(s: np.ndarray) -> float:
    return float(s[:, 1].mean() - s[:, 0].mean())


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_same_rng_gives_identical_numbers(seed):
    first = bootstrap_statistic(SAMPLES, _spread, n_resamples=300, rng=seed)
    assert first == bootstrap_statistic(SAMPLES, _spread, n_resamples=300, rng=seed)
    assert first.low <= first.high


def test_other_rng_gives_other_interval_same_point():
    a, b = (bootstrap_statistic(SAMPLES, _spread, rng=r) for r in (0, 1))
    assert a.value == b.value and a.ci != b.ci


def test_generator_is_accepted_and_advanced():
    generator = np.random.default_rng(5)
    a = bootstrap_statistic(SAMPLES, _spread, rng=generator)
    b = bootstrap_statistic(SAMPLES, _spread, rng=generator)
    assert a.ci != b.ci


def test_vectorized_and_plain_statistics_agree():
    plain = bootstrap_statistic(SAMPLES, _spread, n_resamples=500, rng=3)
    fast = bootstrap_statistic(
        SAMPLES, lambda s: s[..., 1].mean(-1) - s[..., 0].mean(-1), n_resamples=500, rng=3, vectorized=True
    )
    assert plain.value == pytest.approx(fast.value) and plain.ci == pytest.approx(fast.ci)


def test_groups_are_resampled_independently_and_report_smallest_count():
    est = bootstrap_groups([np.arange(6.0), np.arange(3.0) + 10], lambda a, b: b.mean() - a.mean())
    assert est.value == pytest.approx(8.5) and est.n_seeds == 3 and est.method == "bootstrap"


def test_interval_reaches_student_t_tails_and_keeps_infinities():
    """On normal replicates the interval is the t interval widened by sqrt(n/(n-1)); infinite
    replicates (a crossing beyond the grid) carry into the ends."""
    normal = np.random.default_rng(0).normal(0.0, 1.0, 2000)
    low, high = calibrated_interval(normal, 0.0, 0.99, n_seeds=8)
    t_7 = 3.499  # Student t quantile at 0.995, 7 degrees of freedom
    target = t_7 * np.sqrt(8 / 7)  # the union with the percentile part may only widen it
    assert 0.97 * target <= -low <= 1.1 * target and 0.97 * target <= high <= 1.1 * target
    tails = np.array([-np.inf] * 3 + [*np.linspace(0.9, 1.1, 94)] + [np.inf] * 3)  # 3% beyond each edge
    assert calibrated_interval(tails, 1.0, 0.95, 20) == (-np.inf, np.inf)
    assert np.isfinite(calibrated_interval(tails, 1.0, 0.8, 20)).all()
    low, high = calibrated_interval(np.array([*np.linspace(0.9, 1.1, 80)] + [np.inf] * 20), 1.0, 0.5, 20)
    assert 0.8 < low < 1.0 and high == np.inf


def test_mean_ci_covers_the_true_mean_at_about_the_nominal_rate():
    """Frequentist check: 95% intervals of a mean over 8 seeds cover the truth in about 95% of 300
    independent data sets (the plain percentile bootstrap gives about 90% here)."""
    rng = np.random.default_rng(11)
    covered = 0
    for i in range(300):
        est = mean_ci(rng.normal(0.0, 1.0, 8), n_resamples=400, rng=i)
        covered += est.low <= 0.0 <= est.high
    assert 0.92 <= covered / 300 <= 0.99


def test_mean_ci_uses_student_t_below_five_seeds():
    est = mean_ci([1.0, 2.0, 3.0])
    assert est.method == "t" and est.ci == pytest.approx((2 - 4.302653 / np.sqrt(3), 2 + 4.302653 / np.sqrt(3)))
    assert mean_ci([1.0, 2.0, 3.0], method="bootstrap").method == "bootstrap"
    assert mean_ci(np.arange(8.0), method="t").method == "t"
    assert mean_ci([2.0, 2.0]).ci == (2.0, 2.0)


def test_estimate_ci_property():
    assert Estimate(1.0, 0.5, 1.5, 0.9, 4).ci == (0.5, 1.5)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mean_ci([1.0]), InvalidParameterError, r"'values' parameter of mean_ci must have at least 2 seeds"),
        (lambda: mean_ci([[1.0, 2.0]]), InvalidParameterError, r"shape \(seeds,\)\. Got shape \(1, 2\)"),
        (lambda: mean_ci([1.0, np.nan]), InvalidParameterError, r"must be finite everywhere\. Got nan at index \(1,\)"),
        (lambda: mean_ci(["a", "b"]), InvalidParameterTypeError, r"finite real array .* dtype <U1"),
        (lambda: mean_ci([1.0, 2.0], confidence=1.5), InvalidParameterError, r"'confidence' .* <= 1\. Got 1\.5"),
        (lambda: mean_ci([1.0, 2.0], confidence=1), InvalidParameterError, r"'confidence' .* < 1 \(a finite"),
        (lambda: mean_ci([1.0, 2.0], confidence=0), InvalidParameterError, r"'confidence' .* > 0"),
        (lambda: mean_ci([1.0, 2.0], method="z"), InvalidParameterError, r"'method' .* Got 'z'"),
        (lambda: mean_ci([1.0, 2.0], n_resamples=0), InvalidParameterError, r"'n_resamples' .* >= 1\. Got 0"),
        (lambda: mean_ci(np.arange(6.0), rng=1.5), InvalidParameterTypeError, r"'rng' parameter must be an int"),
        (lambda: mean_ci(np.arange(6.0), rng=-1), InvalidParameterError, r"'rng' .* >= 0\. Got -1"),
        (lambda: bootstrap_statistic(SAMPLES, lambda s: s.mean(0)), InvalidParameterError, "must return a scalar"),
        (lambda: bootstrap_statistic(SAMPLES, lambda s: np.nan), InvalidParameterError, "finite value on the data"),
        (lambda: bootstrap_groups([], np.mean), InvalidParameterTypeError, "non-empty sequence"),
        (lambda: bootstrap_groups([[[1], [2, 3]]], np.mean), InvalidParameterTypeError, "dtype object"),
    ],
)
def test_bad_input_raises_named_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
