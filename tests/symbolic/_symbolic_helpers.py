"""Independent reference computations for the symbolic tests.

Nothing here calls flt_theory: Gaussian expectations come from the moments E[z^m] = (m-1)!!,
Hermite coefficients from ``sympy.integrate``, so the tests compare the library with a second,
separately written route to the same number.
"""

from __future__ import annotations

import functools
import math

import sympy as sp
from hypothesis import strategies as st

Z = sp.Symbol("z", real=True)
PHI_UNNORMALISED = sp.exp(-(Z**2) / 2)  # the density is this / sqrt(2 pi)


def z(k: int) -> sp.Symbol:
    """The library's coordinate symbol ``z_k`` (real), rebuilt here by name."""
    return sp.Symbol(f"z{k}", real=True)


def moment(m: int) -> int:
    """E[g^m] for g ~ N(0, 1): (m-1)!! for even m, 0 for odd m."""
    return 0 if m % 2 else math.prod(range(m - 1, 0, -2))


def gaussian_expectation(expr: sp.Expr, symbols) -> sp.Expr:
    """E[expr] for a polynomial ``expr`` in iid standard Gaussians ``symbols`` (other symbols are constants)."""
    symbols = list(symbols)
    poly = sp.Poly(sp.expand(expr), *symbols)
    return sp.expand(sum((c * math.prod(moment(m) for m in mono) for mono, c in poly.terms()), sp.Integer(0)))


def partial_expectation(expr: sp.Expr, integrate_out) -> sp.Expr:
    """E over the Gaussians ``integrate_out`` only (a conditional expectation given the others)."""
    return gaussian_expectation(expr, integrate_out)


@functools.lru_cache(maxsize=None)
def _monomial_integral(k: int, lower: sp.Expr, upper: sp.Expr) -> sp.Expr:
    """int_lower^upper z^k exp(-z^2/2) dz by sympy.integrate (each monomial integrated once per process)."""
    return sp.integrate(Z**k * PHI_UNNORMALISED, (Z, lower, upper))


def _half_line_integral(polynomial: sp.Expr, lower: sp.Expr, upper: sp.Expr) -> sp.Expr:
    """int_lower^upper polynomial(z) exp(-z^2/2) dz by sympy.integrate: a polynomial in z term by term (the
    integral is linear; sympy integrates a sum term by term too), anything else whole."""
    if polynomial.is_polynomial(Z):
        terms = sp.Poly(polynomial, Z).terms()
        return sp.Add(*(coefficient * _monomial_integral(k, lower, upper) for (k,), coefficient in terms))
    return sp.integrate(polynomial * PHI_UNNORMALISED, (Z, lower, upper))


def hermite_mu_by_integration(plus: sp.Expr, minus: sp.Expr, j: int) -> sp.Expr:
    """mu_j = E[sigma He_j] by sympy.integrate, with sigma = plus on z > 0 and minus on z < 0."""
    he = sp.hermite_prob(j, Z)
    right = _half_line_integral(sp.expand(plus * he), sp.Integer(0), sp.oo)
    left = _half_line_integral(sp.expand(minus * he), -sp.oo, sp.Integer(0))
    return sp.simplify((right + left) / sp.sqrt(2 * sp.pi))


def is_zero(expr) -> bool:
    return sp.simplify(sp.sympify(expr)) == 0


def brute_force_leap(support) -> int:
    """Leap complexity minimised over every ordering of the support (Abbe, Boix-Adserà, Misiakiewicz 2023).

    Exhaustive, by dynamic programming over the SET of terms placed first: an ordering's cost is the largest
    cost of its terms, and a term's cost (its degree outside the coordinates touched before it) depends on the
    set placed before it, not on their order. So best(S) = min over a in S of max(best(S - a), cost(a | S - a)),
    the same minimum as trying all |S|! orderings, in 2^|S|·|S| steps.
    """
    terms = [a for a in support if any(a)]
    if not terms:
        return 0
    touched = [{k for k, ak in enumerate(a) if ak} for a in terms]
    best = {0: 0}
    for mask in range(1, 1 << len(terms)):
        before_sets = []
        for i, a in enumerate(terms):
            if mask >> i & 1:
                rest = mask & ~(1 << i)
                seen = set().union(*(touched[j] for j in range(len(terms)) if rest >> j & 1))
                before_sets.append(max(best[rest], sum(ak for k, ak in enumerate(a) if k not in seen)))
        best[mask] = min(before_sets)
    return best[(1 << len(terms)) - 1]


@st.composite
def integer_polynomials(draw, max_vars: int = 3, max_degree: int = 4, max_terms: int = 5):
    """(expr, variables): a polynomial with small integer coefficients in z1..zr, total degree <= max_degree."""
    r = draw(st.integers(1, max_vars))
    variables = [z(k) for k in range(1, r + 1)]
    exponents = st.tuples(*[st.integers(0, max_degree)] * r).filter(lambda m: sum(m) <= max_degree)
    monomials = draw(st.lists(exponents, min_size=1, max_size=max_terms, unique=True))
    coefficients = draw(st.lists(st.integers(-3, 3), min_size=len(monomials), max_size=len(monomials)))
    expr = sum(
        (c * sp.Mul(*(v**m for v, m in zip(variables, mono))) for c, mono in zip(coefficients, monomials)),
        sp.Integer(0),
    )
    return expr, variables
