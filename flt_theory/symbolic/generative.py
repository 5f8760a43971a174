r"""Generative exponent of a single-index target, computed from its definition (Damian, Pillaud-Vivien, Lee,
Bruna 2024, "Computational-statistical gaps in Gaussian single-index models", arXiv 2403.05529).

Definition
----------
For :math:`y = \sigma(z)`, :math:`z \sim \mathcal N(0, 1)`, the generative exponent is

.. math:: k^* = \min\{k \ge 1 : \mathbb E[\mathrm{He}_k(z) \mid y] \not\equiv 0\},

equivalently the smallest information exponent of :math:`T(y)` over all label transformations
:math:`T \in L^2(P_y)`: a learner that may transform the labels needs :math:`n \gtrsim d^{k^*/2}` samples (Hermite
convention: probabilists' :math:`\mathrm{He}_k`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`).
:math:`k^* \le 2` for every polynomial link, but not in general: a two-valued link has :math:`k^*` equal to its
information exponent, which can be arbitrarily large. :func:`generative_exponent_result` returns the value with
how it was obtained (``"exact"``, ``"numeric (40 digits)"``) or ``None`` with the reason (``"refused"``); it never
guesses.

The law of y
------------
The link is split at the real zeros of the arguments of its kink functions (``relu``, ``abs``, ``sign``, nested
or not), found exactly: ``sympy.real_roots`` for a polynomial argument (complete), and otherwise the finite set of
explicit numbers that ``sympy.solveset`` returns over the reals (``sign(exp(z) - 2)`` breaks at
:math:`\log 2`; a ``ConditionSet`` or an infinite set is refused). On each interval of the split the link is one
kink-free expression: a constant (a *flat piece*), a polynomial, or another analytic expression. So the law of
:math:`y` is a finite set of atoms :math:`c` (the values of the flat pieces, :math:`\{y = c\}` a union of intervals
:math:`I_j = (a_j, b_j)`) plus an absolutely continuous part carried by the non-constant pieces, and
:math:`\mathbb E[\mathrm{He}_k \mid y] \equiv 0` iff it vanishes on every atom and almost everywhere on the
continuous part. Decimal constants are read as the exact decimals written (``0.5`` is 1/2).

*Atoms.* Since :math:`(\mathrm{He}_{k-1}\varphi)' = -\mathrm{He}_k\varphi`,

.. math:: \sqrt{2\pi}\,\mathbb E[\mathrm{He}_k(z)\,1\{y = c\}] = \sqrt{2\pi}\sum_j \int_{a_j}^{b_j}\mathrm{He}_k\varphi
   = \sum_r \varepsilon_r\,\mathrm{He}_{k-1}(r)\,e^{-r^2/2},

summed over the finite endpoints :math:`r` with :math:`\varepsilon_r = +1` at a left and :math:`-1` at a right
endpoint. Grouping :math:`r` with :math:`-r`, the coefficient of :math:`e^{-r^2/2}` is
:math:`\mathrm{He}_{k-1}(r)\,(\varepsilon_r + (-1)^{k-1}\varepsilon_{-r})`. When every endpoint is algebraic (every
polynomial kink argument), the Lindemann-Weierstrass theorem (A. Baker, *Transcendental Number Theory*, 1975,
ch. 1, in Baker's form: :math:`\sum_i \beta_i e^{\alpha_i} \ne 0`
for distinct algebraic :math:`\alpha_i` and non-zero algebraic :math:`\beta_i`) makes the sum vanish iff every
coefficient does, which is decided exactly (the integer factor, and :math:`\mathrm{He}_{k-1}(r) = 0` iff the minimal
polynomial of :math:`r` divides :math:`\mathrm{He}_{k-1}`). A consequence: at :math:`k = 1` every coefficient
:math:`\varepsilon_r + \varepsilon_{-r}` must vanish, so the endpoints come in pairs :math:`\pm r` of opposite
orientation, and then the :math:`k = 2` coefficient :math:`2\varepsilon_r r \ne 0`: **a link with a flat piece with
algebraic endpoints has** :math:`k^* \le 2`. Larger exponents need transcendental breakpoints, where the sum is
decided by sympy's exact simplification (zero) or by a certified interval enclosure that excludes 0 (non-zero);
when neither decides, a value below :math:`10^{-40}` at 60 digits is a *numeric* zero, and the result says so.

*Continuous part.* For :math:`y` in a branch interval :math:`J` (between consecutive critical values of the
non-constant pieces) the preimages :math:`z_i(y)` are analytic in :math:`y` and the conditional law of :math:`z`
puts weight :math:`\propto \varphi(z_i)/|\sigma'(z_i)|` on them, so :math:`\mathbb E[\mathrm{He}_k \mid y]
\propto g_k(y) = \sum_i \mathrm{He}_k(z_i)\,\varphi(z_i)/|\sigma'(z_i)|`, analytic on :math:`J`. For polynomial
pieces with rational coefficients :math:`g_k` is evaluated at two rational points of every :math:`J`, with each
preimage enclosed in an interval of width :math:`10^{-50}` that is certified by an exact sign change (and the
number of preimages certified by monotonicity between the exact critical points), in interval arithmetic at 60
digits: an enclosure that excludes 0 proves :math:`g_k \not\equiv 0`. A zero is exact only by symmetry: if the
link is even on the union of its non-constant pieces, preimages come in pairs :math:`\pm z` of equal weight and
:math:`g_k \equiv 0` for odd :math:`k`; any other zero (enclosures containing 0 at every sampled :math:`y`) is a
numeric zero. (Equivalently :math:`g_k = -\tfrac{d}{dy}\sum_i s_i\,\mathrm{He}_{k-1}(z_i(y))\,\varphi(z_i(y))`,
:math:`s_i = \pm 1` the direction of branch :math:`i`, since :math:`(\mathrm{He}_{k-1}\varphi)' = -\mathrm{He}_k
\varphi`.) Other non-constant pieces (``tanh``, ``exp`` ...) are decided only by the rules below.

Rules (exact)
-------------
* *Constant link* (or a.s. constant: one flat value): the label carries no information, ``None``.
* *Polynomial link of degree* :math:`n \ge 1`: :math:`k^* = 1` iff it is not even, else 2. Say the leading
  coefficient is positive. If :math:`\sigma` is even, :math:`\sigma(z) = \tau(z^2)` and for :math:`y` above every
  critical value the preimages are :math:`\pm u(y)`, so :math:`\mathbb E[\mathrm{He}_2 \mid y] = u(y)^2 - 1 \ne 0`,
  while the odd coefficients vanish by symmetry. If not, for large :math:`y` the preimages are one branch
  :math:`z_+(y) \to \infty` (:math:`n` odd: :math:`\mathbb E[z \mid y] = z_+ > 0`) or two, :math:`z_+ \to +\infty`
  increasing and :math:`z_- \to -\infty` decreasing (:math:`n` even); then :math:`g_1(y) = -\tfrac{d}{dy}
  [\varphi(z_+(y)) - \varphi(z_-(y))]`, and :math:`g_1 \equiv 0` for large :math:`y` would make
  :math:`\varphi(z_+) - \varphi(z_-)` constant, hence 0 (both tend to 0), so :math:`z_- = -z_+` and
  :math:`\sigma(u) = \sigma(-u)` for all large :math:`u`: :math:`\sigma` even, a contradiction.
* *Strictly monotone link* (every piece strictly monotone the same way, jumps in that direction too; strictness of
  ``tanh``, ``exp``, ``erf``, ``sigmoid`` ... is read from the expression): :math:`z = \sigma^{-1}(y)`, so
  :math:`\mathbb E[\mathrm{He}_1 \mid y] = z \not\equiv 0` and :math:`k^* = 1`.
* *Even link, strictly monotone on* :math:`(0, \infty)` (``abs(z)``, ``relu(z) - z/2``, ``tanh(z)**2``,
  ``exp(-z**2)``): :math:`|z|` is a function of :math:`y`, so :math:`\mathbb E[\mathrm{He}_2 \mid y] = z^2 - 1 \not
  \equiv 0`, the odd coefficients vanish, :math:`k^* = 2`. An even link need not have :math:`k^* = 2` (see below).
* Any other analytic link (``sin(z)``, ``tanh(z) + z**2``) is refused: its level sets are not computed.

The search stops at :data:`MAX_ORDER` (``None`` above, with the reason), splits into at most :data:`MAX_PIECES`
pieces, and refuses kink arguments or pieces of degree above :data:`MAX_DEGREE`.

Constructions with large :math:`k^*` (verified in ``tests/symbolic/test_symbolic_generative.py`` by quadrature)
---------------------------------------------------------------------------------------------------------------
* :math:`k^* = 3`: ``sign(z)*sign(exp(z**2/2) - 2)`` is odd and two-valued, breaking at :math:`0, \pm p`,
  :math:`p^2 = 2\log 2`. Being odd and :math:`\pm 1`-valued, :math:`1\{\sigma(z) = 1\} + 1\{\sigma(-z) = 1\} = 1`,
  so :math:`1\{y = 1\} - \tfrac12` is odd and every even :math:`k` vanishes; :math:`\sqrt{2\pi}\,\mathbb E[z\,\sigma(z)]
  = 2(2e^{-p^2/2} - 1) = 0`, and :math:`\sqrt{2\pi}\,\mathbb E[\mathrm{He}_3\,1\{y = -1\}] = -2\log 2 \ne 0`.
* :math:`k^* = 4`: ``sign(exp(3*z**2/2) - 2)*sign(exp(3*z**2/8) - 2)`` is even, :math:`-1` exactly on
  :math:`a < |z| < b` with :math:`a^2 = \tfrac23\log 2`, :math:`b = 2a`, chosen so that
  :math:`a e^{-a^2/2} = b e^{-b^2/2}` (:math:`\mathbb E[\mathrm{He}_2\,1\{y=-1\}] = 0`); odd :math:`k` vanish by
  evenness and :math:`\sqrt{2\pi}\,\mathbb E[\mathrm{He}_4\,1\{y=-1\}] = 2e^{-a^2/2}(\mathrm{He}_3(a) -
  \mathrm{He}_3(b)/2) = -6a^3 e^{-a^2/2} \ne 0`.
  (A single band cannot do this: :math:`\mathbb E[\mathrm{He}_2\,1\{|z| < a\}] = -2a\varphi(a) < 0` for every
  :math:`a > 0`, so ``sign(z**2 - a**2)`` has :math:`k^* = 2` whatever :math:`a`.)
* The same links with their breakpoints written as decimals have algebraic breakpoints, hence :math:`k^* \le 2`
  (exactly, by the theorem above), with a first non-zero conditional moment as small as the decimals are accurate.

Multi-index targets
-------------------
Not computed (``None`` with the reason). For :math:`y = g(z_1, \dots, z_r)` the analogue asks, subspace by subspace,
for the lowest-degree Hermite tensors :math:`\mathrm{He}_\alpha(z)` with :math:`\mathbb E[\mathrm{He}_\alpha(z) \mid
y] \not\equiv 0`, together with a leap structure over the learned subspaces (the *generative leap* of Damian, Lee
and Bruna, 2025); that requires the conditional law of :math:`z` on the level sets of :math:`g`, which are
:math:`(r-1)`-dimensional and are not computed here.

>>> from flt_theory.symbolic.target import Target
>>> [generative_exponent(Target.parse(t)) for t in ("He3(z)", "He2(z)", "relu(z) - z/2", "sign(z**2 - 1)", "3")]
[1, 2, 2, 2, None]
>>> result = generative_exponent_result(Target.parse("sign(z)*sign(exp(z**2/2) - 2)"))
>>> result.value, result.method
(3, 'exact')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable, cast

import mpmath
import sympy as sp
from mpmath import iv

from ..errors import InvalidParameterTypeError
from .functions import relu, sigmoid
from .parser import variable
from .target import Target

__all__ = [
    "GenerativeExponent",
    "generative_exponent",
    "generative_exponent_result",
    "MAX_ORDER",
    "MAX_PIECES",
    "MAX_DEGREE",
    "ZERO_DIGITS",
]

#: Largest order k searched; beyond it the answer is ``None`` with the reason.
MAX_ORDER = 16
#: Largest number of intervals the link is split into (kink zeros), and of monotone segments of its pieces.
MAX_PIECES = 64
#: Largest polynomial degree of a kink argument or of a piece.
MAX_DEGREE = 32
#: Working precision (decimal digits) of the interval enclosures and of the numeric fallback.
WORKING_DIGITS = 60
#: A value below 10^-ZERO_DIGITS (relative to its terms) that no exact argument decides is a numeric zero.
ZERO_DIGITS = 40

EXACT = "exact"
NUMERIC = f"numeric ({ZERO_DIGITS} digits)"
REFUSED = "refused"

_KINKS = (sp.Abs, sp.sign, relu)
_INCREASING = (sp.exp, sp.tanh, sp.erf, sigmoid, sp.atan, sp.sinh, sp.asinh, sp.atanh, sp.log)


@dataclass(frozen=True)
class GenerativeExponent:
    """The generative exponent of a target and how it was obtained.

    Attributes
    ----------
    value
        :math:`k^*`, or ``None`` (constant link, multi-index target, refused, or above :data:`MAX_ORDER`).
    method
        ``"exact"`` (every zero proved symbolically or by symmetry, every non-zero proved symbolically or by an
        interval enclosure that excludes 0), ``"numeric (40 digits)"`` (some zero is only numeric: below
        :math:`10^{-40}` at 60 digits), or ``"refused"`` (``value`` is ``None`` because it cannot be decided).
    reason
        One sentence: the argument, or why there is no value.
    """

    value: int | None
    method: str
    reason: str

    def as_dict(self) -> dict[str, int | str | None]:
        """``{"value": ..., "method": ..., "reason": ...}``."""
        return {"value": self.value, "method": self.method, "reason": self.reason}


class _Refuse(Exception):
    """The link is outside what can be decided; the message is the reason."""


class _Undecided(Exception):
    """No certified enclosure of a number."""


def generative_exponent(target: Target | str) -> int | None:
    """The generative exponent of a single-index target, or ``None`` (see :func:`generative_exponent_result`
    for the reason and the method).

    >>> generative_exponent("He4(z) + He2(z)"), generative_exponent("z1 + He2(z2)")
    (2, None)
    """
    return generative_exponent_result(target).value


def generative_exponent_result(target: Target | str) -> GenerativeExponent:
    r"""The generative exponent :math:`k^* = \min\{k : \mathbb E[\mathrm{He}_k(z) \mid y] \not\equiv 0\}` of a
    single-index target :math:`y = \sigma(z)`, computed from the definition (module docstring).

    Parameters
    ----------
    target
        A :class:`~flt_theory.symbolic.target.Target` or a string of the target grammar.

    Returns
    -------
    GenerativeExponent
        ``value`` (int or ``None``), ``method`` and ``reason``.

    Raises
    ------
    InvalidParameterTypeError
        ``target`` is neither a Target nor a string.
    InvalidTargetError
        A string that does not parse.

    Examples
    --------
    >>> generative_exponent_result("abs(z)").value
    2
    >>> generative_exponent_result("sin(z)").method
    'refused'
    """
    if isinstance(target, str):
        target = Target.parse(target)
    elif not isinstance(target, Target):
        raise InvalidParameterTypeError(
            f"generative_exponent needs a Target or a target string; got {type(target).__name__}"
        )
    if target.rank != 1:
        return GenerativeExponent(None, REFUSED, f"the target has rank {target.rank}: the generative exponent is "
                                  "defined for single-index targets (the multi-index analogue is not computed)")
    z = variable(1)
    link = target.expr
    if not link.has(z):
        return GenerativeExponent(None, EXACT, "the link is constant: the label carries no information")
    link = link.xreplace({f: sp.Rational(str(f)) for f in link.atoms(sp.Float)})
    saved = (mpmath.mp.dps, iv.dps)
    mpmath.mp.dps = iv.dps = WORKING_DIGITS
    try:
        return _Link(link, z).decide()
    except _Refuse as refusal:
        return GenerativeExponent(None, REFUSED, str(refusal))
    except (NotImplementedError, sp.polys.polyerrors.BasePolynomialError, RecursionError) as exc:
        return GenerativeExponent(None, REFUSED, f"sympy cannot decide a step for the link {link} "
                                  f"({type(exc).__name__}); no value is guessed")
    finally:
        mpmath.mp.dps, iv.dps = saved


# ---------------------------------------------------------------------------------------------------------
# numbers: enclosures, signs, ordering


@lru_cache(maxsize=4096)
def _iv(x: sp.Expr) -> iv.mpf:
    """A certified mpmath interval containing the real constant ``x`` (raises _Undecided); memoised (the
    working precision is fixed while any of this module runs)."""
    return _enclosure(x)


@lru_cache(maxsize=256)
def _real_root_boxes(poly: sp.PurePoly) -> tuple[iv.mpf, ...]:
    """Intervals of width ~1e-50 around the real roots of a square-free rational polynomial, ascending: sympy's
    isolating intervals, each refined by a root found in mpmath and certified by an exact sign change inside it."""
    x = poly.gen
    out = []
    for (a, b), _ in poly.intervals():
        a, b = sp.Rational(a), sp.Rational(b)
        if a == b:
            out.append(iv.mpf(int(a.p)) / int(a.q))
            continue
        coefficients = [mpmath.mpf(int(c.p)) / int(c.q) for c in map(sp.Rational, poly.all_coeffs())]
        f = lambda t: mpmath.polyval(coefficients, t)  # noqa: E731, B023 (called within this iteration)
        box = None
        try:
            root = mpmath.findroot(f, (mpmath.mpf(int(a.p)) / int(a.q), mpmath.mpf(int(b.p)) / int(b.q)),
                                   solver="anderson")
            delta = abs(root) * mpmath.mpf(10) ** (-50) + mpmath.mpf(10) ** (-55)
            low, high = root - delta, root + delta
            left, right = _dyadic(low), _dyadic(high)
            if a <= left and right <= b and sp.sign(poly.eval(left)) * sp.sign(poly.eval(right)) < 0:
                box = iv.mpf([low, high])
        except (ZeroDivisionError, ValueError):  # pragma: no cover - fall back to sympy's refinement
            pass
        if box is None:
            lo, hi = poly.refine_root(a, b, eps=sp.Rational(1, 10**50))
            box = iv.mpf([_lo(_enclosure(sp.Rational(lo))), _hi(_enclosure(sp.Rational(hi)))])
        out.append(box)
    del x
    return tuple(out)


def _enclosure(x: sp.Expr) -> iv.mpf:
    if x.is_Integer:
        return iv.mpf(int(x))
    if x.is_Rational:
        return iv.mpf(int(x.p)) / int(x.q)
    if x is sp.pi:
        return iv.pi
    if x is sp.E:
        return iv.exp(1)
    if x.is_Add:
        out = iv.mpf(0)
        for a in x.args:
            out = out + _iv(a)
        return out
    if x.is_Mul:
        out = iv.mpf(1)
        for a in x.args:
            out = out * _iv(a)
        return out
    if x.is_Pow:
        base, e = x.args
        b = _iv(base)
        if e.is_Integer:
            return b ** int(e)
        if e.is_Rational and _lo(b) > 0:
            return iv.sqrt(b) if e == sp.Rational(1, 2) else iv.exp(iv.log(b) * _iv(e))
        raise _Undecided(x)
    if isinstance(x, sp.CRootOf) and x.is_real:
        return _real_root_boxes(sp.PurePoly(x.poly))[x.index]
    if len(x.args) == 1:
        a = _iv(x.args[0])
        if x.func is sp.exp:
            return iv.exp(a)
        if x.func is sp.log and _lo(a) > 0:
            return iv.log(a)
        if x.func is sp.erf:
            return iv.erf(a)
        if x.func is sp.sin:
            return iv.sin(a)
        if x.func is sp.cos:
            return iv.cos(a)
        if x.func is sp.tanh:
            return 1 - 2 / (iv.exp(2 * a) + 1)
        if x.func is sigmoid:
            return 1 / (1 + iv.exp(-a))
        if x.func is sp.atanh and _lo(a) > -1 and _hi(a) < 1:
            return iv.log((1 + a) / (1 - a)) / 2
        if x.func is sp.Abs:
            return abs(a)
    raise _Undecided(x)


def _lo(box: iv.mpf) -> mpmath.mpf:
    return mpmath.mpf(box._mpi_[0])


def _hi(box: iv.mpf) -> mpmath.mpf:
    return mpmath.mpf(box._mpi_[1])


def _approx(x: sp.Expr) -> mpmath.mpf:
    if x is sp.oo:
        return mpmath.inf
    if x is -sp.oo:
        return -mpmath.inf
    try:
        box = _iv(x)
        return (_lo(box) + _hi(box)) / 2
    except (_Undecided, ZeroDivisionError, ValueError):
        return mpmath.mpf(sp.N(x, WORKING_DIGITS))


def _sign(x: sp.Expr) -> tuple[int, bool]:
    """``(sign, proved)`` of a real constant: exact for rationals, by an enclosure excluding 0, by an exact zero
    test (minimal polynomial of an algebraic number, sympy's simplification otherwise); else numeric."""
    x = sp.sympify(x)
    if x.is_Rational:
        return (int(sp.sign(x)), True)
    try:
        box = _iv(x)
        if _lo(box) > 0:
            return (1, True)
        if _hi(box) < 0:
            return (-1, True)
    except (_Undecided, ZeroDivisionError, ValueError):
        pass
    value = sp.N(x, WORKING_DIGITS)
    large = abs(value) > sp.Float(10) ** (-ZERO_DIGITS - 5)
    if x.is_algebraic:
        if _minimal_polynomial(x).degree() == 1 and _minimal_polynomial(x).TC() == 0:
            return (0, True)
        if large:  # a non-zero number, and its 60-digit value is far from 0: the sign is the value's
            return (1 if value > 0 else -1, True)
    elif sp.count_ops(x) <= 150 and sp.simplify(x) == 0:
        return (0, True)
    if large:
        return (1 if value > 0 else -1, False)
    return (0, False)


def _compare(u: sp.Expr, v: sp.Expr) -> tuple[int, bool]:
    """``(sign(u - v), proved)``; two algebraic numbers are equal iff they have the same minimal polynomial
    and lie in the same isolating interval of its real roots (no minimal polynomial of u - v is built)."""
    difference = u - v
    if difference.is_Rational:
        return (int(sp.sign(difference)), True)
    try:
        box = _iv(u) - _iv(v)
        if _lo(box) > 0 or _hi(box) < 0:
            return (1 if _lo(box) > 0 else -1, True)
    except (_Undecided, ZeroDivisionError, ValueError):
        pass
    if u.is_algebraic and v.is_algebraic:
        equal = _algebraic_equal(u, v)
        if equal:
            return (0, True)
    return _sign(difference)


_X = sp.Dummy("x")


@lru_cache(maxsize=1024)
def _minimal_polynomial(u: sp.Expr) -> sp.PurePoly:
    """The monic minimal polynomial of an algebraic number (read off an irreducible CRootOf, memoised)."""
    if u.is_Rational:
        return sp.PurePoly(_X - u, _X)
    if isinstance(u, sp.CRootOf) and _irreducible(sp.PurePoly(u.poly)):
        return sp.PurePoly(u.poly.as_expr().subs(u.poly.gen, _X), _X).monic()
    if u.is_Mul and len(u.args) == 2 and u.args[0] == -1:
        inner = _minimal_polynomial(u.args[1])
        return sp.PurePoly(inner.as_expr().subs(_X, -_X), _X).monic()
    return sp.PurePoly(sp.minimal_polynomial(u, _X), _X).monic()


@lru_cache(maxsize=256)
def _irreducible(poly: sp.PurePoly) -> bool:
    return cast(bool, poly.is_irreducible)  # sympy is untyped


@lru_cache(maxsize=256)
def _isolating_intervals(poly: sp.PurePoly) -> tuple[tuple[sp.Rational, sp.Rational], ...]:
    return tuple((sp.Rational(a), sp.Rational(b)) for (a, b), _ in poly.intervals())


def _algebraic_equal(u: sp.Expr, v: sp.Expr) -> bool:
    mu, mv = _minimal_polynomial(u), _minimal_polynomial(v)
    if mu != mv:
        return False
    if mu.degree() == 1:
        return True
    bu, bv = _iv(u), _iv(v)
    for a, b in _isolating_intervals(mu):  # isolating intervals: one root each
        inside_u = a <= _lo(bu) and _hi(bu) <= b
        inside_v = a <= _lo(bv) and _hi(bv) <= b
        if inside_u or inside_v:
            return cast(bool, inside_u and inside_v)  # comparisons of sympy and mpmath numbers read as Any
    return False


def _rational_between(u: sp.Expr, v: sp.Expr) -> sp.Rational:
    """A short rational strictly between ``u < v`` (either may be infinite), certified."""
    lo, hi = _approx(u), _approx(v)
    if lo == -mpmath.inf and hi == mpmath.inf:
        return sp.Integer(0)
    if lo == -mpmath.inf:
        return sp.Integer(int(mpmath.floor(hi)) - 1)
    if hi == mpmath.inf:
        return sp.Integer(int(mpmath.ceil(lo)) + 1)
    gap = hi - lo
    if gap <= mpmath.mpf(10) ** (-ZERO_DIGITS):
        raise _Refuse(f"two breakpoints, {u} and {v}, are too close to order at {WORKING_DIGITS} digits")
    digits = max(3, int(-mpmath.log10(gap)) + 3)
    for fraction in (mpmath.mpf(1) / 2, mpmath.mpf(1) / 3, mpmath.mpf(2) / 3):
        m = sp.Rational(mpmath.nstr(lo + fraction * gap, digits + 2, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
        if _less(u, m) and _less(m, v):
            return m
    raise _Refuse(f"cannot place a point between the breakpoints {u} and {v}")


def _less(u: sp.Expr, v: sp.Expr) -> bool:
    """``u < v`` certified (False when it cannot be certified)."""
    if u is -sp.oo or v is sp.oo:
        return not (u is sp.oo or v is -sp.oo) and not (u is -sp.oo and v is -sp.oo)
    if u is sp.oo or v is -sp.oo:
        return False
    s, proved = _compare(v, u)
    return s > 0 and proved


def _sorted_distinct(values: Iterable[sp.Expr]) -> list[sp.Expr]:
    """Exact real numbers sorted, equal ones merged (equality proved, else refused)."""
    items = sorted(set(values), key=_approx)
    out: list[sp.Expr] = []
    for x in items:
        if out and abs(_approx(x) - _approx(out[-1])) <= mpmath.mpf(10) ** (-ZERO_DIGITS) * (1 + abs(_approx(x))):
            s, proved = _compare(x, out[-1])
            if s == 0 and proved:
                continue
            if s == 0 or not proved:
                raise _Refuse(f"cannot decide whether the breakpoints {out[-1]} and {x} coincide")
        out.append(x)
    return out


def _hermite_values(k: int, x: sp.Expr | mpmath.mpf | iv.mpf) -> list[sp.Expr | mpmath.mpf | iv.mpf]:
    """He_0 .. He_k at x (any ring: sympy numbers, mpf, mpmath intervals)."""
    values = [x * 0 + 1, x]
    for j in range(1, k):
        values.append(x * values[j] - j * values[j - 1])
    return values[: k + 1]


# ---------------------------------------------------------------------------------------------------------
# the link, split into pieces


@dataclass
class _Piece:
    a: sp.Expr  # left end (may be -oo)
    b: sp.Expr  # right end (may be oo)
    expr: sp.Expr
    kind: str = ""  # "constant", "polynomial", "analytic"
    poly: sp.Poly | None = None


class _Link:
    def __init__(self, link: sp.Expr, z: sp.Symbol):
        self.link = link
        self.z = z
        self.numeric_notes: list[str] = []

    # -- the decision ---------------------------------------------------------------------------------
    def decide(self) -> GenerativeExponent:
        z, link = self.z, self.link
        if link.is_polynomial(z):
            degree = sp.Poly(link, z).degree()
            if degree < 1:
                return GenerativeExponent(None, EXACT, "the link is constant: the label carries no information")
            if sp.expand(link - link.subs(z, -z)) == 0:
                return GenerativeExponent(2, EXACT, "even non-constant polynomial link: the odd coefficients "
                                          "vanish, and E[He_2(z) | y] = u(y)^2 - 1 for y beyond the critical "
                                          "values (preimages ±u(y)), so k* = 2")
            return GenerativeExponent(1, EXACT, "polynomial link that is not even: E[z | y] is not 0 for large "
                                      "|y| (tail-branch argument), so k* = 1")
        pieces = self.split()
        constants = [p for p in pieces if p.kind == "constant"]
        moving = [p for p in pieces if p.kind != "constant"]
        atoms = self.atoms(constants)
        if not moving and len(atoms) == 1:
            return GenerativeExponent(None, EXACT, f"the link is almost surely constant ({atoms[0][0]}): the label "
                                      "carries no information")
        where = "" if len(pieces) == 1 else f" (split into {len(pieces)} pieces at the zeros of its kinks)"
        if not constants and _monotone_direction(pieces, z):
            return GenerativeExponent(1, EXACT, f"the link is strictly monotone{where}, so z = σ⁻¹(y) and "
                                      "E[He_1(z) | y] = z is not 0: k* = 1")
        even = _even(pieces, z, moving_only=False)
        if even:
            positive = _positive_side(pieces)
            if all(p.kind != "constant" for p in positive) and _monotone_direction(positive, z):
                return GenerativeExponent(2, EXACT, f"the link is even and strictly monotone on (0, ∞){where}: |z| "
                                          "is a function of y, so E[He_2(z) | y] = z² - 1 is not 0 while the odd "
                                          "coefficients vanish: k* = 2")
        if len(pieces) == 1 and pieces[0].kind == "polynomial":
            return _Link(pieces[0].expr, z).decide()
        if len(pieces) == 1:
            if _is_constant_analytic(link, z):
                return GenerativeExponent(None, EXACT, "the link is constant: the label carries no information")
            raise _Refuse(f"the link {link} is analytic but neither polynomial, strictly monotone, nor even and "
                          "monotone on (0, ∞); E[He_k(z) | y] would need its level sets, which are not computed")
        return self.search(pieces, atoms, moving, even)

    def search(
        self, pieces: list[_Piece], atoms: list[tuple[sp.Expr, list[_Piece]]], moving: list[_Piece], even: bool
    ) -> GenerativeExponent:
        z = self.z
        mirror = bool(moving) and (even or _even(pieces, z, moving_only=True))
        analytic = [p for p in moving if p.kind == "analytic"]
        continuous = _Continuous(moving, z) if moving and not analytic else None
        for k in range(1, MAX_ORDER + 1):
            for value, intervals in atoms:
                nonzero, proved = _atom_moment(intervals, k)
                shown = _show_union(intervals)
                if nonzero:
                    return self.found(k, proved, f"E[He_{k}(z) 1{{y = {value}}}] ≠ 0 on the flat piece {{y = {value}}}"
                                      f" = {shown}")
                if not proved:
                    self.numeric_notes.append(f"E[He_{k} 1{{y = {value}}}] numerically 0")
            if moving:
                if mirror and k % 2 == 1:
                    pass  # exact: the non-constant pieces are even, their preimages pair up
                elif analytic:
                    names = ", ".join(str(p.expr) for p in analytic[:3])
                    known = (f"E[He_j(z) | y] = 0 for j < {k} and on the flat pieces for j = {k}"
                             + (" (numerically)" if self.numeric_notes else "") + ", but ") if atoms or k > 1 else ""
                    raise _Refuse(known + f"the continuous part of y comes from the non-polynomial pieces {names}, "
                                  "whose level sets are not computed (the link is not strictly monotone, nor even "
                                  "and monotone on (0, ∞))")
                else:
                    assert continuous is not None  # built above when no moving piece is analytic
                    nonzero, proved = continuous.moment(k)
                    if nonzero:
                        return self.found(k, proved, f"E[He_{k}(z) | y] ≠ 0 on the continuous part of y "
                                          f"({'certified by interval arithmetic' if proved else 'numerically'}"
                                          f" at y = {continuous.where})")
                    self.numeric_notes.append(f"E[He_{k} | y] numerically 0 on the continuous part")
        note = f" ({'; '.join(self.numeric_notes[:3])})" if self.numeric_notes else ""
        return GenerativeExponent(None, REFUSED, f"E[He_k(z) | y] ≡ 0 for every k ≤ {MAX_ORDER}{note}: k* > "
                                  f"{MAX_ORDER} is beyond the search")

    def found(self, k: int, proved: bool, why: str) -> GenerativeExponent:
        before = (f"E[He_j(z) | y] ≡ 0 for j < {k} " + ("(proved); " if not self.numeric_notes else
                  f"({'; '.join(self.numeric_notes[:3])}); ")) if k > 1 else ""
        exact = proved and not self.numeric_notes
        return GenerativeExponent(k, EXACT if exact else NUMERIC, before + why)

    # -- splitting --------------------------------------------------------------------------------------
    def split(self) -> list[_Piece]:
        z = self.z
        done = self._split(self.link, -sp.oo, sp.oo, 0)
        done.sort(key=lambda p: _approx(p.a))
        merged: list[_Piece] = []
        for piece in done:
            expr = sp.expand(piece.expr) if piece.expr.is_polynomial(z) else piece.expr
            if merged and merged[-1].b == piece.a and _same(merged[-1].expr, expr, z):
                merged[-1].b = piece.b
                continue
            merged.append(_Piece(piece.a, piece.b, expr))
        for piece in merged:
            if not piece.expr.has(z):
                piece.kind = "constant"
            elif piece.expr.is_polynomial(z):
                piece.kind, piece.poly = "polynomial", sp.Poly(piece.expr, z)
                if piece.poly.degree() > MAX_DEGREE:
                    raise _Refuse(f"a piece of degree {piece.poly.degree()} > {MAX_DEGREE}")
            else:
                piece.kind = "analytic"
        return merged

    def _split(self, expr: sp.Expr, a: sp.Expr, b: sp.Expr, depth: int) -> list[_Piece]:
        """Pieces of ``expr`` on (a, b): cut at the zeros of every innermost kink argument at once, resolve
        those kinks on each interval (sign at an interior point), and recurse for nested kinks."""
        z = self.z
        kinks = _innermost_kinks(expr, z)
        if not kinks:
            return [_Piece(a, b, expr)]
        if depth > MAX_PIECES:  # pragma: no cover - every level resolves at least one kink node
            raise _Refuse("kinks nested too deeply")
        constant_zero = {node: sp.Integer(0) for node in kinks if _zeros_on_line(node.args[0], z) is None}
        if constant_zero:  # an argument that is identically 0: its kink is 0 everywhere
            return self._split(expr.xreplace(constant_zero), a, b, depth + 1)
        # (None, an identically zero argument, was resolved above)
        zeros = [r for node in kinks for r in cast(tuple[sp.Expr, ...], _zeros_on_line(node.args[0], z))
                 if _strictly_inside(r, a, b)]
        if len(set(zeros)) + 1 > MAX_PIECES:
            raise _Refuse(f"the link splits into more than {MAX_PIECES} pieces at the zeros of its kinks")
        cuts = [a, *_sorted_distinct(zeros), b]
        pieces: list[_Piece] = []
        for u, v in zip(cuts, cuts[1:]):
            m = _rational_between(u, v)
            resolved = {}
            for node in kinks:
                argument = node.args[0]
                s = _sign_of_argument(argument, z, m, u, v)
                resolved[node] = {sp.sign: sp.Integer(s), sp.Abs: s * argument,
                                  relu: argument if s > 0 else sp.Integer(0)}[node.func]
            pieces.extend(self._split(expr.xreplace(resolved), u, v, depth + 1))
            if len(pieces) > MAX_PIECES:
                raise _Refuse(f"the link splits into more than {MAX_PIECES} pieces at the zeros of its kinks")
        return pieces

    def atoms(self, constants: list[_Piece]) -> list[tuple[sp.Expr, list[_Piece]]]:
        groups: list[tuple[sp.Expr, list[_Piece]]] = []
        for piece in constants:
            for value, members in groups:
                s, proved = _sign(piece.expr - value)
                if s == 0:
                    if not proved:
                        raise _Refuse(f"cannot decide whether the flat values {value} and {piece.expr} are equal")
                    members.append(piece)
                    break
            else:
                groups.append((piece.expr, [piece]))
        return groups


def _show(x: sp.Expr) -> str:
    if x is -sp.oo or x is sp.oo:
        return "-∞" if x is -sp.oo else "∞"
    text = str(x)
    return text if len(text) <= 24 else "≈" + mpmath.nstr(_approx(x), 8)


def _show_union(intervals: list[_Piece]) -> str:
    shown = " ∪ ".join(f"({_show(p.a)}, {_show(p.b)})" for p in intervals[:4])
    return shown + (f" ∪ … ({len(intervals)} intervals)" if len(intervals) > 4 else "")


def _same(u: sp.Expr, v: sp.Expr, z: sp.Symbol) -> bool:
    difference = u - v
    if difference.is_polynomial(z):
        return cast(bool, sp.expand(difference) == 0)  # sympy is untyped
    return cast(bool, difference == 0)


def _probes(u: sp.Expr, v: sp.Expr) -> list[sp.Rational]:
    lo, hi = _approx(u), _approx(v)
    if lo == -mpmath.inf:
        lo = hi - 8 if hi != mpmath.inf else mpmath.mpf(-8)
    if hi == mpmath.inf:
        hi = lo + 8
    out = []
    for fraction in (0.05, 0.25, 0.75, 0.95):
        m = sp.Rational(mpmath.nstr(lo + fraction * (hi - lo), 12, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
        if _less(u, m) and _less(m, v):
            out.append(m)
    return out


def _innermost_kinks(expr: sp.Expr, z: sp.Symbol) -> list[sp.Expr]:
    """The kink nodes of ``expr`` whose argument depends on z and holds no kink itself."""
    out = []
    for node in sp.preorder_traversal(expr):
        if node.func in _KINKS and node.args[0].has(z) and node not in out:
            if not any(inner.func in _KINKS for inner in sp.preorder_traversal(node.args[0])):
                out.append(node)
    return out


def _sign_of_argument(argument: sp.Expr, z: sp.Symbol, m: sp.Rational, u: sp.Expr, v: sp.Expr) -> int:
    """The sign (+-1) of a kink argument on (u, v), which holds none of its zeros, read at m in (u, v)."""
    coefficients = _rational_coefficients(argument, z)
    if coefficients is not None:  # exact rational Horner evaluation
        point, value = Fraction(int(m.p), int(m.q)), Fraction(0)
        for c in coefficients:
            value = value * point + c
        return (value > 0) - (value < 0)
    s, proved = _sign(argument.subs(z, m))
    if s == 0 or not proved:
        raise _Refuse(f"cannot decide the sign of {argument} between {u} and {v}")
    if not argument.is_polynomial(z):  # sympy's solveset gave the zeros: cross-check the sign elsewhere
        for probe in _probes(u, v):
            t, ok = _sign(argument.subs(z, probe))
            if t != s and ok:
                raise _Refuse(f"sympy's zeros of {argument} are incomplete (a sign change near {probe})")
    return s


def _has_pole(expr: sp.Expr, z: sp.Symbol) -> bool:
    return any(node.is_Pow and node.exp.is_negative and node.base.has(z) and not node.base.is_positive
               for node in sp.preorder_traversal(expr))


@lru_cache(maxsize=1024)
def _rational_coefficients(argument: sp.Expr, z: sp.Symbol) -> tuple[Fraction, ...] | None:
    """The coefficients (highest degree first, as Fractions) of a polynomial with rational coefficients, or
    None (memoised)."""
    if not argument.is_polynomial(z):
        return None
    poly = sp.Poly(argument, z)
    if not (poly.domain.is_QQ or poly.domain.is_ZZ):
        return None
    return tuple(Fraction(int(c.p), int(c.q)) for c in map(sp.Rational, poly.all_coeffs()))


@lru_cache(maxsize=1024)
def _zeros_on_line(argument: sp.Expr, z: sp.Symbol) -> tuple[sp.Expr, ...] | None:
    """The real zeros of a kink-free ``argument``, sorted; None if it is identically 0 (memoised)."""
    if _has_pole(argument, z):
        raise _Refuse(f"the kink argument {argument} has a z-dependent denominator that may vanish (not supported)")
    if argument.is_polynomial(z):
        poly = sp.Poly(argument, z)
        if poly.is_zero:
            return None
        if poly.degree() > MAX_DEGREE:
            raise _Refuse(f"a kink argument of degree {poly.degree()} > {MAX_DEGREE}")
        if poly.degree() == 0:
            return ()
        if poly.domain.is_QQ or poly.domain.is_ZZ:
            zeros = list(set(sp.real_roots(poly)))
        else:
            zeros = _solved_zeros(argument, z)
    else:
        zeros = _solved_zeros(argument, z)
    return tuple(_sorted_distinct(zeros))


def _strictly_inside(r: sp.Expr, a: sp.Expr, b: sp.Expr) -> bool:
    """``a < r < b``, proved either way (refused when it cannot be)."""
    for end in (a, b):
        if end.is_finite:
            s, proved = _compare(r, end)
            if not proved:
                raise _Refuse(f"cannot place the point {r} relative to {end}")
            if s == 0:
                return False
    return _less(a, r) and _less(r, b)


def _solved_zeros(argument: sp.Expr, z: sp.Symbol) -> list[sp.Expr]:
    try:
        solutions = sp.solveset(argument, z, sp.S.Reals)
    except Exception as exc:  # noqa: BLE001 - any sympy failure is a refusal with its reason
        raise _Refuse(f"sympy cannot solve {argument} = 0 over the reals ({type(exc).__name__})") from None
    if not isinstance(solutions, sp.FiniteSet) or any(s.free_symbols or s.is_real is False for s in solutions):
        raise _Refuse(f"the real zeros of the kink argument {argument} are not a finite set of explicit numbers "
                      f"(sympy's solveset gives {type(solutions).__name__})")
    return list(solutions)


# ---------------------------------------------------------------------------------------------------------
# symmetry and monotonicity


def _piece_at(pieces: list[_Piece], m: sp.Rational) -> _Piece:
    x = _approx(m)
    for piece in pieces:
        if _approx(piece.a) < x < _approx(piece.b):
            return piece
    raise _Refuse(f"no piece contains {m}")  # pragma: no cover - the pieces cover the line


def _even(pieces: list[_Piece], z: sp.Symbol, moving_only: bool) -> bool:
    """Whether σ(-z) = σ(z) (a.e.); with ``moving_only``, whether the union N of the non-constant pieces is
    symmetric and σ is even on it. Decided exactly (False when it cannot be proved)."""
    ends = [p.a for p in pieces[1:]]
    cuts = _sorted_distinct([*ends, *(-e for e in ends), sp.Integer(0)])
    bounds = [-sp.oo, *cuts, sp.oo]
    for u, v in zip(bounds, bounds[1:]):
        if u != 0 and not _less(sp.Integer(0), u):  # the intervals of [0, oo) and their mirrors suffice
            continue
        m = _rational_between(u, v)
        right, left = _piece_at(pieces, m), _piece_at(pieces, -m)
        if moving_only and right.kind == "constant" and left.kind == "constant":
            continue
        if moving_only and (right.kind == "constant") != (left.kind == "constant"):
            return False
        difference = right.expr - left.expr.subs(z, -z)
        if difference.is_polynomial(z):
            if sp.expand(difference) != 0:
                return False
        elif difference != 0 and not (sp.count_ops(difference) <= 60 and sp.simplify(difference) == 0):
            return False
    return True


def _positive_side(pieces: list[_Piece]) -> list[_Piece]:
    out = []
    for p in pieces:
        if _less(sp.Integer(0), p.b):
            out.append(_Piece(sp.Integer(0) if _less(p.a, sp.Integer(0)) else p.a, p.b, p.expr, p.kind, p.poly))
    return out


def _monotone_direction(pieces: list[_Piece], z: sp.Symbol) -> int:
    """+1 / -1 if σ is strictly monotone on the union of ``pieces`` (each piece strictly monotone the same way,
    every jump in that direction), else 0."""
    directions = {_piece_direction(p, z) for p in pieces}
    if len(directions) != 1 or 0 in directions:
        return 0
    (direction,) = directions
    for left, right in zip(pieces, pieces[1:]):
        s, proved = _sign_at(right.expr - left.expr, z, right.a)
        if not proved or s * direction < 0:
            return 0
    return direction


def _sign_at(expr: sp.Expr, z: sp.Symbol, r: sp.Expr) -> tuple[int, bool]:
    """``(sign(expr(r)), proved)``; a rational polynomial vanishes at an algebraic r iff the minimal polynomial
    of r divides it."""
    if r.is_Rational:
        coefficients = _rational_coefficients(expr, z)
        if coefficients is not None:
            point, value = Fraction(int(r.p), int(r.q)), Fraction(0)
            for c in coefficients:
                value = value * point + c
            return ((value > 0) - (value < 0), True)
    if expr.is_polynomial(z) and r.is_algebraic and not r.is_Rational:
        poly = sp.Poly(expr, z)
        if poly.domain.is_QQ or poly.domain.is_ZZ:
            if sp.rem(poly.as_expr().subs(z, _X), _minimal_polynomial(r).as_expr(), _X) == 0:
                return (0, True)
    return _sign(expr.subs(z, r))


def _piece_direction(piece: _Piece, z: sp.Symbol) -> int:
    if not piece.expr.has(z):
        return 0
    if piece.expr.is_polynomial(z):
        derivative = sp.Poly(piece.expr, z).diff(z)
        if derivative.is_zero:
            return 0
        if not (derivative.domain.is_QQ or derivative.domain.is_ZZ):
            return 0
        critical = [r for r in set(sp.real_roots(derivative)) if _strictly_inside(r, piece.a, piece.b)]
        cuts = [piece.a, *_sorted_distinct(critical), piece.b]
        signs = {_sign(derivative.as_expr().subs(z, _rational_between(u, v)))[0] for u, v in zip(cuts, cuts[1:])}
        return signs.pop() if len(signs) == 1 else 0
    if not _less(piece.a, sp.Integer(0)):  # piece inside [0, oo): read the expression with z > 0
        u = sp.Symbol("u", positive=True)
        return _structural_direction(piece.expr.subs(z, u), u)
    if not _less(sp.Integer(0), piece.b):
        u = sp.Symbol("u", positive=True)
        return -_structural_direction(piece.expr.subs(z, -u), u)
    return _structural_direction(piece.expr, z)


def _structural_direction(expr: sp.Expr, z: sp.Symbol) -> int:
    """+1 / -1 if ``expr`` is strictly increasing / decreasing in ``z`` by composition of monotone maps, 0 if
    unknown or constant."""
    if not expr.has(z):
        return 0
    if expr == z:
        return 1
    if expr.is_Add:
        # None marks a constant term, dropped
        directions = cast(set[int], {_structural_direction(a, z) if a.has(z) else None for a in expr.args} - {None})
        return directions.pop() if len(directions) == 1 else 0
    if expr.is_Mul:
        constant, moving = expr.as_independent(z, as_Add=False)
        if constant != 1:
            sign = 1 if constant.is_positive else -1 if constant.is_negative else 0
            return sign * _structural_direction(moving, z)
        factors = expr.args
        directions = {_structural_direction(f, z) for f in factors}
        if len(directions) == 1 and 0 not in directions and all(f.is_positive for f in factors):
            return directions.pop()
        return 0
    if expr.is_Pow:
        base, exponent = expr.args
        if not exponent.has(z):
            inner = _structural_direction(base, z)
            if exponent.is_Integer and int(exponent) % 2 == 1 and exponent > 0:
                return inner
            if exponent.is_positive and base.is_nonnegative:
                return inner
            if exponent.is_negative and base.is_positive:
                return -inner
            return 0
        if not base.has(z) and base.is_positive:
            inner = _structural_direction(exponent, z)
            return inner if (base - 1).is_positive else -inner if (base - 1).is_negative else 0
        return 0
    if expr.func in _INCREASING and len(expr.args) == 1:
        return _structural_direction(expr.args[0], z)
    return 0


def _is_constant_analytic(link: sp.Expr, z: sp.Symbol) -> bool:
    derivative = sp.diff(link, z)
    if sp.count_ops(derivative) > 60:
        return False
    return cast(bool, sp.simplify(derivative.rewrite(sp.exp)) == 0)  # sympy is untyped


# ---------------------------------------------------------------------------------------------------------
# the atoms


def _atom_moment(intervals: list[_Piece], k: int) -> tuple[bool, bool]:
    r"""``(nonzero, proved)`` for :math:`\sum_r \varepsilon_r \mathrm{He}_{k-1}(r) e^{-r^2/2}` over the endpoints."""
    orientation: dict[sp.Expr, int] = {}
    for piece in intervals:
        for end, eps in ((piece.a, 1), (piece.b, -1)):
            if end.is_finite:
                orientation[end] = orientation.get(end, 0) + eps
    points = [r for r, eps in orientation.items() if eps != 0]
    groups: list[tuple[sp.Expr, int]] = []  # (representative r, integer factor)
    used: set[sp.Expr] = set()
    for r in points:
        if r in used:
            continue
        used.add(r)
        partner = next((q for q in points if q not in used and _is_negative_of(q, r)), None)
        factor = orientation[r]
        if partner is not None:
            used.add(partner)
            factor += (-1) ** (k - 1) * orientation[partner]
        if factor != 0:
            groups.append((r, factor))
    nonzero = []
    for r, factor in groups:
        vanishes, proved = _hermite_vanishes(k - 1, r)
        if not proved:
            vanishes = False  # do not drop a group on a numeric zero; the total decides below
        if not vanishes:
            nonzero.append((r, factor))
    if not nonzero:
        return (False, True)
    if len(nonzero) == 1 or all(r.is_algebraic for r, _ in nonzero):
        if len(nonzero) == 1:
            vanishes, proved = _hermite_vanishes(k - 1, nonzero[0][0])
            if vanishes or not proved:
                return (not vanishes, False)
        return (True, True)  # Lindemann-Weierstrass: distinct algebraic r^2, non-zero algebraic coefficients
    total = sp.Add(*(factor * sp.expand(_hermite_values(k - 1, r)[-1]) * sp.exp(-r**2 / 2) for r, factor in nonzero))
    s, proved = _sign(total)
    return (s != 0, proved)


def _is_negative_of(q: sp.Expr, r: sp.Expr) -> bool:
    if q == -r:
        return True
    if abs(_approx(q) + _approx(r)) > mpmath.mpf(10) ** (-ZERO_DIGITS) * (1 + abs(_approx(r))):
        return False
    s, proved = _compare(q, -r)
    if s == 0 and not proved:
        raise _Refuse(f"cannot decide whether the breakpoints {q} and {r} are opposite")
    return s == 0


def _hermite_vanishes(n: int, r: sp.Expr) -> tuple[bool, bool]:
    """``(He_n(r) == 0, proved)``."""
    if n == 0:
        return (False, True)
    if r.is_Rational:
        return (_hermite_values(n, r)[-1] == 0, True)
    if r.is_algebraic:
        return (sp.rem(sp.hermite_prob(n, _X), _minimal_polynomial(r).as_expr(), _X) == 0, True)
    try:
        box = _hermite_values(n, _iv(r))[-1]
        if _lo(box) > 0 or _hi(box) < 0:
            return (False, True)
    except (_Undecided, ZeroDivisionError, ValueError):
        pass
    s, proved = _sign(sp.expand(_hermite_values(n, r)[-1]))
    return (s == 0, proved)


# ---------------------------------------------------------------------------------------------------------
# the continuous part


#: A monotone segment of a polynomial piece: ``(piece, u, v, σ(u), σ(v))``, σ strictly monotone on (u, v).
_Segment = tuple[_Piece, sp.Expr, sp.Expr, sp.Expr, sp.Expr]
#: Enclosures ``(z_i, |σ'(z_i)|)`` of a preimage (the slope None when its enclosure holds 0).
_Preimage = tuple[iv.mpf, iv.mpf | None]


class _Continuous:
    r"""The continuous part of the law of y for polynomial pieces: two sample points in every branch interval,
    certified enclosures of their preimages (computed when first needed), and :meth:`moment`, which encloses
    :math:`g_k(y)` at them."""

    def __init__(self, pieces: list[_Piece], z: sp.Symbol):
        self.z = z
        self.pieces = pieces
        self.exact_segments = True  # critical points exact, so the preimage count is proved
        self.where = ""
        self._samples: list[tuple[sp.Rational, list[_Segment]]] | None = None
        self._preimages: dict[int, tuple[list[_Preimage], bool]] = {}

    def samples(self) -> list[tuple[sp.Rational, list[_Segment]]]:
        """``(y, covering monotone segments)`` for two rational y in every branch interval."""
        if self._samples is None:
            self._samples = self._build()
        return self._samples

    def _build(self) -> list[tuple[sp.Rational, list[_Segment]]]:
        z = self.z
        segments = []  # (piece, u, v, y_u, y_v): the piece is strictly monotone on (u, v)
        for piece in self.pieces:
            poly = piece.poly
            assert poly is not None  # the pieces of the continuous part are polynomial
            derivative = poly.diff(z)
            if derivative.degree() < 1:
                critical = []
            elif derivative.domain.is_QQ or derivative.domain.is_ZZ:
                critical = [r for r in set(sp.real_roots(derivative)) if _strictly_inside(r, piece.a, piece.b)]
            else:  # critical points of a polynomial with irrational coefficients: numeric only
                self.exact_segments = False
                critical = _numeric_real_roots(derivative, piece.a, piece.b)
            cuts = [piece.a, *_sorted_distinct(critical), piece.b]
            for u, v in zip(cuts, cuts[1:]):
                yu, yv = _end_value(poly, u, z), _end_value(poly, v, z)
                segments.append((piece, u, v, yu, yv, self._bounds(yu), self._bounds(yv)))
            if len(segments) > MAX_PIECES:
                raise _Refuse(f"the non-constant pieces have more than {MAX_PIECES} monotone segments")
        values: list[mpmath.mpf] = []
        for value in sorted({_approx(y) for s in segments for y in s[3:5] if mpmath.isfinite(_approx(y))}):
            # critical values closer than 10^-40 are sampled as one: a thinner branch interval is not sampled,
            # which can only miss a non-zero (a zero of the continuous part is never concluded from samples
            # alone as exact); every sampled value below is certified on its own
            if not values or value - values[-1] > mpmath.mpf(10) ** (-ZERO_DIGITS) * (1 + abs(value)):
                values.append(value)
        levels = [-mpmath.inf, *values, mpmath.inf]
        out = []
        for lo, hi in zip(levels, levels[1:]):
            if lo == -mpmath.inf and hi == mpmath.inf:
                points, width = [mpmath.mpf(-1), mpmath.mpf(1)], mpmath.mpf(1)
            elif lo == -mpmath.inf:
                points, width = [hi - 1, hi - 2], mpmath.mpf(1)
            elif hi == mpmath.inf:
                points, width = [lo + 1, lo + 2], mpmath.mpf(1)
            else:
                points, width = [lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3], hi - lo
            for point in points:
                digits = max(20, int(mpmath.log10((abs(point) + 1) / width)) + 12)
                y = sp.Rational(mpmath.nstr(point, digits, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
                box = self._bounds(y)
                covering = [s[:5] for s in segments if _between(box, s[5], s[6])]
                if covering:
                    out.append((y, covering))
        return out

    def _bounds(self, value: sp.Expr) -> tuple[mpmath.mpf, mpmath.mpf]:
        """A certified enclosure (lo, hi) of a critical value or sample (infinite ends as ±inf)."""
        if value is sp.oo or value is -sp.oo:
            return (mpmath.inf, mpmath.inf) if value is sp.oo else (-mpmath.inf, -mpmath.inf)
        try:
            box = _iv(value)
            return (_lo(box), _hi(box))
        except (_Undecided, ZeroDivisionError, ValueError):
            self.exact_segments = False
            centre = _approx(value)
            return (centre - abs(centre) * mpmath.mpf(10) ** -50, centre + abs(centre) * mpmath.mpf(10) ** -50)

    def preimages(self, index: int) -> tuple[list[_Preimage], bool]:
        """Enclosures ``(z_i, |σ'(z_i)|)`` of the preimages of sample ``index`` and whether all are certified."""
        if index not in self._preimages:
            y, covering = self.samples()[index]
            found = [self._preimage(s, y) for s in covering]
            certified = self.exact_segments and all(ok for _, _, ok in found)
            self._preimages[index] = ([(box, slope) for box, slope, _ in found], certified)
        return self._preimages[index]

    def _preimage(self, segment: _Segment, y: sp.Rational) -> tuple[iv.mpf, iv.mpf | None, bool]:
        """(enclosure of z_i, enclosure of |σ'(z_i)| or None, certified) for the unique preimage of y in a
        monotone segment: a root found in mpmath, enclosed in [r - δ, r + δ] (δ ≈ 10^-50 |r|) and certified by
        an exact sign change of σ - y at its dyadic endpoints inside the segment."""
        piece, u, v, yu, yv = segment
        poly = piece.poly
        assert poly is not None  # the pieces of the continuous part are polynomial
        coefficients = [mpmath.mpf(sp.N(c, WORKING_DIGITS + 10)) for c in poly.all_coeffs()]
        level = mpmath.mpf(sp.N(y, WORKING_DIGITS + 10))
        f = lambda t: mpmath.polyval(coefficients, t) - level  # noqa: E731
        lo = _bracket(f, u, v, -1, 1 if _approx(yu) > _approx(y) else -1)
        hi = _bracket(f, v, u, 1, 1 if _approx(yv) > _approx(y) else -1)
        root = mpmath.findroot(f, (lo, hi), solver="anderson")
        root = mpmath.findroot(f, root, solver="newton")  # polish to full precision
        delta = abs(root) * mpmath.mpf(10) ** (-50) + mpmath.mpf(10) ** (-55)
        low, high = root - delta, root + delta
        left, right = _dyadic(low), _dyadic(high)
        target = poly.as_expr() - y
        at_left, at_right = _sign_at(target, self.z, left), _sign_at(target, self.z, right)
        certified = (at_left[1] and at_right[1] and at_left[0] * at_right[0] < 0
                     and _less(u, left) and _less(right, v))
        box = iv.mpf([low, high])
        try:
            derivative = [_iv(c) for c in poly.diff(self.z).all_coeffs()]
        except (_Undecided, ZeroDivisionError, ValueError):
            certified = False
            derivative = [iv.mpf(mpmath.mpf(sp.N(c, WORKING_DIGITS + 10))) for c in poly.diff(self.z).all_coeffs()]
        slope = iv.mpf(0)
        for c in derivative:
            slope = slope * box + c
        if _lo(slope) <= 0 <= _hi(slope):
            return box, None, False
        return box, abs(slope), certified

    def moment(self, k: int) -> tuple[bool, bool]:
        """``(nonzero, proved)`` for :math:`g_k \\not\\equiv 0` on the continuous part; ``(False, False)`` is a
        numeric zero (every sampled enclosure contains 0, or is below 10^-40 of its terms)."""
        for index in range(len(self.samples())):
            preimages, certified = self.preimages(index)
            if any(slope is None for _, slope in preimages):
                continue
            total, scale = iv.mpf(0), mpmath.mpf(0)
            for box, slope in preimages:
                term = _hermite_values(k, box)[-1] * iv.exp(-box**2 / 2) / slope
                total += term
                scale += abs(_lo(term) + _hi(term)) / 2
            if _lo(total) > 0 or _hi(total) < 0:
                if certified or abs(_lo(total) + _hi(total)) / 2 > mpmath.mpf(10) ** (-ZERO_DIGITS) * scale:
                    self.where = mpmath.nstr(_approx(self.samples()[index][0]), 8)
                    return (True, certified)
        return (False, False)


def _bracket(
    f: Callable[[mpmath.mpf], mpmath.mpf], end: sp.Expr, other: sp.Expr, direction: int, sign: int
) -> mpmath.mpf:
    """``end`` if finite, else a point beyond ``other`` (in ``direction``) where f has ``sign``."""
    if end.is_finite:
        return _approx(end)
    reference = _approx(other) if other.is_finite else mpmath.mpf(0)
    step = mpmath.mpf(1)
    while mpmath.sign(f(reference + direction * step)) != sign:
        step *= 2
        if step > 2**60:
            raise _Refuse("cannot bracket a preimage of the continuous part")  # pragma: no cover
    return reference + direction * step


def _dyadic(x: mpmath.mpf) -> sp.Rational:
    sign, mantissa, exponent, _ = mpmath.mpf(x)._mpf_
    return (-1) ** sign * sp.Integer(mantissa) * sp.Rational(2) ** exponent


def _end_value(poly: sp.Poly, end: sp.Expr, z: sp.Symbol) -> sp.Expr:
    if end.is_finite:
        return poly.as_expr().subs(z, end)
    lead, degree = poly.LC(), poly.degree()
    sign = (1 if lead > 0 else -1) * (1 if end is sp.oo or degree % 2 == 0 else -1)
    return sp.oo if sign > 0 else -sp.oo


def _between(
    box: tuple[mpmath.mpf, mpmath.mpf], end_a: tuple[mpmath.mpf, mpmath.mpf], end_b: tuple[mpmath.mpf, mpmath.mpf]
) -> bool:
    """Whether the enclosed sample lies strictly between two enclosed values (in either order); the samples
    sit a third of a branch interval away from every critical value, so the enclosures always decide."""
    lo, hi = (end_a, end_b) if end_a[0] <= end_b[0] else (end_b, end_a)
    if lo[1] < box[0] and box[1] < hi[0]:
        return True
    if box[1] < lo[0] or box[0] > hi[1]:
        return False
    raise _Refuse("a sample of the continuous part is too close to a critical value to decide")  # pragma: no cover


def _numeric_real_roots(poly: sp.Poly, a: sp.Expr, b: sp.Expr) -> list[sp.Expr]:
    if poly.degree() < 1:
        return []
    coefficients = [mpmath.mpf(sp.N(c, WORKING_DIGITS)) for c in poly.all_coeffs()]
    roots = mpmath.polyroots(coefficients, maxsteps=200, extraprec=200)
    lo, hi = _approx(a), _approx(b)
    return [sp.Rational(mpmath.nstr(mpmath.re(r), 50, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
            for r in roots if abs(mpmath.im(r)) < mpmath.mpf(10) ** -30 and lo < mpmath.re(r) < hi]
