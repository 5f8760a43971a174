r"""Width laws of the first layer's displacement, lazy (NTK) vs rich (mean-field) (sympy only).

Source: the tutorial slide (Han & Huang, AJCAI 2025): lazy training :math:`\|W(t) - W(0)\|_F = O(1/\sqrt N)`,
feature learning :math:`\|W(t) - W(0)\|_F = \Omega(1)`; NTK parameterisation Jacot, Gabriel, Hongler 2018
(arXiv 1806.07572), mean field Mei, Montanari, Nguyen 2018 (arXiv 1804.06561), lazy regime Chizat, Oyallon,
Bach 2019 (arXiv 1812.07956).

Derivation. With :math:`f = N^{-\alpha}\sum_i a_i\sigma(\langle w_i, x\rangle/\sqrt d)` and step
:math:`\eta_0 N^{2\alpha-1}` (the scaling that keeps :math:`f` moving at rate :math:`O(1)`), the gradient on
:math:`w_i` is :math:`N^{-\alpha}a_i\,\frac1n\sum_k r_k\sigma'(\cdot)x_k/\sqrt d` with :math:`a_i, r_k = O(1)`, so
each neuron moves :math:`\eta_0 N^{2\alpha-1}N^{-\alpha} = \eta_0 N^{\alpha-1}` per step and, over a fixed
number of steps,

.. math:: \|w_i(T) - w_i(0)\| \asymp N^{\alpha-1}, \qquad \|W(T) - W(0)\|_F \asymp \sqrt N\,N^{\alpha-1},
          \qquad \frac{\|W(T) - W(0)\|_F}{\|W(0)\|_F} \asymp N^{\alpha-1}

(:math:`\|W(0)\|_F \asymp \sqrt{Nd}`). NTK (:math:`\alpha = 1/2`): per-neuron and relative
:math:`N^{-1/2}`, raw Frobenius :math:`N^0`; mean field (:math:`\alpha = 1`): per-neuron and relative
:math:`N^0`, raw :math:`N^{1/2}`. So the slide's ":math:`O(1/\sqrt N)` vs :math:`\Omega(1)`" holds for the
relative and the per-neuron change, not for the raw Frobenius norm, which is :math:`\Theta(1)` in the lazy
regime and grows like :math:`\sqrt N` in the rich one.

Hypotheses. The tutorial states the two regimes without conditions. The lazy-regime results it rests on are
limits of infinite width at a fixed training horizon: Jacot, Gabriel, Hongler 2018 (arXiv 1806.07572),
Theorem 2 (the tangent kernel stays at its initial value for :math:`t < T` as the widths tend to infinity), and
Chizat, Oyallon, Bach 2019 (arXiv 1812.07956), lazy training as the output scale grows; the mean-field limit of
Mei, Montanari, Nguyen 2018 (arXiv 1804.06561) is likewise :math:`N \to \infty`. Their finite-width versions
(e.g. Du, Zhai, Poczos, Singh 2019, arXiv 1810.02054, width :math:`\Omega(n^6/(\lambda_0^4\delta^3))`) are far out of
reach here and their constant :math:`\lambda_0` is not computed. What is encoded (:data:`WIDE`) is the weakest
reading of ":math:`N \to \infty` at fixed :math:`T`": more neurons than training samples, :math:`N \ge n`, at a
number of steps that does not grow with :math:`N` (the measurement's :math:`T` is the same at every width).
The readings' exponents themselves are derived here (above) and hold at every width up to the
:math:`O(N^{-1/2})` corrections of the amplitudes; a ladder over :math:`N` (``Claim.ladder``) shows those.
"""

from __future__ import annotations

import sympy as sp

from ...errors import InvalidParameterError
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import THIS_PROJECT, Law, Source

__all__ = ["READINGS", "TUTORIAL", "WIDE", "WIDTH", "change_exponent", "lazy_rich_laws", "output_exponent"]

TUTORIAL = Source(authors="Han, Huang", year=2025,
                  title="Demystifying optimization and generalization of deep learning via feature learning theory "
                  "(AJCAI 2025 tutorial; lazy regime after Chizat, Oyallon, Bach 2019, arXiv 1812.07956)")

WIDTH = sp.Symbol("N", positive=True)
_ALPHA = sp.Symbol("alpha", positive=True)
_SAMPLES = sp.Symbol("n", positive=True)

#: The infinite-width hypothesis of the lazy and mean-field limits, read at finite width (module docstring).
WIDE = Hypothesis(text="width large at a fixed training horizon: at least as many neurons as training samples",
                  condition=WIDTH >= _SAMPLES,
                  where="Jacot, Gabriel, Hongler 2018, Theorem 2 (limit N -> oo at fixed T); mean field: "
                        "Mei, Montanari, Nguyen 2018 (limit N -> oo)")
#: How :data:`WIDE` is read (the findings), and how the derived readings read it (:data:`DERIVED_READING`).
WIDE_READING = ("'N -> oo at fixed training time' read as N >= n (more neurons than samples) with the number of steps "
                "fixed across widths; constants 1; the finite-width bounds of Du et al. 2019 (width n^6/lambda_0^4) "
                "are not encoded")
