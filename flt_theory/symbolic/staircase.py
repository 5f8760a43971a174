r"""Staircase of learned subspaces under several giant steps (Dandi et al. 2023, arXiv 2305.18270, Conjecture 1).

Subspace conditioning (Definition 2 of Dandi et al. 2023): for :math:`U \subseteq V` and :math:`x \in U`,
:math:`f_{U,x}(x^\perp) = f(x + x^\perp)` and
:math:`\mu_{U,x}(f) = \mathbb E_{x^\perp\sim\mathcal N(0, I)}[\nabla_{x^\perp} f_{U,x}(x^\perp)]`.
The staircase is :math:`U_0 = \{0\}`,
:math:`U_{t+1} = U_t \oplus \mathrm{span}\{\mu_{U_t,x}(f^*) : x \in U_t\}`; the conjecture says
:math:`t` steps with :math:`n = O(d)` learn exactly :math:`U_t` (a theorem in expectation for
:math:`t = 2`).

Computation (exact for polynomial :math:`g`, in w*-coordinates). Take orthonormal bases
:math:`B` of :math:`U` (rows) and :math:`Q` of :math:`U^\perp` in :math:`\mathbb R^r`, write
:math:`z = B^\top s + Q^\top u` and :math:`\tilde g(s, u) = g(B^\top s + Q^\top u)`. Then
:math:`\mu_{U, B^\top s} = Q^\top\,\mathbb E_u[\nabla_u \tilde g(s, u)]`, a vector of polynomials in
:math:`s`; the :math:`u`-expectation replaces each monomial :math:`u^\beta` by its Gaussian moment.
The span over all :math:`s \in \mathbb R^{\dim U}` is the column space of the coefficient matrix
(rows: components, columns: monomials in :math:`s`). Directions of :math:`V^{*\perp}` never appear
(:math:`f^*` does not depend on them). Non-polynomial targets are first replaced by their Hermite
truncation at a declared degree (:func:`.expansion.expand_target`).
"""

from __future__ import annotations

import sympy as sp

from .._validation import check_int
from .budget import check_rank, check_rotation
from .expansion import expand_target
from .hermite import gaussian_moment
from .subspace import Subspace

__all__ = ["conditional_mean_gradient", "staircase", "staircase_step"]


def conditional_mean_gradient(expr: sp.Expr, variables, subspace: Subspace) -> tuple[sp.Matrix, tuple[sp.Symbol, ...]]:
    r""":math:`\mu_{U,x}(f)` for :math:`x = B^\top s \in U`, as an :math:`r`-vector of polynomials in
    ``s`` (returned with the symbols ``s``); lies in :math:`U^\perp`.

    >>> from flt_theory.symbolic.parser import variable
    >>> z1, z2 = variable(1), variable(2)
    >>> mu, s = conditional_mean_gradient(z1 + z1 * z2, [z1, z2], Subspace.span([[1, 0]], 2))
    >>> mu.T, s
    (Matrix([[0, s1]]), (s1,))
    """
    r = len(variables)
    complement = subspace.complement()
    s = sp.symbols(f"s1:{subspace.dim + 1}", real=True) if subspace.dim else ()
    u = sp.symbols(f"u1:{complement.dim + 1}", real=True) if complement.dim else ()
    if complement.dim == 0:
        return sp.zeros(r, 1), s
    z = subspace.basis.T * sp.Matrix(s) if subspace.dim else sp.zeros(r, 1)
    z = z + complement.basis.T * sp.Matrix(u)
    g = sp.expand(expr.xreplace(dict(zip(variables, z))))
    grad_u = [_gaussian_expectation(sp.diff(g, uk), u) for uk in u]
    return complement.basis.T * sp.Matrix(grad_u), s


def staircase_step(expr: sp.Expr, variables, subspace: Subspace) -> Subspace:
    r""":math:`U \oplus \mathrm{span}\{\mu_{U,x}(f) : x \in U\}`."""
    mu, s = conditional_mean_gradient(expr, variables, subspace)
    columns = []
    for component in mu:
        poly = sp.Poly(sp.expand(component), *s) if s else None
        columns.append(dict(poly.terms()) if poly is not None else {(): sp.simplify(component)})
    monomials = sorted({m for col in columns for m in col})
    vectors = [[col.get(m, sp.Integer(0)) for col in columns] for m in monomials]
    return subspace + Subspace.span(vectors, len(variables))


def staircase(target, steps: int = 3, degree: int | None = None) -> list[Subspace]:
    r"""The subspaces :math:`U_1, \dots, U_{\text{steps}}` of the staircase of ``target``.

    ``degree`` is the Hermite truncation used for non-polynomial targets.

    >>> from flt_theory.symbolic.target import Target
    >>> [u.latex() for u in staircase(Target.from_links(["z + He2(z)", "z - He2(z)"]), 2)]
    ['\\mathrm{span}\\{w^*_{1} + w^*_{2}\\}', '\\mathrm{span}\\{w^*_{1}, w^*_{2}\\}']
    """
    steps = check_int(steps, "steps", minimum=1, maximum=64, caller="staircase")
    check_rank(target.rank, f"the staircase of a rank-{target.rank} target")
    expr = _polynomial_expr(target, degree)
    check_rotation(expr, target.variables, "a staircase step (the target in rotated coordinates)")
    out, current = [], Subspace.zero(target.rank)
    for _ in range(steps):
        current = current if current.dim == target.rank else staircase_step(expr, target.variables, current)
        out.append(current)
    return out


def _polynomial_expr(target, degree: int | None) -> sp.Expr:
    expansion = expand_target(target, degree)  # also refuses polynomials too large to expand
    return target.expr if target.is_polynomial else expansion.to_expr(target.variables)


def _gaussian_expectation(poly_expr: sp.Expr, u) -> sp.Expr:
    """:math:`\\mathbb E_u[\\cdot]` of a polynomial in the iid standard Gaussians ``u``."""
    if not u:
        return poly_expr
    total = sp.Integer(0)
    for monomial, coeff in sp.Poly(poly_expr, *u).terms():
        moment = sp.Mul(*(gaussian_moment(m) for m in monomial))
        if moment != 0:
            total += coeff * moment
    return sp.expand(total)
