r"""Laws of spherical online SGD on a single-index target (sympy only).

Source: Ben Arous, Gheissari, Jagannath 2021, "Online stochastic gradient descent on non-convex losses from
high-dimensional inference", arXiv 2003.10409 (JMLR 22). Contrast: Damian, Nichani, Ge, Lee 2023, "Smoothing the
landscape boosts the signal for SGD", arXiv 2305.10633 (the smoothed loss reaches the CSQ rate
:math:`d^{k/2}`, which plain online SGD does not).

Hermite convention: probabilists' :math:`\mathrm{He}_j`, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`,
:math:`c_j = \mathbb E[g(z)\mathrm{He}_j(z)]`. With the student :math:`\sigma = g` the correlation loss has
population value :math:`-\phi(m)`, :math:`\phi(m) = \sum_j \frac{c_j^2}{j!} m^j` (Mehler), and the square loss
differs from it by a constant on the sphere; the **information exponent** :math:`k` is the first :math:`j \ge 1`
with :math:`c_j \ne 0` (:func:`~flt_theory.symbolic.leap.information_exponent`), so near the equator
:math:`\phi(m) \approx \frac{c_k^2}{k!} m^k`.

Derivation of the rate (the scaling behind the theorem, in the reduced coordinates of :mod:`.model`). One step
moves the overlap by :math:`\eta(1 - m^2)\phi'(m)` on average, plus a martingale increment of size
:math:`O(\eta)`, and the retraction to the sphere multiplies :math:`m` by
:math:`1/\|\tilde w\| = 1 - \tfrac12\eta^2 c^2 (d - 2) + \dots` — a contraction of order :math:`\eta^2 d\, m` per step.
The drift :math:`\eta k \frac{c_k^2}{k!} m^{k-1}` beats it at :math:`m \asymp d^{-1/2}` iff
:math:`\eta \lesssim d^{-1} m^{k-2} = d^{-k/2}` (:math:`k \ge 2`; :math:`\eta \lesssim d^{-1}` at :math:`k \le 2`).
With :math:`\eta = \tilde\eta\, d^{-\max(1, k/2)}` the escape from :math:`m_0 \asymp d^{-1/2}` takes

.. math::

    T \asymp \frac{1}{\eta}\int_{m_0}^{1/2} \frac{dm}{m^{k-1}} \asymp
    \begin{cases} d & k = 1 \\ d \log d & k = 2 \\ d^{\,k-2\over 2}\, d^{\,k\over 2} = d^{\,k-1} & k \ge 3 \end{cases}

samples — the thresholds of Ben Arous et al. 2021 (their step size :math:`\delta/N`, :math:`N = d`, is
:math:`\delta = \tilde\eta\, d^{1-\max(1,k/2)}`, and :math:`\alpha = T/d` samples per dimension).

Hypotheses (:data:`HYPOTHESES`). What we established, and how: the abstract of arXiv 2003.10409 and the statement
of the thresholds in Damian et al. 2023's introduction ("Ben Arous et al. showed that :math:`n \gtrsim d^{k-1}`
samples suffice … and that this is tight for online SGD"); the theorem numbers and their constants were not
readable here, so each hypothesis names its statement by content. The step-size scaling and the start are this
project's reading of that statement, through the derivation above: :math:`\tilde\eta \le 1` (constants 1),
:math:`m_0\sqrt d \in [1/4, 4]` (an overlap of the order of a uniform start's), and :math:`d \to \infty` read
as :math:`d \ge 32`.
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source
from ...symbolic.leap import information_exponent
from ...symbolic.target import Target, parse_link

__all__ = [
    "BAGJ",
    "DNGL",
    "ETA_TILDE",
    "HYPOTHESES",
    "OVERLAP0",
    "D",
    "is_even",
    "link_exponent",
    "polynomial_coefficients",
    "recovery_law",
    "split_law",
    "step_size_power",
    "time_value",
]

BAGJ = Source(authors="Ben Arous, Gheissari, Jagannath", year=2021,
              title="Online stochastic gradient descent on non-convex losses from high-dimensional inference",
              arxiv="2003.10409")
DNGL = Source(authors="Damian, Nichani, Ge, Lee", year=2023,
              title="Smoothing the landscape boosts the signal for SGD: optimal sample complexity for learning "
                    "single index models", arxiv="2305.10633")

D = sp.Symbol("d", positive=True)
#: :math:`\tilde\eta = \eta\, d^{\max(1, k/2)}` and :math:`a = m_0\sqrt d`.
ETA_TILDE = sp.Symbol("eta_tilde", positive=True)
OVERLAP0 = sp.Symbol("overlap0", positive=True)
_Z = sp.Symbol("z", real=True)

HYPOTHESES: dict[str, Hypothesis] = {
    "step size": Hypothesis(
        text="step size η = η̃ d^(−max(1, k/2)) with η̃ = O(1) (read as η̃ ≤ 1)", condition=ETA_TILDE <= 1,
        latex=r"\tilde\eta \le 1", where="step-size scaling of the online-SGD thresholds (δ/N with δ = O(N^(1−max(1,k/2))))"),
    "start": Hypothesis(
        text="initial overlap m0 ≍ d^(−1/2), positive (read as m0·√d in [1/4, 4])",
        condition=sp.And(OVERLAP0 >= sp.Rational(1, 4), OVERLAP0 <= 4), latex=r"\tfrac14 \le m_0\sqrt d \le 4",
        where="random start of the online-SGD thresholds (overlap of order N^(−1/2))"),
    "high dimension": Hypothesis(text="d → ∞ (read as d ≥ 32)", condition=D >= 32,
                                 where="asymptotic setting of every threshold (N → ∞)"),
}
_READING = ("constants 1: η̃ ≤ 1, m0√d in [1/4, 4], d ≥ 32; '≍' read as the exponent of the mean time over seeds in "
            "d, within a finite-size tolerance")


def _link(link: str | sp.Expr) -> sp.Expr:
    return parse_link(link)


def link_exponent(link: str | sp.Expr) -> int:
    r"""The information exponent :math:`k` of the link (first :math:`j \ge 1` with :math:`c_j \ne 0`).

    >>> link_exponent("He3(z)"), link_exponent("z + He2(z)"), link_exponent("He2(z)")
    (3, 1, 2)
    """
    k = information_exponent(Target.from_links([_link(link)]))
    if k is None:
        raise InvalidParameterError(f"The 'target' parameter {link!r} has no information exponent (it is constant).")
    return int(k)


def is_even(link: str | sp.Expr) -> bool:
    r"""Whether :math:`g(-z) = g(z)`: then :math:`\phi` is even and :math:`\pm w^*` are equally good (weak recovery
    reads :math:`|m| \ge 1/2`).

    >>> is_even("He2(z)"), is_even("He3(z)"), is_even("z + He2(z)")
    (True, False, False)
    """
    g = _link(link)
    return sp.simplify(g.subs(_Z, -_Z) - g) == 0


def polynomial_coefficients(link: str | sp.Expr) -> tuple[float, ...] | None:
    r"""Coefficients :math:`a_0, a_1, \dots` of a polynomial link in :math:`z` (None otherwise), for the fast
    evaluator :class:`~flt_theory.systems.online_sgd.model.PolynomialLink`.

    >>> polynomial_coefficients("He3(z)"), polynomial_coefficients("tanh")
    ((0.0, -3.0, 0.0, 1.0), None)
    """
    g = sp.expand(_link(link))
    if not g.is_polynomial(_Z):
        return None
    return tuple(float(a) for a in reversed(sp.Poly(g, _Z).all_coeffs()))


def step_size_power(k: int) -> sp.Rational:
    r"""The power :math:`\max(1, k/2)` in :math:`\eta = \tilde\eta\, d^{-\max(1, k/2)}` (module docstring).

    >>> step_size_power(1), step_size_power(3)
    (1, 3/2)
    """
    return sp.Max(sp.Integer(1), sp.Rational(k, 2))


def time_value(k: int) -> sp.Expr:
    r"""The weak-recovery time of Ben Arous et al. 2021: :math:`d`, :math:`d\log d`, :math:`d^{k-1}`.

    >>> time_value(1), time_value(2), time_value(4)
    (d, d*log(d), d**3)
    """
    if k < 1:
        raise InvalidParameterError(f"The information exponent must be >= 1. Got {k!r} instead.")
    if k == 2:
        return D * sp.log(D)
    return D ** (k - 1) if k > 1 else D


def recovery_law(link: str | sp.Expr) -> Law:
    r"""The weak-recovery time law of the link's information exponent (module docstring).

    >>> law = recovery_law("He3(z)")
    >>> law.latex()
    'n_{\\mathrm{wr}} \\asymp d^{2} \\quad (\\eta = \\tilde\\eta\\, d^{-\\frac{3}{2}},\\ m_0 \\asymp d^{-1/2},\\ k = 3)'
    >>> law.exponent("d")
    2
    """
    k = link_exponent(link)
    power = step_size_power(k)
    return Law(
        name=f"weak recovery time k={k}", lhs=r"n_{\mathrm{wr}}", relation="asymp", value=time_value(k),
        conditions=(rf"\eta = \tilde\eta\, d^{{-{sp.latex(power)}}}", r"m_0 \asymp d^{-1/2}", f"k = {k}"),
        source=BAGJ, regime=f"g = σ = {_link(link)}, spherical online SGD, fresh samples",
        words=f"online SGD needs n ≍ {time_value(k)} samples to reach overlap 1/2 (information exponent k = {k})",
        hypotheses=tuple(HYPOTHESES.values()), hypotheses_reading=_READING,
    )


def split_law(law: Law) -> tuple[float, Law]:
    r"""``(e, rest)``: the law's value as :math:`d^e \cdot \mathrm{rest}(d)` — the power of :math:`d` read by the
    fit and the rest (a :math:`\log d`, or 1) divided out of the measured times first.

    >>> e, rest = split_law(recovery_law("He2(z)"))
    >>> e, rest.value
    (1, log(d))
    """
    power, rest = sp.Integer(1), sp.Integer(1)
    for factor in sp.Mul.make_args(sp.sympify(law.value)):
        if factor == D or (factor.is_Pow and factor.base == D and factor.exp.is_number):
            power *= factor
        else:
            rest *= factor
    return law.replace(value=power).exponent("d"), law.replace(value=rest)
