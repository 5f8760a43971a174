"""Multivariate Hermite expansions and tensors (hermite.hermite_expansion / hermite_tensor / unfold)
and the target-level dispatcher expansion.expand_target (exact, separable, quadrature)."""

from __future__ import annotations

import itertools
import math

import pytest
import sympy as sp
from _symbolic_helpers import gaussian_expectation, integer_polynomials, z
from hypothesis import given, settings

from flt_theory.errors import BudgetExceededError, InvalidTargetError, UnsupportedError
from flt_theory.symbolic.expansion import DEFAULT_DEGREE, NUMERIC_ZERO, _quadrature_expansion, expand_target
from flt_theory.symbolic.hermite import (
    HermiteExpansion,
    hermite_coefficients,
    hermite_expansion,
    hermite_tensor,
    unfold,
)
from flt_theory.symbolic.target import Target

z1, z2, z3 = z(1), z(2), z(3)
HYPOTHESIS = settings(max_examples=30, deadline=None, database=None)


# ---------------------------------------------------------------------------------------------
# exact expansions of polynomials


@HYPOTHESIS
@given(integer_polynomials())
def test_expansion_round_trips_to_the_polynomial(case):
    expr, variables = case
    expansion = hermite_expansion(expr, variables)
    assert expansion.exact and expansion.truncation_degree is None
    assert sp.expand(expansion.to_expr(variables) - sp.expand(expr)) == 0
    assert all(not c.is_zero and c.is_Rational for c in expansion.coefficients.values())
    assert expansion.degree() == (sp.Poly(expr, *variables).total_degree() if expr != 0 else 0)


@HYPOTHESIS
@given(integer_polynomials())
def test_norm_is_the_second_moment(case):
    expr, variables = case
    assert hermite_expansion(expr, variables).norm2() == gaussian_expectation(expr**2, variables)


@settings(max_examples=20, deadline=None, database=None)
@given(integer_polynomials())
def test_hermite_tensor_is_the_expected_derivative(case):
    """C_j = E[g He_j(z)] = E[nabla^j g], entry by entry, for j = 0..3."""
    expr, variables = case
    expansion = hermite_expansion(expr, variables)
    r = len(variables)
    assert hermite_tensor(expansion, 0)[()] == gaussian_expectation(expr, variables)  # a 0-d array
    for order in (1, 2, 3):
        tensor = hermite_tensor(expansion, order)
        assert tensor.shape == (r,) * order
        for index in itertools.product(range(r), repeat=order):
            derivative = sp.diff(expr, *(variables[k] for k in index)) if index else expr
            assert tensor[index] == gaussian_expectation(derivative, variables), (index, expr)


def test_hermite_tensor_is_the_gaussian_moment_with_tensor_hermite_polynomials():
    """Direct definition at order 2: (C_2)_{kl} = E[g (z_k z_l - delta_kl)]."""
    g = z1 * z2 + 3 * (z2**2 - 1) + z1 + z1**3 * z2
    c2 = hermite_tensor(hermite_expansion(g, [z1, z2]), 2)
    for k, l in itertools.product(range(2), repeat=2):
        he2 = [z1, z2][k] * [z1, z2][l] - (1 if k == l else 0)
        assert c2[k, l] == gaussian_expectation(g * he2, [z1, z2])
    assert c2.tolist() == [[0, 4], [4, 6]]


def test_worked_examples():
    e = hermite_expansion(z1**2 * z2, [z1, z2])
    assert dict(e.coefficients) == {(2, 1): 1, (0, 1): 1}
    assert e.support() == [(0, 1), (2, 1)]
    f = hermite_expansion(sp.Integer(0), [z1])
    assert dict(f.coefficients) == {} and f.degree() == 0 and f.norm2() == 0
    g = hermite_expansion(sp.sqrt(2) * z1 * z2 + sp.Rational(1, 3), [z1, z2])
    assert dict(g.coefficients) == {(1, 1): sp.sqrt(2), (0, 0): sp.Rational(1, 3)}
    assert g.norm2() == 2 + sp.Rational(1, 9)


