r"""Certified enclosures of numeric constants, so that user constants are folded with bounded work.

A constant sub-expression of a target (``cos(2)``, ``sin(exp(40))``, ``sin(1)**2 + cos(1)**2 - 1``)
is evaluated in interval arithmetic on :mod:`mpmath` numbers at a fixed working precision
(:func:`.budget.limit` ``("precision")`` bits, ``FLT_MAX_PRECISION_BITS``): every operation returns
an interval :math:`[a, b]` that contains the exact value, each endpoint widened outward by a few
units in the last place (mpmath's elementary functions are accurate to within an ulp, Johansson
et al., mpmath 1.3 documentation). The cost is bounded whatever the input:

* :math:`\exp` is refused for arguments above :data:`MAX_EXP_ARGUMENT` (values beyond
  :math:`10^{300000}`), and below :math:`-`:data:`MAX_EXP_ARGUMENT` its value is enclosed in
  :math:`[0, e^{-\text{MAX}}]`;
* :math:`\sin, \cos` of an interval wider than :math:`2\pi` are :math:`[-1, 1]` (no argument
  reduction of a huge number is attempted);
* a division by, a negative power of, a non-integer power of, or the sign of an interval that
  contains 0 is refused as undecidable at this precision (``1/(sin(1)**2 + cos(1)**2 - 1)``), and a
  certain zero divisor as a division by zero.

:func:`fold` turns an enclosure into a 30-digit ``sympy.Float`` when its relative width is below
:math:`10^{-30}`, and refuses otherwise (``sin(exp(1e5))`` needs 144,000 bits).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import mpmath
import sympy as sp

from ..errors import BudgetExceededError, InvalidTargetError
from .budget import exceeded, limit
from .functions import relu, sigmoid

__all__ = ["Interval", "enclose", "fold", "MAX_EXP_ARGUMENT", "FOLD_DIGITS"]

#: Largest argument of exp in a constant (exp(7e5) is about 10^304000).
MAX_EXP_ARGUMENT = 700_000
#: Digits kept when a constant is folded into a Float.
FOLD_DIGITS = 30


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[lo, hi]`` of mpmath numbers that contains an exact real value."""

    lo: mpmath.mpf
    hi: mpmath.mpf

    @property
    def exact_zero(self) -> bool:
        return cast(bool, self.lo == 0 and self.hi == 0)  # mpmath is untyped: its comparisons read as Any

    def contains_zero(self) -> bool:
        return cast(bool, self.lo <= 0 <= self.hi)

    def magnitude(self) -> mpmath.mpf:
        return max(abs(self.lo), abs(self.hi))

    def relative_width(self) -> mpmath.mpf:
        m = self.magnitude()
        return mpmath.mpf(0) if m == 0 else (self.hi - self.lo) / m


def _widen(lo: mpmath.mpf, hi: mpmath.mpf, ulps: int = 4) -> Interval:
    eps = mpmath.ldexp(1, -mpmath.mp.prec + ulps)
    return Interval(lo - abs(lo) * eps, hi + abs(hi) * eps)


def _point(value: mpmath.mpf) -> Interval:
    return _widen(value, value) if value != 0 else Interval(mpmath.mpf(0), mpmath.mpf(0))


def _monotone(f: Callable[[mpmath.mpf], mpmath.mpf], x: Interval) -> Interval:
    return _widen(f(x.lo), f(x.hi))


#: The enclosures already computed, by (node, working precision in bits).
EnclosureMemo = dict[tuple[sp.Basic, int], Interval]


def enclose(expr: sp.Expr, memo: EnclosureMemo | None = None) -> Interval:
    """An interval containing the real constant ``expr`` (a tree of the grammar's node types).

    Raises :class:`~flt_theory.errors.InvalidTargetError` for a non-real or undefined constant and
    :class:`~flt_theory.errors.BudgetExceededError` for one beyond the magnitude or precision budget.

    >>> iv = enclose(sp.cos(2))
    >>> float(iv.lo) <= -0.4161468365471424 <= float(iv.hi)
    True
    """
    memo = {} if memo is None else memo
    with mpmath.workprec(limit("precision")):
        return _enclose(sp.sympify(expr), memo)


def _enclose(node: sp.Basic, memo: EnclosureMemo) -> Interval:
    key = (node, mpmath.mp.prec)
    if key in memo:
        return memo[key]
    out = _compute(node, memo)
    memo[key] = out
    return out


