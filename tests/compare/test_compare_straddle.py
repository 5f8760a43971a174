"""Undecided verdicts (flt_theory.compare.straddle): straddling intervals are inconclusive with a seed count."""

from __future__ import annotations

import numpy as np
import pytest

from flt_theory.compare import all_of, check_at_least, check_not_learned, check_ordering, check_power_law
from flt_theory.compare.straddle import Side, seeds_to_decide, seeds_to_reject, straddling_sides
from flt_theory.compare.verdict import decide
from flt_theory.errors import InvalidParameterTypeError


def masses(mean: float, seed: int, seeds: int = 8, sd: float = 0.004) -> np.ndarray:
    return np.clip(mean + sd * np.random.default_rng(seed).standard_normal(seeds), 1e-6, 1)


def test_pass_decided_fail_and_straddle():
    assert decide(check_not_learned(masses(0.01, 0), 0.01, max_ratio=3.0)).outcome == "pass"
    assert decide(check_not_learned(masses(0.08, 0), 0.01, max_ratio=3.0)).outcome == "fail"
    straddling = check_not_learned(masses(0.029, 1, sd=0.01), 0.01, max_ratio=3.0)
    decision = decide(straddling)
    assert not straddling.passed and decision.outcome == "inconclusive" and decision.seeds_needed > 8
    assert "about" in decision.text() and "seeds" in decision.text()


def test_a_conjunction_is_decided_by_its_worst_part():
    ok = check_not_learned(masses(0.01, 0), 0.01, max_ratio=3.0)
    straddling = check_not_learned(masses(0.029, 1, sd=0.01), 0.01, max_ratio=3.0)
    excluded = check_not_learned(masses(0.08, 2), 0.01, max_ratio=3.0)
    assert decide(all_of("two", "x", [ok, straddling])).outcome == "inconclusive"
    assert decide(all_of("three", "x", [ok, straddling, excluded])).outcome == "fail"
    assert decide(all_of("nested", "x", [all_of("inner", "x", [ok, straddling]), ok])).outcome == "inconclusive"


def test_orderings_and_demonstrated_bounds_straddle_but_consistent_bounds_are_always_decided():
    rng = np.random.default_rng(3)
    close = [0.50 + 0.05 * rng.standard_normal(8), 0.49 + 0.05 * rng.standard_normal(8)]
    assert decide(check_ordering(close)).outcome == "inconclusive"
    assert decide(check_ordering(close[::-1] if np.mean(close[0]) > np.mean(close[1]) else close)).outcome != "pass"
    values = 1.0 + 0.1 * rng.standard_normal(8)
    assert decide(check_at_least(values, 1.0, mode="demonstrated")).outcome == "inconclusive"
    assert decide(check_at_least(values, 2.0)).outcome == "fail"  # consistent: a failure excludes the bound


def test_the_predicted_seed_count_decides_by_simulation():
    """At the seed count decide() names, fresh data from the same law decide the bound in most data sets."""
    mean, sd, bound = 0.026, 0.01, 0.03  # mass/baseline 2.6 vs <= 3 at baseline 0.01
    rng = np.random.default_rng(7)
    decisions = (decide(check_not_learned(np.clip(mean + sd * rng.standard_normal(6), 1e-6, 1), 0.01,
                                          max_ratio=bound / 0.01)) for _ in range(20))
    need = next(d.seeds_needed for d in decisions if d.outcome == "inconclusive")
    decided = sum(check_not_learned(np.clip(mean + sd * rng.standard_normal(2 * need), 1e-6, 1), 0.01,
                                    max_ratio=bound / 0.01).passed for _ in range(40))
    assert decided >= 30, (need, decided)


def test_seeds_to_decide_formula_and_its_limits():
    assert seeds_to_decide(Side("x", 3.09, (2.35, 3.98), 3.0, False, 8)) == 541  # 8 (0.74 / 0.09)^2
    assert seeds_to_decide(Side("x", 2.0, (1.5, 3.5), 3.0, False, 8)) == 18  # 8 (1.5 / 1)^2, upper side
    assert seeds_to_decide(Side("x", 3.0, (2.0, 4.0), 3.0, False, 8)) is None


def test_a_wrong_law_that_passes_gets_the_seeds_that_would_reject_it_or_none():
    ds = np.array([32.0, 64.0, 128.0])
    noisy = ds ** -0.6 * np.exp(0.4 * np.random.default_rng(0).standard_normal((4, 3)))
    control = check_power_law(ds, noisy, -1.0, tolerance=0.2)
    assert control.passed and seeds_to_reject(control) > 4
    inside = check_power_law(ds, noisy, -0.6, tolerance=0.3)
    assert inside.passed and seeds_to_reject(inside) is None


def test_bad_input():
    with pytest.raises(InvalidParameterTypeError, match="decide takes a CheckResult"):
        decide(3.0)
    with pytest.raises(InvalidParameterTypeError, match="straddling_sides takes a CheckResult"):
        straddling_sides([1.0])
