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
  the low SNR regime?": ReLU², label-noise GD keeps the training loss at a constant level, the noise
  coefficients bounded, the signal growing, and the test error small at a low SNR where GD overfits
  harmfully.

The numbers of the laws (the 0.45 = 1/2 − 1/20 of "≥ 1/2 up to noise", the 0.1 of "harmful", the 0.05 of
"benign") are the levels at which this project reads the sources' asymptotic statements at finite size;
each law's docstring says so.
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.law import Law, Source

__all__ = [
    "CHEN_2023",
    "HUANG_2025",
    "KOU_2023",
    "SYMBOLS",
    "ZOU_2023",
    "adam_overfits_law",
    "benign_law",
    "gd_harmful_law",
    "half_normal_mean",
    "label_noise_gd_law",
    "optimizer_laws",
    "sam_law",
    "sign_gd_noise_rate",
    "sign_gd_noise_rate_literal",
]

ZOU_2023 = Source(authors="Zou, Cao, Li, Gu", year=2023,
                  title="Understanding the generalization of Adam in learning neural networks with proper regularization",
                  arxiv="2108.11371")
CHEN_2023 = Source(authors="Chen, Zhang, Kou, Chen, Hsieh, Gu", year=2023,
                   title="Why does sharpness-aware minimization generalize better than SGD?", arxiv="2310.07269")
KOU_2023 = Source(authors="Kou, Chen, Chen, Gu", year=2023,
                  title="Benign overfitting in two-layer ReLU convolutional neural networks", arxiv="2303.04145")
HUANG_2025 = Source(authors="Huang, Han, Song, Chen, Wu, Zou, Suzuki", year=2025,
                    title="How does label noise gradient descent improve generalization in the low SNR regime?")

