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

Without radicals. An exact basis row of :math:`U` is a rational direction :math:`v` divided by its norm, and
so is a row of a rational basis :math:`w` of :math:`U^\perp`. With the integer directions themselves,
:math:`z = V^\top s + W^\top u` where :math:`s` still ranges over :math:`\mathbb R^{\dim U}` (the span over
:math:`s` is unchanged) and :math:`u_j \sim \mathcal N(0, 1/|w_j|^2)` (rational Gaussian moments), and
:math:`\mu = \sum_j w_j\,\mathbb E[\partial_{u_j}\tilde g]/|w_j|^2`. So a step is integer polynomial
arithmetic (:func:`.hermite.sparse_polynomial`, :func:`.hermite.substitute_linear`) with its work predicted
and bounded first (:mod:`.budget`); only targets with exact irrational coefficients take the sympy route.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, cast

import sympy as sp
from sympy.polys.orderings import lex
from sympy.polys.rings import PolyRing

from .._validation import check_int
from .budget import (
    DOMAIN_COST,
    bits_cost,
    check_radical_span,
    check_rank,
    check_rotation,
    check_terms,
    check_work,
    horner_work,
)
from .expansion import expand_target
from .hermite import (
    HermiteExpansion,
    MultiIndex,
    Sparse,
    gaussian_moment,
    sparse_polynomial,
    substitute_linear,
    to_domain,
)
from .subspace import Subspace

if TYPE_CHECKING:
    from sympy.polys.rings import PolyElement  # untyped in sympy: reads as Any

    from .target import Target

#: A direction of a :class:`Frames`: an integer vector (``kind == "rational"``) or a float one.
Direction = tuple[int, ...] | tuple[float, ...]

__all__ = ["conditional_mean_gradient", "staircase", "staircase_step"]


def conditional_mean_gradient(
    expr: sp.Expr, variables: Sequence[sp.Symbol], subspace: Subspace
) -> tuple[sp.Matrix, tuple[sp.Symbol, ...]]:
    r""":math:`\mu_{U,x}(f)` for :math:`x = B^\top s \in U`, as an :math:`r`-vector of polynomials in
    ``s`` (returned with the symbols ``s``); lies in :math:`U^\perp`.

    >>> from flt_theory.symbolic.parser import variable
    >>> z1, z2 = variable(1), variable(2)
    >>> mu, s = conditional_mean_gradient(z1 + z1 * z2, [z1, z2], Subspace.span([[1, 0]], 2))
    >>> mu.T, s
    (Matrix([[0, s1]]), (s1,))
    """
    r = len(variables)
    check_rotation(expr, variables, "the conditional mean gradient (the target in rotated coordinates)")
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


def staircase_step(expr: sp.Expr, variables: Iterable[sp.Symbol], subspace: Subspace) -> Subspace:
    r""":math:`U \oplus \mathrm{span}\{\mu_{U,x}(f) : x \in U\}`."""
    variables = list(variables)
    check_rank(len(variables), f"a staircase step of a rank-{len(variables)} target")
    sparse = sparse_polynomial(expr, variables, "a staircase step (the target expanded)")
    step = _fast_step(sparse, subspace) if sparse is not None else None
    return step if step is not None else _symbolic_step(expr, variables, subspace)


def staircase(target: Target, steps: int = 3, degree: int | None = None) -> list[Subspace]:
    r"""The subspaces :math:`U_1, \dots, U_{\text{steps}}` of the staircase of ``target``.

    ``degree`` is the Hermite truncation used for non-polynomial targets.

    >>> from flt_theory.symbolic.target import Target
    >>> [u.latex() for u in staircase(Target.from_links(["z + He2(z)", "z - He2(z)"]), 2)]
    ['\\mathrm{span}\\{w^*_{1} + w^*_{2}\\}', '\\mathrm{span}\\{w^*_{1}, w^*_{2}\\}']
    """
    steps = check_int(steps, "steps", minimum=1, maximum=64, caller="staircase")
    check_rank(target.rank, f"the staircase of a rank-{target.rank} target")
    expansion = expand_target(target, degree)  # also refuses polynomials too large to expand
    sparse = expansion_polynomial(expansion, target.variables, target.expr if target.is_polynomial else None)
    expr = None
    out, current = [], Subspace.zero(target.rank)
    for _ in range(steps):
        if current.dim < target.rank:
            step = _fast_step(sparse, current) if sparse is not None else None
            if step is None:
                if expr is None:
                    expr = target.expr if target.is_polynomial else expansion.to_expr(target.variables)
                    check_rotation(expr, target.variables, "a staircase step (the target in rotated coordinates)")
                step = _symbolic_step(expr, target.variables, current)
            current = step
        out.append(current)
    from .display import Staircase  # a list that displays itself in a notebook

    return Staircase(out)


