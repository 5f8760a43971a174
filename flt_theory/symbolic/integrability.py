r"""Square-integrability under the Gaussian measure, decided by certified growth bounds.

A Hermite expansion of :math:`f` exists iff :math:`\mathbb E_{z\sim\mathcal N(0, I_r)}[f(z)^2] < \infty`.
A numeric quadrature cannot decide this (it happily returns numbers for :math:`1/z` or
:math:`e^{z^2/2}`), so :func:`check_square_integrable` *certifies* it from the expression tree and
refuses with :class:`~flt_theory.errors.NotSquareIntegrableError`, saying why, when it cannot.

Certificate. Walking the tree, each node gets a growth exponent :math:`q \ge 0` with

.. math:: |f(z)| \le C\,\exp\big(q\,|z|^2 + o(|z|^2)\big) \quad\text{for all } z \text{ (almost everywhere)},

from these rules: constants, polynomials and anything with a bounded range (``tanh``, ``erf``,
``sigmoid``, ``sin``, ``cos``, ``sign``, and e.g. :math:`1/(2+\sin z)`, whose range is computed by
interval arithmetic) have :math:`q = 0`; :math:`q(f+g) = \max`, :math:`q(fg) = q(f) + q(g)`,
:math:`q(f^a) = a\,q(f)` for :math:`a > 0`; a negative power needs a base whose range stays away
from 0 (else it may have a pole, as :math:`1/z` does); :math:`q(e^h) = \max(0, a)` where
:math:`h \le a|z|^2 + o(|z|^2)` is certified — for a polynomial :math:`h` from its degree and top
coefficients (the largest eigenvalue of the quadratic form when the degree is 2, a negative
leading coefficient of even degree in one variable), for sums termwise, and :math:`a = 0` for
:math:`h` bounded above or of polynomial growth of degree :math:`< 2`. Then

.. math:: \mathbb E[f^2] \le C^2 \int e^{2q|z|^2 + o(|z|^2)}\,\frac{e^{-|z|^2/2}}{(2\pi)^{r/2}}\,dz < \infty
          \quad\text{whenever } q < \tfrac14,

and for :math:`f = e^{q z^2}` with :math:`q \ge 1/4` the integral diverges, which is the message
given (``exp(z**2/2)``: :math:`q = 1/2`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TypeVar, cast

import mpmath
import sympy as sp

from ..errors import InvalidTargetError, NotSquareIntegrableError
from .budget import limit, predict_size
from .constants import enclose
from .functions import relu, sigmoid

__all__ = ["MAX_SECOND_MOMENT", "second_moment", "check_square_integrable", "growth_exponent", "value_range"]

#: Largest Gaussian second moment :math:`\mathbb E[f(z)^2]` of a target, link or activation. Beyond it the
#: floating-point quantities derived from the function (its norm, its Hermite coefficients, the sizes of
#: :mod:`.staircase_sizes`, a simulation) overflow float64 (largest value 1.8e308): ``1e300*z`` is refused as bad
#: input, never left to overflow into an internal error.
MAX_SECOND_MOMENT = 1e300

_BOUNDED = {sp.tanh: (-1.0, 1.0), sp.erf: (-1.0, 1.0), sigmoid: (0.0, 1.0), sp.sin: (-1.0, 1.0), sp.cos: (-1.0, 1.0),
            sp.sign: (-1.0, 1.0), sp.Heaviside: (0.0, 1.0)}
_INF = math.inf
_T = TypeVar("_T")


class _NotCertified(Exception):
    pass


def check_square_integrable(expr: sp.Expr, variables: Iterable[sp.Symbol]) -> float:
    r"""The certified growth exponent :math:`q < 1/4` of ``expr`` (see module docstring), or
    :class:`~flt_theory.errors.NotSquareIntegrableError` saying why no Hermite expansion exists or
    why square-integrability could not be established.

    >>> z = sp.Symbol("z", real=True)
    >>> check_square_integrable(sp.exp(z**2 / 8) * sp.tanh(z), [z]) < 0.25
    True
    >>> check_square_integrable(sp.exp(z**2 / 2), [z])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    flt_theory.errors.NotSquareIntegrableError: exp(z**2/2) is not square integrable under N(0, 1): ...
    """
    analysis = _Analysis(list(variables))
    try:
        q = analysis.growth(sp.sympify(expr))
    except _NotCertified as exc:
        raise NotSquareIntegrableError(
            f"cannot establish that {_short(expr)} is square integrable under N(0, 1): {exc}; "
            "no Hermite expansion is computed"
        ) from None
    if q >= 0.25 - 1e-12:
        raise NotSquareIntegrableError(
            f"{_short(expr)} is not square integrable under N(0, 1): it grows like exp({q:.6g} |z|^2) and "
            f"{q:.6g} >= 1/4, so E[f(z)^2] is infinite and no Hermite expansion exists"
        )
    return q


def second_moment(coefficients: Iterable[tuple[tuple[int, ...], sp.Expr | float]]) -> float:
    r""":math:`\sum_\alpha \hat f(\alpha)^2\,\alpha!` (Parseval) as a float, ``inf`` beyond the float64 range,
    summed in log space so that neither a huge :math:`\alpha!` nor a huge coefficient overflows on the way."""
    logs = []
    for alpha, c in coefficients:
        c = sp.sympify(c)
        if c.is_Rational:
            if c == 0:
                continue
            log_c = math.log(abs(int(c.p))) - math.log(int(c.q))
        else:
            try:
                value = abs(float(c))
            except (TypeError, OverflowError):
                return math.inf
            if value == 0:
                continue
            log_c = math.log(value) if math.isfinite(value) else math.inf
        logs.append(2 * log_c + sum(math.lgamma(a + 1) for a in alpha))
    if not logs:
        return 0.0
    top = max(logs)
    if not math.isfinite(top):
        return math.inf
    total = top + math.log(sum(math.exp(x - top) for x in logs))
    return math.exp(total) if total < 709.0 else math.inf


def growth_exponent(expr: sp.Expr, variables: Iterable[sp.Symbol]) -> float | None:
    """The certified :math:`q` of the module docstring, or ``None`` when none is certified."""
    try:
        return _Analysis(list(variables)).growth(sp.sympify(expr))
    except _NotCertified:
        return None


def value_range(expr: sp.Expr, variables: Iterable[sp.Symbol]) -> tuple[float, float]:
    """A certified enclosure ``(lo, hi)`` (possibly infinite) of the values of ``expr`` over all real
    values of ``variables``.

    >>> z = sp.Symbol("z", real=True)
    >>> value_range(2 + sp.sin(z), [z]), value_range(z**2 + 1, [z])
    ((1.0, 3.0), (1.0, inf))
    """
    return _Analysis(list(variables)).range(sp.sympify(expr))


def _short(expr: object) -> str:
    text = str(expr)
    return text if len(text) <= 80 else text[:77] + "..."


def _mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    if a == (0.0, 0.0) or b == (0.0, 0.0):
        return (0.0, 0.0)
    products = []
    for x in a:
        for y in b:
            products.append(0.0 if (x == 0 or y == 0) else x * y)
    return (min(products), max(products))


class _Analysis:
    def __init__(self, variables: Iterable[sp.Symbol]) -> None:
        self.variables = set(variables)
        # (kind, node) -> (True, its value) or (False, the _NotCertified raised for it)
        self.memo: dict[tuple[str, sp.Basic], tuple[bool, object]] = {}

    def _cached(self, kind: str, node: sp.Basic, compute: Callable[[sp.Basic], _T]) -> _T:
        key = (kind, node)
        if key not in self.memo:
            self.memo[key] = (False, _NotCertified(f"no bound found for {_short(node)}"))  # breaks cycles
            try:
                self.memo[key] = (True, compute(node))
            except _NotCertified as exc:
                self.memo[key] = (False, exc)
        ok, value = self.memo[key]
        if not ok:
            raise cast(_NotCertified, value)
        return cast(_T, value)

    def constant(self, node: sp.Basic) -> bool:
        return not (node.free_symbols & self.variables)

    # -- range over all real inputs ---------------------------------------------------------------
    def range(self, node: sp.Basic) -> tuple[float, float]:
        try:
            return self._cached("range", node, self._range)
        except _NotCertified:
            return (-_INF, _INF)

    def _range(self, node: sp.Basic) -> tuple[float, float]:
        if self.constant(node):
            try:
                iv = enclose(node)
            except InvalidTargetError as exc:
                raise _NotCertified(str(exc)) from None
            with mpmath.workprec(64):
                return (float(mpmath.mpf(iv.lo)), float(mpmath.mpf(iv.hi)))
        if node.is_Symbol:
            return (-_INF, _INF)
        if node.func in _BOUNDED:
            return _BOUNDED[node.func]
        if node.is_Add:
            los, his = zip(*(self.range(a) for a in node.args))
            return (sum(los) if -_INF not in los else -_INF, sum(his) if _INF not in his else _INF)
        if node.is_Mul:
            out = (1.0, 1.0)
            for a in node.args:
                out = _mul(out, self.range(a))
            return out
        if node.is_Pow and node.exp.is_number:
            lo, hi = self.range(node.base)
            e = float(node.exp)
            if node.exp.is_Integer and e >= 0:
                n = int(e)
                values = [_pow(lo, n), _pow(hi, n)]
                low = 0.0 if (n % 2 == 0 and lo <= 0 <= hi) else min(values)
                return (low, max(values))
            if lo > 0 or (hi < 0 and node.exp.is_Integer):
                candidates = [_pow(lo, e), _pow(hi, e)]
                return (min(candidates), max(candidates))
            if e > 0 and lo >= 0:
                return (0.0, _pow(hi, e))
            raise _NotCertified(f"{_short(node.base)} may be 0 or negative in {_short(node)}")
        if node.func is sp.exp:
            lo, hi = self.range(node.args[0])
            return (_exp(lo), _exp(hi))
        if node.func in (relu, sp.Max):
            parts = [self.range(a) for a in node.args]
            if node.func is relu:
                parts.append((0.0, 0.0))
            return (max(p[0] for p in parts), max(p[1] for p in parts))
        if node.func is sp.Abs:
            lo, hi = self.range(node.args[0])
            if lo >= 0:
                return (lo, hi)
            if hi <= 0:
                return (-hi, -lo)
            return (0.0, max(-lo, hi))
        raise _NotCertified(f"no range known for {node.func.__name__}")

    # -- polynomial growth |f| <= C (1 + |z|)^p ----------------------------------------------------
    def poly_growth(self, node: sp.Basic) -> float:
        return self._cached("poly", node, self._poly_growth)

    def _poly_growth(self, node: sp.Basic) -> float:
        lo, hi = self.range(node)
        if math.isfinite(lo) and math.isfinite(hi):
            return 0.0
        if node.is_Symbol:
            return 1.0
        bound = self._compose(node, self.poly_growth)
        if bound is not None:
            return bound
        if node.is_Pow and node.exp.is_number:  # a negative power
            self._away_from_zero(node)
            return 0.0
        raise _NotCertified(f"{_short(node)} may grow faster than any polynomial")

    @staticmethod
    def _compose(node: sp.Basic, measure: Callable[[sp.Basic], float]) -> float | None:
        """A growth measure (``poly_growth`` or ``growth``) of a sum (the max), a product (the sum), a
        non-negative power (the power times the base's) or relu / Abs / Max (the max); None for any other node."""
        if node.is_Add:
            return max(measure(a) for a in node.args)
        if node.is_Mul:
            return sum(measure(a) for a in node.args)
        if node.is_Pow and node.exp.is_number:
            e = float(node.exp)
            return e * measure(node.base) if e >= 0 else None
        if node.func in (relu, sp.Abs, sp.Max):
            return max(measure(a) for a in node.args)
        return None

    def _away_from_zero(self, node: sp.Basic) -> None:
        lo, hi = self.range(node.base)
        if not (lo > 0 or hi < 0):
            raise _NotCertified(
                f"{_short(node)} may have a pole (the range of {_short(node.base)} is not bounded away from 0), "
                "and a pole makes E[f^2] infinite"
            )

    # -- growth exponent q: |f| <= C exp(q |z|^2 + o(|z|^2)) ------------------------------------
    def growth(self, node: sp.Basic) -> float:
        return self._cached("growth", node, self._growth)

    def _growth(self, node: sp.Basic) -> float:
        lo, hi = self.range(node)
        if (math.isfinite(lo) and math.isfinite(hi)) or node.is_Symbol:
            return 0.0
        bound = self._compose(node, self.growth)
        if bound is not None:
            return bound
        if node.is_Pow and node.exp.is_number:  # a negative power
            if node.base.func is sigmoid:  # 1/sigmoid(h) = 1 + exp(-h)
                return -float(node.exp) * max(0.0, self.upper(-node.base.args[0]))
            self._away_from_zero(node)
            return 0.0
        if node.func is sp.exp:
            return max(0.0, self.upper(node.args[0]))
        raise _NotCertified(f"no growth bound known for {node.func.__name__}")

    # -- upper bound h <= a |z|^2 + o(|z|^2) -------------------------------------------------------
    def upper(self, node: sp.Basic) -> float:
        return self._cached("upper", node, self._upper)

    def _upper(self, node: sp.Basic) -> float:
        lo, hi = self.range(node)
        if math.isfinite(hi):
            return 0.0
        variables = sorted(node.free_symbols & self.variables, key=str)
        if node.is_polynomial(*variables):
            return self._polynomial_upper(node, variables)
        if node.is_Add:
            return sum(self.upper(a) for a in node.args)
        if node.is_Mul:
            coeff, rest = node.as_independent(*variables, as_Add=False)
            if coeff != 1 and self.constant(coeff):
                c_lo, c_hi = self.range(coeff)
                if c_lo > 0:
                    return c_hi * max(self.upper(rest), 0.0)
                if c_hi < 0:
                    return -c_lo * max(self.upper(-rest), 0.0)
        try:
            if self.poly_growth(node) < 2:
                return 0.0
        except _NotCertified:
            pass
        raise _NotCertified(f"no bound of the form a |z|^2 is known for {_short(node)} (inside exp)")

    def _polynomial_upper(self, node: sp.Basic, variables: list[sp.Symbol]) -> float:
        import numpy as np

        degree, terms = predict_size(node, variables)
        if degree is not None and degree <= 1:
            return 0.0
        if terms > limit("terms"):
            raise _NotCertified(f"the polynomial {_short(node)} inside exp is too large to analyse")
        poly = sp.Poly(node, *variables)
        d = poly.total_degree()
        if d <= 1:
            return 0.0
        top = {m: c for m, c in poly.terms() if sum(m) == d}
        if d == 2:
            matrix = np.zeros((len(variables), len(variables)))
            for m, c in top.items():
                ks = [i for i, e in enumerate(m) for _ in range(e)]
                value = float(c)
                if ks[0] == ks[1]:
                    matrix[ks[0], ks[0]] += value
                else:
                    matrix[ks[0], ks[1]] += value / 2
                    matrix[ks[1], ks[0]] += value / 2
            return float(np.linalg.eigvalsh(matrix).max()) + 1e-12
        if len(variables) == 1 and d % 2 == 0 and float(next(iter(top.values()))) < 0:
            return 0.0  # bounded above
        raise _NotCertified(f"exp({_short(node)}) grows faster than exp(c |z|^2) for every c")


def _pow(x: float, e: float) -> float:
    try:
        return math.copysign(abs(x) ** e, x if float(e).is_integer() and int(e) % 2 else 1.0)
    except OverflowError:
        return _INF if (x > 0 or (float(e).is_integer() and int(e) % 2 == 0)) else -_INF


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return _INF
