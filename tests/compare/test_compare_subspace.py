"""Subspace verdicts from masses: learned U, untouched complement, baselines given or measured."""

from __future__ import annotations

import numpy as np
import pytest
from _compare_helpers import raises_named_errors

from flt_theory.compare import (
    assert_fails,
    assert_not_learned,
    assert_subspace_learned,
    check_not_learned,
    check_subspace_learned,
)
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError

D = 100  # ambient dimension: at initialisation a k-dimensional subspace carries mass k / D


def masses(mean: float, seed: int, seeds: int = 8, spread: float = 0.1) -> np.ndarray:
    """Per-seed masses around ``mean`` with relative spread, shape (seeds,), in [0, 1]."""
    return np.clip(mean * (1 + spread * np.random.default_rng(seed).standard_normal(seeds)), 0, 1)


@pytest.mark.parametrize("seed", range(4))
def test_learned_subspace_passes_and_swapped_roles_fail(seed):
    on_u, on_rest = masses(0.9, seed, spread=0.03), masses(2 / D, seed + 100)
    result = assert_subspace_learned(on_u, on_rest, 2 / D, min_mass=0.5, name="U_1 = span(w1 + w2)")
    assert result.details["U_learned"] and result.details["complement_not_learned"]
    assert result.details["complement_ratio"] == pytest.approx(1.0, abs=0.15)
    assert_fails(check_subspace_learned(on_rest, on_u, 2 / D, min_mass=0.5))


def test_each_half_of_the_verdict_can_fail_alone():
    on_u, on_rest = masses(0.9, 0, spread=0.03), masses(2 / D, 1)
    weak_u = assert_fails(check_subspace_learned(masses(0.3, 2), on_rest, 2 / D, min_mass=0.5))
    assert not weak_u.details["U_learned"] and weak_u.details["complement_not_learned"]
    leaked = assert_fails(check_subspace_learned(on_u, masses(0.08, 3), 2 / D, min_mass=0.5))
    assert leaked.details["U_learned"] and not leaked.details["complement_not_learned"]


def test_min_factor_is_relative_to_the_baseline_of_U():
    on_u, on_rest = masses(0.05, 0), masses(2 / D, 1)  # 5x the random mass 1/D of a line U
    assert_subspace_learned(on_u, on_rest, 2 / D, min_factor=3, baseline_on_U=1 / D)
    assert_fails(check_subspace_learned(on_u, on_rest, 2 / D, min_factor=8, baseline_on_U=1 / D))
    result = check_subspace_learned(on_u, on_rest, 2 / D, min_factor=1)  # U baseline defaults to `baseline`
    assert result.details["threshold"] == pytest.approx(2 / D)


def test_noisy_few_seed_data_must_demonstrate_the_claim():
    """Demonstrated semantics: two wildly different seeds do not show that U was learned."""
    assert_fails(check_subspace_learned([0.95, 0.2], [0.02, 0.02], 2 / D, min_mass=0.5))


def test_baseline_measured_at_initialisation_is_resampled_too():
    at_init = masses(1 / D, 5, seeds=6)
    result = assert_not_learned(masses(1 / D, 6), at_init, max_ratio=1.5)
    assert result.n_seeds == 6 and result.ci[0] < 1.0 < result.ci[1]
    assert_fails(check_not_learned(masses(3 / D, 7), at_init, max_ratio=1.5))


def test_not_learned_compares_the_upper_end_with_max_ratio():
    mass = masses(1 / D, 0)
    result = check_not_learned(mass, 1 / D, max_ratio=2.0)
    assert result.passed and result.ci[1] <= 2.0 and result.message.startswith("not learned: mass/baseline")
    assert_fails(check_not_learned(mass, 1 / D, max_ratio=result.ci[1] * 0.99))
    assert check_not_learned(mass, 1 / D, rng=4) == check_not_learned(mass, 1 / D, rng=4)


