"""One-variable Hermite coefficients (probabilists' He_j, E[He_j He_k] = j! delta_jk): exact tables
against sympy.integrate, the numeric path against scipy quadrature, and the defining properties."""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.special
import sympy as sp
from _symbolic_helpers import Z, gaussian_expectation, hermite_mu_by_integration, is_zero
from hypothesis import given, settings, strategies as st

from flt_theory.symbolic.functions import relu
from flt_theory.symbolic.hermite import (
    QUADRATURE_NODES,
    _quadrature_coefficients,
    gaussian_moment,
    half_gaussian_moment,
    hermite_coefficients,
    monomial_to_hermite,
)

SQRT_2PI = sp.sqrt(2 * sp.pi)


# ---------------------------------------------------------------------------------------------
# exact tables


def test_relu_table_by_hand():
    mu = hermite_coefficients("relu(z)", 8).exact
    assert mu[0] == mu[2] == 1 / SQRT_2PI
    assert mu[1] == sp.Rational(1, 2)
    assert mu[3] == mu[5] == mu[7] == 0
    assert mu[4] == -1 / SQRT_2PI
    assert mu[6] == 3 / SQRT_2PI
    assert mu[8] == -15 / SQRT_2PI  # (-1)^(k+1) (2k-3)!! / sqrt(2 pi) for j = 2k


def test_cubic_polynomial_table():
    c = hermite_coefficients("z**3", 5)
    assert c.exact == (0, 3, 0, 6, 0, 0)
    assert c.values == (0.0, 3.0, 0.0, 6.0, 0.0, 0.0)
    assert c.method == "exact" and c.accuracy == 0.0


# (text, sigma on z > 0, sigma on z < 0, largest j checked)
PIECEWISE = [
    ("relu(z)", Z, 0, 12),
    ("relu(z)**2", Z**2, 0, 8),
    ("relu(z)**3", Z**3, 0, 8),
    ("abs(z)", Z, -Z, 8),
    ("sign(z)", 1, -1, 8),
    ("z**3", Z**3, Z**3, 5),
    ("relu(z) - z/2", Z / 2, -Z / 2, 4),  # = |z|/2
    ("z*sign(z) + relu(z)**2", Z + Z**2, -Z, 4),
]


@pytest.mark.parametrize("text, plus, minus, top", PIECEWISE, ids=[p[0] for p in PIECEWISE])
def test_exact_coefficients_match_sympy_integration(text, plus, minus, top):
    c = hermite_coefficients(text, top)
    assert c.method == "exact" and c.accuracy == 0.0
    for j in range(top + 1):
        expected = hermite_mu_by_integration(sp.sympify(plus), sp.sympify(minus), j)
        assert is_zero(c.exact[j] - expected), (text, j, c.exact[j], expected)
        assert c.values[j] == pytest.approx(float(expected), abs=1e-12)


def test_sympy_expression_input_with_another_variable_name():
    t = sp.Symbol("t", real=True)
    by_expr = hermite_coefficients(relu(t) ** 2, 5)
    by_text = hermite_coefficients("relu(z)**2", 5)
    assert by_expr.exact == by_text.exact


@pytest.mark.parametrize("m", range(13))
def test_half_gaussian_moments_match_integration(m):
    expected = sp.integrate(Z**m * sp.exp(-(Z**2) / 2), (Z, 0, sp.oo)) / SQRT_2PI
    assert is_zero(half_gaussian_moment(m) - expected)
    assert gaussian_moment(m) == (2 * expected if m % 2 == 0 else 0)


@pytest.mark.parametrize("m", range(11))
def test_monomial_to_hermite_reconstructs_the_monomial(m):
    coefficients = monomial_to_hermite(m)
    assert sp.expand(sum(c * sp.hermite_prob(k, Z) for k, c in coefficients.items()) - Z**m) == 0
    assert all(k % 2 == m % 2 for k in coefficients)


# ---------------------------------------------------------------------------------------------
# numeric path


def _quad_mu(f, j: int) -> float:
    he = scipy.special.eval_hermitenorm

    def integrand(x):
        return f(x) * he(j, x) * math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    with warnings.catch_warnings():  # roundoff warnings for integrals that are exactly 0
        warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
        value, error = scipy.integrate.quad(integrand, -14.0, 14.0, epsabs=1e-13, epsrel=1e-13, limit=400)
    assert error < 1e-10  # the Gaussian tail beyond |x| = 14 is below 1e-40
    return value


@pytest.mark.parametrize(
    "text, f",
    [
        ("tanh(z)", np.tanh),
        ("erf(z)", scipy.special.erf),
        ("sigmoid(z)", scipy.special.expit),
        ("sin(z) + cos(2*z)", lambda x: np.sin(x) + np.cos(2 * x)),
    ],
)
def test_numeric_coefficients_agree_with_scipy_quad(text, f):
    c = hermite_coefficients(text, 8)
    assert c.method in ("gauss-hermite", "exact")  # erf, sin, cos have closed forms
    assert c.accuracy < 1e-8
    for j in range(9):
        assert c.values[j] == pytest.approx(_quad_mu(f, j), abs=1e-8), (text, j)


