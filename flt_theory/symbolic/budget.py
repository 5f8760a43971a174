r"""Work budgets of the symbolic layer: limits that user text cannot push past.

Every exact computation the symbolic layer performs on user input has its size predicted *before*
it starts, and is refused with :class:`~flt_theory.errors.BudgetExceededError` (one line naming the
limit and the environment variable that raises it) when the prediction exceeds the budget. With
the defaults, every input the grammar of :mod:`.parser` accepts returns a result or a clean error
within about two seconds in the functions behind ``flt leap``, ``flt hermite``, ``flt staircase``,
``flt limits`` and ``flt laws``.

==========================  =========  ===========================================================
environment variable        default    what it bounds
==========================  =========  ===========================================================
``FLT_MAX_DEGREE``          256        total polynomial degree of a parsed expression, e.g. of a
                                       Hermite composition :math:`\mathrm{He}_a(\mathrm{He}_b(z))`
                                       (degree :math:`ab`) or of nested powers
``FLT_MAX_TERMS``           20000      predicted number of monomials of an exact expansion
                                       (expanded polynomial, rotated polynomial, staircase step);
                                       for a Hermite expansion also monomials x denominator
                                       bits x degree / 100 (``He55(z + 2e-204)`` has 40,000-bit
                                       rationals)
``FLT_MAX_RANK``            16         rank :math:`r` up to which subspaces are handled exactly
                                       (Gram–Schmidt with radicals costs :math:`O(r^3)` simplifications)
``FLT_MAX_PRECISION_BITS``  2048       working precision (bits) for folding numeric constants such
                                       as :math:`\sin(e^{40})`
==========================  =========  ===========================================================

Limits are read when used, so ``FLT_MAX_TERMS=100000 flt limits ...`` raises one for one command.

Size prediction (:func:`predict_size`): for a tree built from sums, products and non-negative integer
powers, the degree bound is :math:`\deg(a+b) \le \max`, :math:`\deg(ab) \le \deg a + \deg b`,
:math:`\deg(a^n) \le n \deg a`; the number of monomials is bounded by :math:`T(a+b) \le T(a)+T(b)`,
:math:`T(ab) \le T(a)T(b)`, :math:`T(a^n) \le \binom{T(a)+n-1}{n}` (multisets of :math:`n` monomials),
and every polynomial of degree :math:`D` in :math:`r` variables by :math:`\binom{D+r}{r}`. The walk
visits each distinct node once (the tree is a DAG), so the prediction is linear in the input size.
"""

from __future__ import annotations

import math
import os

import sympy as sp

from ..errors import BudgetExceededError

__all__ = ["LIMITS", "limit", "predict_size", "check_terms", "check_degree", "check_rank", "check_rotation"]

#: name -> (environment variable, default, what it bounds)
LIMITS: dict[str, tuple[str, int, str]] = {
    "degree": ("FLT_MAX_DEGREE", 256, "total polynomial degree"),
    "terms": ("FLT_MAX_TERMS", 20_000, "number of monomials of an exact expansion"),
    "rank": ("FLT_MAX_RANK", 16, "rank handled by exact subspace arithmetic"),
    "precision": ("FLT_MAX_PRECISION_BITS", 2048, "working precision (bits) for numeric constants"),
}

_HUGE = 10**30  # any size beyond every budget; keeps the arithmetic on small ints


def limit(name: str) -> int:
    """The current value of budget ``name`` (its environment variable, else the default).

    >>> limit("degree")
    256
    """
    variable, default, _ = LIMITS[name]
    raw = os.environ.get(variable)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BudgetExceededError(f"environment variable {variable}={raw!r} must be a positive integer") from None
    if value < 1:
        raise BudgetExceededError(f"environment variable {variable}={raw!r} must be a positive integer")
    return value


def exceeded(name: str, what: str, size: int | float) -> BudgetExceededError:
    """The error for ``what`` of size ``size`` beyond budget ``name``, saying how to raise it."""
    variable, _, meaning = LIMITS[name]
    shown = f"{size:.3g}" if isinstance(size, float) or size >= 10**9 else str(size)
    return BudgetExceededError(
        f"{what} needs {meaning} {shown}, beyond the limit {limit(name)}; "
        f"raise it with the environment variable {variable} if you mean it"
    )


