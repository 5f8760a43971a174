r"""The stall of spherical online SGD: the limiting drift of the reduced chain to second order in the step (sympy).

Derivation (this project's, from the exact reduced chain of :mod:`.model`; the setting of Ben Arous, Gheissari,
Jagannath 2021, arXiv 2003.10409). One step maps the overlap :math:`m` (with :math:`s = \sqrt{1 - m^2}`) to

.. math:: m' = \frac{m + h\,(m u - z_1)}{\sqrt{1 + h^2\,(z_1^2 + z_2^2 - u^2 + q)}}, \qquad
   u = m z_1 + s z_2,\ h = \eta\,c(u, y),\ y = g(z_1),\ q \sim \chi^2_{d-2},

because :math:`A^2 + B^2 = 1 + h^2(z_1^2 + z_2^2 - u^2)` exactly (the terms linear in :math:`h` cancel:
:math:`m(mu - z_1) + s(su - z_2) = u - u`). Here :math:`c` is the scalar of :math:`\nabla_w L = c\,x`:
:math:`-y\,\sigma'(u)` (correlation loss) or :math:`(\sigma(u) - y)\,\sigma'(u)` (square loss). Write the step in
units of :math:`1/d`, :math:`\eta = \varepsilon/d`. Expanding :math:`(1 + x)^{-1/2} = 1 - x/2 + O(x^2)` with
:math:`x = h^2(q + O(1)) = O(\varepsilon^2/d)`, and using that :math:`q` is independent of
:math:`(z_1, z_2)` with :math:`\mathbb E\,q = d - 2`,

.. math:: d\,\mathbb E[m' - m] = \varepsilon\,F_1(m) - \frac{\varepsilon^2}{2}\,m\,F_2(m) + O(1/d), \qquad
   F_1(m) = \mathbb E[c\,(m u - z_1)], \quad F_2(m) = \mathbb E[c^2],

the expectations over two independent standard normals :math:`z_1, z_2` (odd powers of :math:`s` vanish, even
ones are powers of :math:`1 - m^2`: both are polynomials in :math:`m` for a polynomial link and student). The
first term is the population drift (:math:`F_1 = (1 - m^2)\phi'(m)` for the correlation loss with
:math:`\sigma = g`, :math:`\phi(m) = \sum_j c_j^2 m^j/j!`); the second is the retraction to the sphere, a
contraction of :math:`m` by the squared step times the :math:`d - 2` directions the sample pushes :math:`w` off
:math:`\operatorname{span}(w, w^*)`. The next terms are :math:`O(1/d)` relative: :math:`h^2(z_1^2 + z_2^2 - u^2)`,
the fluctuation of :math:`q` around its mean, and :math:`x^2`. The martingale part of a step is
:math:`O(\varepsilon/d)`, so over the :math:`\asymp d` steps that move :math:`m` by :math:`O(1)` its sum is
:math:`O(d^{-1/2})`: at an overlap of order 1 the chain follows the ODE :math:`\dot m = ` this drift in the time
:math:`t/d`, and a zero of the drift where it turns from positive to negative is an attracting point of the
chain — a **stall** — that it does not leave as :math:`d \to \infty`.

Step-size scaling. With :math:`\eta = \tilde\eta\,d^{-\max(1, k/2)}` (:func:`.laws.step_size_power`) the step in
units of :math:`1/d` is :math:`\varepsilon = \tilde\eta\,d^{1 - \max(1, k/2)}`: :math:`\varepsilon = \tilde\eta` at
:math:`k \le 2`, and :math:`\varepsilon = \tilde\eta\,d^{1 - k/2} \to 0` at :math:`k \ge 3`, where the retraction
then only matters at the start scale :math:`m \asymp d^{-1/2}` (there it sets an unstable barrier
:math:`(m\sqrt d)^{k-2} = \tilde\eta F_2(0)/(2\phi'_k)` that the noise crosses, not a stall).

Stall and admissible step. The drift vanishes at :math:`m > 0` where :math:`\varepsilon = E(m) :=
2F_1(m)/(m F_2(m))` (:func:`stall_curve`); the chain reaches the overlap :math:`m_r` (1/2, weak recovery) iff the
drift has no attracting zero in :math:`(0, m_r)` and is positive at :math:`m_r`. :func:`largest_admissible_step`
is the supremum of the :math:`\varepsilon` for which every smaller step reaches :math:`m_r` — :math:`E(m_r)` when
:math:`E` is decreasing, as for every link below. Results (checked in ``derivations/derive_online_sgd_stall.py``):

* :math:`g = \sigma = \mathrm{He}_2`, correlation loss: :math:`F_1 = 4m(1 - m^2)`, :math:`F_2 = 8 + 32m^2`, so
  :math:`d\,\mathbb E[dm] = m[4\tilde\eta(1 - m^2) - \tilde\eta^2(4 + 16m^2)]`, stall
  :math:`m_*^2 = (1 - \tilde\eta)/(1 + 4\tilde\eta)`, recovery iff :math:`\tilde\eta < 3/8`.
* :math:`g = \sigma = z`: :math:`d\,\mathbb E[dm] = \tilde\eta(1 - m^2) - \tilde\eta^2 m/2`, recovery iff
  :math:`\tilde\eta < 3`.
* :math:`g = \mathrm{He}_4` with the label transform of Damian, Pillaud-Vivien, Lee, Bruna 2024 (arXiv
  2403.05529; :func:`.laws.label_transform`, student :math:`\mathrm{He}_2`): :math:`F_1 = 2\mu\,m(1 - m^2)`,
  :math:`F_2 = 4(1 + (\kappa - 1)m^2)`, :math:`\mu = \mathbb E[T z^2]`, :math:`\kappa = \mathbb E[T^2 z^2]`; the
  transformed label is heavy (degree 8 in :math:`z`: :math:`\mu = 8\sqrt{638}/319 \approx 0.633`,
  :math:`\kappa = 1 + 6256/319 \approx 20.6`), so the retraction is large: stall :math:`m_*^2 =
  (4\sqrt{638} - 319\tilde\eta)/(4\sqrt{638} + 6256\tilde\eta)`, :math:`m_* \approx 0.166` at
  :math:`\tilde\eta = 0.2`; recovery iff :math:`\tilde\eta < 3\sqrt{638}/1883 \approx 0.0402`.

Assumptions: a polynomial link and student (exact Gaussian moments); the first-order expansion of the retraction
(exact as :math:`d \to \infty` at fixed :math:`\varepsilon`, once :math:`|c| \ll \sqrt d/\varepsilon` on the
samples that carry :math:`F_2`: reached slowly for a heavy label such as the transformed He4, whose exact one-step
mean at :math:`m = 0.4`, :math:`\tilde\eta = 0.2` is :math:`-0.075` at :math:`d = 10^6` and :math:`-0.0898` at
:math:`10^{10}`, the limit's value); the overlap read at order 1 (the start scale is the
laws' business, :mod:`.laws`). Not covered: the smoothed loss (:mod:`.smoothing`), whose coefficient also depends
on :math:`\|x\|^2`.
"""

