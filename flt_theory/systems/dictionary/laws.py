r"""Laws of the dictionary system (sympy only).

Source: Shi, Wei, Liang 2022, "A theoretical analysis on feature learning in neural networks: emergence
from inputs and advantage over fixed features" (ICLR 2022, arXiv 2206.01717). The constant
:math:`\gamma` is derived here from the label rule (derivation in :mod:`.declaration`).

Hypotheses (what could be established). The full text was not available to us; the conditions below are those of
the informal statement of the network-learning theorem (Theorem 1) as presented by the authors: for
:math:`\epsilon, \delta \in (0, 1)`, if :math:`k = \Omega(\log^2(Dm/(\delta\gamma)))`, :math:`p_0 = \Omega(k^2/D)` and
:math:`m \ge \max\{D, \Omega(k^2/\epsilon^{c})\}` (the power of :math:`\epsilon` was not legible), then with probability
:math:`1 - \delta` GD reaches error :math:`\le \epsilon` (``m``: half the width :math:`2m`). Encoded, constants 1 and
:math:`\delta = 0.1`: :data:`K_LARGE`, :data:`P0_LARGE`, :data:`WIDE`; the :math:`\epsilon`-dependent width bound is
not. At :math:`D = 64, k = 4` the first fails by far (:math:`\log^2(Dm/(\delta\gamma)) \approx 160`); it first holds,
with :math:`p_0 = k^2/D` at 0.25 and :math:`m = D`, near :math:`k \approx 1900`, :math:`D \approx 1.4\cdot 10^7`.
The SQ lower bound without input structure (the third informal theorem; number not verified) says an SQ
algorithm with error below :math:`\tfrac12 - D^{-3}` needs at least :math:`\tfrac12\binom Dk^{1/3}` queries or that
inverse tolerance; GD is read as an SQ algorithm with tolerance :math:`n^{-1/2}` and one query per first-layer
weight and feature step (:data:`SQ_BITES`): the bound binds only when both are below it, which at fixed
:math:`k = 4` never happens (the query count :math:`2mD` outgrows :math:`\tfrac12\binom D4^{1/3} \approx 0.35 D^{4/3}`).
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = ["DIRECTIONS", "GAMMA_HYPOTHESES", "K_LARGE", "P0_LARGE", "SOURCE", "SQ_BITES", "WIDE", "dictionary_gamma",
           "dictionary_laws"]

SOURCE = Source(authors="Shi, Wei, Liang", year=2022,
                title="A theoretical analysis on feature learning in neural networks: emergence from inputs and "
                      "advantage over fixed features", arxiv="2206.01717")

#: The directions the neurons may cluster at (the relevant patterns A, or k irrelevant ones B).
DIRECTIONS = {"relevant": sp.Symbol(r"\pm\textstyle\sum_{i\in A} M_i"),
              "irrelevant": sp.Symbol(r"\pm\textstyle\sum_{i\in B} M_i")}
ERR_FIXED = sp.Symbol(r"\mathrm{err}(\text{fixed features})")

_k, _D, _m, _p0, _gamma, _delta, _n, _q = sp.symbols("k D m p_0 gamma_A delta n queries", positive=True)
K_LARGE = Hypothesis(text="many relevant patterns: k >= log^2(D m / (delta gamma_A))",
                     condition=_k >= sp.log(_D * _m / (_delta * _gamma)) ** 2, where="Theorem 1 (informal statement)")
P0_LARGE = Hypothesis(text="irrelevant patterns frequent enough: p_0 >= k^2 / D", condition=_p0 >= _k**2 / _D,
                      where="Theorem 1 (informal statement)")
WIDE = Hypothesis(text="width at least the number of patterns: m >= D (2m neurons)", condition=_m >= _D,
                  where="Theorem 1 (informal statement)")
_SQ = sp.binomial(_D, _k) ** sp.Rational(1, 3) / 2
SQ_BITES = Hypothesis(text="the SQ bound binds a GD run: sqrt(n) and its query count both below (1/2) C(D, k)^(1/3)",
                      condition=sp.And(sp.sqrt(_n) <= _SQ, _q <= _SQ),
                      where="SQ lower bound without input structure (informal statement; number not verified)")
_structured = sp.Symbol("structured", nonnegative=True)
_GAMMA_WHERE = "derived here, flt_theory.systems.dictionary.declaration module docstring (gamma for the label rule)"
#: What the exact derivation of gamma = 1/(2k) uses (:mod:`.declaration`): the label rule with input structure
#: (c uniform on 1..k) and an even k (the k/2 pairs (2j-1, 2j) of counts each contribute 1).
GAMMA_HYPOTHESES = (
    Hypothesis(text="input structure: the count c of active relevant patterns is uniform on 1..k (structured = 1)",
               condition=sp.Eq(_structured, 1), where=_GAMMA_WHERE),
    Hypothesis(text="k even: the k/2 pairs of counts (2j-1, 2j) each contribute 1 to k^2 gamma",
               condition=sp.Eq(sp.Mod(_k, 2), 0), where=_GAMMA_WHERE),
)
THEOREM1_READING = ("constants 1, delta = 0.1, polylog factors as written (log^2); the epsilon-dependent width bound "
                    "is "
                    "not encoded (illegible in what we could read)")
SQ_READING = ("constants 1; GD read as an SQ algorithm of tolerance n^(-1/2) making one query per first-layer weight "
              "per feature step")


def dictionary_gamma(k: int, structured: bool = True) -> sp.Rational:
    r""":math:`\gamma = \mathbb E[y\phi_i] - \mathbb E[y]\mathbb E[\phi_i]` for :math:`i \in A` under the module's label
    rule, computed from its definition (a sum over the count :math:`c`): :math:`1/(2k)` with input structure, 0 without.

    >>> dictionary_gamma(4), dictionary_gamma(6), dictionary_gamma(4, structured=False)
    (1/8, 1/12, 0)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k % 2:
        raise InvalidParameterError(f"The 'k' parameter of dictionary_gamma must be an even int >= 2. Got {k!r} "
                                    "instead.")
    counts = range(0, k + 1)
    if structured:
        prob = {c: sp.Rational(1, k) if c >= 1 else sp.Integer(0) for c in counts}
    else:
        prob = {c: sp.binomial(k, c) / sp.Integer(2) ** k for c in counts}
    label = {c: 1 if c % 2 == 0 else -1 for c in counts}
    e_y = sum(prob[c] * label[c] for c in counts)
    e_phi = sum(prob[c] * sp.Rational(c, k) for c in counts)
    e_y_phi = sum(prob[c] * label[c] * sp.Rational(c, k) for c in counts)
    return sp.nsimplify(e_y_phi - e_y * e_phi)


