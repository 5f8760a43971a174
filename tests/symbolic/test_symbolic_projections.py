"""P_{U,<=kappa} f*, ||P_{U,>kappa} f*||^2 and the (kappa_n, kappa_p) regime table (Dandi et al. 2023, arXiv 2305.18270,
second-layer claims)."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from _symbolic_helpers import gaussian_expectation, partial_expectation, z
from hypothesis import given, settings, strategies as st

from flt_theory.symbolic import projections
from flt_theory.symbolic.hermite import hermite_expansion
from flt_theory.symbolic.parser import parse_expression
from flt_theory.symbolic.subspace import Subspace
from flt_theory.symbolic.target import Target

z1, z2, z3 = z(1), z(2), z(3)
R2 = sp.sqrt(2) / 2
FIVE = Target.parse("z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)")


def span(vectors, r):
    return Subspace.span(vectors, r)


# ---------------------------------------------------------------------------------------------
# the five-regime table of the seed example


FIVE_ROWS = [
    # (kappa_n, kappa_p, subspace, fitted (parser text), residual)
    ((1, 0), [[1, 0, 0]], "z1", 56),
    ((1, 1), [[1, 0, 0]], "z1 + He2(z1)*z2", 54),
    ((2, 0), [[1, 0, 0], [0, 1, 0]], "z1 + He2(z2) + He2(z1)*z2", 52),
    ((2, 1), [[1, 0, 0], [0, 1, 0]], "z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3", 4),
    ((2, 2), [[1, 0, 0], [0, 1, 0]], "z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)", 0),
]


def test_five_regime_table_exactly():
    rows = projections.regime_table(FIVE, [r[0] for r in FIVE_ROWS])
    assert len(rows) == 5
    for row, ((kn, kp), basis, fitted, residual) in zip(rows, FIVE_ROWS):
        assert (row.kappa_n, row.kappa_p, row.kappa) == (kn, kp, min(kn, kp))
        assert row.subspace == span(basis, 3)
        assert row.subspace.basis.tolist() == basis
        assert sp.expand(row.projection.fitted - parse_expression(fitted)) == 0
        assert row.projection.residual_norm2 == residual
        assert row.projection.norm2 == 57
        assert sp.expand(row.projection.fitted_expansion.to_expr(FIVE.variables) - row.projection.fitted) == 0


def test_five_example_norm_and_fitted_text():
    assert FIVE.polynomial_degree() == 7
    rows = projections.regime_table(FIVE, [(2, 2)])
    text = projections.format_hermite(rows[0].projection.fitted_expansion)
    assert text == "z1 + He2(z2) + He2(z1)*z2 + He2(z2)*He2(z3) + He4(z1)*He2(z2)*z3"


def test_regime_table_rows_are_consistent_with_project_and_learned_subspace():
    for (kn, kp), *_ in FIVE_ROWS:
        u = projections.learned_subspace(FIVE, kn)
        assert (
            projections.project(FIVE, u, min(kn, kp)).residual_norm2
            == projections.regime_table(FIVE, [(kn, kp)])[0].projection.residual_norm2
        )


def test_regime_table_with_several_steps_uses_the_staircase():
    """Given z1 = s, E[d f/d z2] = He2(s) and E[d f/d z3] = 0, so U_2 = span(w1, w2); given (z1, z2),
    E[d f/d z3] = He4(s1) He2(s2), so U_3 = V*."""
    (row2,) = projections.regime_table(FIVE, [(1, 1)], steps=2)
    assert row2.subspace == span([[1, 0, 0], [0, 1, 0]], 3)
    assert row2.projection.residual_norm2 == 4  # He2(z2)He2(z3): degree 2 > 1 in z3, norm 2!2!
    (row3,) = projections.regime_table(FIVE, [(1, 1)], steps=3)
    assert row3.subspace == Subspace.full(3) and row3.projection.residual_norm2 == 0


# ---------------------------------------------------------------------------------------------
# conditional variance E[Var(f | P_U x)] = ||P_{U,>0} f||^2


def test_conditional_variance_against_a_direct_computation_on_a_coordinate_subspace():
    f = z1 + z1 * z2 + (z2**2 - 1) + z1**2 * z2**2 + 3
    t = Target.from_expression(f)
    mean_given_z1 = partial_expectation(f, [z2])
    direct = gaussian_expectation((f - mean_given_z1) ** 2, [z1, z2])
    assert projections.conditional_variance(t, span([[1, 0]], 2)) == direct
    assert direct == gaussian_expectation(f**2, [z1, z2]) - gaussian_expectation(mean_given_z1**2, [z1])


def test_conditional_variance_against_a_direct_computation_on_a_rotated_subspace():
    """U = span(w1 + w2): write z1 = (s + u)/sqrt(2), z2 = (s - u)/sqrt(2) and average over u."""
    f = z1 + z2**2 + z1 * z2 + (z1**3 - 3 * z1) * z2
    t = Target.from_expression(f)
    s, u = sp.symbols("s u", real=True)
    g = sp.expand(f.subs({z1: (s + u) * R2, z2: (s - u) * R2}, simultaneous=True))
    mean = partial_expectation(g, [u])
    direct = gaussian_expectation((g - mean) ** 2, [s, u])
    assert sp.simplify(projections.conditional_variance(t, span([[1, 1]], 2)) - direct) == 0


def test_conditional_variance_extremes():
    t = Target.parse("z1 + z1*z2 + He2(z2)")
    assert projections.conditional_variance(t, Subspace.full(2)) == 0
    assert projections.conditional_variance(t, Subspace.zero(2)) == t_norm2(t)  # Var(f) (f has mean 0)


def t_norm2(t):
    return gaussian_expectation(t.expr**2, t.variables) - gaussian_expectation(t.expr, t.variables) ** 2


# ---------------------------------------------------------------------------------------------
# random features: U = {0}


def test_random_feature_error_keeps_degrees_up_to_kappa():
    t = Target.parse("z1 + He2(z2) + He3(z1) + 5")
    # norm2 = 25 + 1 + 2 + 6; the constant is degree 0 and always kept
    assert [projections.random_feature_error(t, k) for k in (0, 1, 2, 3, 4)] == [9, 8, 6, 0, 0]
    assert projections.random_feature_error(t, 1.5) == 8 and projections.random_feature_error(t, 2.999) == 6


def test_random_feature_error_for_relu_truncation():
    t = Target.from_links(["relu(z)"])
    # degree-8 truncation: the part of degree > 1 is sum_{j=2..8} mu_j^2 / j!
    expected = sum(
        (sp.Rational(1, 1) / (2 * sp.pi) * c / sp.factorial(j) for j, c in [(2, 1), (4, 1), (6, 9), (8, 225)]),
        sp.Integer(0),
    )
    assert sp.simplify(projections.random_feature_error(t, 1) - expected) == 0


# ---------------------------------------------------------------------------------------------
# projection onto a rotated subspace, checked by its defining properties


ROTATED = [
    # (target, U basis (orthonormal rows), U-perp basis (orthonormal rows))
    ("z1 + He2(z1) + z2 - He2(z2)", [[R2, R2]], [[R2, -R2]]),
    ("z1 + z2 + z1*z2 + He3(z1) + z2**2*z1", [[R2, R2]], [[R2, -R2]]),
    ("z1*z2*z3 + He2(z3) + z1 - z2", [[R2, 0, R2]], [[0, 1, 0], [R2, 0, -R2]]),
]


@pytest.mark.parametrize("text, basis, complement", ROTATED, ids=[r[0] for r in ROTATED])
@pytest.mark.parametrize("kappa", [0, 1, 2])
def test_rotated_projection_is_the_orthogonal_projection(text, basis, complement, kappa):
    t = Target.parse(text)
    variables = list(t.variables)
    u_space = Subspace.span(basis, t.rank)
    result = projections.project(t, u_space, kappa)
    f, fitted = sp.expand(t.expr), result.fitted
    residual = sp.expand(f - fitted)
    b, q = sp.Matrix(basis), sp.Matrix(complement)
    zvec = sp.Matrix(variables)
    s_of_z, u_of_z = list(b * zvec), list(q * zvec)
    degree = sp.Poly(f, *variables).total_degree()

    # 1. fitted lies in P_{U,kappa}: degree <= kappa in the U-perp coordinates
    s_sym = sp.symbols(f"s1:{len(basis) + 1}", real=True)
    u_sym = sp.symbols(f"u1:{len(complement) + 1}", real=True)
    back = b.T * sp.Matrix(s_sym) + q.T * sp.Matrix(u_sym)
    in_rotated = sp.expand(fitted.subs(dict(zip(variables, back)), simultaneous=True))
    if in_rotated != 0:
        assert sp.Poly(in_rotated, *u_sym).total_degree() <= kappa

    # 2. the residual is orthogonal to all of P_{U,kappa} (polynomials of degree <= degree)
    for a in itertools.product(range(degree + 1), repeat=len(s_sym)):
        for c in itertools.product(range(kappa + 1), repeat=len(u_sym)):
            if sum(c) > kappa or sum(a) + sum(c) > degree:
                continue
            h = sp.Mul(*(si**ai for si, ai in zip(s_of_z, a))) * sp.Mul(*(ui**ci for ui, ci in zip(u_of_z, c)))
            assert sp.simplify(gaussian_expectation(residual * h, variables)) == 0, (a, c)

    # 3. norms: Pythagoras and the reported numbers
    assert sp.simplify(result.residual_norm2 - gaussian_expectation(residual**2, variables)) == 0
    assert sp.simplify(result.norm2 - gaussian_expectation(f**2, variables)) == 0
    assert sp.simplify(gaussian_expectation(residual * fitted, variables)) == 0

    # 4. idempotent
    again = projections.project(Target.from_expression(fitted, rank=t.rank), u_space, kappa)
    assert sp.expand(again.fitted - fitted) == 0 and again.residual_norm2 == 0


def test_rotated_projection_example_a_by_hand():
    """f = sqrt(2) He1(s) + 2 He1(s) He1(u) in s = (z1 + z2)/sqrt(2), u = (z1 - z2)/sqrt(2)."""
    t = Target.from_links(["z + He2(z)", "z - He2(z)"])
    u_space = span([[1, 1]], 2)
    r0 = projections.project(t, u_space, 0)
    assert sp.expand(r0.fitted - (z1 + z2)) == 0 and r0.residual_norm2 == 4 and r0.norm2 == 6
    r1 = projections.project(t, u_space, 1)
    assert sp.expand(r1.fitted - t.expr) == 0 and r1.residual_norm2 == 0
    assert projections.format_hermite(r1.fitted_expansion) == "z1 + z2 + He2(z1) - He2(z2)"


# ---------------------------------------------------------------------------------------------
# numeric (truncated) targets


def test_numeric_projection_reports_w_star_coordinates():
    """Regression: the fitted expansion of a numeric target used to carry permuted multi-indices
    (here (1, 0) for z2), and non-exact or sign-flipped coordinate bases were refused."""
    t = Target.from_links(["z", "tanh(z)"])
    exact_basis = span([[0, 1]], 2)
    flipped = Subspace(sp.Matrix([[0, -1.0]]), 2)
    results = [projections.project(t, u, 0, degree=3) for u in (exact_basis, flipped)]
    for r in results:
        assert set(r.fitted_expansion.coefficients) == {(0, 1), (0, 3)}
        assert not r.fitted_expansion.exact and r.fitted_expansion.truncation_degree == 3
        assert float(r.residual_norm2) == pytest.approx(1.0, abs=1e-12)  # the z1 part
    assert sp.expand(results[0].fitted - results[1].fitted) == 0
    mu1 = float(results[0].fitted_expansion.coefficients[(0, 1)])
    assert mu1 == pytest.approx(0.6057055096021591, abs=1e-12)


def test_numeric_projection_on_a_rotated_subspace():
    """The Hermite chaos of each degree is rotation invariant, so truncated targets can be projected
    on any subspace (this used to raise UnsupportedError). g = tanh(z1) + tanh(z2) truncated at degree
    3 is mu1 sqrt(2) He1(s) + (mu3/6)(He3(s) + 3 s He2(u))/sqrt(2) in s = (z1 + z2)/sqrt(2),
    u = (z1 - z2)/sqrt(2); kappa = 1 drops s He2(u), which leaves the He1(z_k) coefficients at mu1."""
    t = Target.from_links(["tanh(z)", "tanh(z)"])
    r = projections.project(t, span([[1, 1]], 2), 1, degree=3)
    assert float(r.norm2) == pytest.approx(float(r.residual_norm2) + float(_norm2_of(r.fitted, t)), abs=1e-12)
    assert all(not isinstance(c, sp.Integer) for c in r.fitted_expansion.coefficients.values())
    c1, c3 = (float(v) for v in (r.fitted_expansion.coefficients[(1, 0)], r.fitted_expansion.coefficients[(3, 0)]))
    assert c1 == pytest.approx(0.6057055096021591, abs=1e-12)
    assert r.fitted_expansion.coefficients[(0, 3)] == pytest.approx(c3)


def _norm2_of(fitted, t):
    return hermite_expansion(fitted, t.variables).norm2()


def test_numeric_norms_are_floats_not_fake_rationals():
    r = projections.project(Target.from_links(["tanh(z)"]), Subspace.zero(1), 1, degree=5)
    assert isinstance(r.norm2, sp.Float) and isinstance(r.residual_norm2, sp.Float)


# ---------------------------------------------------------------------------------------------
# format_hermite


@settings(max_examples=30, deadline=None, database=None)
@given(
    st.lists(
        st.tuples(st.tuples(st.integers(0, 3), st.integers(0, 3)), st.fractions(-5, 5, max_denominator=7)),
        min_size=0,
        max_size=5,
    )
)
def test_format_hermite_round_trips_through_the_parser(terms):
    """For rational coefficients the text is in the parser's grammar and means the same polynomial."""
    expr = sum(
        (
            sp.Rational(c.numerator, c.denominator) * sp.hermite_prob(a, z1) * sp.hermite_prob(b, z2)
            for (a, b), c in terms
        ),
        sp.Integer(0),
    )
    expansion = hermite_expansion(sp.expand(expr), [z1, z2])
    text = projections.format_hermite(expansion)
    assert sp.expand(parse_expression(text) - expr) == 0


