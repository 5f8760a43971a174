r"""Laws of the dictionary system (sympy only).

Source: Shi, Wei, Liang 2022, "A theoretical analysis on feature learning in neural networks: emergence
from inputs and advantage over fixed features" (ICLR 2022, arXiv 2206.01717). The constant
:math:`\gamma` is derived here from the label rule (derivation in :mod:`.declaration`).
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.law import Law, Source

__all__ = ["DIRECTIONS", "SOURCE", "dictionary_gamma", "dictionary_laws"]

SOURCE = Source(authors="Shi, Wei, Liang", year=2022,
                title="A theoretical analysis on feature learning in neural networks: emergence from inputs and "
                      "advantage over fixed features", arxiv="2206.01717")

#: The directions the neurons may cluster at (the relevant patterns A, or k irrelevant ones B).
DIRECTIONS = {"relevant": sp.Symbol(r"\pm\textstyle\sum_{i\in A} M_i"), "irrelevant": sp.Symbol(r"\pm\textstyle\sum_{i\in B} M_i")}
ERR_FIXED = sp.Symbol(r"\mathrm{err}(\text{fixed features})")


def dictionary_gamma(k: int, structured: bool = True) -> sp.Rational:
    r""":math:`\gamma = \mathbb E[y\phi_i] - \mathbb E[y]\mathbb E[\phi_i]` for :math:`i \in A` under the module's label rule,
    computed from its definition (a sum over the count :math:`c`): :math:`1/(2k)` with input structure, 0 without.

    >>> dictionary_gamma(4), dictionary_gamma(6), dictionary_gamma(4, structured=False)
    (1/8, 1/12, 0)
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2 or k % 2:
        raise InvalidParameterError(f"The 'k' parameter of dictionary_gamma must be an even int >= 2. Got {k!r} instead.")
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
            source=SOURCE, words=f"the label rule has γ = 1/(2k) = {dictionary_gamma(k)} > 0 with input structure"),
        Law(name="feature emergence", lhs=r"\text{neurons cluster at}", relation="eq", value=DIRECTIONS["relevant"],
            conditions=(r"\gamma > 0", r"n \gg \mathbb{E}\|x\|^2/(\gamma^2 k)"), source=SOURCE,
            words="neurons cluster at ±Σ_{i∈A} M_i: the fraction with |cos| > 0.9 grows from 0 to most neurons"),
        Law(name="advantage over fixed features", lhs=r"\mathrm{err}(\text{network})", relation="leq", value=ERR_FIXED,
            conditions=(r"\gamma > 0", r"\Psi \text{ data independent}", r"\text{same width and } \|\theta\| \le B"),
            source=SOURCE, words="at equal width the network's error is ≤ 0.1 and ≥ 0.2 below random fixed features"),
        Law(name="no input structure", lhs=r"\mathrm{err}(\text{network})", relation="geq", value=sp.Rational(1, 2),
            conditions=(r"\phi \sim \mathrm{Unif}\{0,1\}^D", r"\gamma = 0"), source=SOURCE,
            words="with φ uniform (γ = 0) the network is at chance, no better than fixed features, and no feature emerges"),
    ]