def _compute(node: sp.Basic, memo: EnclosureMemo) -> Interval:  # noqa: C901 - one case per node type
    if node.free_symbols:
        raise InvalidTargetError(f"{node} is not a constant")
    if node.is_Rational:
        return _point(mpmath.mpf(int(node.p)) / int(node.q)) if node.q != 1 else _point(mpmath.mpf(int(node.p)))
    if node.is_Float:
        value = mpmath.mpf(node._mpf_) if hasattr(node, "_mpf_") else mpmath.mpf(str(node))
        if not mpmath.isfinite(value):
            raise InvalidTargetError(f"the constant {node} is not finite")
        return _point(value)
    if node is sp.pi:
        return _point(+mpmath.pi)
    if node is sp.E:
        return _point(mpmath.e())
    if node in (sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise InvalidTargetError(f"the constant {node} is not finite")
    if node == sp.I or node.has(sp.I):
        raise InvalidTargetError(f"the constant {node} is not real; targets are real functions")
    args = [_enclose(a, memo) for a in node.args]
    if node.is_Add:
        return _widen(mpmath.fsum(a.lo for a in args), mpmath.fsum(a.hi for a in args))
    if node.is_Mul:
        out = args[0]
        for a in args[1:]:
            out = multiply(out, a)
        return out
    if node.is_Pow:
        return power(args[0], node.args[1], args[1], node)
    if node.func is sp.exp:
        return exp(args[0], node)
    if node.func in (sp.sin, sp.cos):
        return sine(args[0], shift=node.func is sp.cos)
    if node.func is sp.tanh:
        return _monotone(mpmath.tanh, args[0])
    if node.func is sp.erf:
        return _monotone(mpmath.erf, args[0])
    if node.func is sigmoid:
        return sigmoid_interval(args[0])
    if node.func is sp.Abs:
        return absolute(args[0])
    if node.func is sp.sign:
        return sign(args[0], node)
    if node.func is relu or (node.func is sp.Max and len(args) == 2):
        lo = max(a.lo for a in args) if node.func is sp.Max else max(args[0].lo, 0)
        hi = max(a.hi for a in args) if node.func is sp.Max else max(args[0].hi, 0)
        return Interval(mpmath.mpf(lo), mpmath.mpf(hi))
    raise InvalidTargetError(f"cannot evaluate the constant {node} (a {node.func.__name__} node)")


def multiply(a: Interval, b: Interval) -> Interval:
    products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return _widen(min(products), max(products))


def reciprocal(a: Interval, what: sp.Basic | str) -> Interval:
    if a.exact_zero:
        raise InvalidTargetError(f"division by zero: {what} is 0")
    if a.contains_zero():
        raise InvalidTargetError(
            f"division by {what}, which is zero or too close to zero to decide at "
            f"{mpmath.mp.prec} bits (|value| <= {mpmath.nstr(a.magnitude(), 3)})"
        )
    return _widen(1 / a.hi, 1 / a.lo)


def power(base: Interval, exponent: sp.Expr, exp_iv: Interval, node: sp.Basic) -> Interval:
    """``base ** exponent`` for a real constant exponent."""
    if exponent.is_Integer:
        n = int(exponent)
        if n < 0:
            return power(reciprocal(base, node.args[0]), -exponent, exp_iv, node)
        candidates = [base.lo**n, base.hi**n]
        lo, hi = min(candidates), max(candidates)
        if n % 2 == 0 and base.contains_zero():
            lo = mpmath.mpf(0)
        return _widen(lo, hi) if n else _point(mpmath.mpf(1))
    if base.exact_zero:
        if exp_iv.lo > 0:
            return base
        raise InvalidTargetError(f"0 raised to the power {exponent} is undefined")
    if base.hi < 0:
        raise InvalidTargetError(f"the constant {node} is non-real (a negative number to a non-integer power)")
    if base.lo <= 0:
        raise InvalidTargetError(
            f"cannot decide the sign of the base of {node} at {mpmath.mp.prec} bits, so whether it is real"
        )
    logs = _widen(mpmath.log(base.lo), mpmath.log(base.hi))
    return exp(multiply(logs, exp_iv), node)


def exp(x: Interval, node: sp.Basic | str) -> Interval:
    if x.hi > MAX_EXP_ARGUMENT:
        raise BudgetExceededError(
            f"the constant {str(node)[:60]} is too large: exp of an argument above {MAX_EXP_ARGUMENT} "
            "(a magnitude beyond 10^300000)"
        )
    lo = mpmath.mpf(0) if x.lo < -MAX_EXP_ARGUMENT else mpmath.exp(x.lo)
    hi = mpmath.exp(max(x.hi, -MAX_EXP_ARGUMENT))
    return _widen(lo, hi)


def sigmoid_interval(x: Interval) -> Interval:
    r"""The logistic sigmoid is increasing and :math:`1 - e^{-t} \le \mathrm{sigmoid}(t) \le e^t`, so its
    endpoints bound it; beyond :data:`MAX_EXP_ARGUMENT` those bounds are used instead of the value."""

    def lower(t: mpmath.mpf) -> mpmath.mpf:
        if t < -MAX_EXP_ARGUMENT:
            return mpmath.mpf(0)
        return 1 - mpmath.exp(-MAX_EXP_ARGUMENT) if t > MAX_EXP_ARGUMENT else 1 / (1 + mpmath.exp(-t))

    def upper(t: mpmath.mpf) -> mpmath.mpf:
        if t < -MAX_EXP_ARGUMENT:
            return mpmath.exp(-MAX_EXP_ARGUMENT)
        return mpmath.mpf(1) if t > MAX_EXP_ARGUMENT else 1 / (1 + mpmath.exp(-t))

    return _widen(lower(x.lo), upper(x.hi))


def sine(x: Interval, shift: bool) -> Interval:
    r""":math:`\sin` (or :math:`\cos` when ``shift``: :math:`\cos t = \sin(t + \pi/2)`) of an interval."""
    two_pi = 2 * mpmath.pi
    if x.hi - x.lo >= two_pi:
        return Interval(mpmath.mpf(-1), mpmath.mpf(1))
    f = mpmath.cos if shift else mpmath.sin
    lo_v, hi_v = f(x.lo), f(x.hi)
    lo, hi = min(lo_v, hi_v), max(lo_v, hi_v)
    offset = 0 if shift else mpmath.pi / 2  # maxima of f at offset + 2k pi, minima at offset + pi + 2k pi
    for extremum, value in ((offset, 1), (offset + mpmath.pi, -1)):
        k = mpmath.ceil((x.lo - extremum) / two_pi)
        if extremum + k * two_pi <= x.hi:
            lo, hi = min(lo, value), max(hi, value)
    out = _widen(lo, hi)
    return Interval(max(out.lo, mpmath.mpf(-1)), min(out.hi, mpmath.mpf(1)))


def absolute(x: Interval) -> Interval:
    if x.lo >= 0:
        return x
    if x.hi <= 0:
        return Interval(-x.hi, -x.lo)
    return Interval(mpmath.mpf(0), x.magnitude())


def sign(x: Interval, node: sp.Basic) -> Interval:
    if x.exact_zero:
        return _point(mpmath.mpf(0))
    if x.lo > 0 or x.hi < 0:
        return _point(mpmath.mpf(1 if x.lo > 0 else -1))
    raise InvalidTargetError(f"cannot decide the sign of {node} at {mpmath.mp.prec} bits (it is within "
                             f"{mpmath.nstr(x.magnitude(), 3)} of 0)")


def fold(iv: Interval, what: str) -> sp.Expr:
    """A ``sympy.Float`` of :data:`FOLD_DIGITS` digits for the enclosed value (0 if it is exactly 0),
    refusing when the enclosure is too wide for that accuracy."""
    if iv.exact_zero:
        return sp.Integer(0)
    if iv.relative_width() > mpmath.mpf(10) ** (-FOLD_DIGITS):
        if iv.magnitude() < mpmath.mpf(10) ** -300:  # |value| tiny: indistinguishable from 0 at float scale
            return sp.Float(0)
        raise exceeded(
            "precision", f"evaluating the constant {what[:60]} to {FOLD_DIGITS} digits", limit("precision") + 1
        )
    with mpmath.workprec(limit("precision")):
        mid = (iv.lo + iv.hi) / 2
    return sp.Float(mpmath.nstr(mid, FOLD_DIGITS + 5), FOLD_DIGITS)