from __future__ import annotations

import functools

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.hermite import gaussian_moment, parse_link
from .model import LOSSES, THRESHOLD

__all__ = ["ETA_TILDE", "OVERLAP", "admissible", "drift_terms", "largest_admissible_step", "limiting_drift",
           "stall_curve", "stall_equation", "stall_overlap"]

#: :math:`\tilde\eta` (the step in units of :math:`1/d` at :math:`k \le 2`; :math:`\varepsilon` in the docstring).
ETA_TILDE = sp.Symbol("eta_tilde", positive=True)
#: The overlap :math:`m = \langle w, w^*\rangle`.
OVERLAP = sp.Symbol("m", real=True)
_Z = sp.Symbol("z", real=True)
_Z1, _Z2, _S = sp.symbols("z1 z2 s", real=True)


def _polynomial(link: str | sp.Expr, what: str) -> sp.Expr:
    expr = sp.expand(parse_link(link))
    if not expr.is_polynomial(_Z):
        raise InvalidParameterError(f"The '{what}' parameter must be a polynomial link in z (the drift is taken by "
                                    f"exact Gaussian moments). Got {link!r} instead.")
    return expr


def _gaussian_mean(expr: sp.Expr) -> sp.Expr:
    r""":math:`\mathbb E` over independent standard normals :math:`z_1, z_2` of a polynomial in them, with
    :math:`s^2 = 1 - m^2` substituted (odd powers of :math:`s` must vanish)."""
    poly = sp.Poly(sp.expand(expr), _Z1, _Z2)
    mean = sp.expand(sum(a * gaussian_moment(i) * gaussian_moment(j) for (i, j), a in poly.terms()))
    out = sp.Integer(0)
    for (power,), a in sp.Poly(mean, _S).terms():
        if power % 2:
            raise AssertionError(f"odd power s^{power} survived the Gaussian mean: {a}")
        out += a * (1 - OVERLAP**2) ** (power // 2)
    return sp.expand(out)


@functools.lru_cache(maxsize=32)
def drift_terms(link: str | sp.Expr, student: str | sp.Expr | None = None,
                loss: str = "correlation") -> tuple[sp.Expr, sp.Expr]:
    r"""``(F1, F2)``: :math:`F_1(m) = \mathbb E[c\,(mu - z_1)]` and :math:`F_2(m) = \mathbb E[c^2]` (module
    docstring), polynomials in :data:`OVERLAP`; ``student`` :math:`\sigma` defaults to the link.

    >>> drift_terms("He2(z)")
    (-4*m**3 + 4*m, 32*m**2 + 8)
    """
    if loss not in LOSSES:
        raise InvalidParameterError(f"The 'loss' parameter must be one of {LOSSES}. Got {loss!r} instead.")
    g = _polynomial(link, "link")
    sigma = g if student is None else _polynomial(student, "student")
    u = OVERLAP * _Z1 + _S * _Z2
    y = g.subs(_Z, _Z1)
    grad = sp.diff(sigma, _Z).subs(_Z, u)
    c = -y * grad if loss == "correlation" else (sigma.subs(_Z, u) - y) * grad
    return _gaussian_mean(c * (OVERLAP * u - _Z1)), _gaussian_mean(c * c)


def limiting_drift(link: str | sp.Expr, student: str | sp.Expr | None = None, loss: str = "correlation") -> sp.Expr:
    r"""The limit :math:`d\,\mathbb E[m' - m] \to \tilde\eta F_1(m) - \tfrac12\tilde\eta^2 m F_2(m)` at
    :math:`\eta = \tilde\eta/d` (module docstring), in :data:`OVERLAP` and :data:`ETA_TILDE`.

    >>> sp.factor(limiting_drift("He2(z)"))
    -4*eta_tilde*m*(4*eta_tilde*m**2 + eta_tilde + m**2 - 1)
    """
    first, second = drift_terms(link, student, loss)
    return sp.expand(ETA_TILDE * first - ETA_TILDE**2 * OVERLAP * second / 2)


def stall_curve(link: str | sp.Expr, student: str | sp.Expr | None = None, loss: str = "correlation") -> sp.Expr:
    r""":math:`E(m) = 2F_1(m)/(m F_2(m))`: the step at which the drift vanishes at overlap :math:`m > 0` (module
    docstring).

    >>> stall_curve("He2(z)")
    (1 - m**2)/(4*m**2 + 1)
    """
    first, second = drift_terms(link, student, loss)
    return sp.cancel(2 * first / (OVERLAP * second))


def _check_overlap(overlap: float | sp.Expr) -> sp.Expr:
    value = sp.nsimplify(overlap)
    if not (value.is_real and 0 < value < 1):
        raise InvalidParameterError(f"The 'overlap' parameter must be a number in (0, 1). Got {overlap!r} instead.")
    return value


def _roots_inside(expr: sp.Expr, overlap: sp.Expr) -> list[sp.Expr]:
    """The real roots in (0, overlap) of a polynomial in m: exact when its monic form has rational coefficients
    (e.g. a common factor sqrt(638) divided out), else to double precision."""
    poly = sp.Poly(expr, OVERLAP)
    if poly.degree() < 1:
        return []
    monic = [sp.radsimp(a / poly.LC()) for a in poly.all_coeffs()]
    if all(a.is_Rational for a in monic):
        roots = list(sp.real_roots(sp.Poly(monic, OVERLAP)))
    else:
        values = sp.Poly([complex(a) for a in poly.all_coeffs()], OVERLAP).nroots(n=30)
        roots = [sp.re(r) for r in values if abs(complex(r).imag) < 1e-20]
    return sorted((r for r in roots if 0 < float(r) < float(overlap)), key=float)


def _attracting_zeros(drift: sp.Expr, overlap: sp.Expr) -> list[float]:
    """The zeros of the drift in (0, overlap) where it turns from positive to negative, increasing."""
    roots = _roots_inside(drift, overlap)
    edges = [0.0] + [float(r) for r in roots] + [float(overlap)]
    sign = [float(drift.subs(OVERLAP, (a + b) / 2)) > 0 for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return [edges[i + 1] for i in range(len(roots)) if sign[i] and not sign[i + 1]]


def stall_overlap(link: str | sp.Expr, eta_tilde: float, *, student: str | sp.Expr | None = None,
                  loss: str = "correlation", overlap: float = THRESHOLD) -> float | None:
    r"""The largest attracting zero of the limiting drift at ``eta_tilde`` below ``overlap`` (the chain stalls
    there), 0.0 when the drift is negative on the whole of :math:`(0, \text{overlap}]` (no escape from the equator),
    None when the chain reaches ``overlap``. At :math:`k \ge 3` pass :math:`\varepsilon = \tilde\eta\,d^{1-k/2}`.

    >>> round(stall_overlap("He2(z)", 0.5), 6), stall_overlap("He2(z)", 0.2), stall_overlap("He2(z)", 2.0)
    (0.408248, None, 0.0)
    """
    if not (isinstance(eta_tilde, (int, float, sp.Expr)) and float(eta_tilde) > 0):
        raise InvalidParameterError(f"The 'eta_tilde' parameter must be a number > 0. Got {eta_tilde!r} instead.")
    top = _check_overlap(overlap)
    drift = limiting_drift(link, student, loss).subs(ETA_TILDE, sp.nsimplify(eta_tilde))
    stable = _attracting_zeros(drift, top)
    if stable:
        return stable[-1]
    if float(drift.subs(OVERLAP, top)) <= 0:
        return 0.0
    return None


def admissible(link: str | sp.Expr, eta_tilde: float, *, student: str | sp.Expr | None = None,
               loss: str = "correlation", overlap: float = THRESHOLD) -> bool:
    """Whether the limiting drift at ``eta_tilde`` carries the overlap up to ``overlap`` (:func:`stall_overlap`
    is None).

    >>> admissible("He2(z)", 0.37), admissible("He2(z)", 0.38)
    (True, False)
    """
    return stall_overlap(link, eta_tilde, student=student, loss=loss, overlap=overlap) is None


@functools.lru_cache(maxsize=32)
def largest_admissible_step(link: str | sp.Expr, student: str | sp.Expr | None = None, loss: str = "correlation",
                            overlap: float | sp.Expr = THRESHOLD) -> sp.Expr:
    r"""The supremum of the :math:`\tilde\eta` (the step in units of :math:`1/d`) below which every step reaches
    ``overlap`` (module docstring), exact where it is: the admissibility can only change at :math:`E(m_r)` or at a
    critical value of :func:`stall_curve` in :math:`(0, m_r)`; between two such candidates it is decided at the
    midpoint.

    >>> largest_admissible_step("He2(z)"), largest_admissible_step("z")
    (3/8, 3)
    """
    top = _check_overlap(overlap)
    curve = stall_curve(link, student, loss)
    candidates = {sp.nsimplify(curve.subs(OVERLAP, top))}
    numerator = sp.numer(sp.together(sp.diff(curve, OVERLAP)))
    for root in _roots_inside(numerator, top):
        candidates.add(sp.simplify(curve.subs(OVERLAP, root)))
    bounds = sorted((c for c in candidates if float(c) > 0), key=float)
    lower = sp.Integer(0)
    for bound in bounds:
        if not admissible(link, float(lower + bound) / 2, student=student, loss=loss, overlap=top):
            break
        lower = bound
    if lower == 0:
        raise InvalidParameterError(f"The 'link' parameter {link!r}: no step size reaches the overlap {overlap} "
                                    "(the population drift is not positive there).")
    return sp.nsimplify(lower) if lower.is_Rational else sp.radsimp(lower)


def stall_equation(link: str | sp.Expr, student: str | sp.Expr | None = None,
                   loss: str = "correlation") -> sp.Eq:
    r"""The stall :math:`m_*` as an equation: solved for :math:`m_*^2` when :func:`stall_curve` is a function of
    :math:`m^2` (an even link), else :math:`\tilde\eta = E(m_*)`.

    >>> stall_equation("He2(z)")
    Eq(m**2, (1 - eta_tilde)/(4*eta_tilde + 1))
    >>> stall_equation("z")
    Eq(eta_tilde, (2 - 2*m**2)/m)
    """
    curve = stall_curve(link, student, loss)
    square = sp.Symbol("square", positive=True)
    in_square = sp.simplify(curve.subs(OVERLAP, sp.sqrt(square)))
    if not in_square.has(sp.sqrt(square)) and in_square.is_rational_function(square):
        # E(s) = eta_tilde with E rational: the numerator of E(s) - eta_tilde is a polynomial in s; solved when it is
        # linear (sympy's solve with its checks took ~20 s per link here, at every import of the system)
        numerator = sp.Poly(sp.numer(sp.together(in_square - ETA_TILDE)), square)
        if numerator.degree() == 1:
            slope, intercept = numerator.all_coeffs()
            solution = sp.cancel(-intercept / slope)
            if solution.is_rational_function(ETA_TILDE):
                return sp.Eq(OVERLAP**2, _readable(solution))
    return sp.Eq(ETA_TILDE, _readable(curve))


def _readable(expr: sp.Expr) -> sp.Expr:
    """A rational function with its numerator and denominator expanded (``(1 - eta_tilde)/(4*eta_tilde + 1)``)."""
    numerator, denominator = sp.fraction(sp.cancel(expr))
    return sp.Mul(sp.expand(numerator), sp.Pow(sp.expand(denominator), -1), evaluate=False)
