r"""Projections :math:`P_{U,\le\kappa} f^*` and the second-layer lower bounds of Dandi et al. 2023 (arXiv 2305.18270).

Definition 3 of Dandi et al. 2023: :math:`\mathcal P_{U,\kappa}` is the space of functions that, for each
fixed :math:`x \in U`, are polynomials of degree :math:`\le \kappa` in :math:`x^\perp`;
:math:`P_{U,\le\kappa}`, :math:`P_{U,>\kappa}` are the :math:`L^2(\gamma)` projections on it and on its
complement. In rotated orthonormal coordinates :math:`z = B^\top s + Q^\top u` (:math:`B` a basis
of :math:`U`, :math:`Q` of :math:`U^\perp`) the product Hermite basis :math:`\mathrm{He}_{(\alpha_s,\alpha_u)}`
is again orthogonal, and :math:`\mathcal P_{U,\kappa}` is spanned by those with
:math:`|\alpha_u| \le \kappa`; so :math:`P_{U,\le\kappa}` keeps exactly those Hermite terms and

.. math:: \|P_{U,>\kappa} f\|_\gamma^2 = \sum_{|\alpha_u| > \kappa} \hat f(\alpha)^2\,\alpha!.

Special cases: :math:`\mathbb E[\mathrm{Var}(f^*\mid P_U x)] = \|P_{U,>0} f^*\|^2` (Theorem, :math:`p = O(1)`);
the random-feature limit (MMM '22) is :math:`U = \{0\}`: :math:`\|P_{>\kappa} f^*\|^2`;
Conjecture 3: error :math:`\ge \|P_{U^*,>\kappa} f^*\|_\gamma^2` with :math:`\kappa = \min(\kappa_n,\kappa_p)`
(non-integer :math:`\kappa` keeps degrees :math:`\le\lfloor\kappa\rfloor`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Mapping, Sequence, cast

import sympy as sp

from .._validation import check_int, check_real
from ..errors import InvalidParameterError, InvalidParameterTypeError
from . import budget
from .budget import (
    DOMAIN_COST,
    EXPRESSION_WEIGHT,
    _comb,
    check_rank,
    check_rotation,
    check_terms,
    check_work,
    horner_work,
    predict_size,
)
from .expansion import NUMERIC_ZERO, expand_target
from .hermite import (
    Coefficient,
    HermiteExpansion,
    MultiIndex,
    Sparse,
    _from_hermite,
    _hermite_of_monomials,
    hermite_conversion_work,
    hermite_expansion,
    substitute_linear,
    to_domain,
)
from .one_step import one_step_subspace
from .staircase import Frames, as_float, expansion_polynomial, frames, rotate, staircase
from .subspace import Subspace

if TYPE_CHECKING:
    from .target import Target

__all__ = [
    "ProjectionResult",
    "project",
    "conditional_variance",
    "random_feature_error",
    "learned_subspace",
    "RegimeRow",
    "regime_table",
    "format_hermite",
]


@dataclass(frozen=True)
class ProjectionResult:
    r""":math:`P_{U,\le\kappa} f` (``fitted``, in w*-coordinates) and the two squared norms."""

    subspace: Subspace
    kappa: float
    fitted: sp.Expr
    fitted_expansion: HermiteExpansion
    residual_norm2: sp.Expr
    norm2: sp.Expr


def project(target: Target, subspace: Subspace, kappa: float, degree: int | None = None) -> ProjectionResult:
    r""":math:`P_{U,\le\kappa} f^*` and :math:`\|P_{U,>\kappa} f^*\|_\gamma^2` (see module docstring).

    >>> from flt_theory.symbolic.target import Target
    >>> res = project(Target.parse("z1 + z1*z2 + He2(z2)"), Subspace.span([[1, 0]], 2), 1)
    >>> res.fitted, res.residual_norm2, res.norm2
    (z1*z2 + z1, 2, 4)
    """
    kappa = check_real(kappa, "kappa", minimum=0.0, caller="project")
    if not isinstance(subspace, Subspace):
        raise InvalidParameterTypeError(
            f"The 'subspace' parameter of project must be a Subspace. Got {type(subspace).__name__} instead."
        )
    if subspace.ambient != target.rank:
        raise InvalidParameterError(
            f"The 'subspace' parameter of project must live in R^{target.rank} (the target's rank). "
            f"Got a subspace of R^{subspace.ambient} instead."
        )
    cutoff = int(math.floor(kappa + 1e-12))
    check_rank(target.rank, f"the projection of a rank-{target.rank} target")
    expansion = expand_target(target, degree)
    if subspace.dim in (0, target.rank):  # no change of variables: z itself (U = 0) or nothing left out (U = V*)
        keep = (lambda a: sum(a) <= cutoff) if subspace.dim == 0 else (lambda a: True)
        kept = expansion.filter(keep)
        dropped = expansion.filter(lambda a: not keep(a))
        fitted_expansion = _like(expansion, kept.coefficients, target.rank)
        return ProjectionResult(subspace, kappa, _expression(fitted_expansion, target.variables), fitted_expansion,
                                _tidy(dropped.norm2()), _tidy(expansion.norm2()))
    sparse = expansion_polynomial(expansion, target.variables, target.expr if target.is_polynomial else None)
    if sparse is not None and not subspace.is_exact and sparse.kind == "rational":
        sparse = as_float(sparse)
    fr = frames(subspace, sparse.kind) if sparse is not None else None
    if fr is None:
        return _symbolic_project(target, subspace, kappa, cutoff, expansion)
    assert sparse is not None  # frames are built only for a sparse polynomial
    fitted_expansion, fitted, residual = _rational_project(sparse, fr, cutoff, expansion, target)
    return ProjectionResult(subspace, kappa, fitted, fitted_expansion, residual, _tidy(expansion.norm2()))


def _tidy(value: sp.Expr) -> sp.Expr:
    """``sp.simplify(value)`` for a short expression, ``sp.expand`` for a long one (a sum of hundreds of radical terms
    took seconds to simplify); numbers as they are."""
    value = sp.sympify(value)
    if value.is_Number:
        return value
    return sp.simplify(value) if sp.count_ops(value) <= 40 else sp.expand(value)


def _expression(expansion: HermiteExpansion, variables: Sequence[sp.Symbol]) -> sp.Expr:
    """The polynomial of ``expansion`` in ``variables``, expanded (by the sparse engine when it can)."""
    sparse = expansion_polynomial(expansion, variables)
    if sparse is None:
        return expansion.to_expr(variables)
    check_work(EXPRESSION_WEIGHT * len(sparse.poly), "the fitted polynomial as an expression")
    return sparse.as_expr()


def _rational_project(
    sparse: Sparse, fr: Frames, cutoff: int, expansion: HermiteExpansion, target: Target
) -> tuple[HermiteExpansion, sp.Expr, sp.Expr]:
    r"""``(fitted expansion, fitted, residual)`` in the integer frames ``fr`` (:func:`.staircase.frames`): with
    :math:`z = V^\top s + W^\top u`, :math:`s_i \sim \mathcal N(0, a_i)`, :math:`u_j \sim \mathcal N(0, b_j)`,
    the rotated polynomial in the scaled Hermite basis :math:`H^{(a)}_k(x) = a^{k/2}\mathrm{He}_k(x/\sqrt a)` has
    coefficients :math:`\gamma(\beta) = \hat g(\beta)\,a^{-\beta/2}` (:math:`\hat g` in orthonormal rotated
    coordinates), so the kept set :math:`|\beta_u| \le \kappa` is the same and
    :math:`\|P_{U,>\kappa} f\|^2 = \sum_{|\beta_u|>\kappa} \gamma(\beta)^2\,a^{\beta}\beta!`, all rational."""
    what = "the projection (the target in rotated coordinates)"
    m, k, r = len(fr.inside), len(fr.outside), target.rank
    ring, g = rotate(sparse, fr, what)
    variances = fr.variances(fr.inside) + fr.variances(fr.outside)
    items = list(g.items())
    check_work(hermite_conversion_work(items, sparse.kind), what)
    hscale, herm = _hermite_of_monomials(items, m + k, variances)
    scale = sparse.scale * hscale
    rational = sparse.kind == "rational"
    kept = {b: c for b, c in herm.items() if sum(b[m:]) <= cutoff}
    residual: Fraction | float = 0
    for beta, c in herm.items():
        if sum(beta[m:]) > cutoff:
            weight = math.prod(math.factorial(x) for x in beta)
            value = (scale * c) ** 2 if rational else float(c) ** 2
            for x, a in zip(beta, variances):
                if x:
                    value = value * a**x
            residual += value * weight
    exact = cast(Fraction, residual)  # read only when rational: a sum of Fractions then
    residual = sp.Rational(exact.numerator, exact.denominator) if rational and residual else (
        sp.Integer(0) if not residual else sp.Float(float(residual)))
    # P_{U,<=kappa} f back in z: the kept part as a polynomial in (s, u), then s_i = a_i v_i.z, u_j = b_j w_j.z
    check_work(hermite_conversion_work([(b, c) for b, c in kept.items()], sparse.kind), what)
    fscale, poly = _from_hermite(kept, ring, sparse.kind, variances)
    terms: dict[MultiIndex, Coefficient] = {}  # Fractions or floats, then elements of the ring's domain
    for mono, c in poly.items():
        value = Fraction(int(c)) if rational else float(c)
        for x, a in zip(mono, variances):
            if x:
                value = value * a**x
        terms[mono] = value
    if rational:
        common = math.lcm(*(v.denominator for v in terms.values())) if terms else 1
        terms = {mono: int(v * common) for mono, v in terms.items()}
        fscale = fscale * scale / common
    else:
        terms = {mono: to_domain(sparse.ring.domain, v) for mono, v in terms.items()}
    rows = list(fr.inside) + list(fr.outside)
    domain = sparse.ring.domain
    images = []
    for row in rows:
        image = sparse.ring.zero
        for gen, entry in zip(sparse.ring.gens, row):
            if entry:
                image = image + gen * to_domain(domain, entry)
        images.append(image)
    nonzero = max((sum(1 for x in row if x) for row in rows), default=1)
    work, count = horner_work(list(terms), r, nonzero)
    check_terms(count, what)
    check_work(work * DOMAIN_COST[sparse.kind], what)
    back = Sparse(
        sparse.ring,
        fscale if rational else Fraction(1),
        substitute_linear(terms.items(), images, sparse.ring),
        sparse.kind,
    )
    back_items = list(back.items())
    check_work(hermite_conversion_work(back_items, sparse.kind), what)
    bscale, coefficients = _hermite_of_monomials(back_items, r)
    out = {}
    for alpha, c in coefficients.items():
        if rational:
            value = back.scale * bscale * c
            out[alpha] = sp.Rational(value.numerator, value.denominator)
        else:
            out[alpha] = sp.Float(float(c))
    fitted_expansion = _like(expansion, out, r)
    return fitted_expansion, _expression(fitted_expansion, target.variables), residual


def _symbolic_project(
    target: Target, subspace: Subspace, kappa: float, cutoff: int, expansion: HermiteExpansion
) -> ProjectionResult:
    """The projection by sympy expressions (exact irrational coefficients or directions), its size bounded by
    :func:`.budget.check_rotation` and its work charged at the symbolic domain cost."""
    expr = target.expr if target.is_polynomial else expansion.to_expr(target.variables)
    budget.check_radical_span(target.rank, "the projection with exact irrational coefficients (its subspaces)")
    check_rotation(expr, target.variables, "the projection (the target in rotated coordinates)")
    degree, terms = predict_size(expr, target.variables)
    if degree is not None:
        r = target.rank
        check_work(min(terms * _comb(degree + r - 1, r - 1), _comb(degree + r, r)) * r * DOMAIN_COST["symbolic"],
                   "the projection with exact irrational coefficients")
    rotated, s, u = _rotated_expansion(expansion, target.variables, subspace)
    m = len(s)
    kept = rotated.filter(lambda a: sum(a[m:]) <= cutoff)
    dropped = rotated.filter(lambda a: sum(a[m:]) > cutoff)
    fitted_rotated = kept.to_expr(list(s) + list(u))
    z = sp.Matrix(target.variables)
    back = dict(zip(list(s) + list(u), list(subspace.basis * z) + list(subspace.complement().basis * z)))
    fitted = sp.expand(fitted_rotated.xreplace(back))
    fitted_expansion = _like(expansion, hermite_expansion(fitted, target.variables).coefficients, target.rank)
    return ProjectionResult(subspace, kappa, fitted, fitted_expansion, _tidy(dropped.norm2()), _tidy(expansion.norm2()))


def conditional_variance(target: Target, subspace: Subspace, degree: int | None = None) -> sp.Expr:
    r""":math:`\mathbb E[\mathrm{Var}(f^*(x)\mid P_U x)] = \|P_{U,>0} f^*\|_\gamma^2`.

    >>> from flt_theory.symbolic.target import Target
    >>> conditional_variance(Target.parse("z1 + z1*z2"), Subspace.span([[1, 0]], 2))
    1
    """
    return project(target, subspace, 0, degree).residual_norm2


def random_feature_error(target: Target, kappa: float, degree: int | None = None) -> sp.Expr:
    r"""Random-feature limit :math:`\|P_{>\kappa} f^*\|^2` (MMM '22, :math:`\kappa = \min(\kappa_1,\kappa_2)`)."""
    return project(target, Subspace.zero(target.rank), kappa, degree).residual_norm2


def random_feature_floor(target: Target, activation: str | sp.Expr = "relu", degree: int | None = None) -> sp.Expr:
    r"""Test error of the best fit of :math:`f^*` on :math:`p` distinct random features :math:`\sigma(\langle w_i,
    x\rangle)`, :math:`w_i` uniform on :math:`\mathbb S^{d-1}` (the second layer at :math:`T = 0`; a symmetric
    initialisation of width :math:`p'` has :math:`p = p'/2` distinct features), to first order in :math:`p/d`:

    .. math:: \mathrm{Var} f^* - \frac pd\,\frac{\mu_1(\sigma)^2}{\mathrm{Var}\,\sigma(g)}\,\|P_1 f^*\|_\gamma^2
              + O\big((p/d)^2, p/d^2\big).

    Derivation. With :math:`\beta = \mathbb E[\nabla f^*]` (so :math:`\|P_1 f^*\|^2 = |\beta|^2`) and :math:`b =
    W^{*\top}\beta`, :math:`\mathrm{Cov}(f^*, \sigma(w_i\cdot x)) = \mu_1\,w_i\cdot b + O(1/d)` (degree :math:`k \ge 2`
    parts meet :math:`\langle w_i, w^*\rangle^k = O(d^{-k/2})`), and the feature covariance is
    :math:`K = \mathrm{Var}\,\sigma\,I + \mu_1^2 (w_i\cdot w_j)_{i\ne j} + O(1/d)`. The captured variance
    :math:`c^\top K^{-1}c` has mean :math:`\mu_1^2\,p\,|b|^2/(d\,\mathrm{Var}\,\sigma)` (:math:`\mathbb E(w\cdot b)^2 =
    |b|^2/d`), the off-diagonal part of :math:`K` correcting it by a relative
    :math:`O(p\mu_1^2/(d\,\mathrm{Var}\,\sigma))`. The asymptotic bound of Dandi et al. 2023 (error :math:`\ge
    \mathrm{Var} f^* + o(1)` at :math:`T = 0`, :math:`p = O(1)`) is its :math:`p/d \to 0` limit. Checked (ReLU,
    :math:`z_1 + z_1z_2`, symmetric width :math:`p' = 8, 16, 32` at :math:`d = 128`, 16 seeds): measured drops below 2
    of 0.021, 0.031, 0.078 (standard errors 0.013–0.018) against the predicted 0.023, 0.046, 0.092.

    >>> from flt_theory.symbolic.target import Target
    >>> random_feature_floor(Target.parse("z1 + z1*z2"))
    2 - pi*p/(2*d*(-1 + pi))
    """
    from .hermite import hermite_coefficients
    from .law import SYMBOLS
    from .target import parse_link

    sigma = parse_link(activation) if isinstance(activation, str) else activation
    mu = hermite_coefficients(sigma, 1)
    second = hermite_coefficients(sp.expand(sigma**2), 0)
    exact = mu.exact is not None and second.exact is not None and None not in (*mu.exact, *second.exact)
    # when ``exact``, no coefficient is None
    mu0, mu1 = (cast(tuple[sp.Expr, ...], mu.exact) if exact else [sp.Float(v) for v in mu.values])[:2]
    variance_sigma = (cast(sp.Expr, second.exact[0]) if exact else sp.Float(second.values[0])) - mu0**2
    linear = random_feature_error(target, 0, degree) - random_feature_error(target, 1, degree)
    total = conditional_variance(target, Subspace.zero(target.rank), degree)
    return total - sp.simplify(mu1**2 / variance_sigma * linear) * SYMBOLS["p"] / SYMBOLS["d"]


def learned_subspace(
    target: Target,
    kappa_n: float,
    steps: int = 1,
    activation: str | sp.Expr | None = None,
    degree: int | None = None,
) -> Subspace:
    r"""The first-layer subspace: the one-step rule at :math:`\kappa_n` (``steps = 1``), or the
    staircase :math:`U_T` (``steps = T > 1``, the regime :math:`n = O(d)` of Conjecture 1)."""
    steps = check_int(steps, "steps", minimum=1, maximum=64, caller="learned_subspace")
    if steps == 1:
        return one_step_subspace(target, kappa_n, activation=activation, degree=degree)
    return staircase(target, steps, degree=degree)[-1]


@dataclass(frozen=True)
class RegimeRow:
    """One row of the (κ_n, κ_p) regime table."""

    kappa_n: float
    kappa_p: float
    kappa: float
    subspace: Subspace
    projection: ProjectionResult


def regime_table(
    target: Target, regimes: Sequence[tuple[float, float]], steps: int = 1, degree: int | None = None
) -> list[RegimeRow]:
    r"""For each :math:`(\kappa_n, \kappa_p)`: the learned subspace, :math:`\kappa = \min(\kappa_n,\kappa_p)`,
    the fitted :math:`P_{U,\le\kappa} f^*` and the residual :math:`\|P_{U,>\kappa} f^*\|^2` (Conjecture 3)."""
    rows = []
    for kappa_n, kappa_p in regimes:
        kappa_n = check_real(kappa_n, "kappa_n", minimum=0.0, caller="regime_table")
        kappa_p = check_real(kappa_p, "kappa_p", minimum=0.0, caller="regime_table")
        subspace = learned_subspace(target, kappa_n, steps, degree=degree)
        kappa = min(kappa_n, kappa_p)
        rows.append(RegimeRow(kappa_n, kappa_p, kappa, subspace, project(target, subspace, kappa, degree)))
    from .display import RegimeTable  # a list that displays itself in a notebook

    return RegimeTable(rows)


def format_hermite(expansion: HermiteExpansion, names: Sequence[str] | None = None) -> str:
    """A Hermite expansion as text in the parser's grammar, e.g. ``"z1 + He2(z1)*z2"``.

    >>> from flt_theory.symbolic.parser import variable
    >>> z1, z2 = variable(1), variable(2)
    >>> format_hermite(hermite_expansion(z1 + (z1**2 - 1) * z2, [z1, z2]))
    'z1 + He2(z1)*z2'
    """
    names = names or [f"z{k + 1}" for k in range(expansion.rank)]
    parts = []
    for alpha in expansion.support():
        factors = [n if a == 1 else f"He{a}({n})" for a, n in zip(alpha, names) if a]
        coeff = expansion.coefficients[alpha]
        body = "*".join(factors)
        if not factors:
            parts.append(str(coeff))
        elif coeff == 1:
            parts.append(body)
        elif coeff == -1:
            parts.append("-" + body)
        else:
            c = str(coeff)
            parts.append(
                f"({c})*{body}"
                if any(ch in c[1:] for ch in "+-/") or c.startswith("-") is False and "/" in c
                else f"{c}*{body}"
            )
    text = " + ".join(parts) if parts else "0"
    return text.replace("+ -", "- ")


def _rotated_expansion(
    expansion: HermiteExpansion, variables: Sequence[sp.Symbol], subspace: Subspace
) -> tuple[HermiteExpansion, tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    r"""The expansion in rotated coordinates :math:`z = B^\top s + Q^\top u` (``(s, u)`` order).

    The Hermite chaos of each total degree is rotation invariant, so rotating a truncated numeric
    expansion gives exactly the truncation of the rotated function."""
    check_rotation(
        sp.Add(*(sp.Mul(*(v**k for v, k in zip(variables, a))) for a in expansion.coefficients)),
        variables,
        "the projection (the target in rotated coordinates)",
    )
    s = sp.symbols(f"s1:{subspace.dim + 1}", real=True) if subspace.dim else ()
    complement = subspace.complement()
    u = sp.symbols(f"u1:{complement.dim + 1}", real=True) if complement.dim else ()
    z = (subspace.basis.T * sp.Matrix(s) if subspace.dim else sp.zeros(len(variables), 1)) + (
        complement.basis.T * sp.Matrix(u) if complement.dim else sp.zeros(len(variables), 1)
    )
    g = sp.expand(expansion.to_expr(variables).xreplace(dict(zip(variables, z))))
    rotated = hermite_expansion(g, list(s) + list(u))
    return _like(expansion, rotated.coefficients, rotated.rank), s, u


def _like(source: HermiteExpansion, coefficients: Mapping[MultiIndex, sp.Expr], rank: int) -> HermiteExpansion:
    """``coefficients`` as an expansion with the truncation of ``source``, exact if ``source`` is and no
    float crept in (a float basis); floating-point round-off (|c| <= NUMERIC_ZERO) is dropped."""
    kept = {a: c for a, c in coefficients.items() if not (c.has(sp.Float) and abs(complex(c)) <= NUMERIC_ZERO)}
    exact = source.exact and not any(c.has(sp.Float) for c in kept.values())
    return HermiteExpansion(kept, rank, exact, source.truncation_degree)
