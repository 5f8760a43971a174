r"""Laws of the attention system (sympy only): benign and harmful overfitting of a single-head softmax
attention layer on signal-noise tokens, its boundary in :math:`(n, \mathrm{SNR})`, and sign-GD.

Sources: Jiang, Huang, Zhang, Suzuki, Nie 2024, "Unveil benign overfitting for transformer in vision:
training dynamics, convergence, and generalization", arXiv 2409.19345 (Theorems 4.1, 4.2); Li, Huang, Han,
Zhou, Suzuki, Zhu, Chen 2025, "On the optimization and generalization of two-layer transformers with sign
gradient descent", arXiv 2410.04870.

Derivation of the boundary (status ``derived``). While the attention is still near uniform, GD moves
:math:`v = W_Vw_o` by :math:`\Delta v \propto \sum_i g_i y_i(y_i\mu + \sum_{\ell\ge2}\xi_{i,\ell})`, so per step
the signal margin grows by :math:`\propto\|\mu\|^2` (all :math:`n` samples add up) and sample :math:`i`'s
noise margin by :math:`\propto (L-1)\|\xi\|^2/n`; their ratio is
:math:`r = n\|\mu\|^2/((L-1)\sigma_\xi^2 d) = n\,\mathrm{SNR}^2/(L-1)`. GD stops when the training margin
reaches :math:`\log(1/\varepsilon)`, a signal margin :math:`\approx \log(1/\varepsilon)\,r/(1 + r)` which
is what a test sample sees once the test-noise term, of standard deviation
:math:`\propto\sqrt{n/d}`, is negligible (:math:`d \gg n`). So the test loss is a function of
:math:`n\,\mathrm{SNR}^2` alone, :math:`\approx 0` for :math:`r \gg 1` and :math:`\to \log 2` for
:math:`r \to 0`, and the level set :math:`L_D = c` is :math:`n\,\mathrm{SNR}^{*2} = \mathrm{const}`:
:math:`\mathrm{SNR}^* \propto n^{-1/2}`. The control is :math:`n^{-1/4}`, the boundary
:math:`n\|\mu\|^4 \asymp \sigma_\xi^4 d` of a linear-like classifier whose test noise is not negligible
(Kou, Chen, Chen, Gu 2023, arXiv 2303.04145), at fixed :math:`d`.

Hypotheses (how established). The condition paragraphs of Jiang et al. (Theorems 4.1, 4.2) and Li et al. could not
be retrieved here (the searchable copies gave abstracts and summaries; the regimes :math:`n\,\mathrm{SNR}^2 =
\Omega(1)` and :math:`n^{-1}\mathrm{SNR}^{-2} = \Omega(1)` are stated in the theorems). Encoded: those regimes read
with constant 1 (:math:`n\,\mathrm{SNR}^2 \ge 1`, resp. :math:`\le 1`), and the high-dimension condition common
to this line of work (Cao et al. 2022 Condition 4.2, Kou et al. 2023 Condition 4.1: :math:`d = \tilde\Omega(n^2)`),
read as :math:`d \ge n^2` (here :math:`d = 10^5`). Step size and initialisation conditions are not encoded (not
retrieved); the GD step :math:`\eta = 20` of the declaration is large (tokens of norm about one), which the claims
say.

>>> [law.name for law in attention_laws()]
['benign overfitting', 'harmful overfitting', 'benign boundary', 'sign-GD memorises noise']
>>> attention_laws()[2].latex()
'\\mathrm{SNR}^{*} \\asymp \\frac{1}{\\sqrt{n}} \\quad (L_D(\\Theta^{(T)}) = c,\\ d \\gg n)'
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = ["HYPOTHESES", "JIANG", "KOU", "LI", "attention_laws", "boundary_law", "regime_law"]

JIANG = Source(authors="Jiang, Huang, Zhang, Suzuki, Nie", year=2024,
               title="Unveil benign overfitting for transformer in vision: training dynamics, convergence, and "
                     "generalization",
               arxiv="2409.19345")
LI = Source(authors="Li, Huang, Han, Zhou, Suzuki, Zhu, Chen", year=2025,
            title="On the optimization and generalization of two-layer transformers with sign gradient descent",
            arxiv="2410.04870")
KOU = Source(authors="Kou, Chen, Chen, Gu", year=2023,
             title="Benign overfitting in two-layer ReLU convolutional neural networks", arxiv="2303.04145")

N = sp.Symbol("n", positive=True)
SNR = sp.Symbol("SNR", positive=True)

_d = sp.Symbol("d", positive=True)
_READING = ("constants 1, polylog factors dropped; Omega(1) regimes of n SNR^2 read with constant 1; "
            "d = Omega~(n^2) read d >= n^2")
HYPOTHESES = {
    "dim": Hypothesis(text="high dimension d = Omega~(n^2), read d >= n^2", condition=_d >= N**2,
                      where="Jiang et al. 2024, conditions of Theorems 4.1-4.2 "
                            "(form of Kou et al. 2023 Condition 4.1)"),
    "benign": Hypothesis(text="benign regime n SNR^2 = Omega(1), read n SNR^2 >= 1", condition=N * SNR**2 >= 1,
                         where="Jiang et al. 2024, Theorem 4.1"),
    "harmful": Hypothesis(text="harmful regime n^-1 SNR^-2 = Omega(1), read n SNR^2 <= 1", condition=N * SNR**2 <= 1,
                          where="Jiang et al. 2024, Theorem 4.2"),
    "sign-dim": Hypothesis(text="high dimension d = Omega~(n^2), read d >= n^2", condition=_d >= N**2,
                           where="Li et al. 2025, conditions of their sign-GD theorem (form of Kou et al. 2023 "
                                 "Condition 4.1)"),
    "test-noise": Hypothesis(text="test noise negligible: its standard deviation sqrt(n/d) at most 1/10, read "
                                  "d >= 100 n", condition=_d >= 100 * N,
                             where="derived here (module docstring): the boundary's derivation drops the test-noise "
                                   "term, of standard deviation proportional to sqrt(n/d)"),
}

#: The Θ(1) test loss of the harmful regimes is checked as a lower bound 1/4 (< log 2, the limit n·SNR² → 0).
HARMFUL_LEVEL = sp.Rational(1, 4)


def regime_law(regime: str) -> Law:
    r"""``"benign"``: :math:`L_D \to 0` when :math:`n\,\mathrm{SNR}^2 = \Omega(1)`; ``"harmful"``:
    :math:`L_D \ge 1/4` (:math:`\Theta(1)`) when :math:`n^{-1}\mathrm{SNR}^{-2} = \Omega(1)`;
    ``"sign-gd"``: sign-GD's test loss stays :math:`\Theta(1)` (Li et al. 2025).

    >>> regime_law("benign").number(), regime_law("harmful").relation
    (0.0, 'geq')
    """
    if regime == "benign":
        return Law(name="benign overfitting", lhs=r"L_D(\Theta^{(T)})", relation="to", value=0,
                   conditions=(r"n\,\mathrm{SNR}^2 = \Omega(1)", r"L_S(\Theta^{(T)}) \le \varepsilon"), source=JIANG,
                   hypotheses=(HYPOTHESES["dim"], HYPOTHESES["benign"]), hypotheses_reading=_READING,
                   words="n·SNR² large: ~0 training loss, attention on the signal token, value along μ, test loss → 0")
    if regime == "harmful":
        return Law(name="harmful overfitting", lhs=r"L_D(\Theta^{(T)})", relation="geq", value=HARMFUL_LEVEL,
                   conditions=(r"n^{-1}\mathrm{SNR}^{-2} = \Omega(1)", r"L_S(\Theta^{(T)}) \le \varepsilon"),
                   source=JIANG,
                   hypotheses=(HYPOTHESES["dim"], HYPOTHESES["harmful"]), hypotheses_reading=_READING,
                   words="n·SNR² small: attention and value on the noise, test loss Θ(1) (≥ 1/4)")
    if regime == "sign-gd":
        return Law(name="sign-GD memorises noise", lhs=r"L_D(\Theta^{(T)})", relation="geq", value=HARMFUL_LEVEL,
                   conditions=(r"\text{sign-GD}", r"L_S(\Theta^{(T)}) \le \varepsilon"), source=LI,
                   hypotheses=(HYPOTHESES["sign-dim"],), hypotheses_reading=_READING,
                   words="sign-GD fits fast but its value memorises the noise: test loss Θ(1) (≥ 1/4) "
                         "where GD is benign")
    raise ValueError(f"unknown regime {regime!r}")


def boundary_law(exponent: sp.Rational = sp.Rational(-1, 2)) -> Law:
    r"""The boundary :math:`\mathrm{SNR}^* \asymp n^{e}` (``e = -1/2`` derived from Jiang et al.; other
    exponents are wrong laws)."""
    source = JIANG if exponent == sp.Rational(-1, 2) else KOU
    return Law(name="benign boundary" if exponent == sp.Rational(-1, 2) else "linear-classifier boundary",
               lhs=r"\mathrm{SNR}^{*}", relation="asymp", value=N**exponent,
               conditions=(r"L_D(\Theta^{(T)}) = c", r"d \gg n"), status="derived", source=source,
               hypotheses=(HYPOTHESES["test-noise"],),
               hypotheses_reading="derived here (module docstring) for d >> n, where the test-noise term is "
                                  "negligible, read sqrt(n/d) <= 1/10 (d >= 100 n); no condition of the source is "
                                  "used",
               words=f"the test-loss level set SNR*(n) ∝ n^({exponent})")


def attention_laws() -> list[Law]:
    """Every law of the attention system."""
    return [regime_law("benign"), regime_law("harmful"), boundary_law(), regime_law("sign-gd")]