def check_degree(degree: int, what: str) -> None:
    """Refuse a polynomial degree above ``FLT_MAX_DEGREE``."""
    if degree > limit("degree"):
        raise exceeded("degree", what, degree)


def check_terms(terms: int, what: str) -> None:
    """Refuse a predicted number of monomials above ``FLT_MAX_TERMS``."""
    if terms > limit("terms"):
        raise exceeded("terms", what, terms)


def check_rank(rank: int, what: str) -> None:
    """Refuse exact subspace arithmetic in rank above ``FLT_MAX_RANK``."""
    if rank > limit("rank"):
        raise exceeded("rank", what, rank)


def check_rotation(expr: sp.Expr, variables, what: str) -> None:
    r"""Refuse a change of variables :math:`z = B^\top s + Q^\top u` of ``expr`` whose expansion would
    exceed ``FLT_MAX_TERMS``: each of its :math:`T` monomials of degree :math:`\le D` becomes up to
    :math:`\binom{D+r-1}{r-1}` monomials in :math:`r` variables."""
    variables = list(variables)
    check_rank(len(variables), what)
    degree, terms = predict_size(expr, variables)
    if degree is None:
        return
    r = max(len(variables), 1)
    check_terms(min(terms * _comb(degree + r - 1, r - 1), _HUGE), what)


def predict_size(expr: sp.Expr, variables=None) -> tuple[int | None, int]:
    """``(degree bound or None, monomial-count bound)`` of ``expr`` expanded as a polynomial in
    ``variables`` (default: its free symbols), computed without expanding (see module docstring).

    The degree is ``None`` when ``expr`` has a non-polynomial node in the variables; the count then
    bounds the number of additive terms of the expansion treating such nodes as atoms.

    >>> z1, z2 = sp.symbols("z1 z2", real=True)
    >>> predict_size((z1 + z2) ** 64)
    (64, 65)
    >>> predict_size(sp.Add(*sp.symbols("a1:61")) ** 8)[1]  # comb(67, 8) monomials
    6522361560
    """
    variables = set(expr.free_symbols if variables is None else variables)
    r = max(len(variables), 1)
    memo: dict[sp.Basic, tuple[int | None, int]] = {}

    def cap(degree: int | None, terms: int) -> tuple[int | None, int]:
        if degree is not None:
            terms = min(terms, _comb(degree + r, r))
        return degree, min(terms, _HUGE)

    def walk(node: sp.Basic) -> tuple[int | None, int]:
        if node in memo:
            return memo[node]
        if not (node.free_symbols & variables):
            out = (0, 1)
        elif node.is_Symbol:
            out = (1, 1)
        elif node.is_Add:
            parts = [walk(a) for a in node.args]
            degrees = [d for d, _ in parts]
            out = cap(None if None in degrees else max(degrees), sum(t for _, t in parts))
        elif node.is_Mul:
            parts = [walk(a) for a in node.args]
            degrees = [d for d, _ in parts]
            out = cap(None if None in degrees else sum(degrees), math.prod(min(t, _HUGE) for _, t in parts))
        elif node.is_Pow and node.exp.is_Integer and node.exp >= 0:
            n = int(node.exp)
            d, t = walk(node.base)
            out = cap(None if d is None else d * n, _comb(t + n - 1, n) if t > 1 else 1)
        else:
            out = (None, 1)
        memo[node] = out
        return out

    return walk(sp.sympify(expr))


def _comb(n: int, k: int) -> int:
    """``comb(n, k)`` capped at ``_HUGE`` without computing astronomically large integers."""
    k = min(k, n - k) if n >= k else k
    if k < 0 or n < k:
        return 0
    out = 1
    for i in range(1, k + 1):
        out = out * (n - k + i) // i
        if out > _HUGE:
            return _HUGE
    return out
