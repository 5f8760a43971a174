r"""Laws of the training-choice system: what GD, Adam, sign-GD, SAM and label-noise GD learn from signal-noise data
(sympy only).

Setting (:mod:`.model`): :math:`x = [y\mu, \xi]`, the two-layer CNN :math:`f = F_{+1} - F_{-1}` with
:math:`\sigma = \mathrm{ReLU}^q`, logistic loss, full batch. Test error :math:`L_D^{0-1}` is against the true label.

Sources
-------
* Zou, Cao, Li, Gu 2023, "Understanding the generalization of Adam in learning neural networks with proper
  regularization" (arXiv 2108.11371): sparse noise (:math:`s` nonzero coordinates) and feature noise
  :math:`-\alpha y\mu` in the noise patch, :math:`q \ge 3`. Adam (and sign-GD, Adam with
  :math:`\beta_1 = \beta_2 = 0`) reach :math:`L_S \approx 0` with :math:`L_D^{0-1} \ge 1/2`; GD reaches
  :math:`L_S \approx 0` with :math:`L_D^{0-1} \le 1/\mathrm{poly}(n)`. Mechanism: sign-GD moves
  :math:`\langle w_{y_i,r}, \xi_i\rangle` by :math:`\approx \eta s\sigma_\xi` per step and the signal by
  :math:`\le \eta\|\mu\|` — the noise wins when :math:`s\sigma_\xi \gg \|\mu\|`; GD's noise increments carry
  :math:`s\sigma_\xi^2/n` — the signal wins when :math:`s\sigma_\xi^2/n \ll \|\mu\|^2`.
* Chen, Zhang, Kou, Chen, Hsieh, Gu 2023, "Why does sharpness-aware minimization generalize better than SGD?"
  (arXiv 2310.07269): ReLU; SAM (then SGD) reaches small training loss and small test error once
  :math:`\|\mu\| = \tilde\Omega(1)`, where GD needs :math:`n\|\mu\|^4 \gtrsim \sigma_\xi^4 d` (Kou, Chen, Chen, Gu
  2023, arXiv 2303.04145: harmful, :math:`L_D^{0-1} \ge 0.1`, below it).
* Huang, Han, Song, Chen, Wu, Zou, Suzuki 2025, "How does label noise gradient descent improve generalization in
  the low SNR regime?" (arXiv 2510.17526): ReLU², label-noise GD keeps the training loss at a constant level, the
  noise coefficients bounded, the signal growing, and the test error small at a low SNR where GD overfits
  harmfully.

Hypotheses (:attr:`Law.hypotheses`), and how they were established. The full texts' condition sections
(the numbered "Condition" paragraphs with their exact polylog factors) could not be retrieved here: the
searchable copies of 2108.11371, 2310.07269 and 2510.17526 gave their abstracts and introductions only. What is
encoded is therefore (i) the setting each theorem is stated for (activation power :math:`q`, feature noise
:math:`\alpha > 0`, ReLU, flip probability :math:`p < 1/2`), (ii) the regime conditions the theorem statements
themselves name (Zou et al.: sign-GD's noise increment :math:`\eta s\sigma_\xi` above its signal increment
:math:`\eta\|\mu\|`, GD's :math:`s\sigma_\xi^2/n` below :math:`\|\mu\|^2`; Chen et al.:
:math:`\|\mu\| = \tilde\Omega(1)` and GD's harmful side of Kou et al.'s boundary,
:math:`n\|\mu\|^4 \le \sigma_\xi^4 d`; Huang et al.: the low-SNR side :math:`n\,\mathrm{SNR}^2 \le 1`),
and (iii) the high-dimension condition common to this line of work (Cao et al. 2022 Condition 4.2, Kou et al.
2023 Condition 4.1: :math:`d = \tilde\Omega(n^2)` and more), read as :math:`d \ge n^2`. The step-size conditions
(Zou et al.: :math:`\eta = 1/\mathrm{poly}(d)`; Kou et al.: :math:`\eta \le \tilde O(\min\{\|\mu\|^{-2},
\sigma_\xi^{-2}d^{-1}\})`) are not encoded: a :math:`1/\mathrm{poly}(d)` with unspecified degree cannot be read at a
finite :math:`d`, and the steps used here (declaration) exceed Kou et al.'s bound read with constant 1 (e.g.
:math:`\eta = 0.06 > 1/(\sigma_\xi^2 d) = 10^{-3}` for SAM): every verdict of this system is at steps larger
than the sources' (each claim's words say so).

The numbers of the laws (the 0.45 = 1/2 − 1/20 of "≥ 1/2 up to noise", the 0.1 of "harmful", the 0.05 of
"benign") are the levels at which this project reads the sources' asymptotic statements at finite size;
each law's docstring says so.
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = [
    "CHEN_2023",
    "HUANG_2025",
    "HYPOTHESES",
    "READING",
    "KOU_2023",
    "SYMBOLS",
    "ZOU_2023",
    "adam_overfits_law",
    "benign_law",
    "gd_harmful_law",
    "half_normal_mean",
    "hypotheses",
    "label_noise_gd_law",
    "optimizer_laws",
    "sam_law",
    "sign_gd_noise_rate",
    "sign_gd_noise_rate_literal",
]

ZOU_2023 = Source(
    authors="Zou, Cao, Li, Gu", year=2023,
    title="Understanding the generalization of Adam in learning neural networks with proper regularization",
    arxiv="2108.11371")
CHEN_2023 = Source(authors="Chen, Zhang, Kou, Chen, Hsieh, Gu", year=2023,
                   title="Why does sharpness-aware minimization generalize better than SGD?", arxiv="2310.07269")
KOU_2023 = Source(authors="Kou, Chen, Chen, Gu", year=2023,
                  title="Benign overfitting in two-layer ReLU convolutional neural networks", arxiv="2303.04145")
HUANG_2025 = Source(authors="Huang, Han, Song, Chen, Wu, Zou, Suzuki", year=2025,
                    title="How does label noise gradient descent improve generalization in the low SNR regime?",
                    arxiv="2510.17526")

#: Symbols: step, sparsity, noise scale, signal norm.
SYMBOLS = {name: sp.Symbol(name, positive=True) for name in ("eta", "s", "sigma_xi", "mu")}
_eta, _s, _sx, _mu = (SYMBOLS[k] for k in SYMBOLS)
#: Symbols of the hypotheses (read at a measurement point by :func:`.declaration.hypothesis_values`): sample size,
#: dimension, activation power, feature-noise strength, label-flip probability.
_n, _d, _q = (sp.Symbol(name, positive=True) for name in ("n", "d", "q"))
_alpha, _p = sp.Symbol("alpha", nonnegative=True), sp.Symbol("p", nonnegative=True)
#: How the hypotheses' asymptotic notation is read (module docstring).
READING = ("constants 1, polylog factors dropped; d = poly(n) and d = Omega~(n^2) read as d >= n^2; the step-size "
           "conditions are not encoded (module docstring)")
_LATEX = {"sigma_xi": r"\sigma_\xi", "mu": r"\|\mu\|", "eta": r"\eta"}



def _h(text: str, condition, where: str) -> Hypothesis:
    return Hypothesis(text=text, condition=condition, where=where)


#: The hypotheses, by name (module docstring: how each was established).
HYPOTHESES = {
    "zou-q": _h("ReLU^q activation with q >= 3", _q >= 3, "Zou et al. 2023, Section 3 (the CNN of Theorems 4.1-4.2)"),
    "zou-alpha": _h("feature noise -alpha y mu in the noise patch, alpha > 0", _alpha > 0,
                    "Zou et al. 2023, Definition 3.1 (data of Theorems 4.1-4.2)"),
    "zou-dim": _h("high dimension: d = poly(n), read d >= n^2", _d >= _n**2, "Zou et al. 2023, Theorems 4.1-4.2"),
    "zou-sign": _h("sign-GD/Adam learn the noise faster: s sigma_xi >= ||mu||", _s * _sx >= _mu,
                   "Zou et al. 2023, Theorem 4.1 (regime of the Adam result)"),
    "zou-gd": _h("GD learns the signal faster: s sigma_xi^2 / n <= ||mu||^2", _s * _sx**2 / _n <= _mu**2,
                 "Zou et al. 2023, Theorem 4.2 (regime of the GD result)"),
    "disjoint": _h("noise supports disjoint w.h.p.: n s^2 <= d", _n * _s**2 <= _d,
                   "derived here (sign_gd_noise_rate: disjoint supports)"),
    "relu": _h("ReLU activation (q = 1)", sp.Eq(_q, 1), "Chen et al. 2023, Section 3 (the ReLU CNN of their theorems)"),
    "sam-mu": _h("signal strength ||mu|| = Omega~(1), read ||mu|| >= 1", _mu >= 1,
                 "Chen et al. 2023, SAM theorem (benign overfitting of SAM)"),
    "kou-harmful": _h("GD's harmful side of the boundary: n ||mu||^4 <= sigma_xi^4 d",
                      _n * _mu**4 <= _sx**4 * _d,
                      "Kou et al. 2023, Theorem 4.1 harmful case (Chen et al.'s comparison)"),
    "kou-dim": _h("high dimension: d = Omega~(n^2), read d >= n^2", _d >= _n**2,
                  "Kou et al. 2023, Condition 4.1 (adopted by Chen et al. 2023 and Huang et al. 2025)"),
    "relu2": _h("squared ReLU activation (q = 2)", sp.Eq(_q, 2),
                "Huang et al. 2025, Section 2 (the CNN of their theorems)"),
    "low-snr": _h("low SNR where GD overfits harmfully: n SNR^2 = n ||mu||^2/(sigma_xi^2 d) <= 1",
                  _n * _mu**2 <= _sx**2 * _d, "Huang et al. 2025, main theorems (low-SNR regime)"),
    "flip": _h("label-flip probability p < 1/2", _p < sp.Rational(1, 2),
               "Huang et al. 2025, label-noise GD (Section 3)"),
}


def hypotheses(*names: str) -> tuple[Hypothesis, ...]:
    """The hypotheses named (keys of :data:`HYPOTHESES`).

    >>> [h.where.split(",")[0] for h in hypotheses("zou-q", "relu")]
    ['Zou et al. 2023', 'Chen et al. 2023']
    """
    return tuple(HYPOTHESES[name] for name in names)


#: "≥ 1/2 up to noise": the margin δ below 1/2 that a finite-size test error may fall.
DELTA = sp.Rational(1, 20)
#: Kou et al.'s harmful level, and the level read as "benign" (small test error) at finite size.
HARMFUL, BENIGN = sp.Rational(1, 10), sp.Rational(1, 20)


def half_normal_mean() -> sp.Expr:
    r""":math:`\mathbb E|g| = \sqrt{2/\pi}` for :math:`g \sim \mathcal N(0, 1)`, computed.

    >>> half_normal_mean()
    sqrt(2)/sqrt(pi)
    """
    z = sp.Symbol("z", real=True)
    return sp.simplify(2 * sp.integrate(z * sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi), (z, 0, sp.oo)))


def sign_gd_noise_rate() -> Law:
    r"""Sign-GD, early phase: :math:`\mathbb E\,\Delta\langle w_{y_i,r}, \zeta_i\rangle = \eta s\sigma_\xi\sqrt{2/\pi}`
    per step.

    Derivation. The gradient of :math:`w_{j,r}` is
    :math:`\frac jm\sum_i c_i[\sigma'(\langle w_{j,r}, y_i\mu\rangle)y_i\mu
    + \sigma'(\langle w_{j,r},\xi_i\rangle)\xi_i]` with :math:`c_i = \ell'(y_if_i)y_i/n`. Its coordinate
    :math:`k \in \mathrm{supp}(\zeta_i)` collects only the samples whose supports contain :math:`k`; with disjoint
    supports (probability
    :math:`\to 1` when :math:`ns^2/d \to 0`, up to a fraction :math:`ns/d` of shared coordinates) that is sample
    :math:`i` alone, so :math:`\mathrm{sign}(g_k) = -\mathrm{sign}(\zeta_{i,k})` for a neuron with :math:`j = y_i`
    and :math:`\langle w_{j,r},\xi_i\rangle > 0` (:math:`\ell' < 0`, :math:`\sigma' > 0`). One sign step adds
    :math:`\eta\,\mathrm{sign}(\zeta_{i,k})` to each such coordinate, hence
    :math:`\Delta\langle w_{j,r},\zeta_i\rangle = \eta\sum_k|\zeta_{i,k}| = \eta\|\zeta_i\|_1` *exactly*, whatever
    :math:`q`, the loss level or the step. Its mean over the :math:`s` Gaussian coordinates is
    :math:`\eta s\sigma_\xi\mathbb E|g| = \eta s\sigma_\xi\sqrt{2/\pi}` (:func:`half_normal_mean`). The signal
    coordinate moves by exactly :math:`\eta`, i.e. :math:`|\Delta\langle w, \mu\rangle| = \eta\|\mu\|`.

    Zou et al. state the rate as :math:`\approx \eta s\sigma_\xi` (:func:`sign_gd_noise_rate_literal`), up to
    the constant :math:`\sqrt{2/\pi} \approx 0.80` derived here.

    >>> sign_gd_noise_rate().rhs_latex()
    '\\frac{\\sqrt{2} \\eta s \\sigma_\\xi}{\\sqrt{\\pi}}'
    """
    return Law(name="sign-GD noise rate", lhs=r"\Delta\langle w_{y_i,r}, \zeta_i\rangle", relation="eq",
               value=_eta * _s * _sx * half_normal_mean(), conditions=(r"\text{sign-GD}", r"\text{disjoint supports}",
                                                                       r"\langle w_{y_i,r},\xi_i\rangle > 0"),
               status="derived", source=ZOU_2023, symbol_latex=_LATEX, hypotheses=hypotheses("disjoint"),
               hypotheses_reading="derived here; exact per step wherever the noise supports are disjoint (n s^2 <= d, "
                                  "constant 1); no condition of the source is used",
               words="sign-GD moves <w_(y_i,r), zeta_i> by eta ||zeta_i||_1 per step: eta s sigma_xi sqrt(2/pi) on "
                     "average")


def sign_gd_noise_rate_literal() -> Law:
    r"""Zou et al.'s statement of the rate, :math:`\eta s\sigma_\xi` (the negative control of
    :func:`sign_gd_noise_rate`).

    >>> sign_gd_noise_rate_literal().number(eta=1, s=10, sigma_xi=1)
    10.0
    """
    return sign_gd_noise_rate().replace(name="sign-GD noise rate (literal)", value=_eta * _s * _sx, status="theorem",
                                        words="sign-GD moves <w_(y_i,r), zeta_i> by eta s sigma_xi per step (the "
                                              "literal statement)")


def adam_overfits_law(optimizer: str = "Adam") -> Law:
    r"""Adam / sign-GD on sparse signal-noise data: training loss :math:`\approx 0` and
    :math:`L_D^{0-1} \ge 1/2 - \delta`.

    Zou et al. state and prove :math:`L_D^{0-1} \ge 1/2` for Adam (Theorem 4.1; sign-GD is Adam with
    :math:`\beta_1 = \beta_2 = 0`, the limit their proof goes through); :math:`\delta` = :data:`DELTA` is the
    finite-size slack of "up to noise". Hypotheses: :math:`q \ge 3`, feature noise :math:`\alpha > 0` (it turns
    noise memorisation into signal *unlearning*), :math:`s\sigma_\xi \ge \|\mu\|` (noise learned faster),
    :math:`d \ge n^2`.

    >>> adam_overfits_law("sign-GD").number()
    0.45
    """
    return Law(name=f"{optimizer} overfits the noise", lhs=rf"L_D^{{0-1}}(W_{{\mathrm{{{optimizer}}}}})",
               relation="geq",
               value=sp.Rational(1, 2) - DELTA,
               conditions=(r"L_S \le \varepsilon", r"s\sigma_\xi \gg \|\mu\|", r"\alpha > 0", r"q \ge 3"),
               status="theorem", source=ZOU_2023, hypotheses=hypotheses("zou-q", "zou-alpha", "zou-dim", "zou-sign"),
               hypotheses_reading=READING,
               words=f"{optimizer} fits the training data through the noise: test error >= 1/2 up to noise (0.45)")


def benign_law(optimizer: str = "GD", *, source: Source = ZOU_2023, conditions: tuple[str, ...] = (),
               hypothesis_names: tuple[str, ...] = ("zou-q", "zou-alpha", "zou-dim", "zou-gd")) -> Law:
    r"""An optimizer that learns the signal: training loss :math:`\approx 0` and :math:`L_D^{0-1} \le` :data:`BENIGN`.

    For GD on Zou et al.'s data the source's bound is :math:`1/\mathrm{poly}(n)` (Theorem 4.2); 0.05 is the level
    read here. ``hypothesis_names``: keys of :data:`HYPOTHESES` (default: Zou et al.'s GD result).

    >>> benign_law().rhs_latex()
    '\\frac{1}{20}'
    """
    return Law(name=f"{optimizer} learns the signal", lhs=rf"L_D^{{0-1}}(W_{{\mathrm{{{optimizer}}}}})", relation="leq",
               value=BENIGN, conditions=conditions or (r"L_S \le \varepsilon", r"s\sigma_\xi^2/n \ll \|\mu\|^2"),
               status="theorem", source=source, hypotheses=hypotheses(*hypothesis_names), hypotheses_reading=READING,
               words=f"{optimizer} generalises: test error <= 0.05")


def gd_harmful_law() -> Law:
    r"""GD, ReLU, below Kou et al.'s boundary (:math:`n\|\mu\|^4 \le C'\sigma_\xi^4 d`): :math:`L_D^{0-1} \ge 0.1`.

    >>> gd_harmful_law().number()
    0.1
    """
    return Law(name="GD overfits harmfully", lhs=r"L_D^{0-1}(W_{\mathrm{GD}})", relation="geq", value=HARMFUL,
               conditions=(r"n\|\mu\|^4 \le C'\sigma_\xi^4 d",), status="theorem", source=KOU_2023,
               hypotheses=hypotheses("relu", "kou-dim", "kou-harmful"), hypotheses_reading=READING,
               words="GD below its boundary: test error >= 0.1")


def sam_law() -> Law:
    r"""SAM (ReLU) generalises where GD overfits harmfully: :math:`L_D^{0-1}(W_{\mathrm{SAM}}) \le 0.05` at
    :math:`\|\mu\|` with :math:`n\|\mu\|^4 < \sigma_\xi^4 d` (GD harmful), training loss :math:`\le \varepsilon`.

    Status ``conjecture``: Chen et al. prove it for SAM *followed by SGD* with :math:`\|\mu\| = \tilde\Omega(1)`;
    here SAM runs full batch throughout (no SGD phase), a variant their theorem does not cover. Hypotheses: ReLU,
    :math:`\|\mu\| \ge 1`, :math:`d \ge n^2`, and GD's harmful side :math:`n\|\mu\|^4 \le \sigma_\xi^4 d`. Why it
    works, visible in the measured :math:`\rho`: the ascent perturbation :math:`\tau g/\|g\|` lowers every
    :math:`\langle w_{y_i,r}, \xi_i\rangle` that the step would raise, so the noise activations seen by the gradient
    are deactivated and :math:`\rho` stays :math:`O(\tau)`, while the
    signal coordinate, shared by all samples, survives the perturbation.

    >>> sam_law().relation, sam_law().number()
    ('leq', 0.05)
    """
    return benign_law("SAM", source=CHEN_2023,
                      conditions=(r"\sigma = \mathrm{ReLU}", r"\|\mu\| = \tilde\Omega(1)",
                                  r"n\|\mu\|^4 < \sigma_\xi^4 d", r"L_S \le \varepsilon"),
                      hypothesis_names=("relu", "sam-mu", "kou-dim", "kou-harmful")).replace(
        name="SAM generalises below GD's boundary", status="conjecture",
        words="SAM generalises (test error <= 0.05) at ||mu|| where GD overfits harmfully")


def label_noise_gd_law() -> Law:
    r"""Label-noise GD (ReLU²) at a low SNR where GD overfits harmfully: :math:`L_D^{0-1} \le 0.05`, with the
    training loss held at a constant level and :math:`\bar\rho` bounded (Huang et al. 2025).

    Why: a flipped label reverses sample :math:`i`'s gradient with probability :math:`p`, so the mean
    noise-memorisation drive on :math:`\rho_{y_i,r,i}` is :math:`(1-p)\,\ell'(f_i) - p\,\ell'(-f_i)` per unit, which
    vanishes at a margin :math:`f_i = \log((1-p)/p)` — memorisation stops at a bounded margin and the training
    loss stays :math:`\ge \log(1 + p/(1-p))`-ish, while the signal coordinate, fed coherently by all samples,
    keeps growing.

    Hypotheses: ReLU², :math:`p < 1/2`, :math:`d \ge n^2`, :math:`n\,\mathrm{SNR}^2 \le 1`.

    >>> label_noise_gd_law().number()
    0.05
    """
    return benign_law("LNGD", source=HUANG_2025,
                      conditions=(r"\sigma = \mathrm{ReLU}^2", r"\text{low SNR: GD harmful}", r"L_S = \Theta(1)"),
                      hypothesis_names=("relu2", "flip", "kou-dim", "low-snr")).replace(
        name="label-noise GD generalises at low SNR",
        words="label-noise GD generalises (test error <= 0.05) at an SNR where GD overfits harmfully")


def optimizer_laws() -> list[Law]:
    """Every law of the system (the catalogue).

    >>> [law.name for law in optimizer_laws()][:3]
    ['Adam overfits the noise', 'sign-GD overfits the noise', 'GD learns the signal']
    """
    return [adam_overfits_law("Adam"), adam_overfits_law("sign-GD"), benign_law("GD"), sign_gd_noise_rate(),
            sign_gd_noise_rate_literal(), gd_harmful_law(), sam_law(), label_noise_gd_law()]