def test_filter_and_unfold():
    e = hermite_expansion(z1 + z1 * z2 + (z2**2 - 1), [z1, z2])
    assert e.filter(lambda a: sum(a) == 2).support() == [(1, 1), (0, 2)]  # earlier variables first
    c2 = hermite_tensor(e, 2)
    m = unfold(c2, 2)
    assert m.shape == (2, 2) and m == sp.Matrix([[0, 1], [1, 2]])
    c3 = hermite_tensor(hermite_expansion(z1**2 * z2, [z1, z2]), 3)
    assert unfold(c3, 2).shape == (2, 4)
    assert unfold(hermite_tensor(e, 1), 2) == sp.Matrix([[1], [0]])


def test_large_expansions_are_refused_quickly():
    with pytest.raises(BudgetExceededError, match="limit 256; raise it with the environment variable FLT_MAX_DEGREE"):
        hermite_expansion((z1**2 + 1) ** 128 * (z2**2 + 1) ** 128, [z1, z2])  # degree 512
    with pytest.raises(BudgetExceededError, match="FLT_MAX_TERMS"):
        expand_target(Target.parse("(z1 + z2 + z3 + z4 + z5)**40"))


def test_moderately_large_expansions_are_fast_and_exact(monkeypatch):
    monkeypatch.setenv("FLT_MAX_DEGREE", "512")  # the documented way to raise the degree budget
    g = sp.hermite_prob(64, z1) ** 8  # degree 512
    e = hermite_expansion(g, [z1])
    assert e.coefficients[(512,)] == 1
    assert len(e.coefficients) == 257


def test_expansion_of_a_non_polynomial_is_refused():
    with pytest.raises(InvalidTargetError, match="not a polynomial"):
        hermite_expansion(sp.tanh(z1), [z1])
    with pytest.raises(InvalidTargetError, match="not a polynomial"):
        hermite_expansion(z1**-1, [z1])


# ---------------------------------------------------------------------------------------------
# expand_target


def test_expand_target_is_exact_for_polynomials():
    t = Target.parse("z1 + z1*z2")
    e = expand_target(t, degree=1)  # the degree is ignored: polynomials are expanded exactly
    assert e.support() == [(1, 0), (1, 1)] and e.exact and e.truncation_degree is None


def test_separable_expansion_uses_exact_link_coefficients():
    t = Target.from_links(["relu(z)", "z**2"])
    e = expand_target(t, degree=4)
    mu = hermite_coefficients("relu(z)", 4).exact
    assert e.exact and e.truncation_degree == 4
    assert e.coefficients[(0, 0)] == mu[0] + 1  # constants of both links
    assert e.coefficients[(1, 0)] == mu[1] and e.coefficients[(2, 0)] == mu[2] / 2
    assert (3, 0) not in e.coefficients and e.coefficients[(4, 0)] == mu[4] / 24
    assert e.coefficients[(0, 2)] == 1
    assert set(e.coefficients) == {(0, 0), (1, 0), (2, 0), (4, 0), (0, 2)}


def test_separable_numeric_expansion_drops_numeric_zeros():
    e = expand_target(Target.from_links(["tanh(z)"]), degree=6)
    assert not e.exact and e.truncation_degree == 6
    assert e.support() == [(1,), (3,), (5,)]  # tanh is odd: even coefficients vanish numerically
    assert expand_target(Target.from_links(["tanh(z)"])).truncation_degree == DEFAULT_DEGREE


def test_quadrature_expansion_of_a_polynomial_agrees_with_the_exact_one():
    t = Target.parse("z1*z2**2 + 3*z1 - He3(z2) + 2")
    numeric = _quadrature_expansion(t, 5)
    exact = hermite_expansion(t.expr, t.variables)
    assert not numeric.exact
    assert set(numeric.coefficients) == set(exact.coefficients)
    for alpha, c in exact.coefficients.items():
        assert float(numeric.coefficients[alpha]) == pytest.approx(float(c), abs=1e-10)


