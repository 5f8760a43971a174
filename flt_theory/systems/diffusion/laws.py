r"""Laws of the diffusion system (sympy only): the denoiser learns balanced features, classification the
dominant one.

Source: Han, Huang, Cao, Zou 2025, "On the feature learning in diffusion models", arXiv 2412.01021
(Theorems 3.1, 3.2).

Derivation of the constant (status ``derived``). With :math:`\sigma(z) = z^2` the closed-form DSM loss
(:mod:`.model`) is, to leading order in the weights,
:math:`-\frac{4\beta\alpha}{\sqrt m}\sum_r\|w_r\|^2\langle w_r, \bar x\rangle + O(\|W\|^4)`, with
:math:`\bar x = \frac{1}{2n}\sum_{i,p}x_i^{(p)}` the mean patch: the drive of every neuron is the data
MEAN, whose signal part :math:`\frac14(\mu_{+1} + \mu_{-1})` collects all :math:`n` samples while each
noise patch enters with weight :math:`1/(2n)`. A stationary direction :math:`w \parallel \bar x` has
:math:`\langle w, \mu_{\pm1}\rangle \propto \|\mu\|^2/4` and :math:`\langle w, \xi_i\rangle \propto
\|\xi_i\|^2/(2n)\,(1 + O(\sqrt{n/d}))`, so

.. math::
    R = \frac{|\langle w, \mu_{\pm1}\rangle|}{|\langle w, \xi_i\rangle|} \approx \frac{n\|\mu\|^2}{2\sigma_\xi^2 d}
    = \frac{n\,\mathrm{SNR}^2}{2}.

The second-moment terms :math:`O(\|W\|^4)` shrink both alignments by
:math:`1/(1 + c\|x^{(p)}\|^2)`: the law holds while the patches have norm :math:`O(1)` (here
:math:`\sigma_\xi = 1/\sqrt d`, :math:`\|\mu\| \le 1/2`); with :math:`\|\xi\|^2 = d \gg 1` the ratio bends
below linear. Classification (Cao, Chen, Belkin, Gu 2022, arXiv 2202.06526, with ReLU²) has
power-iteration growth, which amplifies whichever feature starts ahead: signal when
:math:`n\,\mathrm{SNR}^2 \ge \bar C`, noise when :math:`\le \underline C`.

Hypotheses (how established). The condition paragraph of Han et al.'s theorems could not be retrieved here (the
searchable copies of 2412.01021 gave the abstract and summaries: two-patch data with orthogonal signal and noise,
a two-layer CNN, :math:`n\,\mathrm{SNR}^2` as the governing quantity). Encoded for the classification theorem:
its activation (:math:`q = 2`, the quadratic-type CNN of the summaries) and the high-dimension condition common
to this line of work (Cao et al. 2022 Condition 4.2, Kou et al. 2023 Condition 4.1: :math:`d = \tilde\Omega(n^2)`),
read as :math:`d \ge n^2` with constant 1; its step-size and initialisation conditions are not encoded (not
retrieved). The balanced law is derived here and carries, instead of a source hypothesis, the conditions its
derivation uses (:data:`BALANCED_HYPOTHESES`): patches of norm :math:`O(1)`, :math:`\|\mu\| \le 1/2` as in its
comparison and :math:`\sigma_\xi\sqrt d \le 1`, and :math:`n \le d` for the :math:`O(\sqrt{n/d})` correction
(constants 1). The measured grid is shared with the classification law, whose points at :math:`\|\mu\| > 1/2` are
outside them (the denoiser does not run there; the balanced comparison reads the others).

>>> [law.name for law in diffusion_laws()]
['balanced features', 'classification learns the dominant feature']
>>> balanced_law().exponent("n"), balanced_law().exponent("SNR")
(1, 2)
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = ["BALANCED_HYPOTHESES", "CAO", "CLASSIFICATION_HYPOTHESES", "HAN", "THRESHOLDS", "THRESHOLDS_AT_ONE",
           "balanced_law", "diffusion_laws", "dominant_law"]

HAN = Source(authors="Han, Huang, Cao, Zou", year=2025, title="On the feature learning in diffusion models",
             arxiv="2412.01021")
CAO = Source(authors="Cao, Chen, Belkin, Gu", year=2022,
             title="Benign overfitting in two-layer convolutional neural networks", arxiv="2202.06526")

N = sp.Symbol("n", positive=True)
SNR = sp.Symbol("SNR", positive=True)

#: Thresholds (C̲, C̄) of n·SNR² between which the classification CNN switches (measured regime of the
#: ReLU² CNN at the sizes of the declaration; the source proves that such constants exist).
THRESHOLDS = (sp.Integer(2), sp.Integer(10))
#: The thresholds of the negative control: the switch read at n·SNR² = 1 with constant 1 (noise below 1/5,
#: signal from 1 on) — a decade below the measured one.
THRESHOLDS_AT_ONE = (sp.Rational(1, 5), sp.Integer(1))

_d, _q = sp.Symbol("d", positive=True), sp.Symbol("q", positive=True)
#: The hypotheses of the classification theorem (module docstring: how established).
CLASSIFICATION_HYPOTHESES = (
    Hypothesis(text="high dimension d = Omega~(n^2), read d >= n^2", condition=_d >= N**2,
               where="Han et al. 2025, conditions of Theorem 3.2 (form of Kou et al. 2023 Condition 4.1)"),
    Hypothesis(text="squared activation, q = 2", condition=sp.Eq(_q, 2), where="Han et al. 2025, Section 3 (the CNN)"),
)

_mu_norm, _noise_norm = sp.Symbol("mu_norm", positive=True), sp.Symbol("sigma_xi_sqrt_d", positive=True)
_BALANCED_WHERE = "derived here, flt_theory.systems.diffusion.laws module docstring (derivation of the constant)"
#: What the derivation of the balanced law uses (module docstring): patches of norm O(1) — the signal norm at most
#: 1/2 and the noise norm sigma_xi sqrt(d) at most 1, as measured — and few samples against the dimension, so that
#: the O(sqrt(n/d)) correction of the noise alignment is small.
BALANCED_HYPOTHESES = (
    Hypothesis(text="signal patch of norm O(1): ||mu|| <= 1/2 (the regime of the derivation)",
               condition=_mu_norm <= sp.Rational(1, 2), latex=r"\|\mu\| \leq \tfrac12",
               where=_BALANCED_WHERE + ": the O(||W||^4) terms shrink the alignments by 1/(1 + c||x^(p)||^2)"),
    Hypothesis(text="noise patch of norm O(1): sigma_xi sqrt(d) <= 1 (constant 1; it holds by construction where the "
                    "experiment fixes sigma_xi = 1/sqrt(d))", condition=_noise_norm <= 1,
               latex=r"\sigma_\xi\sqrt d \leq 1",
               where=_BALANCED_WHERE + ": with ||xi||^2 = d >> 1 the ratio bends below linear"),
    Hypothesis(text="n << d, read n <= d (constant 1): the noise alignment's correction O(sqrt(n/d)) is small",
               condition=N <= _d, where=_BALANCED_WHERE + ": <w, xi_i> ∝ ||xi_i||^2/(2n) (1 + O(sqrt(n/d)))"),
)
_BALANCED_READING = ("the derivation's conditions (module docstring): ||mu|| <= 1/2 as in the comparison's regime, "
                     "sigma_xi sqrt(d) <= 1 and n <= d with constant 1; no condition of the source is used")


def balanced_law(power: int = 1) -> Law:
    r""":math:`R \asymp (n\,\mathrm{SNR}^2)^{k}/2` with ``k = power`` (1: the law; 0 or 2: wrong laws).

    >>> balanced_law().latex() == (r"\frac{|\langle w_r, \mu\rangle|}{|\langle w_r, \xi_i\rangle|} \asymp "
    ...     r"\frac{SNR^{2} n}{2} \quad (\text{stationary point of the DSM loss},\ \|x^{(p)}\| = O(1))")
    True
    """
    return Law(name="balanced features" if power == 1 else f"ratio ∝ (n·SNR²)^{power}",
               lhs=r"\frac{|\langle w_r, \mu\rangle|}{|\langle w_r, \xi_i\rangle|}", relation="asymp",
               value=(N * SNR**2) ** power / 2,
               conditions=(r"\text{stationary point of the DSM loss}", r"\|x^{(p)}\| = O(1)"),
               status="derived" if power == 1 else "conjecture", source=HAN,
               hypotheses=BALANCED_HYPOTHESES, hypotheses_reading=_BALANCED_READING,
               words=f"the denoiser's feature ratio |<w, μ>|/|<w, ξ>| ≍ (n·SNR²)^{power}/2 at a stationary point")


def dominant_law(thresholds: tuple = THRESHOLDS) -> Law:
    r"""Classification learns one feature: signal fraction :math:`\gamma/(\gamma + \rho) \ge 0.9` when
    :math:`n\,\mathrm{SNR}^2 \ge \bar C`, :math:`\le 0.1` when :math:`\le \underline C` (``law.numbers()`` =
    :math:`(\underline C, \bar C)`; Han et al. prove that such constants exist, Theorem 3.2). ``thresholds``:
    :data:`THRESHOLDS` (the law) or :data:`THRESHOLDS_AT_ONE` (the negative control, same quantity).

    >>> dominant_law().numbers(), dominant_law(THRESHOLDS_AT_ONE).lhs == dominant_law().lhs
    ((2.0, 10.0), True)
    """
    low, high = thresholds
    return Law(name="classification learns the dominant feature" + ("" if thresholds == THRESHOLDS else " (at 1)"),
               lhs=r"(\underline C, \bar C)", relation="eq",
               value=thresholds, conditions=(r"\sigma = \mathrm{ReLU}^2", r"L_S \le \varepsilon"), source=HAN,
               hypotheses=CLASSIFICATION_HYPOTHESES,
               hypotheses_reading="constants 1, polylog factors dropped; d = Omega~(n^2) read as d >= n^2",
               words=f"classification learns the signal when n·SNR² ≥ C̄ = {high} and the noise when n·SNR² ≤ C̲ = {low}")


def diffusion_laws() -> list[Law]:
    """Every law of the diffusion system."""
    return [balanced_law(), dominant_law()]
