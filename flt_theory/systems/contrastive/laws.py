r"""Laws of the contrastive system (sympy only).

Source: Huang, Han, Chen, Cao, Xu, Suzuki 2024, "On the comparison between multi-modal and single-modal
contrastive learning", arXiv 2411.02837 (the data, network and loss of :mod:`.model`). At
:math:`n\,\mathrm{SNR}^2 = \Theta(1)` and :math:`\|\tilde\mu\| = C_\mu\|\mu\| > \|\mu\|`:

* single-modal: :math:`\langle w_r^{(T)}, \mu\rangle \approx 0`, :math:`\langle w_r^{(T)}, \xi_i\rangle \ge C`
  (the augmentation keeps the SNR, the noise is memorised);
* multi-modal: :math:`\langle w_r^{(T)}, \mu\rangle \ge C'`, :math:`\langle w_r^{(T)}, \xi_i\rangle \approx 0`
  (the cleaner modality's signal cooperates with the signal of the first);
* downstream: the linear probe on the single-modal embedding has a :math:`\Theta(1)` test error, on the
  multi-modal one a small test error.

How :math:`T` is read here. The noise overlap is stopped at the level :math:`C` of the theorem: :math:`T` is
the first step with :math:`\Xi_T = \frac1n\sum_i\max_r\langle w_r,\xi_i\rangle \ge C`, and the signal
:math:`\Gamma_T = \max_r|\langle w_r,\mu\rangle|` at that step is compared with :math:`0` (single) or with a
level :math:`C'` (multi). The theorem's :math:`\approx 0` is read as :math:`\Gamma_T \le 0.05\,C` (the
initial overlap is :math:`s_0\|\mu\|/\sqrt d \approx 10^{-4}`), its :math:`\ge C'` as :math:`\Gamma_T \ge C/10`.

Derivation of the race (status ``derived``; the early phase, all similarities :math:`\ll \tau`, so
:math:`p_{ij} = 1/n`). With :math:`a_r = \langle w_r,\mu\rangle`, :math:`b_{r,i} = \langle w_r,\xi_i\rangle`,
the InfoNCE gradient gives, for a neuron active on the class with :math:`y a_r > 0`,

.. math::
    \text{single:}\quad \dot a_r = \frac{\|\mu\|^2}{2\tau} a_r,\qquad
    \dot b_{r,i} = \frac{2\sigma_\xi^2 d}{n\tau} b_{r,i};
    \qquad
    \text{multi:}\quad \begin{pmatrix}\dot a_r\\ \dot{\tilde a}_r\end{pmatrix} = \frac1{4\tau}
    \begin{pmatrix}0 & \|\mu\|^2\\ \|\tilde\mu\|^2 & 0\end{pmatrix}\begin{pmatrix}a_r\\ \tilde a_r\end{pmatrix},\quad
    \dot b_{r,i} = \frac{\sigma_\xi^2 d}{n\tau}\tilde b_{r,i}

(the signal term of :math:`S_{ij}` is shared by the :math:`n/2` same-class candidates, so its weight is the
opposite-class mass :math:`1/2`; half the samples activate a neuron; the noise term of :math:`S_{ii}` is
the sample's own). The growth rates are :math:`\|\mu\|^2/(2\tau)` against :math:`2\sigma_\xi^2 d/(n\tau)`
(single) and :math:`C_\mu\|\mu\|^2/(4\tau)` against :math:`\sigma_\xi^2 d/(n\tau)` (multi): their ratios are

.. math::
    \rho_{\text{single}} = \frac{n\,\mathrm{SNR}^2}{4}, \qquad
    \rho_{\text{multi}} = \frac{C_\mu\, n\,\mathrm{SNR}^2}{4},

and the signal wins the race to :math:`\Theta(1)` only when its rate ratio exceeds one (up to the logarithm
of the initial overlaps). So :math:`C_\mu > 1` alone does not make the multi-modal network learn the signal:
it needs :math:`C_\mu n\,\mathrm{SNR}^2 \gtrsim 4` (finding ``multi-modal-needs-large-c-mu``). Also, on the
:math:`\tilde W` side the signal grows along the eigenvector :math:`(a, \tilde a) \propto (1, C_\mu)`, and it
stops once the same-class similarity :math:`a\tilde a` is a few :math:`\tau` (the opposite-class mass is then
exponentially small): :math:`\Gamma` saturates at :math:`O(\sqrt{\tau/C_\mu})`, while the noise keeps growing,
because only the noise tells apart two samples of the same class — at the end of training the multi-modal
network memorises the noise too (finding ``multi-modal-memorises-noise-at-convergence``).

Hypotheses (how established). The condition paragraph of Huang et al.'s theorems could not be retrieved here (the
searchable copies of 2411.02837 gave the abstract and summaries: ReLU embeddings, InfoMax/InfoNCE objective,
two-modality signal-noise data, SNR as the critical factor, :math:`\|\tilde\mu\| > \|\mu\|` for the
cooperation). Encoded: the high-dimension condition common to this line of work (Cao et al. 2022 Condition 4.2,
Kou et al. 2023 Condition 4.1: :math:`d = \tilde\Omega(n^2)`), read as :math:`d \ge n^2` with constant 1, for
every theorem and finding; and, for the multi-modal statements, the stronger second modality
:math:`C_\mu > 1`. The probe laws, derived here from the overlaps at the stop that these theorems give, inherit
the same hypotheses. The step-size and initialisation conditions are not encoded (not retrieved); the step here is
:math:`\eta = c_\eta n\tau/(\sigma_\xi^2 d)` (:mod:`.model`). The findings are checked at the same points
(inside), and along a ladder of :math:`n` at :math:`d = \max(500, n^2)` (declaration).
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import THIS_PROJECT, Law, Source

__all__ = ["HUANG", "contrastive_laws", "hypotheses", "noise_at_end", "probe_error", "race_ratio", "signal_at_stop"]

HUANG = Source(authors="Huang, Han, Chen, Cao, Xu, Suzuki", year=2024,
               title="On the comparison between multi-modal and single-modal contrastive learning", arxiv="2411.02837")

_n, _snr, _c_mu = sp.Symbol("n", positive=True), sp.Symbol("SNR", positive=True), sp.Symbol("C_mu", positive=True)
_SIGNAL = r"\Gamma_T = \max_r |\langle w_r^{(T)}, \mu\rangle|"
_NOISE_END = r"\Xi_{\mathrm{end}} = \frac1n\sum_i \max_r \langle w_r, \xi_i\rangle"
_ERROR = r"\mathrm{err}_T(\text{linear probe})"
_REGIME = r"n\,\mathrm{SNR}^2 = \Theta(1)"
_d = sp.Symbol("d", positive=True)
_HIGH_DIM = Hypothesis(text="high dimension d = Omega~(n^2), read d >= n^2", condition=_d >= _n**2,
                       where="Huang et al. 2024, conditions of the main theorems "
                             "(form of Kou et al. 2023 Condition 4.1)")
_STRONGER = Hypothesis(text="the second modality has the stronger signal: ||mu~|| = C_mu ||mu|| with C_mu > 1",
                       condition=_c_mu > 1, where="Huang et al. 2024, multi-modal theorem (data of Section 3)")
_READING = "constants 1, polylog factors dropped; d = Omega~(n^2) read as d >= n^2"


def hypotheses(setting: str) -> tuple[Hypothesis, ...]:
    """The source's hypotheses for a ``"single"`` or ``"multi"``-modal statement (module docstring).

    >>> [h.text.split(":")[0] for h in hypotheses("multi")]
    ['high dimension d = Omega~(n^2), read d >= n^2', 'the second modality has the stronger signal']
    """
    return (_HIGH_DIM,) if setting == "single" else (_HIGH_DIM, _STRONGER)


def signal_at_stop(setting: str, *, status: str = "theorem", c_mu: float | None = None) -> Law:
    r"""The signal overlap :math:`\Gamma_T` when the noise overlap reaches :math:`C = 1`: :math:`\approx 0`
    (``"single"``, or a finding at small :math:`C_\mu`) or :math:`\ge C' = 1/10` (``"multi"``).

    >>> signal_at_stop("single").latex() == (r"\Gamma_T = \max_r |\langle w_r^{(T)}, \mu\rangle| \approx 0 \quad "
    ...     r"(\text{single-modal},\ n\,\mathrm{SNR}^2 = \Theta(1),\ \Xi_T = C = 1)")
    True
    >>> signal_at_stop("multi").number(), signal_at_stop("multi").relation
    (0.1, 'geq')
    """
    conditions = [rf"\text{{{setting}-modal}}", _REGIME, r"\Xi_T = C = 1"]
    if c_mu is not None:
        conditions.insert(1, rf"C_\mu = {sp.latex(sp.nsimplify(c_mu))}")
    if setting == "single" or status == "finding":
        return Law(name=f"signal at the stop ({setting})", lhs=_SIGNAL, relation="approx", value=sp.Integer(0),
                   conditions=tuple(conditions), status=status, source=HUANG if status == "theorem" else THIS_PROJECT,
                   hypotheses=hypotheses(setting), hypotheses_reading=_READING,
                   words=f"{setting}-modal: the signal overlap is ≈ 0 when the noise is memorised (Γ_T ≤ 0.05)")
    return Law(name=f"signal at the stop ({setting})", lhs=_SIGNAL, relation="geq", value=sp.Rational(1, 10),
               conditions=tuple(conditions), status=status, source=HUANG, hypotheses=hypotheses(setting),
               hypotheses_reading=_READING,
               words=f"{setting}-modal: the signal overlap is ≥ C' = 0.1 when the noise reaches C = 1")


def probe_error(setting: str) -> Law:
    r"""Downstream linear-probe test error at the stop: :math:`\approx 1/2` (single: the pooled embedding of a
    fresh sample is its memorised-noise response, independent of :math:`y`) or :math:`\approx 0` (multi).

    >>> probe_error("single").number(), probe_error("multi").number()
    (0.5, 0.0)
    """
    value = sp.Rational(1, 2) if setting == "single" else sp.Integer(0)
    return Law(name=f"probe error ({setting})", lhs=_ERROR, relation="approx", value=value,
               conditions=(rf"\text{{{setting}-modal}}", _REGIME), status="derived", source=HUANG,
               hypotheses=hypotheses(setting),
               hypotheses_reading=_READING + "; derived here from the overlaps at the stop (a probe on a "
                                  "y-independent embedding is at chance, on a y-aligned one exact), which Huang et "
                                  "al.'s theorems give under these hypotheses: the probe law inherits them",
               words=f"{setting}-modal: the downstream linear probe's test error is ≈ {value}")


def noise_at_end(*, literal: bool = False) -> Law:
    r"""Multi-modal noise overlap at the end of training: :math:`\ge C = 1` (finding) or the slide's literal
    :math:`\approx 0` (``literal=True``, the control).

    >>> noise_at_end().status, noise_at_end(literal=True).relation
    ('finding', 'approx')
    """
    if literal:
        return Law(name="multi-modal noise (literal)", lhs=_NOISE_END, relation="approx", value=sp.Integer(0),
                   conditions=(r"\text{multi-modal}", _REGIME), source=HUANG, hypotheses=hypotheses("multi"),
                   hypotheses_reading=_READING,
                   words="multi-modal: ⟨w_r, ξ_i⟩ ≈ 0 (the statement read literally, at the end of training)")
    return Law(name="multi-modal noise at convergence", lhs=_NOISE_END, relation="geq", value=sp.Integer(1),
               conditions=(r"\text{multi-modal}", _REGIME, r"\tilde\sigma_\xi = \sigma_\xi", r"t \gg T"),
               status="finding", source=THIS_PROJECT, hypotheses=hypotheses("multi"), hypotheses_reading=_READING,
               words="multi-modal: at the end of training the noise is memorised too (Ξ ≥ C = 1)")


def race_ratio(setting: str) -> Law:
    r"""Ratio of the early growth rates of the signal and the noise overlaps (module docstring).

    >>> race_ratio("multi").rhs_latex()
    '\\frac{C_{\\mu} \\mathrm{SNR}^{2} n}{4}'
    """
    value = _n * _snr**2 / 4 if setting == "single" else _c_mu * _n * _snr**2 / 4
    return Law(name=f"race ratio ({setting})", lhs=r"\rho", relation="eq", value=value,
               conditions=(rf"\text{{{setting}-modal}}", r"p_{ij} = 1/n"), status="derived", source=HUANG,
               symbol_latex={"SNR": r"\mathrm{SNR}", "C_mu": r"C_{\mu}"},
               hypotheses_reading="derived here for the early phase (all similarities << tau); no condition of the "
                                  "source is used",
               words=f"{setting}-modal: signal/noise growth-rate ratio "
                     f"ρ = {'C_μ ' if setting == 'multi' else ''}n SNR²/4")


def contrastive_laws() -> list[Law]:
    """Every law of the system."""
    return [signal_at_stop("single"), signal_at_stop("multi"), probe_error("single"), probe_error("multi"),
            noise_at_end(), signal_at_stop("multi", status="finding", c_mu=2.0), race_ratio("single"),
            race_ratio("multi")]