def expansion_polynomial(
    expansion: HermiteExpansion, variables: Iterable[sp.Symbol], expr: sp.Expr | None = None
) -> Sparse | None:
    """The polynomial of a Hermite expansion as a :class:`.hermite.Sparse` (``expr`` itself when given and it
    is an exact polynomial), or ``None`` when its coefficients are exact irrationals."""
    from .hermite import _from_hermite, _ring, hermite_conversion_work

    variables = list(variables)
    if expr is not None:
        return sparse_polynomial(expr, variables, "the target expanded")
    values = [sp.sympify(c) for c in expansion.coefficients.values()]
    coefficients: dict[MultiIndex, Fraction | float]
    if all(c.is_Rational for c in values):
        kind, coefficients = "rational", {a: Fraction(int(c.p), int(c.q)) for a, c in expansion.coefficients.items()}
    elif any(c.has(sp.Float) for c in values) and all(c.is_number for c in values):
        # a numeric (truncated) expansion: exact irrational coefficients beside it (a relu link) become floats too
        kind, coefficients = "float", {a: float(c) for a, c in expansion.coefficients.items()}
    else:
        return None
    check_work(hermite_conversion_work([(a, 1) for a in coefficients], kind), "the target expanded")
    ring = _ring(variables, kind)
    scale, poly = _from_hermite(coefficients, ring, kind)
    return Sparse(ring, scale, poly, kind)


def as_float(sparse: Sparse) -> Sparse:
    """``sparse`` with floating-point coefficients."""
    from .hermite import _ring

    ring = _ring(sparse.ring.symbols, "float")
    poly = ring.zero
    for mono, c in sparse.items():
        poly[mono] = to_domain(ring.domain, float(sparse.scale * c))
    return Sparse(ring, Fraction(1), poly, "float")


# ----------------------------------------------------------------------------------------------
# rational frames of a subspace and its complement, and the change of variables


@dataclass(frozen=True)
class Frames:
    r"""Orthogonal directions :math:`v_i` spanning :math:`U` and :math:`w_j` spanning :math:`U^\perp`: integer
    vectors (``kind == "rational"``) or orthonormal float vectors (``"float"``), with the variances
    :math:`1/|v_i|^2`, :math:`1/|w_j|^2` of the coordinates :math:`s_i`, :math:`u_j` in
    :math:`z = V^\top s + W^\top u` (Fractions, or 1.0)."""

    kind: str
    inside: tuple[Direction, ...]
    outside: tuple[Direction, ...]

    def variances(self, rows: Iterable[Direction]) -> list[Fraction | float]:
        if self.kind == "rational":
            return [Fraction(1, sum(x * x for x in cast(tuple[int, ...], row))) for row in rows]
        return [1.0 for _ in rows]


def frames(subspace: Subspace, kind: str) -> Frames | None:
    """The :class:`Frames` of ``subspace`` for coefficients of ``kind``; ``None`` when an exact basis row is not a
    rational direction (an irrational target coefficient put it there: the sympy route takes over)."""
    import numpy as np

    r = subspace.ambient
    if subspace.is_exact:
        inside: list[tuple[int, ...]] | None
        inside = []
        for row in subspace.rows():
            pivot = next(e for e in row if not e.is_zero)
            ratios = [e / pivot for e in row]
            ratios = [x if x.is_Rational else sp.radsimp(x) for x in ratios]  # exact, never a numeric guess
            if not all(x.is_Rational for x in ratios):
                inside = None
                break
            inside.append(_integer_vector([Fraction(int(x.p), int(x.q)) for x in ratios]))
        if inside is None:
            if kind == "rational":
                return None
        else:
            outside = _integer_complement(inside, r)
            if kind == "rational":
                return Frames("rational", tuple(inside), tuple(outside))
            unit: Callable[[tuple[int, ...]], tuple[float, ...]] = lambda v: tuple(  # noqa: E731
                x / math.sqrt(sum(y * y for y in v)) for x in v
            )
            return Frames("float", tuple(unit(v) for v in inside), tuple(unit(w) for w in outside))
    basis = subspace.numpy()
    _, _, vt = np.linalg.svd(basis if len(basis) else np.zeros((1, r)), full_matrices=True)
    rest = vt[len(basis):] if len(basis) else np.eye(r)
    return Frames(
        "float", tuple(tuple(map(float, row)) for row in basis), tuple(tuple(map(float, row)) for row in rest)
    )