def test_exp_has_all_coefficients_equal_to_sqrt_e():
    """E[e^z He_j(z)] = e^{1/2} for every j (the generating function of He_j)."""
    c = hermite_coefficients("exp(z)", 10)
    assert c.accuracy < 1e-10
    for j in range(11):
        assert c.values[j] == pytest.approx(math.exp(0.5), rel=1e-10)


def test_known_closed_forms_of_smooth_activations():
    # erf(z): mu_1 = E[erf'(z)] = E[2/sqrt(pi) e^{-z^2}] = 2/sqrt(3 pi); odd, so even coefficients vanish
    c = hermite_coefficients("erf(z)", 4)
    assert c.values[1] == pytest.approx(2 / math.sqrt(3 * math.pi), abs=1e-12)
    assert c.values[0] == pytest.approx(0.0, abs=1e-14) and c.values[2] == pytest.approx(0.0, abs=1e-14)
    # sin(z): mu_j = E[sin^{(j)}(z)] = e^{-1/2} * (0, 1, 0, -1, ...)
    s = hermite_coefficients("sin(z)", 5)
    assert s.values == pytest.approx([0, math.exp(-0.5), 0, -math.exp(-0.5), 0, math.exp(-0.5)], abs=1e-12)


@pytest.mark.parametrize("poly", [Z**3, Z**5 - 2 * Z**2 + 1, sp.hermite_prob(7, Z) + 3 * sp.hermite_prob(2, Z)])
def test_numeric_path_on_polynomials_agrees_with_exact(poly):
    exact = hermite_coefficients(poly, 10).exact
    for nodes in (QUADRATURE_NODES, 2 * QUADRATURE_NODES):
        numeric, _ = _quadrature_coefficients(poly, Z, 10, nodes)
        for j in range(11):
            assert numeric[j] == pytest.approx(float(exact[j]), abs=1e-10 * max(1.0, math.factorial(j)))


def test_first_nonzero():
    assert hermite_coefficients("He3(z) + He5(z)", 6).first_nonzero() == 3
    assert hermite_coefficients("tanh(z)", 6).first_nonzero(start=2) == 3
    assert hermite_coefficients("He2(z)", 6).first_nonzero(start=3) is None
    assert hermite_coefficients("relu(z)", 6).first_nonzero(start=3) == 4


# ---------------------------------------------------------------------------------------------
# defining properties


