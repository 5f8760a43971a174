r"""The Hermite expansion of a :class:`~.target.Target`, exact or truncated at a declared degree.

* polynomial :math:`g`: exact (:func:`.hermite.hermite_expansion`), every degree;
* separable :math:`g = \sum_k \sigma^*_k(z_k)`: :math:`\hat g(j e_k) = \mu^*_{k,j}/j!` from the 1-D
  coefficients (:func:`.hermite.hermite_coefficients`, exact for relu/abs/sign/polynomial pieces),
  truncated at ``degree``;
* otherwise: tensor-product Gauss–Hermite quadrature in :math:`r` dimensions, truncated at
  ``degree`` (marked ``exact=False``; coefficients below :data:`NUMERIC_ZERO` are dropped).

Everything downstream of a truncated expansion (leap index, staircase, projections) is a statement
about the degree-``degree`` Hermite truncation, and says so.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from .._validation import check_int
from ..errors import InvalidTargetError, UnsupportedError
from .budget import limit
from .evaluate import evaluate
from .hermite import HermiteExpansion, _short, gauss_rule, hermite_coefficients, hermite_expansion
from .integrability import MAX_SECOND_MOMENT, second_moment

if TYPE_CHECKING:
    from .target import Target

__all__ = ["expand_target", "NUMERIC_ZERO", "DEFAULT_DEGREE"]

#: Numeric Hermite coefficients of smaller magnitude are treated as zero.
NUMERIC_ZERO = 1e-10
#: Truncation degree used for non-polynomial targets when none is given.
DEFAULT_DEGREE = 8


def expand_target(target: Target, degree: int | None = None) -> HermiteExpansion:
    """Hermite expansion of ``target`` (exact for polynomials; truncated at ``degree`` otherwise).

    >>> from flt_theory.symbolic.target import Target
    >>> expand_target(Target.parse("z1 + z1*z2")).support()
    [(1, 0), (1, 1)]
    >>> e = expand_target(Target.from_links(["relu(z)"]), degree=3)
    >>> e.truncation_degree, e.coefficients[(2,)]
    (3, sqrt(2)/(4*sqrt(pi)))
    """
    polynomial = target.is_polynomial
    if not polynomial:
        degree = (
            DEFAULT_DEGREE
            if degree is None
            else check_int(degree, "degree", minimum=0, maximum=40, caller="expand_target")
        )
    key = (
        target.expr,
        target.rank,
        None if polynomial else degree,
        tuple(limit(n) for n in ("degree", "terms", "work")),
    )
    if key in _CACHE:
        return _CACHE[key]
    if polynomial:
        expansion = hermite_expansion(target.expr, target.variables)
    else:
        assert degree is not None  # set above for a non-polynomial target
        links = target.links()
        if links is not None:
            expansion = _separable_expansion(links, target.rank, degree)
        else:
            expansion = _quadrature_expansion(target, degree)
    check_second_moment(expansion, target)
    if len(_CACHE) >= 16:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = expansion
    return expansion


#: The last expansions, keyed by (target, truncation, budgets): ``flt laws`` expands one target a dozen times.
_CACHE: dict[tuple[sp.Expr, int, int | None, tuple[int, ...]], HermiteExpansion] = {}


def check_second_moment(expansion: HermiteExpansion, target: Target) -> float:
    r""":math:`\mathbb E[f^*(z)^2] = \sum_\alpha \hat f(\alpha)^2\alpha!` as a float, after refusing a target whose
    second moment exceeds :data:`.integrability.MAX_SECOND_MOMENT` (``1e300*z``): every floating-point quantity
    derived from it — its norm in a report, the sizes of :mod:`.staircase_sizes`, a simulation — would overflow."""
    total = second_moment(expansion.coefficients.items())
    if not total <= MAX_SECOND_MOMENT:  # also inf and nan
        name = target.name if target.name is not None else str(target.expr)
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise InvalidTargetError(
            f"the target {shown} is beyond the floating-point range: E[f*(z)^2] = "
            f"{'inf' if not math.isfinite(total) else f'{total:.3g}'} exceeds {MAX_SECOND_MOMENT:.0e}; rescale it"
        )
    return total


def _separable_expansion(links: Sequence[sp.Expr], rank: int, degree: int) -> HermiteExpansion:
    out: dict[tuple[int, ...], sp.Expr] = {}
    exact = True
    for k, link in enumerate(links):
        coeffs = hermite_coefficients(link, degree, variable=sp.Symbol("z", real=True))
        exact = exact and coeffs.method == "exact"
        for j in range(degree + 1):
            known = coeffs.exact[j]
            value = known if known is not None else sp.Float(coeffs.values[j])
            if known is None and abs(coeffs.values[j]) <= max(NUMERIC_ZERO, 10 * coeffs.error(j)):
                continue
            if j > 0 and value.is_zero:
                continue
            alpha = tuple(j if i == k else 0 for i in range(rank))
            out[alpha] = out.get(alpha, sp.Integer(0)) + value / math.factorial(j)
    out = {a: c for a, c in out.items() if not sp.sympify(c).is_zero}
    return HermiteExpansion(out, rank, exact=exact, truncation_degree=degree)


def _quadrature_expansion(target: Target, degree: int) -> HermiteExpansion:
    import numpy as np

    from .integrability import check_square_integrable

    check_square_integrable(target.expr, target.variables)
    r = target.rank
    nodes = max(2 * degree + 20, 24)
    while nodes**r > 2_000_000 and nodes > degree + 2:
        nodes -= 1
    if nodes**r > 2_000_000 or nodes <= degree + 1:
        raise UnsupportedError(
            f"a non-separable, non-polynomial target of rank {r} needs a {r}-dimensional quadrature that is too "
            "large; give it as a polynomial or as separable links"
        )
    x, w = gauss_rule(nodes)
    grids = np.meshgrid(*([x] * r), indexing="ij")
    weights = math.prod(np.meshgrid(*([w] * r), indexing="ij"))
    with np.errstate(all="ignore"):
        values = np.asarray(evaluate(target.expr, target.variables, [g for g in grids]), dtype=float) * weights
    if not np.all(np.isfinite(values)):
        raise InvalidTargetError(f"target {_short(target.expr)} is not finite on the quadrature grid")
    he = np.polynomial.hermite_e.hermevander(x, degree)  # (nodes, degree+1)
    out = {}
    # the contraction with He_{alpha_1} .. He_{alpha_j} depends on the prefix (alpha_1 .. alpha_j) only: each prefix is
    # contracted once (the same products in the same order, so the same floats as contracting every alpha afresh)
    partial: dict[tuple[int, ...], np.ndarray] = {(): values}
    for alpha in itertools.product(range(degree + 1), repeat=r):
        if sum(alpha) > degree:
            continue
        for j in range(1, r + 1):
            if alpha[:j] not in partial:
                partial[alpha[:j]] = np.tensordot(he[:, alpha[j - 1]], partial[alpha[:j - 1]], axes=([0], [0]))
        c = partial[alpha]
        del partial[alpha]
        coeff = float(c) / math.prod(math.factorial(a) for a in alpha)
        if abs(coeff) > NUMERIC_ZERO:
            out[alpha] = sp.Float(coeff)
    return HermiteExpansion(out, r, exact=False, truncation_degree=degree)