def _integer_vector(values: list[Fraction]) -> tuple[int, ...]:
    common = math.lcm(*(v.denominator for v in values))
    ints = [int(v * common) for v in values]
    g = math.gcd(*ints) or 1
    return tuple(x // g for x in ints)


def _integer_complement(rows: list[tuple[int, ...]], r: int) -> list[tuple[int, ...]]:
    """Integer directions spanning the orthogonal complement of ``rows`` in :math:`\\mathbb Q^r`, pairwise
    orthogonal (Gram–Schmidt without normalisation)."""
    basis: list[list[Fraction]] = [[Fraction(x) for x in row] for row in rows]
    out: list[tuple[int, ...]] = []
    for k in range(r):
        v = [Fraction(int(i == k)) for i in range(r)]
        for b in basis:
            dot = sum(x * y for x, y in zip(v, b))
            if dot:
                norm = sum(y * y for y in b)
                v = [x - dot / norm * y for x, y in zip(v, b)]
        if any(v):
            basis.append(v)
            out.append(_integer_vector(v))
        if len(basis) == r:
            break
    return out


def rotate(sparse: Sparse, fr: Frames, what: str) -> tuple[PolyRing, PolyElement]:
    r"""``(ring, poly)``: the polynomial ``sparse`` (its ``scale`` left aside) in the coordinates
    :math:`z = V^\top s + W^\top u` of ``fr``, a polynomial in ``s1..sm, u1..uk``; its work is predicted and
    checked first (:func:`.budget.horner_work`)."""
    r = sparse.ring.ngens
    m, k = len(fr.inside), len(fr.outside)
    items = list(sparse.items())
    rows = list(fr.inside) + list(fr.outside)
    nonzero = max((sum(1 for row in rows if row[l]) for l in range(r)), default=1)
    work, terms = horner_work([mono for mono, _ in items], m + k, nonzero)
    check_terms(terms, what)
    if sparse.kind == "rational":
        degree = max((sum(mono) for mono, _ in items), default=0)
        entry = max((abs(x) for row in rows for x in row), default=1)
        bits = max((abs(c).bit_length() for _, c in items), default=1) + degree * math.log2(entry * max(m + k, 1) + 1)
        work *= bits_cost(bits)
    check_work(work * DOMAIN_COST[sparse.kind], what)
    names = [f"s{i}" for i in range(1, m + 1)] + [f"u{j}" for j in range(1, k + 1)]
    ring = PolyRing(tuple(sp.Symbol(n, real=True) for n in names), sparse.ring.domain, lex)
    images = []
    for l in range(r):
        image = ring.zero
        for gen, row in zip(ring.gens, rows):
            if row[l]:
                image = image + gen * to_domain(ring.domain, row[l])
        images.append(image)
    return ring, substitute_linear(items, images, ring)


# ----------------------------------------------------------------------------------------------
# one step


def _fast_step(sparse: Sparse, subspace: Subspace) -> Subspace | None:
    """The staircase step by integer (or float) polynomial arithmetic in rational frames; ``None`` when the
    frames are not rational (see the module docstring)."""
    r = subspace.ambient
    if not subspace.is_exact and sparse.kind == "rational":
        sparse = as_float(sparse)  # a floating-point subspace: the step is floating point anyway
    kind = sparse.kind
    fr = frames(subspace, kind)
    if fr is None:
        return None
    m, k = len(fr.inside), len(fr.outside)
    if k == 0:
        return subspace
    ring, g = rotate(sparse, fr, "a staircase step (the target in rotated coordinates)")
    b = fr.variances(fr.outside)
    rational = kind == "rational"
    moments: dict[tuple[int, int], Fraction | float] = {}

    def moment(j: int, e: int) -> Fraction | float:  # E[u_j^e], u_j ~ N(0, b_j), e even
        key = (j, e)
        if key not in moments:
            moments[key] = b[j] ** (e // 2) * int(gaussian_moment(e))
        return moments[key]

    by_s: dict[tuple[int, ...], list[Fraction | float]] = {}
    for mono, c in g.items():
        gamma = mono[m:]
        odd = [j for j in range(k) if gamma[j] % 2]
        if len(odd) != 1:
            continue
        j = odd[0]
        value = (Fraction(int(c)) if rational else float(c)) * gamma[j]
        for l in range(k):
            e = gamma[l] - (l == j)
            if e:
                value = value * moment(l, e)
        vec = by_s.setdefault(mono[:m], [0] * k)
        vec[j] += value
    vectors: list[Sequence[Fraction | float]] = []
    for vec in by_s.values():
        if any(vec):
            vectors.append([sum(fr.outside[j][i] * vec[j] * b[j] for j in range(k)) for i in range(r)])
    if rational:
        return rational_span(list(fr.inside) + vectors, r)
    else:
        rows = [[sp.Float(x) for x in v] for v in list(fr.inside) + vectors]
    return Subspace.span(rows, r) if rows else Subspace.zero(r)


def rational_span(vectors: Iterable[Sequence[Fraction | float]], r: int) -> Subspace:
    """``Subspace.span(vectors, r)`` for rational vectors, computed in exact fractions: the reduced row echelon form
    (unique), Gram–Schmidt of its rows, each row divided by the square root of its rational squared norm. The
    basis is the same, entry for entry, as the one :meth:`.Subspace.span` builds with sympy's radicals and
    ``simplify`` (checked on hundreds of random spans in ``tests/symbolic``), in milliseconds instead of seconds
    (1.4 s for a span in rank 12): the exact subspaces of rational targets cost no radical arithmetic."""
    matrix = [[Fraction(x) for x in v] for v in vectors]
    matrix = [row for row in matrix if any(row)]
    rank = 0
    for col in range(r):
        pivot = next((k for k in range(rank, len(matrix)) if matrix[k][col]), None)
        if pivot is None:
            continue
        matrix[rank], matrix[pivot] = matrix[pivot], matrix[rank]
        head = matrix[rank][col]
        matrix[rank] = [x / head for x in matrix[rank]]
        for k in range(len(matrix)):
            if k != rank and matrix[k][col]:
                factor = matrix[k][col]
                matrix[k] = [a - factor * b for a, b in zip(matrix[k], matrix[rank])]
        rank += 1
        if rank == len(matrix):
            break
    orthogonal: list[list[Fraction]] = []
    for v in matrix[:rank]:
        w = v
        for u in orthogonal:
            # Fractions throughout (typeshed types a sum of Fractions divided by one as Fraction | float)
            factor = cast(Fraction, sum(a * b for a, b in zip(v, u)) / sum(b * b for b in u))
            w = [a - factor * b for a, b in zip(w, u)]
        orthogonal.append(w)
    rows = []
    for w in orthogonal:
        norm2 = sum(x * x for x in w)
        root = sp.sqrt(sp.Rational(norm2.numerator, norm2.denominator))
        rows.append([sp.Rational(x.numerator, x.denominator) / root for x in w])
    return Subspace(sp.Matrix(rows) if rows else sp.zeros(0, r), r)


def _symbolic_step(expr: sp.Expr, variables: Sequence[sp.Symbol], subspace: Subspace) -> Subspace:
    """The step by sympy expressions (exact irrational coefficients or directions), its size bounded by
    :func:`.budget.check_rotation` and its work charged at the symbolic domain cost."""
    from .budget import predict_size

    degree, terms = predict_size(expr, variables)
    r = len(variables)
    check_radical_span(r, "a staircase step with exact irrational coefficients (its subspaces)")
    if degree is not None:
        from .budget import _comb

        rotated = min(terms * _comb(degree + r - 1, r - 1), _comb(degree + r, r))
        check_work(rotated * r * DOMAIN_COST["symbolic"], "a staircase step with exact irrational coefficients")
    mu, s = conditional_mean_gradient(expr, variables, subspace)
    columns = []
    for component in mu:
        poly = sp.Poly(sp.expand(component), *s) if s else None
        columns.append(dict(poly.terms()) if poly is not None else {(): sp.simplify(component)})
    monomials = sorted({m for col in columns for m in col})
    vectors = [[col.get(m, sp.Integer(0)) for col in columns] for m in monomials]
    return subspace + Subspace.span(vectors, len(variables))


def _gaussian_expectation(poly_expr: sp.Expr, u: Sequence[sp.Symbol]) -> sp.Expr:
    """:math:`\\mathbb E_u[\\cdot]` of a polynomial in the iid standard Gaussians ``u``."""
    if not u:
        return poly_expr
    total = sp.Integer(0)
    for monomial, coeff in sp.Poly(poly_expr, *u).terms():
        moment = sp.Mul(*(gaussian_moment(m) for m in monomial))
        if moment != 0:
            total += coeff * moment
    return sp.expand(total)