test_bad_input_raises_named_errors = raises_named_errors(
    [
        (lambda: check_subspace_learned(masses(0.9, 0), masses(0.02, 1), 0.02), InvalidParameterError,
         r"Exactly one of the 'min_mass' and 'min_factor' parameters .* Got min_mass=None, min_factor=None"),
        (lambda: check_subspace_learned(masses(0.9, 0), masses(0.02, 1), 0.02, min_mass=0.5, min_factor=2),
         InvalidParameterError, r"Exactly one of"),
        (lambda: check_subspace_learned(masses(0.9, 0) * 2, masses(0.02, 1), 0.02, min_mass=0.5),
         InvalidParameterError, r"'mass_on_U' parameter of check_subspace_learned must be in \[0, 1\] \(a mass\)"),
        (lambda: check_subspace_learned(masses(0.9, 0), masses(0.02, 1)[:1], 0.02, min_mass=0.5),
         InvalidParameterError, r"'mass_on_complement' .* at least 2 seeds"),
        (lambda: check_not_learned(masses(0.02, 1), 0.0), InvalidParameterError,
         r"'baseline' parameter of check_not_learned must be a finite real number > 0 and <= 1\. Got 0\.0"),
        (lambda: check_not_learned(masses(0.02, 1), [0.01, 0.0, 0.02]), InvalidParameterError,
         r"'baseline' .* must be > 0 \(a ratio to the baseline needs a positive baseline\) everywhere"),
        (lambda: check_not_learned(masses(0.02, 1), "0.01"), InvalidParameterTypeError,
         r"'baseline' parameter of check_not_learned must be a real number"),
        (lambda: check_not_learned(masses(0.02, 1), 0.01, max_ratio=0), InvalidParameterError,
         r"'max_ratio' .* > 0\. Got 0"),
    ],
)  # fmt: skip


def test_masses_get_intervals_inside_zero_one_by_default():
    """Issue 10: a mass 0.0135 over 2 seeds was shown with an interval below 0."""
    mass = np.array([0.0135, 0.19])
    bounded = check_subspace_learned(np.array([0.9, 0.95]), mass, 0.01, min_mass=0.5)
    assert bounded.details["bounds"] == (0.0, 1.0) and bounded.details["complement_ratio_ci"][0] > 0
    plain = check_subspace_learned(np.array([0.9, 0.95]), mass, 0.01, min_mass=0.5, bounds=None)
    assert plain.details["complement_ratio_ci"][0] < 0
    ratio = check_not_learned(mass, 0.01, max_ratio=30)
    assert 0 < ratio.ci[0] <= ratio.measured <= ratio.ci[1] <= 100 and ratio.details["ratio_bounds"] == (0, 100)
    measured_baseline = check_not_learned(mass, masses(1 / D, 5), max_ratio=30)
    assert 0 < measured_baseline.ci[0] and measured_baseline.details["ratio_bounds"] == (0, np.inf)


@pytest.mark.parametrize("seeds", [3, 8])
def test_not_learned_ratio_interval_keeps_nominal_coverage(seeds):
    """Calibration of the bounded ratio at the random level: per-seed masses are the mean over 4 neurons of
    Beta(0.5, 49.5) (mean 1/100 = the baseline), 300 data sets; the 95% interval of mass/baseline misses the true
    ratio 1 in 4.0% (3 seeds) and 8.7% (8 seeds) of them (plain scale: 6.7% and 9.7%; on 2000 data sets the
    bounded rate is 4.5% and 6.1%, see the table in flt_theory.compare.bootstrap)."""
    rng = np.random.default_rng(seeds)
    missed = 0
    for i in range(300):
        result = check_not_learned(rng.beta(0.5, 49.5, (seeds, 4)).mean(axis=1), 1 / D, n_resamples=400, rng=i)
        missed += not result.ci[0] <= 1.0 <= result.ci[1]
    assert missed / 300 <= 0.09