def test_quadrature_expansion_of_a_ridge_function_matches_the_one_dimensional_series():
    """g(z) = s(<v, z>) with |v| = 1 has g^(alpha) = mu_|alpha|(s) v^alpha / alpha!; here
    g = tanh(z1 + z2), v = (1, 1)/sqrt(2), s(t) = tanh(sqrt(2) t).

    The r-dimensional rule uses 2*degree + 20 nodes per axis and reports no accuracy; for this
    target its error is about 2e-7 (measured against 160 nodes), hence the tolerance. Coefficients
    that vanish by parity are exactly zero on the symmetric nodes and are dropped."""
    e = expand_target(Target.parse("tanh(z1 + z2)"), degree=5)
    assert not e.exact and e.truncation_degree == 5
    mu = hermite_coefficients("tanh(2**(1/2)*z)", 5).values
    for a1, a2 in itertools.product(range(6), repeat=2):
        n = a1 + a2
        if n > 5:
            continue
        expected = mu[n] * 0.5 ** (n / 2) / (math.factorial(a1) * math.factorial(a2))
        got = float(e.coefficients.get((a1, a2), 0.0))
        assert got == pytest.approx(expected, abs=1e-6), (a1, a2)
        if abs(expected) <= NUMERIC_ZERO / 10:
            assert (a1, a2) not in e.coefficients


def test_quadrature_contracts_each_prefix_once_with_the_same_floats():
    """Issue 38: each multi-index's contraction with the grid reuses the contraction of its prefix (a rank-4 target of
    degree 8 contracted the full grid 495 times, 7 s); every coefficient is bit for bit the one of contracting each
    multi-index afresh, as before."""
    import numpy as np

    from flt_theory.symbolic.evaluate import evaluate
    from flt_theory.symbolic.hermite import gauss_rule

    target, degree = Target.parse("tanh(z1*z2 - z3) + relu(z1 + 2*z3)*sin(z2)"), 5
    got = _quadrature_expansion(target, degree)
    nodes = max(2 * degree + 20, 24)  # as _quadrature_expansion chooses them for rank 3
    x, w = gauss_rule(nodes)
    grids = np.meshgrid(*([x] * 3), indexing="ij")
    values = np.asarray(evaluate(target.expr, target.variables, grids), dtype=float) * math.prod(
        np.meshgrid(*([w] * 3), indexing="ij"))
    he = np.polynomial.hermite_e.hermevander(x, degree)
    expected = {}
    for alpha in itertools.product(range(degree + 1), repeat=3):
        if sum(alpha) <= degree:
            c = values
            for a in alpha:
                c = np.tensordot(he[:, a], c, axes=([0], [0]))
            coefficient = float(c) / math.prod(math.factorial(a) for a in alpha)
            if abs(coefficient) > NUMERIC_ZERO:
                expected[alpha] = coefficient
    assert {a: float(c) for a, c in got.coefficients.items()} == expected and len(expected) > 20


def test_quadrature_refuses_too_many_dimensions():
    t = Target.parse("tanh(z1*z2*z3*z4*z5*z6*z7)")
    with pytest.raises(UnsupportedError, match="quadrature"):
        expand_target(t, degree=8)


def test_targets_without_a_square_integrability_certificate_are_refused():
    with pytest.raises(InvalidTargetError, match="grows faster than exp"):
        expand_target(Target.parse("exp(z1**4)*z2"), degree=2)
    with pytest.raises(InvalidTargetError, match="pole"):
        expand_target(Target.parse("z2/z1"), degree=2)
    assert expand_target(Target.parse("exp(z1*z2/4)*tanh(z2)"), degree=2).truncation_degree == 2  # q = 1/8
    with pytest.raises(InvalidTargetError, match="square integrable"):
        expand_target(Target.from_links(["exp(z**2)"]), degree=2)


def test_hermite_expansion_is_a_value_object():
    a = HermiteExpansion({(1,): sp.Integer(1)}, 1)
    assert a == HermiteExpansion({(1,): sp.Integer(1)}, 1)
    assert a.to_expr([z1]) == z1
