"""Transition points and sharpening on synthetic sigmoids m(κ, d) = 1 / (1 + exp(-√d (κ - κ*) / 2))."""

from __future__ import annotations

import numpy as np
import pytest
from _compare_helpers import raises_named_errors

from flt_theory.compare import (
    NoCrossingError,
    assert_fails,
    assert_transition,
    check_transition,
    crossing_point,
    curves_crossing,
)
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError

KAPPAS = np.linspace(0.5, 3.5, 31)
DS = (64, 256, 1024)


def sigmoid(d: int, seed: int, *, center: float = 2.0, noise: float = 0.03, seeds: int = 8, kappas=KAPPAS):
    """Order parameter per seed, shape (seeds, kappas): steeper (width 2/√d) as d grows."""
    rng = np.random.default_rng([seed, d])
    clean = 1 / (1 + np.exp(-np.sqrt(d) / 2 * (kappas - center)))
    return clean + noise * rng.standard_normal((seeds, len(kappas)))


def curves(seed: int, **kwargs) -> dict[int, np.ndarray]:
    return {d: sigmoid(d, seed, **kwargs) for d in DS}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [None, 0.5])
def test_true_threshold_passes_and_wrong_one_fails(seed, level):
    data = curves(seed)
    result = assert_transition(KAPPAS, data, 2.0, level=level, confidence=0.99, name="kappa* = ell")
    assert result.details["sharpens"] and abs(result.measured - 2.0) < 0.05
    assert result.message.startswith("kappa* = ell: crossing (d=") and "sharpens with d: yes" in result.message
    assert_fails(check_transition(KAPPAS, data, 1.0, level=level))  # the negative control
    assert_fails(check_transition(KAPPAS, data, 2.3, level=level))


def test_transition_at_another_point_is_located():
    data = curves(0, center=2.6)
    assert_transition(KAPPAS, data, 2.6)
    assert_fails(check_transition(KAPPAS, data, 2.0))


def test_curves_that_do_not_sharpen_fail_unless_sharpening_is_waived():
    """Same width for every d: the level crossing sits at 2, but there is no transition."""
    flat = {d: sigmoid(64, seed=d) for d in DS}
    result = assert_fails(check_transition(KAPPAS, flat, 2.0, level=0.5))
    assert not result.details["sharpens"] and "sharpens with d: NO" in result.message
    assert_transition(KAPPAS, flat, 2.0, level=0.5, require_sharpening=False)


def test_details_record_every_crossing_and_steepness():
    result = check_transition(KAPPAS, curves(0), 2.0)
    assert set(result.details["crossings"]) == {"64-256", "256-1024"}
    slopes = result.details["steepness"]["256-1024"]
    assert slopes[0] < slopes[1] and slopes[1] == pytest.approx(np.sqrt(1024) / 8, rel=0.25)
    level = check_transition(KAPPAS, curves(0), 2.0, level=0.5).details
    assert set(level["crossings"]) == {"64", "256", "1024"} and level["level"] == 0.5


def test_crossing_point_of_a_decreasing_curve_on_a_nonuniform_grid():
    kappas = np.sort(np.concatenate([np.linspace(0.0, 4.0, 9), [1.9, 2.05, 2.3]]))
    values = 1 - sigmoid(256, 0, kappas=kappas, noise=0.01)
    estimate = crossing_point(kappas, values, 0.5)
    assert estimate.low < 2.0 < estimate.high and estimate.high - estimate.low < 0.1 and estimate.n_seeds == 8


def test_tail_noise_does_not_move_the_curves_crossing():
    """Both curves are flat near 0 and 1 in the tails, where their difference flickers in sign."""
    estimate = curves_crossing(KAPPAS, sigmoid(256, 1, noise=0.05), sigmoid(1024, 1, noise=0.05, seeds=5))
    assert abs(estimate.value - 2.0) < 0.05 and estimate.n_seeds == 5


def test_same_rng_same_interval():
    data = curves(0)
    assert check_transition(KAPPAS, data, 2.0, rng=3).ci == check_transition(KAPPAS, data, 2.0, rng=3).ci
    generator = np.random.default_rng(3)
    assert check_transition(KAPPAS, data, 2.0, rng=generator).ci != check_transition(
        KAPPAS, data, 2.0, rng=generator
    ).ci