#: Symbols: step, sparsity, noise scale, signal norm.
SYMBOLS = {name: sp.Symbol(name, positive=True) for name in ("eta", "s", "sigma_xi", "mu")}
_eta, _s, _sx, _mu = (SYMBOLS[k] for k in SYMBOLS)
_LATEX = {"sigma_xi": r"\sigma_\xi", "mu": r"\|\mu\|", "eta": r"\eta"}

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
    r"""Sign-GD, early phase: :math:`\mathbb E\,\Delta\langle w_{y_i,r}, \zeta_i\rangle = \eta s\sigma_\xi\sqrt{2/\pi}` per step.

    Derivation. The gradient of :math:`w_{j,r}` is
    :math:`\frac jm\sum_i c_i[\sigma'(\langle w_{j,r}, y_i\mu\rangle)y_i\mu + \sigma'(\langle w_{j,r},\xi_i\rangle)\xi_i]`
    with :math:`c_i = \ell'(y_if_i)y_i/n`. Its coordinate :math:`k \in \mathrm{supp}(\zeta_i)` collects only the
    samples whose supports contain :math:`k`; with disjoint supports (probability
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
               status="derived", source=ZOU_2023, symbol_latex=_LATEX,
               words="sign-GD moves <w_(y_i,r), zeta_i> by eta ||zeta_i||_1 per step: eta s sigma_xi sqrt(2/pi) on average")


def sign_gd_noise_rate_literal() -> Law:
    r"""Zou et al.'s statement of the rate, :math:`\eta s\sigma_\xi` (the negative control of :func:`sign_gd_noise_rate`).

    >>> sign_gd_noise_rate_literal().number(eta=1, s=10, sigma_xi=1)
    10.0
    """
    return sign_gd_noise_rate().replace(name="sign-GD noise rate (literal)", value=_eta * _s * _sx, status="theorem",
                                        words="sign-GD moves <w_(y_i,r), zeta_i> by eta s sigma_xi per step (the literal statement)")


def adam_overfits_law(optimizer: str = "Adam") -> Law:
    r"""Adam / sign-GD on sparse signal-noise data: training loss :math:`\approx 0` and :math:`L_D^{0-1} \ge 1/2 - \delta`.

    Zou et al. state :math:`L_D^{0-1} \ge 1/2` (Theorem 4.1); :math:`\delta` = :data:`DELTA` is the finite-size
    slack of "up to noise". Conditions: :math:`s\sigma_\xi \gg \|\mu\|` (noise learned faster),
    feature noise :math:`\alpha > 0` (it turns noise memorisation into signal *unlearning*).

    >>> adam_overfits_law("sign-GD").number()
    0.45
    """
    return Law(name=f"{optimizer} overfits the noise", lhs=rf"L_D^{{0-1}}(W_{{\mathrm{{{optimizer}}}}})", relation="geq",
               value=sp.Rational(1, 2) - DELTA,
               conditions=(r"L_S \le \varepsilon", r"s\sigma_\xi \gg \|\mu\|", r"\alpha > 0", r"q \ge 3"),
               status="theorem", source=ZOU_2023,
               words=f"{optimizer} fits the training data through the noise: test error >= 1/2 up to noise (0.45)")


def benign_law(optimizer: str = "GD", *, source: Source = ZOU_2023, conditions: tuple[str, ...] = ()) -> Law:
    r"""An optimizer that learns the signal: training loss :math:`\approx 0` and :math:`L_D^{0-1} \le` :data:`BENIGN`.

    For GD on Zou et al.'s data the source's bound is :math:`1/\mathrm{poly}(n)`; 0.05 is the level read here.

    >>> benign_law().rhs_latex()
    '\\frac{1}{20}'
    """
    return Law(name=f"{optimizer} learns the signal", lhs=rf"L_D^{{0-1}}(W_{{\mathrm{{{optimizer}}}}})", relation="leq",
               value=BENIGN, conditions=conditions or (r"L_S \le \varepsilon", r"s\sigma_\xi^2/n \ll \|\mu\|^2"),
               status="theorem", source=source, words=f"{optimizer} generalises: test error <= 0.05")


def gd_harmful_law() -> Law:
    r"""GD, ReLU, below Kou et al.'s boundary (:math:`n\|\mu\|^4 \le C'\sigma_\xi^4 d`): :math:`L_D^{0-1} \ge 0.1`.

    >>> gd_harmful_law().number()
    0.1
    """
    return Law(name="GD overfits harmfully", lhs=r"L_D^{0-1}(W_{\mathrm{GD}})", relation="geq", value=HARMFUL,
               conditions=(r"n\|\mu\|^4 \le C'\sigma_\xi^4 d",), status="theorem", source=KOU_2023,
               words="GD below its boundary: test error >= 0.1")


def sam_law() -> Law:
    r"""SAM (ReLU) generalises where GD overfits harmfully: :math:`L_D^{0-1}(W_{\mathrm{SAM}}) \le 0.05` at
    :math:`\|\mu\|` with :math:`n\|\mu\|^4 < \sigma_\xi^4 d` (GD harmful), training loss :math:`\le \varepsilon`.

    Chen et al. prove it for SAM followed by SGD with :math:`\|\mu\| = \tilde\Omega(1)`; here SAM runs full batch
    throughout (no SGD phase). Why it works, visible in the measured :math:`\rho`: the ascent perturbation
    :math:`\tau g/\|g\|` lowers every :math:`\langle w_{y_i,r}, \xi_i\rangle` that the step would raise, so the
    noise activations seen by the gradient are deactivated and :math:`\rho` stays :math:`O(\tau)`, while the
    signal coordinate, shared by all samples, survives the perturbation.

    >>> sam_law().relation, sam_law().number()
    ('leq', 0.05)
    """
    return benign_law("SAM", source=CHEN_2023,
                      conditions=(r"\sigma = \mathrm{ReLU}", r"\|\mu\| = \tilde\Omega(1)", r"n\|\mu\|^4 < \sigma_\xi^4 d",
                                  r"L_S \le \varepsilon")).replace(
        name="SAM generalises below GD's boundary",
        words="SAM generalises (test error <= 0.05) at ||mu|| where GD overfits harmfully")


def label_noise_gd_law() -> Law:
    r"""Label-noise GD (ReLU²) at a low SNR where GD overfits harmfully: :math:`L_D^{0-1} \le 0.05`, with the
    training loss held at a constant level and :math:`\bar\rho` bounded (Huang et al. 2025).

    Why: a flipped label reverses sample :math:`i`'s gradient with probability :math:`p`, so the mean
    noise-memorisation drive on :math:`\rho_{y_i,r,i}` is :math:`(1-p)\,\ell'(f_i) - p\,\ell'(-f_i)` per unit, which
    vanishes at a margin :math:`f_i = \log((1-p)/p)` — memorisation stops at a bounded margin and the training
    loss stays :math:`\ge \log(1 + p/(1-p))`-ish, while the signal coordinate, fed coherently by all samples,
    keeps growing.

    >>> label_noise_gd_law().number()
    0.05
    """
    return benign_law("LNGD", source=HUANG_2025,
                      conditions=(r"\sigma = \mathrm{ReLU}^2", r"\text{low SNR: GD harmful}", r"L_S = \Theta(1)")).replace(
        name="label-noise GD generalises at low SNR",
        words="label-noise GD generalises (test error <= 0.05) at an SNR where GD overfits harmfully")


def optimizer_laws() -> list[Law]:
    """Every law of the system (the catalogue).

    >>> [law.name for law in optimizer_laws()][:3]
    ['Adam overfits the noise', 'sign-GD overfits the noise', 'GD learns the signal']
    """
    return [adam_overfits_law("Adam"), adam_overfits_law("sign-GD"), benign_law("GD"), sign_gd_noise_rate(),
            sign_gd_noise_rate_literal(), gd_harmful_law(), sam_law(), label_noise_gd_law()]
