r"""Hermite expansions in the probabilists' convention.

Convention (used everywhere in flt_theory): :math:`\mathrm{He}_j` are the probabilists' Hermite
polynomials, monic, orthogonal under :math:`\gamma = \mathcal N(0, 1)` with
:math:`\mathbb E[\mathrm{He}_j \mathrm{He}_k] = j!\,\delta_{jk}`. A function of one variable
expands as

.. math:: \sigma(z) = \sum_{j \ge 0} \frac{\mu_j}{j!}\,\mathrm{He}_j(z), \qquad
          \mu_j = \mathbb E_{z\sim\gamma}[\sigma(z)\,\mathrm{He}_j(z)],

so that Parseval reads :math:`\mathbb E[\sigma^2] = \sum_j \mu_j^2 / j!` (Dandi et al. 2023, arXiv 2305.18270).
A polynomial of :math:`z \in \mathbb R^r` expands in the product basis
:math:`\mathrm{He}_\alpha(z) = \prod_k \mathrm{He}_{\alpha_k}(z_k)` as
:math:`g = \sum_\alpha \hat g(\alpha) \mathrm{He}_\alpha` with
:math:`\|g\|_\gamma^2 = \sum_\alpha \hat g(\alpha)^2 \alpha!`, and the order-:math:`j` Hermite tensor
is :math:`C_j = \mathbb E[g(z)\,\mathrm{He}_j(z)] = \mathbb E[\nabla^j g]`, entrywise
:math:`(C_j)_{k_1\dots k_j} = \alpha!\,\hat g(\alpha)` with :math:`\alpha` the multiplicities of
:math:`(k_1,\dots,k_j)` (the tensor Hermite polynomial's entries are the :math:`\mathrm{He}_\alpha`).

Levels (after ``sympy.polys.orthopolys``): exact rational recursions underneath
(:func:`monomial_to_hermite`, :func:`half_gaussian_moment`), exact expansions of polynomials and of
piecewise polynomials built from relu/abs/sign (:func:`hermite_coefficients`), Gauss–Hermite
quadrature with a reported accuracy for other functions. A link function given as a string is parsed by the
restricted grammar of :mod:`.parser` and refused beyond the floating-point range (:func:`parse_link`,
:func:`check_float_range`: they live here, below :mod:`.target`, because the range check needs the expansion).
Checked (``tests/symbolic``): exact tables against ``sympy.integrate`` (relu to degree 12; relu², relu³, abs,
sign to 8), numeric coefficients of tanh/erf/sigmoid against ``scipy.integrate.quad`` to 1e-8, Parseval,
orthogonality of the Vandermonde under Gauss weights, and multivariate tensors against
:math:`\mathbb E[\nabla^j g]`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, ItemsView, Iterable, Literal, Mapping, Sequence, cast

import sympy as sp
from sympy.core.add import _addsort
from sympy.core.mul import _mulsort
from sympy.polys.orderings import lex
from sympy.polys.orthopolys import hermite_prob_poly
from sympy.polys.rings import PolyRing

from .._validation import check_int
from ..errors import BudgetExceededError, InvalidTargetError, UnsupportedError
from .budget import (
    CONVERSION_WEIGHT,
    DOMAIN_COST,
    bits_cost,
    check_degree,
    check_expansion,
    check_terms,
    check_work,
    limit,
    predict_size,
)
from .evaluate import evaluate
from .functions import relu
from .integrability import MAX_SECOND_MOMENT, check_square_integrable, growth_exponent, second_moment
from .parser import FUNCTIONS, parse_expression

if TYPE_CHECKING:  # numpy is imported where it is used: a symbolic command on an exact target never loads it
    import numpy as np
    from sympy.polys.rings import PolyElement  # an element of a PolyRing (untyped in sympy: reads as Any)

__all__ = [
    "HermiteCoefficients",
    "HermiteExpansion",
    "monomial_to_hermite",
    "half_gaussian_moment",
    "gaussian_moment",
    "hermite_coefficients",
    "hermite_expansion",
    "hermite_tensor",
    "unfold",
    "Sparse",
    "coefficient_kind",
    "sparse_polynomial",
    "substitute_linear",
    "hermite_conversion_work",
    "LINK_VARIABLE",
    "parse_link",
    "check_float_range",
]

MultiIndex = tuple[int, ...]
#: A coefficient of a :class:`Sparse` polynomial: an element of its ring's ground domain (``ZZ``: a Python or gmpy
#: integer; ``RR``: sympy's ``RealElement``), or a sympy number; sympy gives these no static type.
Coefficient = Any
#: The ``(monomial, coefficient)`` terms of a polynomial.
Term = tuple[MultiIndex, Coefficient]

#: The variable of a link function (a 1-D function of ``z``, :func:`parse_link`).
LINK_VARIABLE = "z"
#: Number of Gauss–Hermite nodes of the coarse rule (the fine rule uses twice as many).
QUADRATURE_NODES = 160
#: Superseded by the work budget ``FLT_MAX_WORK`` (:func:`hermite_conversion_work`); kept for importers.
MAX_EXPANSION_WORK = 2_000_000


# ----------------------------------------------------------------------------------------------
# exact scalar recursions


@lru_cache(maxsize=None)
def monomial_to_hermite(m: int) -> dict[int, sp.Integer]:
    r"""Coefficients of :math:`z^m = \sum_k c_{m,k}\,\mathrm{He}_k(z)`.

    :math:`c_{m,k} = \dfrac{m!}{k!\,2^{(m-k)/2}\,((m-k)/2)!}` for :math:`m-k` even, else 0.

    >>> monomial_to_hermite(3)
    {3: 1, 1: 3}
    """
    m = check_int(m, "m", minimum=0, caller="monomial_to_hermite")
    return {
        k: sp.Integer(math.factorial(m) // (math.factorial(k) * 2 ** ((m - k) // 2) * math.factorial((m - k) // 2)))
        for k in range(m, -1, -2)
    }


def gaussian_moment(m: int) -> sp.Integer:
    r""":math:`\mathbb E[z^m] = (m-1)!!` for even :math:`m`, 0 for odd.

    >>> [gaussian_moment(m) for m in range(7)]
    [1, 0, 1, 0, 3, 0, 15]
    """
    return sp.Integer(0) if m % 2 else sp.factorial2(m - 1)


def half_gaussian_moment(m: int) -> sp.Expr:
    r""":math:`\mathbb E[z^m\,\mathbf 1\{z > 0\}]`: :math:`(m-1)!!/2` for even :math:`m`,
    :math:`2^{(m-1)/2}((m-1)/2)!/\sqrt{2\pi}` for odd :math:`m`.

    >>> half_gaussian_moment(1)
    sqrt(2)/(2*sqrt(pi))
    """
    if m % 2 == 0:
        return sp.factorial2(m - 1) / 2
    h = (m - 1) // 2
    return sp.Integer(2**h * math.factorial(h)) / sp.sqrt(2 * sp.pi)


# ----------------------------------------------------------------------------------------------
# one variable


@dataclass(frozen=True)
class HermiteCoefficients:
    r"""Coefficients :math:`\mu_0, \dots, \mu_K` of a 1-D function (:math:`\mu_j = \mathbb E[\sigma\,\mathrm{He}_j]`).

    ``exact[j]`` is the exact sympy value or ``None`` where only a numeric value is known;
    ``errors[j]`` bounds the error of ``values[j]`` (0 for an exact coefficient, up to float rounding
    of the displayed value); ``accuracy`` is ``max(errors)``; ``method`` is ``"exact"`` or
    ``"gauss-hermite"``. Decide whether a numeric coefficient is zero with its own ``errors[j]``:
    the errors grow with :math:`j` like :math:`\sqrt{j!}`, so one ``accuracy`` for all :math:`j`
    would hide low-order coefficients.
    """

    values: tuple[float, ...]
    exact: tuple[sp.Expr | None, ...]
    accuracy: float
    method: str
    errors: tuple[float, ...] = ()

    def error(self, j: int) -> float:
        """The error bound of ``values[j]``."""
        return self.errors[j] if self.errors else self.accuracy

    def first_nonzero(self, start: int = 1, atol: float = 1e-10) -> int | None:
        """The first :math:`j \\ge` ``start`` with :math:`\\mu_j \\ne 0` (exact where known)."""
        for j in range(start, len(self.values)):
            if _is_nonzero(self.exact[j], self.values[j], max(atol, 10 * self.error(j))):
                return j
        return None


def hermite_coefficients(sigma: sp.Expr | str, degree: int, variable: sp.Symbol | None = None) -> HermiteCoefficients:
    r"""Hermite coefficients :math:`\mu_j = \mathbb E[\sigma(z)\mathrm{He}_j(z)]`, :math:`j = 0..` ``degree``.

    Square-integrability under :math:`\mathcal N(0,1)` is certified first
    (:func:`.integrability.check_square_integrable`; ``1/z`` and ``exp(z**2/2)`` are refused, saying
    why). Then, in this order:

    1. **piecewise polynomials** (polynomials, and anything built from polynomials, ``relu``,
       ``abs``, ``sign`` of :math:`z` itself, e.g. :math:`\mathrm{ReLU}^q`): exact, from
       :func:`half_gaussian_moment`;
    2. **exponential polynomials** :math:`\sum_k p_k(z)\,e^{t_k z + b_k}` (``exp``, ``sin``, ``cos``
       of linear arguments, times polynomials; :math:`t_k` complex; at most :data:`CLOSED_FORM_TERMS` predicted
       terms, larger ones go to item 4): exact, from the Gaussian
       shift :math:`\mathbb E[\mathrm{He}_n(z)\,e^{tz}] = t^n e^{t^2/2}` and
       :math:`z\,\mathrm{He}_n = \mathrm{He}_{n+1} + n\,\mathrm{He}_{n-1}`. So
       :math:`\mu_j(e^{z}) = e^{1/2}`, :math:`\mu_j(\sin) = e^{-1/2}\sin(j\pi/2)`,
       :math:`\mu_j(\cos) = e^{-1/2}\cos(j\pi/2)`;
    3. **erf** terms :math:`c\,\mathrm{erf}(az)`: exact, by Stein's identity
       :math:`\mu_j(f) = \mathbb E[f'\,\mathrm{He}_{j-1}]` and
       :math:`\mathbb E[e^{-sz^2}\mathrm{He}_{2m}(z)] = (1+2s)^{-1/2}\,\frac{(2m)!}{m!}\big(\frac{-s}{1+2s}\big)^m`
       (the :math:`t^{2m}` coefficient of the generating function
       :math:`\mathbb E[e^{-sz^2}e^{tz-t^2/2}] = (1+2s)^{-1/2}e^{-st^2/(1+2s)}`), giving
       :math:`\mu_{2m+1}(\mathrm{erf}(az)) =
       \frac{2a}{\sqrt{\pi(1+2a^2)}}\frac{(2m)!}{m!}\big(\frac{-a^2}{1+2a^2}\big)^m` and :math:`\mu_{2m} = 0`;
    4. otherwise **Gauss–Hermite quadrature** in float64 with :data:`QUADRATURE_NODES` and twice as
       many nodes, on the normalised polynomials :math:`\mathrm{He}_j/\sqrt{j!}` (no overflow up
       to degree 200). ``errors[j]`` is the difference of the two rules plus a bound on the
       rounding error, :math:`2^{-43}\sqrt{j!}\sum_i w_i|\sigma(x_i)\,\mathrm{He}_j(x_i)|/\sqrt{j!}`
       — the cancellation that makes high-degree coefficients of growing functions inaccurate in
       floating point is reported, not hidden. Checked against closed forms (exp, sin, erf) and
       ``mpmath.quad`` (tanh) to degree 60 in ``tests/symbolic``.

    Parameters
    ----------
    sigma
        A sympy expression in ``variable``, or a string in ``z`` parsed by the restricted grammar.
    degree
        Largest :math:`j`, an int :math:`\ge 0`.

    Examples
    --------
    >>> hermite_coefficients("relu(z)", 4).exact
    (sqrt(2)/(2*sqrt(pi)), 1/2, sqrt(2)/(2*sqrt(pi)), 0, -sqrt(2)/(2*sqrt(pi)))
    >>> hermite_coefficients("sin(z)", 3).exact
    (0, exp(-1/2), 0, -exp(-1/2))
    >>> c = hermite_coefficients("tanh(z)", 3)
    >>> round(c.values[1], 6), c.method
    (0.605706, 'gauss-hermite')
    """
    import numpy as np

    degree = check_int(degree, "degree", minimum=0, maximum=200, caller="hermite_coefficients")
    sigma, z = _univariate(sigma, variable)
    if sigma.is_polynomial(z):  # mu_j = j! times its Hermite coefficient: one exact expansion for every j
        expansion = hermite_expansion(sigma, [z]).coefficients
        exact = tuple(expansion.get((j,), sp.Integer(0)) * math.factorial(j) for j in range(degree + 1))
        return _exact_result(exact, sigma)
    pieces = _piecewise_polynomial(sigma, z)
    if pieces is not None:
        top = max(pieces[0].degree(), pieces[1].degree(), 0)
        check_work(CONVERSION_WEIGHT * (top + degree + 1) * (degree + 1) * bits_cost(4 * (top + degree)),
                   f"the Hermite coefficients of {_short(sigma, 40)} to degree {degree}")
        exact = tuple(_exact_coefficient(pieces, z, j) for j in range(degree + 1))
        return _exact_result(exact, sigma)
    check_square_integrable(sigma, [z])
    closed = _closed_form(sigma, z, degree)
    if closed is not None:
        return _exact_result(closed, sigma)
    coarse, _ = _quadrature_coefficients(sigma, z, degree, QUADRATURE_NODES)
    fine, rounding = _quadrature_coefficients(sigma, z, degree, 2 * QUADRATURE_NODES)
    if not (np.all(np.isfinite(fine)) and np.all(np.isfinite(coarse)) and np.all(np.isfinite(rounding))):
        raise BudgetExceededError(
            f"the Hermite coefficients of {_short(sigma)} overflow the floating-point range on the quadrature grid"
        )
    errors = np.abs(fine - coarse) + rounding
    return HermiteCoefficients(
        tuple(float(v) for v in fine), (None,) * (degree + 1), float(errors.max()), "gauss-hermite",
        tuple(float(e) for e in errors),
    )


def _exact_result(exact: Sequence[sp.Expr], sigma: sp.Expr) -> HermiteCoefficients:
    values = []
    for j, c in enumerate(exact):
        try:
            value = float(c)
        except (OverflowError, TypeError):
            value = math.inf
        if not math.isfinite(value):
            raise BudgetExceededError(
                f"the Hermite coefficient mu_{j} = {str(c)[:60]} of {_short(sigma)} is beyond the floating-point range"
            )
        values.append(value)
    return HermiteCoefficients(tuple(values), tuple(exact), 0.0, "exact", (0.0,) * len(exact))


def _univariate(sigma: sp.Expr | str, variable: sp.Symbol | None) -> tuple[sp.Expr, sp.Symbol]:
    if isinstance(sigma, str):
        sigma = parse_link(sigma)
        return sigma, sp.Symbol("z", real=True)
    if not isinstance(sigma, sp.Expr):
        raise InvalidTargetError(f"sigma must be a sympy expression or a string; got {type(sigma).__name__}")
    if variable is None:
        free = sorted(sigma.free_symbols, key=str)
        if len(free) > 1:
            raise InvalidTargetError(f"{_short(sigma)} has several variables {_short(free)}; pass variable=")
        variable = free[0] if free else sp.Symbol("z", real=True)
    extra = sigma.free_symbols - {variable}
    if extra:
        raise InvalidTargetError(f"{_short(sigma)} depends on {_short(sorted(map(str, extra)))} besides {variable}")
    return sigma, variable


def _piecewise_polynomial(sigma: sp.Expr, z: sp.Symbol) -> tuple[sp.Poly, sp.Poly] | None:
    """``(p_plus, p_minus)`` with σ = p_plus on z > 0 and p_minus on z < 0, or None."""
    sides = []
    for sign in (1, -1):
        repl = {
            relu(z): z if sign > 0 else sp.Integer(0),
            sp.Abs(z): sign * z,
            sp.sign(z): sp.Integer(sign),
            sp.Heaviside(z): sp.Integer(1 if sign > 0 else 0),
        }
        side = sigma.xreplace(repl)
        if side.free_symbols - {z} or not side.is_polynomial(z):
            return None
        degree, terms = predict_size(side, [z])
        check_degree(degree or 0, f"the polynomial {str(side)[:40]}")
        sides.append(_as_poly(side, z, {}))
    return sides[0], sides[1]


def _as_poly(expr: sp.Expr, z: sp.Symbol, memo: dict[sp.Expr, sp.Poly]) -> sp.Poly:
    r"""``expr`` (a polynomial in ``z``) as a ``Poly``, built by Poly arithmetic over its tree — not by sympy's
    expression expansion, whose multinomial expansion of e.g. :math:`\mathrm{He}_{13}(z\,\mathrm{He}_{13}(z))`
    (degree 182) takes seconds where dense univariate products take milliseconds."""
    if expr in memo:
        return memo[expr]
    if not memo and coefficient_kind(expr, [z]) == "rational":  # the whole tree at once, by the sparse engine
        sparse = sparse_polynomial(expr, [z], f"the polynomial {_short(expr, 40)}")
        assert sparse is not None  # None only for a "symbolic" coefficient kind
        out = sp.Poly.from_dict({m: sparse.coefficient(c) for m, c in sparse.items()} or {(0,): 0}, z, domain=sp.QQ)
        memo[expr] = out
        return out
    if not expr.has(z) or expr == z:
        out = sp.Poly(expr, z)
    elif expr.is_Add:
        out = sum((_as_poly(a, z, memo) for a in expr.args[1:]), _as_poly(expr.args[0], z, memo))
    elif expr.is_Mul:
        out = _as_poly(expr.args[0], z, memo)
        for a in expr.args[1:]:
            out = out * _as_poly(a, z, memo)
    elif expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        out = _as_poly(expr.base, z, memo) ** int(expr.exp)
    else:
        out = sp.Poly(expr, z)
    memo[expr] = out
    return out


#: Largest expression (in :func:`sympy.count_ops`) an exact coefficient is :func:`sympy.simplify`-ed at; a larger one
#: is expanded instead. simplify's trigonometric and rational passes grow far faster than the expression: the 65-term
#: coefficient of ``(relu(z) + tanh(3))**64`` (736 operations) ran for minutes. An expansion is still canonical for
#: these sums (a sum of monomials in the constants: tanh(3), sqrt(2), pi, ...), so a coefficient that vanishes is 0.
SIMPLIFY_OPS = 60


def _tidy(total: sp.Expr) -> sp.Expr:
    """``total`` simplified when it is small (:data:`SIMPLIFY_OPS`), else expanded."""
    return sp.simplify(total) if sp.count_ops(total) <= SIMPLIFY_OPS else sp.expand(total)


def _exact_coefficient(pieces: tuple[sp.Poly, sp.Poly], z: sp.Symbol, j: int) -> sp.Expr:
    he = hermite_prob_poly(j, z, polys=True)
    total = sp.Integer(0)
    if pieces[0] == pieces[1]:  # a polynomial: E[z^m] = (m-1)!!, no half-line moments
        for (m,), c in (pieces[0] * he).terms():
            total += c * gaussian_moment(m)
        return sp.nsimplify(total) if total.is_Rational else _tidy(total)
    products = [(poly * he).terms() for poly in pieces]
    if all(c.is_Rational for terms in products for _, c in terms):
        # E[z^m 1{±z>0}] is (m-1)!!/2 (m even) or 2^h h!/sqrt(2 pi) (m = 2h+1): sum the rational parts apart
        even, odd = Fraction(0), Fraction(0)
        for terms, sign in zip(products, (1, -1)):
            for (m,), c in terms:
                c = Fraction(int(c.p), int(c.q)) * (1 if sign > 0 or m % 2 == 0 else -1)
                if m % 2 == 0:
                    even += c * math.prod(range(m - 1, 0, -2)) / 2
                else:
                    h = (m - 1) // 2
                    odd += c * 2**h * math.factorial(h)
        return sp.Rational(even.numerator, even.denominator) + sp.Rational(odd.numerator, odd.denominator) / sp.sqrt(
            2 * sp.pi
        )
    for terms, sign in zip(products, (1, -1)):
        for (m,), c in terms:
            total += c * half_gaussian_moment(m) * (1 if sign > 0 else (-1) ** m)
    return _tidy(total)


#: Largest predicted number of terms :math:`c z^m e^{tz}` the exact exponential-polynomial rule expands; larger
#: activations go to Gauss–Hermite quadrature (with its reported accuracy) to stay within the 2-second budget.
CLOSED_FORM_TERMS = 500


def _closed_form(sigma: sp.Expr, z: sp.Symbol, degree: int) -> tuple[sp.Expr, ...] | None:
    """Exact coefficients of exponential polynomials plus ``c*erf(a*z)`` terms, or None (see
    :func:`hermite_coefficients`, items 2 and 3)."""
    allowed = {sp.exp, sp.sin, sp.cos, sp.erf}
    for f in sigma.atoms(sp.Function):
        if f.func not in allowed or not f.args[0].is_polynomial(z) or sp.degree(f.args[0], z) > 1:
            return None
        if f.func is sp.erf and f.args[0].as_independent(z, as_Add=True)[0] != 0:
            return None
    for p in sigma.atoms(sp.Pow):
        if p.base.has(z) and not (p.exp.is_Integer and p.exp >= 0) and p.base.func is not sp.exp:
            return None
    rewritten = sigma.rewrite(sp.sin, sp.exp).rewrite(sp.cos, sp.exp) if sigma.has(sp.sin, sp.cos) else sigma
    _, terms = predict_size(rewritten, [z])
    if terms > min(limit("terms"), CLOSED_FORM_TERMS):
        # e.g. He11(sin(z) He11(z)): 3572 predicted terms took 32 s exactly; quadrature reports its accuracy
        return None
    terms_out: list[tuple[sp.Expr, int, sp.Expr]] = []  # (coefficient, m, t): c z^m e^{t z}
    erf_terms: list[tuple[sp.Expr, sp.Expr]] = []  # (c, a): c erf(a z)
    for term in sp.Add.make_args(sp.expand(rewritten)):
        coeff, rest = term.as_independent(z, as_Add=False)
        m, exponent = 0, sp.Integer(0)
        for factor in sp.Mul.make_args(rest):
            if factor == z:
                m += 1
            elif factor.is_Pow and factor.base == z and factor.exp.is_Integer and factor.exp > 0:
                m += int(factor.exp)
            elif factor.func is sp.exp:
                exponent += factor.args[0]
            elif factor.func is sp.erf and rest == factor:
                erf_terms.append((coeff, factor.args[0].coeff(z)))
                break
            else:
                return None
        else:
            exponent = sp.expand(exponent)
            b, tz = exponent.as_independent(z, as_Add=True)
            t = sp.expand(tz / z) if tz != 0 else sp.Integer(0)
            if t.has(z):
                return None
            terms_out.append((coeff * sp.exp(b), m, t))
    out = []
    for j in range(degree + 1):
        total = sp.Integer(0)
        for c, m, t in terms_out:
            a = _times_z_power(j, m)
            total += c * sp.exp(t**2 / 2) * sp.Add(*(ak * t**k for k, ak in enumerate(a) if ak))
        for c, a in erf_terms:
            if j % 2 == 1:
                mm = (j - 1) // 2
                s = a**2
                total += c * 2 * a / sp.sqrt(sp.pi * (1 + 2 * s)) * sp.Integer(
                    math.factorial(2 * mm) // math.factorial(mm)
                ) * (-s / (1 + 2 * s)) ** mm
        if total.has(sp.I):
            total = sp.expand_complex(sp.expand(total))
            imaginary = sp.im(total)
            if imaginary != 0 and sp.simplify(imaginary) != 0:
                return None
            total = sp.re(total)
        out.append(sp.nsimplify(total) if total.is_Rational else total)
    return tuple(out)


@lru_cache(maxsize=4096)
def _times_z_power(j: int, m: int) -> tuple[int, ...]:
    r"""Integer coefficients :math:`a_k` of :math:`z^m\,\mathrm{He}_j(z) = \sum_k a_k \mathrm{He}_k(z)`
    (:math:`z\,\mathrm{He}_k = \mathrm{He}_{k+1} + k\,\mathrm{He}_{k-1}`)."""
    a = [0] * j + [1]
    for _ in range(m):
        b = [0] * (len(a) + 1)
        for k, ak in enumerate(a):
            if ak:
                b[k + 1] += ak
                if k:
                    b[k - 1] += k * ak
        a = b
    return tuple(a)


@lru_cache(maxsize=16)
def gauss_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss–Hermite nodes and weights for :math:`\mathcal N(0, 1)` (weights sum to 1), read-only and
    cached (the eigenvalue problem behind them costs far more than any use of them)."""
    import numpy as np

    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def normalised_hermite(x: np.ndarray, degree: int) -> np.ndarray:
    r""":math:`\mathrm{He}_j(x)/\sqrt{j!}` for :math:`j = 0..` ``degree``, shape ``(len(x), degree + 1)``, by
    the stable recursion :math:`h_{j+1} = (x h_j - \sqrt j\,h_{j-1})/\sqrt{j+1}`.

    >>> import numpy as np
    >>> np.round(normalised_hermite(np.array([2.0]), 3) * np.sqrt([1, 1, 2, 6]), 12)
    array([[1., 2., 3., 2.]])
    """
    import numpy as np

    h = np.empty((len(x), degree + 1))
    h[:, 0] = 1.0
    if degree >= 1:
        h[:, 1] = x
    for j in range(1, degree):
        h[:, j + 1] = (x * h[:, j] - math.sqrt(j) * h[:, j - 1]) / math.sqrt(j + 1)
    return h