@pytest.mark.parametrize("nodes, degree", [(QUADRATURE_NODES, 30), (20, 19), (5, 4)])
def test_gauss_hermite_vandermonde_is_orthogonal(nodes, degree):
    """V^T diag(w) V = diag(j!) with V = hermevander(x, K), w = hermegauss weights / sqrt(2 pi):
    exact as long as 2K <= 2*nodes - 1."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    v = np.polynomial.hermite_e.hermevander(x, degree)
    gram = v.T @ (w[:, None] * v)
    norms = np.sqrt([float(math.factorial(j)) for j in range(degree + 1)])
    np.testing.assert_allclose(gram / np.outer(norms, norms), np.eye(degree + 1), atol=1e-10)


def test_gauss_hermite_vandermonde_fails_beyond_its_degree():
    """Negative control: with n nodes, E[He_n^2] = n! is not reproduced (He_n vanishes on the nodes)."""
    n = 6
    x, w = np.polynomial.hermite_e.hermegauss(n)
    v = np.polynomial.hermite_e.hermevander(x, n)
    gram = v.T @ ((w / math.sqrt(2 * math.pi))[:, None] * v)
    assert abs(gram[n, n] - math.factorial(n)) > 1.0


@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=7))
def test_parseval_is_exact_for_polynomials(coefficients):
    sigma = sum((c * Z**k for k, c in enumerate(coefficients)), sp.Integer(0))
    degree = len(coefficients) - 1
    mu = hermite_coefficients(sigma, degree + 2, variable=Z).exact
    assert mu[degree + 1] == mu[degree + 2] == 0
    parseval = sum((m**2 / sp.factorial(j) for j, m in enumerate(mu)), sp.Integer(0))
    assert parseval == gaussian_expectation(sigma**2, [Z])


@settings(max_examples=25, deadline=None, database=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=6))
def test_polynomial_is_its_own_hermite_series(coefficients):
    sigma = sum((c * Z**k for k, c in enumerate(coefficients)), sp.Integer(0))
    degree = len(coefficients) - 1
    mu = hermite_coefficients(sigma, degree, variable=Z).exact
    series = sum((m / sp.factorial(j) * sp.hermite_prob(j, Z) for j, m in enumerate(mu)), sp.Integer(0))
    assert sp.expand(series - sigma) == 0


def test_parseval_for_relu_converges_to_its_second_moment():
    """sum_j mu_j^2 / j! -> E[relu^2] = 1/2 (the tail of the ReLU series decays like j^{-3/2})."""
    mu = hermite_coefficients("relu(z)", 40).values
    partial = sum(m * m / math.factorial(j) for j, m in enumerate(mu))
    assert 0.5 - 5e-3 < partial <= 0.5


# ----------------------------------------------------------------------------------------------
# closed forms to degree 60 (issue 10, point 7) and honest numeric errors


def test_exp_sin_cos_closed_forms_to_degree_60():
    r"""E[e^{tz} He_j] = t^j e^{t^2/2}: t = 1 gives e^{1/2}; t = ±i gives sin, cos = e^{-1/2} (sin, cos)(j pi/2)."""
    e, s, c = (hermite_coefficients(f, 60) for f in ("exp(z)", "sin(z)", "cos(z)"))
    for j in range(61):
        assert e.exact[j] == sp.exp(sp.Rational(1, 2))
        assert s.exact[j] == [0, 1, 0, -1][j % 4] * sp.exp(-sp.Rational(1, 2))
        assert c.exact[j] == [1, 0, -1, 0][j % 4] * sp.exp(-sp.Rational(1, 2))
    assert e.method == s.method == c.method == "exact" and e.accuracy == 0.0


def test_erf_closed_form_to_degree_60_by_parseval():
    r"""E[erf(z)^2] = (2/pi) arcsin(2/3) (Gaussian orthant formula, E[erf(az)erf(bz)] =
    (2/pi) arcsin(2ab/sqrt((1+2a^2)(1+2b^2)))), so sum_j mu_j^2/j! must reach it; the terms decay like
    (4/9)^m, so the tail after degree 60 is below 1e-11 and every coefficient up to 60 is checked."""
    c = hermite_coefficients("erf(z)", 61)
    assert c.method == "exact"
    with mpmath.workdps(40):
        total = mpmath.fsum(mpmath.mpf(sp.N(mu**2, 40)) / mpmath.factorial(j) for j, mu in enumerate(c.exact))
        assert abs(total - 2 / mpmath.pi * mpmath.asin(mpmath.mpf(2) / 3)) < 1e-11
    for j in range(6):  # and the first few against direct integration
        with mpmath.workdps(30):
            direct = mpmath.quad(
                lambda x: mpmath.erf(x) * mpmath.hermite(j, x / mpmath.sqrt(2)) * 2 ** (-mpmath.mpf(j) / 2)  # noqa: B023 (called within this iteration)
                * mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi),
                [-mpmath.inf, 0, mpmath.inf],
            )
        assert float(c.exact[j]) == pytest.approx(float(direct), abs=1e-15)


@pytest.mark.parametrize(
    "text, exact",
    [
        ("exp(z)", lambda j: math.exp(0.5)),
        ("sin(z)", lambda j: [0, 1, 0, -1][j % 4] * math.exp(-0.5)),
        ("erf(z)", None),
    ],
)
def test_numeric_errors_bound_the_true_error_to_degree_60(text, exact):
    """The Gauss-Hermite path, forced on functions with closed forms: its stated errors[j] bound the
    true error at every degree (they grow with j instead of hiding it)."""
    from flt_theory.symbolic.target import parse_link

    sigma = parse_link(text)
    truth = hermite_coefficients(text, 60).exact if exact is None else [exact(j) for j in range(61)]
    coarse, _ = _quadrature_coefficients(sigma, Z, 60, QUADRATURE_NODES)
    fine, rounding = _quadrature_coefficients(sigma, Z, 60, 2 * QUADRATURE_NODES)
    errors = abs(fine - coarse) + rounding
    for j in range(61):
        assert abs(fine[j] - float(truth[j])) <= errors[j], (text, j)
    assert errors[5] < 1e-10  # and low orders stay accurate


def test_tanh_stated_errors_are_honest_against_mpmath():
    c = hermite_coefficients("tanh(z)", 40)
    assert c.method == "gauss-hermite" and len(c.errors) == 41
    for j in (1, 3, 9, 15):
        with mpmath.workdps(30):
            direct = mpmath.quad(
                lambda x: mpmath.tanh(x) * mpmath.hermite(j, x / mpmath.sqrt(2)) * 2 ** (-mpmath.mpf(j) / 2)  # noqa: B023 (called within this iteration)
                * mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi),
                [-mpmath.inf, 0, mpmath.inf],
            )
        assert abs(c.values[j] - float(direct)) <= c.errors[j] + 1e-15
    assert c.errors[1] < 1e-12 < c.errors[40]  # per-coefficient, not one accuracy for all
