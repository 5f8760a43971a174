"""The one-giant-step rule (Dandi et al. 2023, arXiv 2305.18270, Theorems 1-3) and the student coefficient c_sigma."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from flt_theory.symbolic.hermite import hermite_coefficients
from flt_theory.symbolic.one_step import one_step_subspace, student_coefficient, theory_step_size_exponent
from flt_theory.symbolic.subspace import Subspace
from flt_theory.symbolic.target import Target

SQRT_2PI = sp.sqrt(2 * sp.pi)
FIVE = Target.parse("z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)")


def span(vectors, r):
    return Subspace.span(vectors, r)


# ---------------------------------------------------------------------------------------------
# Theorem 1: kappa < leap -> nothing


@pytest.mark.parametrize(
    "links, kappa",
    [(["He2(z)"], 1), (["He2(z)"], 1.999), (["He3(z)", "He4(z)"], 2.5), (["He2(z)", "He2(z)"], 0), (["z"], 0.5)],
)
def test_below_the_leap_nothing_is_learned(links, kappa):
    t = Target.from_links(links)
    assert one_step_subspace(t, kappa) == Subspace.zero(t.rank)


# ---------------------------------------------------------------------------------------------
# Theorem 2: leap 1 -> the line span(v*), v* = sum_k mu*_{k,1} w*_k


def test_leap_one_learns_the_line_of_first_coefficients():
    t = Target.from_links(["z + He2(z)", "2*z"])
    u = one_step_subspace(t, 1)
    assert u == span([[1, 2]], 2)
    assert u.basis.tolist() == [[sp.sqrt(5) / 5, 2 * sp.sqrt(5) / 5]]
    assert u != span([[2, 1]], 2) and u != Subspace.full(2)  # negative controls


def test_leap_one_line_uses_the_exact_first_hermite_coefficients():
    """mu_1(relu) = 1/2 and mu_1(z) = 1, so v* = (1/2, 1) ~ w1 + 2 w2; abs has mu_1 = 0."""
    mu1 = [hermite_coefficients(link, 1).exact[1] for link in ("relu(z)", "z", "abs(z)")]
    assert mu1 == [sp.Rational(1, 2), 1, 0]
    u = one_step_subspace(Target.from_links(["relu(z)", "z", "abs(z)"]), 1)
    assert u == span([[1, 2, 0]], 3)


def test_leap_one_with_numeric_links_gives_a_float_line():
    t = Target.from_links(["tanh(z)", "2*tanh(z)"])
    u = one_step_subspace(t, 1)
    assert u.dim == 1 and not u.is_exact
    assert u == span([[1, 2]], 2)


# ---------------------------------------------------------------------------------------------
# Theorem 3: leap > 1, kappa >= leap -> span{w*_k : mu*_{k,leap} != 0}


def test_separable_leap_two_learns_the_directions_with_a_second_coefficient():
    t = Target.from_links(["He2(z)", "He3(z)", "He2(z)"])
    assert one_step_subspace(t, 2) == span([[1, 0, 0], [0, 0, 1]], 3)
    assert one_step_subspace(t, 2).basis.tolist() == [[1, 0, 0], [0, 0, 1]]
    assert one_step_subspace(t, 3) == Subspace.full(3)  # the max step at kappa = 3 reaches order 3
    assert one_step_subspace(t, 2) != Subspace.full(3)


def test_five_direction_example_rows():
    assert one_step_subspace(FIVE, 1) == span([[1, 0, 0]], 3)
    assert one_step_subspace(FIVE, 1.5) == span([[1, 0, 0]], 3)
    assert one_step_subspace(FIVE, 2) == span([[1, 0, 0], [0, 1, 0]], 3)
    assert one_step_subspace(FIVE, 3) == span([[1, 0, 0], [0, 1, 0]], 3)
    assert one_step_subspace(FIVE, 4) == Subspace.full(3)  # He2(z2)He2(z3) is order 4


def test_rotated_leap_two_learns_the_range_of_the_second_tensor():
    """g = (z1 + z2)^2 - 2 = 2 He2 along (w1 + w2)/sqrt(2): C_2 = 2 * (1,1)(1,1)^T has rank one."""
    t = Target.parse("(z1 + z2)**2 - 2")
    assert one_step_subspace(t, 2) == span([[1, 1]], 2)
    assert one_step_subspace(t, 1) == Subspace.zero(2)


# ---------------------------------------------------------------------------------------------
# vanishing student coefficient


def test_odd_student_learns_nothing_at_an_even_leap():
    t = Target.from_links(["He2(z)"])
    assert one_step_subspace(t, 2, activation="tanh") == Subspace.zero(1)
    assert one_step_subspace(t, 2, activation="relu") == Subspace.full(1)
    assert one_step_subspace(t, 2) == Subspace.full(1)  # generic activation assumed


def test_even_student_learns_nothing_at_leap_one():
    t = Target.from_links(["z + He3(z)"])
    assert one_step_subspace(t, 1, activation="z**2") == Subspace.zero(1)
    assert one_step_subspace(t, 3, activation="z**2") == Subspace.zero(1)  # c_{sigma,3} = 0 as well
    assert one_step_subspace(t, 3, activation="z**3") == Subspace.full(1)


def test_relu_student_misses_odd_orders_above_one():
    """mu_3(relu) = 0, so a leap-3 target is invisible to a relu student at kappa = 3."""
    t = Target.from_links(["He3(z)", "He4(z)"])
    assert one_step_subspace(t, 3, activation="relu") == Subspace.zero(2)
    assert one_step_subspace(t, 4, activation="relu") == span([[0, 1]], 2)


# ---------------------------------------------------------------------------------------------
# c_sigma = mu_j(sigma) / (j - 1)!


@pytest.mark.parametrize(
    "activation, order, expected",
    [
        ("relu", 1, sp.Rational(1, 2)),
        ("relu", 2, sp.sqrt(2) / (2 * sp.sqrt(sp.pi))),
        ("relu", 3, 0),
        ("relu", 4, -1 / SQRT_2PI / 6),
        ("relu(z)", 6, 3 / SQRT_2PI / 120),
        ("z**2", 2, 2),
        ("He3(z)", 3, 3),
        ("z**3", 1, 3),
        ("abs(z)", 2, sp.sqrt(2) / sp.sqrt(sp.pi)),
    ],
)
def test_student_coefficient_exact(activation, order, expected):
    value = student_coefficient(activation, order)
    assert sp.simplify(value - expected) == 0


def test_student_coefficient_numeric():
    c1 = student_coefficient("tanh", 1)
    assert isinstance(c1, sp.Float) and float(c1) == pytest.approx(0.6057055096021591, abs=1e-12)
    c3 = student_coefficient("tanh", 3)
    assert float(c3) == pytest.approx(hermite_coefficients("tanh(z)", 3).values[3] / 2, abs=1e-14)
    assert student_coefficient("tanh", 2) == 0 and student_coefficient("tanh", 2).is_zero
    assert student_coefficient("sigmoid", 2) == 0  # sigmoid - 1/2 is odd


def test_theory_step_size_exponent():
    assert [theory_step_size_exponent(ell) for ell in (1, 2, 3, 4)] == [0, 0.5, 1, 1.5]
    assert math.isclose(theory_step_size_exponent(2), (2 - 1) / 2)