def test_format_hermite_examples():
    assert projections.format_hermite(hermite_expansion(z1 + (z1**2 - 1) * z2, [z1, z2])) == "z1 + He2(z1)*z2"
    assert projections.format_hermite(hermite_expansion(sp.Integer(0), [z1])) == "0"
    assert projections.format_hermite(hermite_expansion(2 - z1, [z1])) == "2 - z1"
    assert projections.format_hermite(hermite_expansion(-z1 / 2 + 3 * z2, [z1, z2])) == "(-1/2)*z1 + 3*z2"
    assert projections.format_hermite(hermite_expansion(z1 * z2, [z1, z2]), names=["a", "b"]) == "a*b"


def test_float_and_exact_bases_of_the_same_subspace_agree():
    t = Target.parse("z1 + z1*z2 + He2(z2)")
    exact = projections.project(t, span([[3, 4]], 2), 1)
    floating = projections.project(t, Subspace.span([[0.6, 0.8]], 2), 1)
    assert exact.residual_norm2 == sp.Rational(18, 625) and exact.fitted_expansion.exact
    assert not floating.fitted_expansion.exact
    assert float(floating.residual_norm2) == pytest.approx(18 / 625, abs=1e-12)
    for alpha, c in exact.fitted_expansion.coefficients.items():
        assert float(floating.fitted_expansion.coefficients[alpha]) == pytest.approx(float(c), abs=1e-12)