def _quadrature_coefficients(sigma: sp.Expr, z: sp.Symbol, degree: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, rounding bound)`` from the ``nodes``-point Gauss–Hermite rule."""
    import numpy as np

    x, w = gauss_rule(nodes)
    with np.errstate(all="ignore"):  # overflow is reported by the caller
        fx = np.asarray(evaluate(sigma, [z], [x]), dtype=float)
        h = normalised_hermite(x, degree)
        scale = np.exp(0.5 * np.array([math.lgamma(j + 1) for j in range(degree + 1)]))  # sqrt(j!), finite to j = 340
        terms = (w * fx)[:, None] * h
        return terms.sum(axis=0) * scale, 2.0**-43 * np.abs(terms).sum(axis=0) * scale


def _is_nonzero(exact: sp.Expr | None, value: float, atol: float) -> bool:
    if exact is not None:
        return not exact.is_zero
    return abs(value) > atol


# ----------------------------------------------------------------------------------------------
# exact sparse polynomials: the engine of every expansion (its work predicted and bounded first)


def _short(expr: object, width: int = 60) -> str:
    """``str(expr)`` cut to ``width`` characters (messages quote a bounded excerpt)."""
    text = str(expr)
    return text if len(text) <= width else text[: width - 3] + "..."


def coefficient_kind(expr: sp.Expr, variables: Sequence[sp.Symbol]) -> str:
    """The coefficient domain an expansion of ``expr`` in ``variables`` needs: ``"rational"``, ``"float"``
    (a Float constant), or ``"symbolic"`` (an exact irrational constant such as ``sqrt(2)``, ``pi`` or
    another symbol; these expansions go through sympy expressions, :data:`.budget.DOMAIN_COST`).

    >>> z = sp.Symbol("z", real=True)
    >>> coefficient_kind(z**2 / 3 + 1, [z]), coefficient_kind(0.5 * z, [z]), coefficient_kind(sp.sqrt(2) * z, [z])
    ('rational', 'float', 'symbolic')
    >>> coefficient_kind(0.5 * z + sp.sqrt(2) * z**2, [z])  # a Float makes the whole expansion floating point
    'float'

    """
    variable_set = set(variables)
    floats = irrational = False
    stack, seen = [sp.sympify(expr)], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.is_Rational or node in variable_set:
            continue
        if node.is_Float:
            floats = True
        elif node.is_Symbol:
            return "symbolic"  # a parameter: its coefficients are expressions
        elif not (node.free_symbols & variable_set):
            irrational = True  # sqrt(2), pi: exact, unless a Float makes the whole expansion floating point
        else:
            stack.extend(node.args)
    return "float" if floats else "symbolic" if irrational else "rational"


@dataclass(frozen=True)
class Sparse:
    """A polynomial ``scale * poly``: ``poly`` a sparse polynomial over the integers (``kind == "rational"``,
    ``scale`` a Fraction, so no coefficient operation computes a gcd) or over sympy's ``RR`` (``"float"``,
    ``scale == 1``)."""

    ring: PolyRing
    scale: Fraction
    poly: PolyElement
    kind: str

    def items(self) -> ItemsView[MultiIndex, Coefficient]:
        return cast("ItemsView[MultiIndex, Coefficient]", self.poly.items())

    def coefficient(self, c: Coefficient) -> sp.Expr:
        """The sympy value of a coefficient of ``poly`` times ``scale``."""
        if self.kind == "rational":
            value = self.scale * c
            return sp.Rational(value.numerator, value.denominator)
        return sp.Float(float(c)) if self.scale == 1 else sp.Float(float(c) * float(self.scale))

    def as_expr(self) -> sp.Expr:
        """The polynomial as a sympy expression (expanded), built in sympy's canonical order directly (``sp.Add`` of
        the terms re-flattens and costs about 0.7 ms a term; this is ten times faster and gives the same object)."""
        gens = self.ring.symbols
        constant, terms = None, []
        for m, c in self.poly.items():
            coeff = self.coefficient(c)
            factors = [g**e if e > 1 else g for g, e in zip(gens, m) if e]
            if not factors:
                constant = coeff
                continue
            _mulsort(factors)
            if coeff == 1:
                terms.append(factors[0] if len(factors) == 1 else sp.Mul._from_args(factors))
            else:
                terms.append(sp.Mul._from_args([coeff, *factors]))
        if not terms:
            return sp.Integer(0) if constant is None else constant
        _addsort(terms)
        if constant is not None:
            terms.insert(0, constant)
        return terms[0] if len(terms) == 1 else sp.Add._from_args(terms)


def _ring(variables: Sequence[sp.Symbol], kind: str) -> PolyRing:
    return PolyRing(tuple(variables), sp.ZZ if kind == "rational" else sp.RR, lex)


def to_domain(domain: Any, value: Coefficient) -> Coefficient:
    """``domain.convert(value)``, a Python float taken straight into ``RR``: sympy's ``convert`` builds a new
    ``RealField`` (0.4 ms) for every float, then gives the same element (a float is exact in ``RR``'s 53 bits); a
    staircase of a numeric expansion converts thousands."""
    if type(value) is float and domain == sp.RR:
        return domain.dtype(value)
    return domain.convert(value)


def sparse_polynomial(
    expr: sp.Expr, variables: Sequence[sp.Symbol], what: str = "the expansion of this polynomial"
) -> Sparse | None:
    r"""``expr`` expanded as a :class:`Sparse` polynomial in ``variables``, or ``None`` when it needs exact
    irrational coefficients (:func:`coefficient_kind` ``"symbolic"``: the caller uses sympy, under its own budget).

    Its degree, number of terms and work (:func:`.budget.predict_work`) are predicted and checked against the
    budgets *before* anything is built; then the tree is evaluated bottom-up by sparse polynomial arithmetic
    (repeated squaring for powers, each distinct node once), never by sympy's multinomial expansion.

    >>> z = sp.Symbol("z", real=True)
    >>> p = sparse_polynomial(sp.hermite_prob(16, sp.hermite_prob(16, z) / 7), [z])
    >>> len(p.poly), p.as_expr().as_poly(z).degree()
    (129, 256)
    """
    variables = tuple(variables)
    expr = sp.sympify(expr)
    limits = tuple(limit(name) for name in ("degree", "terms", "work"))
    cached = _SPARSE_CACHE.get((expr, variables, limits))
    if cached is not None:
        return cached
    kind = coefficient_kind(expr, variables)
    if kind == "symbolic":
        return None
    check_expansion(expr, variables, what, kind)
    out = _sparse_polynomial(expr, variables, kind)
    if len(_SPARSE_CACHE) >= 16:
        _SPARSE_CACHE.pop(next(iter(_SPARSE_CACHE)))
    _SPARSE_CACHE[(expr, variables, limits)] = out
    return out


#: The last expansions built, keyed by (expression, variables, budgets): ``flt laws`` expands one target many times.
_SPARSE_CACHE: dict[tuple[sp.Expr, tuple[sp.Symbol, ...], tuple[int, ...]], Sparse] = {}


def _sparse_polynomial(expr: sp.Expr, variables: tuple[sp.Symbol, ...], kind: str) -> Sparse:
    ring = _ring(variables, kind)
    index = {v: k for k, v in enumerate(variables)}
    memo: dict[sp.Basic, tuple[Fraction, PolyElement]] = {}
    scale, poly = _build(expr, ring, index, kind, memo)
    return Sparse(ring, scale, poly, kind)


def _build(
    node: sp.Basic,
    ring: PolyRing,
    index: dict[sp.Symbol, int],
    kind: str,
    memo: dict[sp.Basic, tuple[Fraction, PolyElement]],
) -> tuple[Fraction, PolyElement]:
    if node in memo:
        return memo[node]
    one = Fraction(1)
    out: tuple[Fraction, PolyElement]
    if not (node.free_symbols & index.keys()):
        if kind == "rational":
            if not node.is_Rational:
                raise InvalidTargetError(f"{_short(node)} is not a rational constant")
            out = (Fraction(int(node.p), int(node.q)), ring.one)
        else:
            out = (one, ring.ground_new(ring.domain.from_sympy(node)))
    elif node.is_Symbol:
        out = (one, ring.gens[index[node]])
    elif node.is_Add:
        parts = [_build(a, ring, index, kind, memo) for a in node.args]
        out = _add(parts, ring, kind)
    elif node.is_Mul:
        parts = sorted((_build(a, ring, index, kind, memo) for a in node.args), key=lambda p: len(p[1]))
        scale, poly = one, None
        for f, p in parts:
            scale *= f
            poly = p if poly is None else (poly * p if len(p) > 1 or len(poly) > 1 else poly * p)
        out = (scale, poly)
    elif node.is_Pow and node.exp.is_Integer and node.exp >= 0:
        f, p = _build(node.base, ring, index, kind, memo)
        n = int(node.exp)
        out = (f**n, _power(p, n, ring))
    else:
        raise InvalidTargetError(f"{_short(node)} is not a polynomial in {', '.join(map(str, index))}")
    memo[node] = out
    return out


def _add(parts: list[tuple[Fraction, PolyElement]], ring: PolyRing, kind: str) -> tuple[Fraction, PolyElement]:
    if kind != "rational":
        total = ring.zero
        for _, p in parts:
            total = total + p
        return Fraction(1), total
    common = 1
    for f, _ in parts:
        common = common * f.denominator // math.gcd(common, f.denominator)
    acc: dict[MultiIndex, int] = {}
    get = acc.get
    for f, p in parts:
        multiplier = f.numerator * (common // f.denominator)
        for m, c in p.items():
            acc[m] = get(m, 0) + multiplier * c
    values = [c for c in acc.values() if c]
    content = math.gcd(*values) if values else 1
    poly = ring.zero
    for m, c in acc.items():
        if c:
            poly[m] = c // content
    return Fraction(content, common), poly


def _power(p: PolyElement, n: int, ring: PolyRing) -> PolyElement:
    if n == 0:
        return ring.one
    if len(p) <= 1:
        return p**n
    result, cur = None, p
    while True:
        if n & 1:
            result = cur if result is None else result * cur
        n >>= 1
        if not n:
            return result
        cur = cur * cur


def substitute_linear(items: Iterable[Term], images: Sequence[PolyElement], ring: PolyRing) -> PolyElement:
    r""":math:`\sum c\,\prod_k \ell_k^{m_k}` for the terms ``items`` (``(m, c)`` pairs) of a polynomial and the
    linear forms ``images`` :math:`\ell_k` (elements of ``ring``), by Horner's scheme in the first variable, then
    the next; its work is predicted by :func:`.budget.horner_work`, which the caller checks first."""
    items = list(items)
    n = len(images)

    def rec(entries: list[Term], k: int) -> PolyElement:
        if k == n:
            return ring.ground_new(sum((c for _, c in entries), ring.domain.zero))
        groups: dict[int, list[Term]] = {}
        for m, c in entries:
            groups.setdefault(m[k], []).append((m, c))
        acc = None
        for e in range(max(groups), -1, -1):
            if acc is not None:
                acc = acc * images[k]
            if e in groups:
                part = rec(groups[e], k + 1)
                acc = part if acc is None else acc + part
        return acc

    return rec(items, 0) if items else ring.zero


def _hermite_of_monomials(
    items: Iterable[Term], nvars: int, variances: Sequence[Fraction | float] | None = None
) -> tuple[Fraction, dict[MultiIndex, Coefficient]]:
    r"""``(scale, {alpha: coefficient})`` of :math:`\sum c\,x^m` in the product basis of (scaled) Hermite
    polynomials :math:`H^{(a)}_k(x) = a^{k/2}\mathrm{He}_k(x/\sqrt a)`, :math:`a` the variance of ``x``
    (default 1): :math:`x^m = \sum_k c_{m,k}\,a^{(m-k)/2} H^{(a)}_k(x)`. Integer coefficients stay integers
    (rational variances :math:`p/q` enter as :math:`p^j q^{J-j}` with the common :math:`q^J` in ``scale``);
    float coefficients stay floats."""
    out: dict[MultiIndex, Coefficient] = {}
    get = out.get
    items = list(items)
    scale = Fraction(1)
    tables: list[tuple[Literal["rational"], int, int, int] | tuple[Literal["float"], float, None, int] | None] = []
    if variances is None:
        tables = [None] * nvars
    else:
        for i in range(nvars):
            a = variances[i]
            top = max((m[i] for m, _ in items), default=0) // 2
            if isinstance(a, Fraction):
                scale /= Fraction(a.denominator) ** top
                tables.append(("rational", a.numerator, a.denominator, top))
            else:
                tables.append(("float", float(a), None, top))
    cache: dict[tuple[int, int], tuple[tuple[int, Coefficient], ...]] = {}

    def per_variable(i: int, m: int) -> tuple[tuple[int, Coefficient], ...]:
        key = (i, m)
        if key not in cache:
            base = _monomial_to_hermite_int(m)
            table = tables[i]
            if table is None:
                cache[key] = base
            elif table[0] == "rational":
                _, p, q, top = table
                cache[key] = tuple((k, c * p ** ((m - k) // 2) * q ** (top - (m - k) // 2)) for k, c in base)
            else:
                cache[key] = tuple((k, c * table[1] ** ((m - k) // 2)) for k, c in base)
        return cache[key]

    for monomial, c in items:
        per = [per_variable(i, m) for i, m in enumerate(monomial)]
        for combo in itertools.product(*per):
            alpha = tuple(k for k, _ in combo)
            out[alpha] = get(alpha, 0) + c * math.prod(ck for _, ck in combo)
    return scale, {a: c for a, c in out.items() if c}


def _hermite_work(items: Iterable[Term]) -> int:
    return sum(math.prod(m // 2 + 1 for m in monomial) for monomial, _ in items)


def hermite_conversion_work(items: Iterable[Term], kind: str) -> float:
    r"""Predicted work of converting the terms ``items`` to (or from) the Hermite basis: a monomial
    :math:`\prod_k z_k^{m_k}` has :math:`\prod_k(\lfloor m_k/2\rfloor+1)` Hermite terms, each an operation on
    integers as large as the coefficient or the conversion coefficient :math:`m!/(k!\,2^j j!)`
    (:data:`.budget.CONVERSION_WEIGHT`)."""
    items = list(items)
    if not items:
        return 0.0
    degree = max(max(m) if m else 0 for m, _ in items)
    table = max(abs(c).bit_length() for _, c in _monomial_to_hermite_int(degree))
    bits = max(abs(int(c)).bit_length() for _, c in items) if kind == "rational" else 64
    # about 5 µs a Hermite term, of which big integers take a growing share only beyond some thousand bits
    # (measured: 267,000 terms of 64 bits 1.4 s; He64(z)**8, 33,153 terms of 1,900 bits, 0.19 s; 812 of 37,000 bits 0.03
    # s)
    return CONVERSION_WEIGHT * _hermite_work(items) * bits_cost(max(bits, table) / 16) * DOMAIN_COST[kind]


@lru_cache(maxsize=512)
def _hermite_monomials(k: int) -> tuple[tuple[int, int], ...]:
    """``(m, c)`` with :math:`\\mathrm{He}_k(x) = \\sum c\\,x^m` (integers)."""
    return tuple((m, int(c)) for (m,), c in hermite_prob_poly(k, sp.Symbol("x"), polys=True).terms())


def _from_hermite(
    coefficients: Mapping[MultiIndex, Fraction | float],
    ring: PolyRing,
    kind: str,
    variances: Sequence[Fraction | float] | None = None,
) -> tuple[Fraction, PolyElement]:
    r"""``(scale, poly)``: :math:`\sum_\alpha c_\alpha \prod_k H^{(a_k)}_{\alpha_k}(x_k)` as a polynomial of ``ring``
    (``coefficients``: ``{alpha: c}`` with int/Fraction or float values; variances as in
    :func:`_hermite_of_monomials`, default 1). :math:`H^{(a)}_k(x) = \sum_m c_{k,m}\,a^{(k-m)/2} x^m`."""
    nvars = ring.ngens
    values = list(coefficients.values())
    scale = Fraction(1)
    if kind == "rational":
        common = 1
        for v in values:
            d = v.denominator if isinstance(v, Fraction) else 1
            common = common * d // math.gcd(common, d)
        scale = Fraction(1, common)
        coefficients = {a: int(v * common) for a, v in coefficients.items()}
    tables: list[tuple[float, int, int]] = []  # (p, q, top); p an int when kind == "rational"
    for i in range(nvars):
        a: Fraction | float = 1 if variances is None else variances[i]
        top = max((al[i] for al in coefficients), default=0) // 2
        if kind == "rational" and a != 1:
            a = Fraction(a)
            scale /= Fraction(a.denominator) ** top
            tables.append((a.numerator, a.denominator, top))
        else:
            tables.append((1 if kind == "rational" else float(a), 1, 0))
    cache: dict[tuple[int, int], tuple[tuple[int, Coefficient], ...]] = {}

    def per_variable(i: int, k: int) -> tuple[tuple[int, Coefficient], ...]:
        key = (i, k)
        if key not in cache:
            p, q, top = tables[i]
            if q == 1 and top == 0:
                cache[key] = tuple((m, c * p ** ((k - m) // 2)) for m, c in _hermite_monomials(k))
            else:
                cache[key] = tuple(
                    (m, c * p ** ((k - m) // 2) * q ** (top - (k - m) // 2)) for m, c in _hermite_monomials(k)
                )
        return cache[key]

    acc: dict[MultiIndex, Coefficient] = {}
    get = acc.get
    for alpha, c in coefficients.items():
        per = [per_variable(i, k) for i, k in enumerate(alpha)]
        for combo in itertools.product(*per):
            m = tuple(e for e, _ in combo)
            acc[m] = get(m, 0) + c * math.prod(x for _, x in combo)
    poly = ring.zero
    for m, c in acc.items():
        if c:
            poly[m] = c if kind == "rational" else to_domain(ring.domain, c)
    return scale, poly


# ----------------------------------------------------------------------------------------------
# several variables


@dataclass(frozen=True)
class HermiteExpansion:
    r"""A polynomial :math:`g = \sum_\alpha \hat g(\alpha)\,\mathrm{He}_\alpha` in :math:`r` variables.

    ``coefficients`` maps multi-indices :math:`\alpha \in \mathbb N^r` to nonzero exact sympy
    coefficients :math:`\hat g(\alpha)`. ``exact`` is False when the expansion came from quadrature
    (a non-polynomial target truncated at a declared degree).
    """

    coefficients: Mapping[MultiIndex, sp.Expr]
    rank: int
    exact: bool = True
    truncation_degree: int | None = None

    def norm2(self) -> sp.Expr:
        r""":math:`\|g\|_\gamma^2 = \sum_\alpha \hat g(\alpha)^2\,\alpha!` (Parseval); a float when the
        expansion is numeric (``exact=False``)."""
        total = sum((c**2 * _multi_factorial(a) for a, c in self.coefficients.items()), sp.Integer(0))
        return sp.nsimplify(total) if self.exact else sp.sympify(total).evalf()

    def degree(self) -> int:
        """Largest :math:`|\\alpha|` with a nonzero coefficient (0 for the zero function)."""
        return max((sum(a) for a in self.coefficients), default=0)

    def support(self) -> list[MultiIndex]:
        """The multi-indices with nonzero coefficients, by degree, then earlier variables first
        (``z1`` before ``z2``, ``He2(z1)`` before ``z1*z2``)."""
        return sorted(self.coefficients, key=lambda a: (sum(a), tuple(-k for k in a)))

    def to_expr(self, variables: Sequence[sp.Symbol]) -> sp.Expr:
        r"""The polynomial :math:`\sum_\alpha \hat g(\alpha)\,\mathrm{He}_\alpha(z)` expanded in ``variables``."""
        return sp.expand(
            sum(
                (
                    c * sp.Mul(*(sp.hermite_prob(k, v) for k, v in zip(a, variables)))
                    for a, c in self.coefficients.items()
                ),
                sp.Integer(0),
            )
        )

    def filter(self, keep: Callable[[MultiIndex], bool]) -> "HermiteExpansion":
        """The expansion restricted to the multi-indices where ``keep(alpha)`` is true."""
        return HermiteExpansion(
            {a: c for a, c in self.coefficients.items() if keep(a)}, self.rank, self.exact, self.truncation_degree
        )


def hermite_expansion(expr: sp.Expr, variables: Sequence[sp.Symbol]) -> HermiteExpansion:
    r"""Exact Hermite expansion of a polynomial in ``variables`` (product basis :math:`\mathrm{He}_\alpha`).

    Each monomial :math:`\prod_k z_k^{m_k}` is mapped through :func:`monomial_to_hermite` in each
    variable; coefficients stay exact (rationals, or sympy numbers such as :math:`\sqrt 2`).

    >>> z1, z2 = sp.symbols("z1 z2", real=True)
    >>> dict(hermite_expansion(z1**2 * z2, [z1, z2]).coefficients)
    {(2, 1): 1, (0, 1): 1}
    """
    variables = list(variables)
    expr = sp.sympify(expr)
    bound, predicted = predict_size(expr, variables)
    if bound is None or not expr.is_polynomial(*variables):
        raise InvalidTargetError(
            f"{_short(expr)} is not a polynomial in {_short(', '.join(map(str, variables)))}; expand it to a Hermite "
            "degree first"
        )
    what = f"the Hermite expansion of this polynomial (degree up to {bound} in {len(variables)} variables)"
    check_degree(bound, what)
    check_terms(predicted, what)
    used = [k for k, v in enumerate(variables) if v in expr.free_symbols]  # generators in use only
    if not used:
        return HermiteExpansion({} if expr.is_zero else {(0,) * len(variables): expr}, len(variables))
    sparse = sparse_polynomial(expr, [variables[k] for k in used], what)
    if sparse is None:
        return _symbolic_hermite_expansion(expr, variables, used, what)
    items = list(sparse.items())
    check_work(hermite_conversion_work(items, sparse.kind), what)
    scale, raw = _hermite_of_monomials(items, len(used))
    scale *= sparse.scale
    coefficients = {}
    for alpha, c in raw.items():
        full = [0] * len(variables)
        for k, a in zip(used, alpha):
            full[k] = a
        if sparse.kind == "rational":
            value = scale * c
            coefficients[tuple(full)] = sp.Rational(value.numerator, value.denominator)
        else:
            coefficients[tuple(full)] = sp.Float(float(c))
    return HermiteExpansion({a: c for a, c in coefficients.items() if not c.is_zero}, len(variables))


def _symbolic_hermite_expansion(
    expr: sp.Expr, variables: list[sp.Symbol], used: list[int], what: str
) -> HermiteExpansion:
    """The Hermite expansion with exact irrational coefficients, by sympy expressions (about 1 ms an operation:
    its work is charged at :data:`.budget.DOMAIN_COST` ``["symbolic"]``)."""
    _, _, work = check_expansion(expr, [variables[k] for k in used], what, "symbolic")
    terms = [
        (tuple(dict(zip(used, m)).get(k, 0) for k in range(len(variables))), c)
        for m, c in sp.poly(expr, *[variables[k] for k in used]).terms()  # sp.poly: no expression expand
    ]
    check_work(CONVERSION_WEIGHT * _hermite_work(terms) * DOMAIN_COST["symbolic"], what)
    out: dict[MultiIndex, sp.Expr] = {}
    for monomial, c in terms:
        for combo in itertools.product(*[_monomial_to_hermite_int(m) for m in monomial]):
            alpha = tuple(k for k, _ in combo)
            out[alpha] = out.get(alpha, 0) + c * math.prod(ck for _, ck in combo)
    coefficients = {a: sp.nsimplify(c) if c.is_Rational else sp.expand(c) for a, c in out.items()}
    return HermiteExpansion({a: c for a, c in coefficients.items() if not c.is_zero}, len(variables))


@lru_cache(maxsize=1024)
def _monomial_to_hermite_int(m: int) -> tuple[tuple[int, int], ...]:
    r"""``monomial_to_hermite(m)`` as Python ints, by :math:`c_{m,k-2} = c_{m,k}\,k(k-1)/(m-k+2)` (:math:`c_{m,m} =
    1`)."""
    out, c = [(m, 1)], 1
    for k in range(m, 1, -2):
        c = c * k * (k - 1) // (m - k + 2)
        out.append((k - 2, c))
    return tuple(out)


def hermite_tensor(expansion: HermiteExpansion, order: int) -> sp.Array:
    r"""The order-``order`` Hermite tensor :math:`C_j = \mathbb E[g\,\mathrm{He}_j(z)]`, shape :math:`(r,)^j`.

    :math:`(C_j)_{k_1\dots k_j} = \alpha!\,\hat g(\alpha)`, :math:`\alpha` = multiplicities of the
    indices; symmetric. :math:`C_1 = \mathbb E[\nabla g]`.

    >>> z1, z2 = sp.symbols("z1 z2", real=True)
    >>> hermite_tensor(hermite_expansion(z1 * z2 + z2**2 - 1, [z1, z2]), 2)
    [[0, 1], [1, 2]]
    """
    order = check_int(order, "order", minimum=0, maximum=12, caller="hermite_tensor")
    r = expansion.rank
    if r**order > 1_000_000:
        raise UnsupportedError(f"Hermite tensor of order {order} in rank {r} has {r**order} entries (limit 10^6)")
    flat = []
    for index in itertools.product(range(r), repeat=order):
        alpha = tuple(index.count(k) for k in range(r))
        flat.append(expansion.coefficients.get(alpha, sp.Integer(0)) * _multi_factorial(alpha))
    return sp.Array(flat, (r,) * order) if order else sp.Array(flat[0])


def unfold(tensor: sp.Array, rank: int) -> sp.Matrix:
    r"""Unfold an order-:math:`j` tensor of side ``rank`` as an :math:`r \times r^{j-1}` matrix
    (first index = row); its range is the set of directions :math:`C_j[\,\cdot\,, u^{\otimes (j-1)}]` spans."""
    flat = list(sp.flatten(tensor)) if tensor.rank() else [tensor]
    cols = max(len(flat) // rank, 1)
    return sp.Matrix(rank, cols, flat)


def _multi_factorial(alpha: MultiIndex) -> int:
    return math.prod(math.factorial(a) for a in alpha)


# ----------------------------------------------------------------------------------------------
# link functions: the 1-D functions of z that the expansions, targets and activations take


def parse_link(link: str | sp.Expr) -> sp.Expr:
    """A 1-D function of ``z``: parsed if a string, checked if a sympy expression.

    A bare function name is shorthand for that function of ``z``:

    >>> parse_link("relu"), parse_link("tanh(z)**2")
    (relu(z), tanh(z)**2)
    """
    z = sp.Symbol(LINK_VARIABLE, real=True)
    if isinstance(link, str):
        if link.strip() in FUNCTIONS:
            link = f"{link.strip()}({LINK_VARIABLE})"
        parsed = parse_expression(link, single_variable=LINK_VARIABLE)
        check_float_range(parsed, z, link.strip())
        return parsed
    if isinstance(link, sp.Expr):
        link = link.subs(sp.Symbol(LINK_VARIABLE), z)
        extra = link.free_symbols - {z}
        if extra:
            shown = str(link) if len(str(link)) <= 60 else str(link)[:57] + "..."
            raise InvalidTargetError(f"a link function must depend on z only; {shown} also uses "
                                     f"{sorted(map(str, extra))}")
        check_float_range(link, z)
        return link
    raise InvalidTargetError(f"a link function must be a string or a sympy expression; got {type(link).__name__}")


def check_float_range(expr: sp.Expr, variable: sp.Symbol, name: str | None = None) -> None:
    r"""Refuse a function of one variable whose Gaussian second moment :math:`\mathbb E[f(z)^2]` exceeds
    :data:`.integrability.MAX_SECOND_MOMENT`: :class:`~flt_theory.errors.InvalidTargetError` saying so (``1e300*z``,
    ``exp(64*z)``, ``He16(He16(z))``), quoting ``name`` (default the expression), cut to 60 characters.

    Exact for a polynomial (Parseval, :func:`hermite_expansion`, within the work budgets); otherwise
    estimated by the 160-node Gauss–Hermite rule (:math:`|z| \le 22`), where values that overflow float64 are
    refused too. Square-integrability itself is certified elsewhere
    (:func:`.integrability.check_square_integrable`)."""
    import numpy as np

    moment = math.nan
    if expr.is_polynomial(variable):
        moment = second_moment(hermite_expansion(expr, [variable]).coefficients.items())
    else:
        q = growth_exponent(expr, [variable])
        if q is None or q >= 0.25:
            return  # not certified square-integrable: the Hermite expansion refuses it, saying why
        x, w = gauss_rule(QUADRATURE_NODES)
        with np.errstate(all="ignore"):
            try:
                values = np.broadcast_to(np.asarray(evaluate(expr, [variable], [x]), dtype=float), x.shape)
            except (TypeError, ValueError, OverflowError):
                return  # not a real function on the grid: the Hermite expansion says why
            scaled = np.sqrt(w) * values  # sqrt(w) ~ 1e-53 at the outermost node: no spurious overflow of values**2
            moment = float(np.sum(scaled * scaled))
    if math.isnan(moment) or moment <= MAX_SECOND_MOMENT:
        return
    shown = str(expr) if name is None else name
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    estimate = "overflows float64" if not math.isfinite(moment) else f"is about {moment:.3g}"
    raise InvalidTargetError(
        f"the function {shown} is beyond the floating-point range: E[f(z)^2] {estimate}, above "
        f"{MAX_SECOND_MOMENT:.0e}; rescale it"
    )
