"""Leap index, information exponent and leap complexity (Abbe, Boix-Adserà, Misiakiewicz 2023)."""

from __future__ import annotations

import itertools

import pytest
from _symbolic_helpers import brute_force_leap, integer_polynomials
from hypothesis import given, settings, strategies as st

from flt_theory.errors import UnsupportedError
from flt_theory.symbolic.hermite import hermite_expansion
from flt_theory.symbolic.leap import (
    information_exponent,
    leap_complexity,
    leap_complexity_of_support,
    leap_index,
)
from flt_theory.symbolic.target import Target


@pytest.mark.parametrize(
    "text, leap",
    [
        ("z1*z2*z3", 3), ("z1 + z1*z2*z3", 2), ("z1 + z1*z2 + z1*z2*z3", 1), ("He2(z1) + He2(z1)*z2", 2),
        ("z1 + He3(z2)", 3), ("z1 + z2 + z3", 1),
        ("z1 + z1*z2 + z1*z3 + z2*z3*z4", 1),  # z4 comes in with the already-touched z2, z3
        ("z1*z2 + He3(z3)*z1", 3),  # z1*z2 (cost 2) then He3(z3)*z1 (cost 3); the other order costs 4
        ("z1 + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)", 1), ("He4(z1) + He4(z1)*He4(z2)", 4),
        ("z1*z2 + z3*z4", 2), ("7", 0),
    ],
)
def test_leap_complexity_of_hand_examples(text, leap):
    t = Target.parse(text)
    assert leap_complexity(t) == leap
    assert leap_complexity(t) == brute_force_leap(hermite_expansion(t.expr, t.variables).coefficients)


@pytest.mark.parametrize(
    "text, index",
    [
        ("z1*z2*z3", 3), ("z1 + z1*z2*z3", 1), ("He2(z1) + He2(z1)*z2", 2), ("z1 + He3(z2)", 1),
        ("He3(z1) + He4(z2)", 3), ("He2(z1)*He2(z2) + He5(z3)", 4),
    ],
)
def test_leap_index_is_the_lowest_nonzero_hermite_order(text, index):
    assert leap_index(Target.parse(text)) == index


def test_leap_index_of_separable_links():
    assert leap_index(Target.from_links(["He2(z)", "He3(z)"])) == 2
    assert leap_index(Target.from_links(["He3(z)", "He3(z) + He4(z)"])) == 3
    assert leap_index(Target.from_links(["relu(z)"])) == 1
    assert leap_index(Target.from_links(["abs(z)", "He3(z)"])) == 2  # |z| is even, mu_2 = sqrt(2/pi)
    assert leap_index(Target.from_links(["tanh(z)**2"])) == 2  # even, numeric path
    assert leap_index(Target.from_links(["sign(z)*z**2 - 2*z*(2/pi)**(1/2)"])) == 3


@pytest.mark.parametrize(
    "text, exponent",
    [
        ("He3(z)", 3), ("z", 1), ("He2(z) + He4(z)", 2), ("relu(z)", 1),
        ("relu(z) - z/2", 2),  # |z|/2: mu_1 = 0, mu_2 = 1/sqrt(2 pi)
        ("abs(z)", 2), ("tanh(z)", 1), ("z**3 - 3*z", 3),
    ],
)
def test_information_exponent_of_single_index_targets(text, exponent):
    t = Target.parse(text)
    assert information_exponent(t) == exponent
    assert information_exponent(t) == leap_index(t)


def test_information_exponent_is_only_defined_for_single_index_targets():
    assert information_exponent(Target.parse("z1 + z2")) is None
    assert information_exponent(Target.parse("He3(z1)", rank=2)) is None


@pytest.mark.parametrize("text", ["3", "0", "pi"])
def test_constant_targets_have_no_leap_index(text):
    t = Target.parse(text)
    with pytest.raises(UnsupportedError, match="leap index is infinite"):
        leap_index(t)
    with pytest.raises(UnsupportedError, match="leap index is infinite"):
        information_exponent(t)
    assert leap_complexity(t) == 0  # empty support (documented: 0 if empty)


def test_truncated_targets_say_so_when_nothing_is_left():
    """Non-polynomial targets are truncated at ``degree``; numeric coefficients below NUMERIC_ZERO
    (here 1e-30 * mu_1(tanh)) count as zero."""
    t = Target.from_links(["He9(z) + 1e-30*tanh(z)"])
    with pytest.raises(UnsupportedError, match="up to Hermite degree 8"):
        leap_index(t)
    assert leap_index(t, degree=9) == 9
    assert leap_index(Target.from_links(["He9(z)"])) == 9  # polynomial: exact, no truncation


# ---------------------------------------------------------------------------------------------
# the closure algorithm against brute force


multi_index = st.integers(1, 4).flatmap(lambda r: st.lists(st.tuples(*[st.integers(0, 3)] * r), min_size=0, max_size=6))


@settings(max_examples=200, deadline=None, database=None)
@given(multi_index)
def test_leap_complexity_of_support_equals_brute_force_over_orderings(support):
    assert leap_complexity_of_support(support) == brute_force_leap(support)


@settings(max_examples=20, deadline=None, database=None)
@given(integer_polynomials(max_vars=3, max_degree=4))
def test_leap_complexity_of_random_polynomials(case):
    expr, variables = case
    t = Target.from_expression(expr, rank=len(variables))
    support = hermite_expansion(expr, variables).coefficients
    assert leap_complexity(t) == brute_force_leap(support)
    if any(any(a) for a in support):  # the first term of any ordering costs at least the leap index
        assert leap_index(t) <= leap_complexity(t) <= max(sum(a) for a in support)


def test_leap_complexity_of_support_ignores_the_zero_multi_index():
    assert leap_complexity_of_support([]) == 0
    assert leap_complexity_of_support([(0, 0)]) == 0
    assert leap_complexity_of_support([(0, 0), (0, 2)]) == 2
    assert leap_complexity_of_support(iter([(1, 0), (1, 1)])) == 1  # any iterable


def test_leap_complexity_is_fast_on_large_supports():
    support = [tuple(1 if k in (i, i + 1) else 0 for k in range(400)) for i in range(399)] + [(1,) + (0,) * 399]
    assert leap_complexity_of_support(support) == 1  # a chain z1, z1 z2, z2 z3, ...


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.tuples(*[st.integers(0, 3)] * 3), min_size=0, max_size=6))
def test_the_brute_force_reference_is_the_minimum_over_every_literal_ordering(support):
    """The reference leap (a dynamic programme over sets) equals the literal minimum over all |S|! orderings."""
    terms = [a for a in support if any(a)]
    literal = 0
    if terms:
        costs = []
        for order in itertools.permutations(terms):
            touched: set[int] = set()
            worst = 0
            for a in order:
                worst = max(worst, sum(ak for k, ak in enumerate(a) if k not in touched))
                touched |= {k for k, ak in enumerate(a) if ak}
            costs.append(worst)
        literal = min(costs)
    assert brute_force_leap(support) == literal