def test_replicates_beyond_the_grid_make_the_interval_infinite():
    """A crossing on the grid's last cell: some resamples cross beyond it, so the CI is open to +inf."""
    kappas = np.linspace(0.0, 2.0, 11)
    values = 0.5 + 0.1 * (kappas - 1.9) + 0.02 * np.random.default_rng(0).standard_normal((6, 11))
    estimate = crossing_point(kappas, values, 0.5)
    assert estimate.high == np.inf and 1.6 < estimate.value < 2.0 and np.isfinite(estimate.low)


def test_no_crossing_raises_in_estimators_and_fails_the_check():
    below = sigmoid(256, 0) * 0.4
    with pytest.raises(
        NoCrossingError, match=r"mean curve \(level 0\.5\) never cross\(es\) on kappas in \[0\.5, 3\.5\]"
    ):
        crossing_point(KAPPAS, below, 0.5)
    with pytest.raises(NoCrossingError, match="the two mean curves never cross"):
        curves_crossing(KAPPAS, sigmoid(256, 0), sigmoid(256, 0) + 0.5)
    result = assert_fails(check_transition(KAPPAS, {64: below, 256: below * 0.9}, 2.0, level=0.5))
    assert np.isnan(result.measured) and "no transition on the grid" in result.message
    assert result.to_dict()["measured"] == "nan"


test_bad_input_raises_named_errors = raises_named_errors(
    [
        (lambda: crossing_point(KAPPAS[::-1], sigmoid(64, 0), 0.5), InvalidParameterError,
         r"'kappas' parameter of crossing_point must be strictly increasing"),
        (lambda: crossing_point(KAPPAS[:-1], sigmoid(64, 0), 0.5), InvalidParameterError,
         r"'values' parameter of crossing_point must have shape \(seeds, 30\) to match kappas\. Got shape \(8, 31\)"),
        (lambda: crossing_point(KAPPAS, sigmoid(64, 0, seeds=1), 0.5), InvalidParameterError,
         r"at least 2 seeds"),
        (lambda: curves_crossing(KAPPAS, sigmoid(64, 0), sigmoid(64, 0)[:, :3]), InvalidParameterError,
         r"'curve_large_d' .* shape \(seeds, 31\)"),
        (lambda: check_transition(KAPPAS, [sigmoid(64, 0)], 2.0), InvalidParameterTypeError,
         r"'curves_by_d' parameter of check_transition must be a mapping"),
        (lambda: check_transition(KAPPAS, {64: sigmoid(64, 0)}, 2.0), InvalidParameterError,
         r"must hold at least 2 sizes .* Got sizes \[64\]"),
        (lambda: check_transition(KAPPAS, {64: sigmoid(64, 0), 0: sigmoid(64, 1)}, 2.0), InvalidParameterError,
         r"'curves_by_d key' .* >= 1\. Got 0"),
        (lambda: check_transition(KAPPAS, {64: sigmoid(64, 0), 128: sigmoid(64, 1)[:, :5]}, 2.0),
         InvalidParameterError, r"'curves_by_d\[128\]' parameter of check_transition must have shape"),
        (lambda: check_transition(KAPPAS, curves(0), np.nan), InvalidParameterError,
         r"'predicted_threshold' .* finite"),
    ],
)  # fmt: skip


def test_single_curve_is_enough_for_a_level_crossing_without_sharpening():
    assert_transition(KAPPAS, {256: sigmoid(256, 0)}, 2.0, level=0.5, require_sharpening=False)


def test_p_value_is_consistent_with_the_verdict():
    data = curves(0)
    for threshold in (1.9, 1.97, 2.0, 2.1):
        p_value = check_transition(KAPPAS, data, threshold, n_resamples=500).details["p_value"]
        for confidence in (0.5, 0.9, 0.99):
            if abs(p_value - (1 - confidence)) > 1e-6:
                passed = check_transition(KAPPAS, data, threshold, confidence=confidence, n_resamples=500).passed
                assert passed == (p_value >= 1 - confidence)
    flat = {d: sigmoid(64, seed=d) for d in DS}
    assert check_transition(KAPPAS, flat, 2.0, level=0.5).details["p_value"] == 0.0  # fails at every level