def dictionary_laws(k: int = 4) -> list[Law]:
    r"""The laws of the dictionary system for ``k`` relevant patterns.

    >>> [law.name for law in dictionary_laws()]
    ['gamma', 'feature emergence', 'advantage over fixed features', 'no input structure']
    >>> print(dictionary_laws()[0].latex())
    \gamma = \frac{1}{8} \quad (k = 4,\ c \sim \mathrm{Unif}\{1..k\},\ y = (-1)^{c})
    """
    cond = (rf"k = {k}", r"c \sim \mathrm{Unif}\{1..k\}", r"y = (-1)^{c}")
    return [
        Law(name="gamma", lhs=r"\gamma", relation="eq", value=dictionary_gamma(k), conditions=cond, status="derived",
            source=SOURCE, hypotheses=GAMMA_HYPOTHESES,
            hypotheses_reading="derived here exactly from the label rule: holds at every D and every even k with input "
                               "structure; both conditions are exact (no asymptotics)",
            words=f"the label rule has γ = 1/(2k) = {dictionary_gamma(k)} > 0 with input structure"),
        Law(name="feature emergence", lhs=r"\text{neurons cluster at}", relation="eq", value=DIRECTIONS["relevant"],
            conditions=(r"\gamma > 0", r"n \gg \mathbb{E}\|x\|^2/(\gamma^2 k)"), source=SOURCE,
            hypotheses=(K_LARGE, P0_LARGE, WIDE), hypotheses_reading=THEOREM1_READING,
            words="neurons cluster at ±Σ_{i∈A} M_i: the fraction with |cos| > 0.9 grows from 0 to most neurons"),
        Law(name="advantage over fixed features", lhs=r"\mathrm{err}(\text{network})", relation="leq", value=ERR_FIXED,
            conditions=(r"\gamma > 0", r"\Psi \text{ data independent}", r"\text{same width and } \|\theta\| \le B"),
            source=SOURCE, hypotheses=(K_LARGE, P0_LARGE, WIDE), hypotheses_reading=THEOREM1_READING,
            words="at equal width the network's error is ≤ 0.1 and ≥ 0.2 below random fixed features"),
        Law(name="no input structure", lhs=r"\mathrm{err}(\text{network})", relation="geq", value=sp.Rational(1, 2),
            conditions=(r"\phi \sim \mathrm{Unif}\{0,1\}^D", r"\gamma = 0"), source=SOURCE,
            hypotheses=(SQ_BITES,), hypotheses_reading=SQ_READING,
            words="with φ uniform (γ = 0) the network is at chance, no better than fixed features, and no feature "
                  "emerges"),
    ]