DERIVED_READING = ("derived here from the scaling of one GD step (module docstring): the width exponent holds as "
                   "N -> oo at a fixed number of steps, its O(N^-1/2) corrections of the amplitudes vanishing there "
                   "(the condition of the derivation, read like the findings' as N >= n); the tutorial states no "
                   "condition")


def _power(k: sp.Expr) -> sp.Expr:
    """:math:`N^k`, kept as a power of :math:`N` when :math:`k = 0` (so it prints ``N^{0}`` and its mutant
    :math:`N^{1}` is a different power law)."""
    return sp.Pow(WIDTH, k, evaluate=False) if k == 0 else WIDTH**k

#: Readings of ":math:`\|W(t) - W(0)\|`" and their width exponent as a function of :math:`\alpha`.
READINGS = {
    "abs_change": _ALPHA - sp.Rational(1, 2),
    "rel_change": _ALPHA - 1,
    "per_neuron_change": _ALPHA - 1,
}
_LHS = {
    "abs_change": r"\|W(T) - W(0)\|_F",
    "rel_change": r"\|W(T) - W(0)\|_F / \|W(0)\|_F",
    "per_neuron_change": r"\tfrac1N \sum_i \|w_i(T) - w_i(0)\|",
}


def output_exponent(param: str) -> sp.Rational:
    r""":math:`\alpha` of the output scale :math:`N^{-\alpha}`: 1/2 (``"ntk"``), 1 (``"mf"``).

    >>> output_exponent("ntk"), output_exponent("mf")
    (1/2, 1)
    """
    table = {"ntk": sp.Rational(1, 2), "mf": sp.Integer(1)}
    if param not in table:
        raise InvalidParameterError(f"The 'param' parameter must be one of {sorted(table)}. Got {param!r} instead.")
    return table[param]


def change_exponent(reading: str, param: str) -> sp.Rational:
    r"""Width exponent of ``reading`` in parameterisation ``param`` (module docstring).

    >>> [change_exponent(r, "ntk") for r in READINGS], [change_exponent(r, "mf") for r in READINGS]
    ([0, -1/2, -1/2], [1/2, 0, 0])
    """
    if reading not in READINGS:
        raise InvalidParameterError(f"The 'reading' parameter must be one of {list(READINGS)}. "
                                    f"Got {reading!r} instead.")
    return READINGS[reading].subs(_ALPHA, output_exponent(param))


def lazy_rich_laws() -> dict[str, Law]:
    r"""One law per (reading, parameterisation), keyed ``"<reading> (<param>)"``, plus the slide's literal
    statement ``"slide (lazy)"`` / ``"slide (rich)"`` (read as the raw Frobenius norm).

    >>> laws = lazy_rich_laws()
    >>> [laws[name].exponent("N") for name in ("rel_change (ntk)", "abs_change (ntk)", "slide (lazy)")]
    [-0.5, 0, -0.5]
    >>> laws["rel_change (ntk)"].latex()  # doctest: +NORMALIZE_WHITESPACE
    '\\|W(T) - W(0)\\|_F / \\|W(0)\\|_F \\asymp \\frac{1}{\\sqrt{N}} \\quad (\\text{NTK: } f = N^{-1/2}\\sum_i
    a_i\\sigma(w_i\\cdot x),\\ \\eta = O(1))'
    """
    cond = {
        "ntk": r"\text{NTK: } f = N^{-1/2}\sum_i a_i\sigma(w_i\cdot x),\ \eta = O(1)",
        "mf": r"\text{mean field: } f = N^{-1}\sum_i a_i\sigma(w_i\cdot x),\ \eta = O(N)",
    }
    laws = {}
    for reading in READINGS:
        for param in ("ntk", "mf"):
            k = change_exponent(reading, param)
            holds = reading != "abs_change"
            laws[f"{reading} ({param})"] = Law(
                name=f"{reading} ({param})", lhs=_LHS[reading], relation="asymp", value=_power(k),
                conditions=(cond[param],), status="derived" if holds else "finding",
                source=TUTORIAL if holds else THIS_PROJECT,
                hypotheses=(WIDE,), hypotheses_reading=DERIVED_READING if holds else WIDE_READING,
                words=f"{reading.replace('_', ' ')} ≍ N^{k} in the {'NTK' if param == 'ntk' else 'mean-field'} "
                      "parameterisation",
            )
    laws["slide (lazy)"] = Law(
        name="slide (lazy)", lhs=_LHS["abs_change"], relation="asymp", value=1 / sp.sqrt(WIDTH),
        conditions=(cond["ntk"],), source=TUTORIAL, status="conjecture", hypotheses=(WIDE,),
        hypotheses_reading=WIDE_READING,
        words="lazy training: ‖W(t) − W(0)‖_F = O(1/√N) (the slide, raw norm; stated there without proof)",
    )
    laws["slide (rich)"] = Law(
        name="slide (rich)", lhs=_LHS["abs_change"], relation="asymp", value=_power(sp.Integer(0)),
        conditions=(cond["mf"],), source=TUTORIAL, status="conjecture", hypotheses=(WIDE,),
        hypotheses_reading=WIDE_READING,
        words="feature learning: ‖W(t) − W(0)‖_F = Ω(1) (the slide, raw norm; stated there without proof)",
    )
    return laws
