r"""Multi-index targets :math:`f^*(x) = g(\langle w^*_1, x\rangle, \dots, \langle w^*_r, x\rangle)`.

The teacher directions :math:`w^*_k` are orthonormal, so the coordinates
:math:`z_k = \langle w^*_k, x\rangle` of :math:`x \sim \mathcal N(0, I_d)` are iid standard
Gaussians, and everything the laws need (Hermite expansion, tensors, subspaces) lives in the
:math:`r`-dimensional space of :math:`z = (z_1,\dots,z_r)` — "w*-coordinates". Source: Dandi, Krzakala, Loureiro, Pesce,
Stephan 2023 (arXiv 2305.18270).

A target is built from a sympy expression in the symbols ``z1 … zr`` (:func:`.parser.variable`),
from link functions :math:`\sigma^*_k` (separable case :math:`g = \sum_k \sigma^*_k(z_k)`), or by
parsing a user string with the restricted grammar of :mod:`.parser` (never ``eval``). A link is read by
:func:`.hermite.parse_link` (importable from here too; it lives below this module, with the expansion its range
check needs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, cast

import sympy as sp

from .._validation import check_int
from ..errors import InvalidTargetError
from .hermite import LINK_VARIABLE, parse_link, sparse_polynomial
from .parser import _short, parse_expression, variable

__all__ = ["Target", "parse_link", "variables_of_rank", "polynomial_degree_bound", "MAX_POLYNOMIAL_TERMS"]

#: Largest number of monomials an exact Hermite expansion may produce (guards `(z1+…+z20)**60`).
MAX_POLYNOMIAL_TERMS = 200_000

_SYMBOL_HINT = " (the real symbols variable(k) of flt_theory.symbolic.parser, not Symbol('zk'))"


@dataclass(frozen=True)
class Target:
    r"""A target :math:`f^*(x) = g(z_1, \dots, z_r)` in w*-coordinates.

    Attributes
    ----------
    expr
        The link :math:`g` as a sympy expression in ``variable(1) … variable(r)`` (:func:`~.parser.variable`).
    rank
        :math:`r`, the number of teacher directions (may exceed the variables actually used).
    name
        Optional display name.

    Examples
    --------
    >>> t = Target.parse("z1 + He2(z2)")
    >>> t.rank, t.is_polynomial
    (2, True)
    >>> Target.from_links(["z + He2(z)", "z - He2(z)"]).expr
    z1**2 + z1 - z2**2 + z2
    """

    expr: sp.Expr
    rank: int
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        rank = check_int(self.rank, "rank", minimum=1, caller="Target")
        if not isinstance(self.expr, sp.Expr):
            raise InvalidTargetError(f"a target expression must be a sympy expression; got {type(self.expr).__name__}")
        allowed = set(variables_of_rank(rank))
        unknown = sorted(str(s) for s in self.expr.free_symbols if s not in allowed)
        if unknown:
            raise InvalidTargetError(
                f"unknown variable(s) {_short(', '.join(unknown))} in target {_short(self.expr)}; a rank-{rank} target "
                f"is a function of z1..z{rank} only" + _SYMBOL_HINT
            )

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, rank: int | None = None, name: str | None = None) -> "Target":
        """Parse ``text`` (restricted grammar, see :mod:`.parser`); ``rank`` defaults to the largest
        variable index used."""
        expr = parse_expression(text)
        return cls.from_expression(expr, rank=rank, name=name if name is not None else text)

    @classmethod
    def from_expression(cls, expr: sp.Expr, rank: int | None = None, name: str | None = None) -> "Target":
        """Build from a sympy expression in the symbols ``z1 … zr`` of :func:`.parser.variable`."""
        if not isinstance(expr, sp.Expr):
            raise InvalidTargetError(f"a target expression must be a sympy expression; got {type(expr).__name__}")
        used = [_index_of(s) for s in expr.free_symbols]
        if any(k is None for k in used):
            bad = sorted(str(s) for s, k in zip(expr.free_symbols, used) if k is None)
            raise InvalidTargetError(
                f"unknown variable(s) {', '.join(bad)}; targets are functions of z1..zr" + _SYMBOL_HINT
            )
        inferred = max([k for k in used if k is not None], default=1)
        if rank is None:
            rank = inferred
        elif check_int(rank, "rank", minimum=1, caller="Target") < inferred:
            raise InvalidTargetError(f"target uses z{inferred} but rank={rank} was given")
        return cls(expr=expr, rank=rank, name=name)

    @classmethod
    def from_links(cls, links: Sequence[str | sp.Expr], name: str | None = None) -> "Target":
        r"""Separable target :math:`\sum_k \sigma^*_k(z_k)` from 1-D links in the variable ``z``.

        Strings are parsed with the restricted grammar; sympy expressions must use ``Symbol('z')``.
        """
        if isinstance(links, (str, bytes)) or len(links) == 0:
            raise InvalidTargetError("links must be a non-empty list of 1-D functions of z")
        terms = []
        for k, link in enumerate(links, start=1):
            sigma = parse_link(link)
            terms.append(sigma.subs(sp.Symbol(LINK_VARIABLE, real=True), variable(k)))
        return cls(expr=sp.Add(*terms), rank=len(links), name=name)

    # -- properties ------------------------------------------------------------------------
    @property
    def variables(self) -> tuple[sp.Symbol, ...]:
        """``(z1, …, zr)``."""
        return variables_of_rank(self.rank)

    @property
    def is_polynomial(self) -> bool:
        """Whether :math:`g` is a polynomial in ``z1 … zr``."""
        return bool(self.expr.is_polynomial(*self.variables))

    def polynomial_degree(self) -> int:
        """Total degree of a polynomial target (``InvalidTargetError`` otherwise)."""
        if not self.is_polynomial:
            raise InvalidTargetError(f"target {_short(self.expr)} is not a polynomial; give a Hermite degree to expand "
                                     "it")
        return int(sp.Poly(self.expr, *self.variables).total_degree())

    def links(self) -> list[sp.Expr] | None:
        r"""The 1-D links :math:`\sigma^*_k(z)` if :math:`g` is separable (a sum of functions of one
        variable each, constants attributed to the first), else ``None``."""
        z = sp.Symbol(LINK_VARIABLE, real=True)
        parts = [sp.Integer(0)] * self.rank
        expanded = self.expr
        if self.is_polynomial:  # expanded by the sparse engine, within the work budgets (not sympy's expand)
            sparse = sparse_polynomial(self.expr, self.variables, "the links of this target (the target expanded)")
            if sparse is not None:
                if any(sum(1 for e in m if e) > 1 for m, _ in sparse.items()):
                    return None
                expanded = sparse.as_expr()
            else:
                expanded = sp.expand(self.expr)
        for term in sp.Add.make_args(expanded):
            used = [_index_of(s) for s in term.free_symbols]
            if len(used) > 1:
                return None
            k = used[0] if used else 1
            assert k is not None  # __post_init__ admits the symbols z1 … zr only
            parts[k - 1] += term.subs(variable(k), z)
        return parts

    def latex(self) -> str:
        r"""LaTeX of :math:`g(z)`, :math:`f^*(x) = g(z)` with :math:`z_k := \langle w^*_k, x\rangle` (the
        input is :math:`x`, so its coordinates along the teacher directions are written :math:`z_k`);
        floats are shown with 6 significant digits.

        >>> Target.parse("z1 + He2(z2)").latex()
        'z_{1} + z_{2}^{2} - 1'
        """
        # renamed without evaluating again (the printer orders terms and factors itself): a rebuilt node re-derives
        # what the parser settled, e.g. whether tanh(z4*(5 + z4*relu(571.207 - z3))**59) is real, by expanding the
        # 59th power (minutes); the symbols stay real, as the variables are
        names = {v: sp.Symbol(f"z_{{{k}}}", real=True) for k, v in enumerate(self.variables, start=1)}
        with sp.evaluate(False):
            expr = self.expr.xreplace(names)
            expr = expr.xreplace({f: sp.Float(f, 6) for f in expr.atoms(sp.Float)})
        return cast(str, sp.latex(expr))

    def __str__(self) -> str:
        return str(self.expr)

    def _repr_latex_(self) -> str:
        r"""Rich display (IPython): :math:`f^*(z) = g(z)` and the rank.

        >>> Target.parse("z1 + He2(z2)")._repr_latex_()
        '$$f^*(z) = z_{1} + z_{2}^{2} - 1 \\qquad (r = 2)$$'
        """
        return f"$$f^*(z) = {self.latex()} \\qquad (r = {self.rank})$$"


def variables_of_rank(rank: int) -> tuple[sp.Symbol, ...]:
    """``(z1, …, z_rank)``."""
    return tuple(variable(k) for k in range(1, rank + 1))


def polynomial_degree_bound(expr: sp.Expr) -> int | None:
    """An upper bound on the total degree of ``expr`` computed without expanding it, or ``None``
    if ``expr`` contains a non-polynomial node. Guards exact expansions against blow-up."""
    if expr.is_Symbol:
        return 1
    if expr.is_number:
        return 0
    if expr.is_Add:
        bounds = [polynomial_degree_bound(a) for a in expr.args]
        return None if None in bounds else max(cast(list[int], bounds))
    if expr.is_Mul:
        bounds = [polynomial_degree_bound(a) for a in expr.args]
        return None if None in bounds else sum(cast(list[int], bounds))
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        b = polynomial_degree_bound(expr.base)
        return None if b is None else b * int(expr.exp)
    return None


def _index_of(symbol: sp.Symbol) -> int | None:
    name = symbol.name
    if name.startswith("z") and name[1:].isdigit() and not name[1:].startswith("0"):
        k = int(name[1:])
        return k if symbol == variable(k) else None
    return None
