r"""Laws of one large gradient step vs random features (sympy only).

Source: Ba, Erdogdu, Suzuki, Wang, Wu, Yang 2022, "High-dimensional asymptotics of feature learning: how
one gradient step improves the representation", arXiv 2205.01445 (as presented in Han & Huang's AJCAI 2025
feature-learning tutorial, with :math:`\sigma = \sigma^* = \tanh`).

Hermite convention: probabilists' :math:`\mathrm{He}_j`,
:math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}`,
:math:`\mu_j(g) = \mathbb E_{z\sim\mathcal N(0,1)}[g(z)\mathrm{He}_j(z)]`. A single-index target
:math:`f^*(x) = \sigma^*(\langle x, \beta^*\rangle)`, :math:`\|\beta^*\| = 1`, splits as
:math:`f^* = \mu^*_0 + \mu^*_1\langle x, \beta^*\rangle + P_{>1} f^*` with

.. math:: \|P_{>1} f^*\|_{L^2}^2 = \mathbb E[\sigma^*(z)^2] - (\mu^*_0)^2 - (\mu^*_1)^2

(Parseval). :func:`p_gt1_norm2` computes it from :func:`~flt_theory.symbolic.hermite.hermite_coefficients`
of :math:`\sigma^*` and of :math:`(\sigma^*)^2` (degree 0 gives :math:`\mathbb E[(\sigma^*)^2]`): exact (a sympy
number) for polynomial and piecewise-polynomial links (``relu``, ``He3``, ``z + He2(z)``), a float from
Gauss–Hermite quadrature otherwise (``tanh``: :math:`\approx 0.027415`, accurate to about :math:`10^{-15}`).

Laws (:func:`one_step_laws`):

* **random-feature lower bound** [theorem]: with :math:`W` at initialisation,
  :math:`\inf_\lambda \mathcal R(\hat f_\lambda) \ge \|P_{>1} f^*\|^2 + o(1)` (:math:`n, d, N \to\infty`
  proportionally).
* **one step beats it** [theorem]: after one step with :math:`\eta = \tilde\eta\sqrt N` the ridge risk is
  strictly below :math:`\|P_{>1} f^*\|^2` — for :math:`\tilde\eta` and :math:`\psi = n/d` large enough; the
  regime is part of the statement and is what this system measures.
* **spike alignment** [derived here]: the gradient is close to rank one,
  :math:`\nabla_W \approx \frac{\mu_1(\sigma)}{\sqrt N}\,v\,a^\top`, :math:`v = \frac1n\sum_k y_k x_k`. By Stein's lemma
  :math:`\mathbb E v = \mu^*_1\beta^*`; the part of :math:`v` orthogonal to :math:`\beta^*` is a sum of :math:`n`
  independent terms :math:`y_k x_k^\perp` with :math:`x_k^\perp` independent of :math:`y_k`, so
  :math:`\|v^\perp\|^2 \to \frac{d}{n}\,\mathbb E[y^2] = \mathbb E[y^2]/\psi` and

  .. math:: |\langle u_1, \beta^*\rangle|^2 \;\to\;
            \frac{\psi\,(\mu^*_1)^2}{\psi\,(\mu^*_1)^2 + \mathbb E[(\sigma^*)^2] + \sigma_\varepsilon^2},

  when :math:`\mu_1(\sigma) \ne 0` (the bulk of the gradient has operator norm :math:`O(N^{-1/2})` relative to
  the spike). The alignment depends on the student only through :math:`\mu_1(\sigma) \neq 0`; a target with
  :math:`\mu^*_1 = 0` (e.g. :math:`\mathrm{He}_2`) gives no spike along :math:`\beta^*` (alignment
  :math:`O(d^{-1/2})`) and no improvement.

Hypotheses (:data:`HYPOTHESES`). What we established, and how: the abstract of arXiv 2205.01445 states the setting
— the proportional limit :math:`n, d, N \to \infty` at the same rate, :math:`W` and :math:`a` at random
initialisation, one step on :math:`W`, ridge on the conjugate kernel — and the two step-size scalings: small
:math:`\eta` (Gaussian equivalence: better than random features, not better than the best linear model) and
"sufficiently large" :math:`\eta` (:math:`\eta = \Theta(\sqrt N)`, "for certain :math:`f^*`": beyond the linear
regime, below the random-feature bound). The random-feature bound :math:`\|P_{>1}f^*\|^2 + o(1)` is the known
proportional-regime limit of random-features ridge that the paper compares with. The theorem numbers and the
exact constants of "sufficiently large" were not readable here (only the abstract and a tutorial's statement with
:math:`\sigma = \sigma^* = \tanh` were), so each hypothesis names its statement by content. Readings: the
proportional limit as :math:`d \ge 64` at fixed :math:`\psi` and :math:`N = d`; the large step
:math:`\eta = \Theta(\sqrt N)` as any fixed :math:`\tilde\eta > 0`; "sufficiently large" :math:`\psi = n/d`
as :math:`\psi \ge 8` — this project's own reading, from where the gain first appears in its sweeps (ψ ≈ 8 at
:math:`d = 256`, derivation ``derive_one_step_ba``), not a constant of the source.
"""

from __future__ import annotations

import sympy as sp

from ...symbolic.hermite import hermite_coefficients
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source
from ...symbolic.target import parse_link

__all__ = [
    "BA",
    "HYPOTHESES",
    "LARGE_PSI",
    "PSI",
    "NOISE",
    "hermite_parts",
    "one_step_laws",
    "p_gt1_norm2",
    "spike_alignment_law",
    "step_size_relation",
]

BA = Source(
    authors="Ba, Erdogdu, Suzuki, Wang, Wu, Yang", year=2022,
    title="High-dimensional asymptotics of feature learning: how one gradient step improves the representation",
    arxiv="2205.01445",
)

#: :math:`\psi = n/d` and the label-noise level :math:`\sigma_\varepsilon`.
PSI = sp.Symbol("psi", positive=True)
NOISE = sp.Symbol("sigma_epsilon", positive=True)  # 0 is substituted for noise-free labels
_ETA_GS, _P = sp.symbols("eta_GS p", positive=True)
_D, _ETA_TILDE = sp.Symbol("d", positive=True), sp.Symbol("eta_tilde", nonnegative=True)

#: "ψ = n/d sufficiently large" read as ψ ≥ LARGE_PSI (module docstring: this project's reading).
LARGE_PSI = 8

#: The hypotheses of the source's statements, by name (module docstring).
HYPOTHESES: dict[str, Hypothesis] = {
    "proportional": Hypothesis(text="proportional limit n, d, N → ∞ with n/d = ψ, N = d (read as d ≥ 64)",
                               condition=_D >= 64, where="setting of every result (proportional asymptotic limit)"),
    "random features": Hypothesis(text="first layer at initialisation (η̃ = 0)", condition=sp.Eq(_ETA_TILDE, 0),
                                  where="random-features baseline (W fixed at initialisation)"),
    "large step": Hypothesis(text="large step η = Θ(√N): η̃ = η/√N a fixed positive constant", condition=_ETA_TILDE > 0,
                             where="large-step result (η = Θ(√N), 'sufficiently large η')"),
    "large psi": Hypothesis(text=f"ψ = n/d sufficiently large (read as ψ ≥ {LARGE_PSI})", condition=PSI >= LARGE_PSI,
                            where="large-step result ('sufficiently large' sample ratio)"),
}
_READING = ("the proportional limit read as d ≥ 64 at fixed ψ and N = d; o(1) read as the 95% interval over seeds "
            "(a bound fails only where the data exclude it); constants 1")


def _value(coeffs, j: int) -> sp.Expr:
    exact = coeffs.exact[j]
    return exact if exact is not None else sp.Float(coeffs.values[j])


def hermite_parts(link: str | sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r""":math:`(\mu^*_0, \mu^*_1, \mathbb E[(\sigma^*)^2])` of the link, exact where the symbolic layer is.

    >>> hermite_parts("relu")
    (sqrt(2)/(2*sqrt(pi)), 1/2, 1/2)
    """
    sigma = parse_link(link)
    coeffs = hermite_coefficients(sigma, 1)
    square = hermite_coefficients(sigma**2, 0)
    return _value(coeffs, 0), _value(coeffs, 1), _value(square, 0)


def p_gt1_norm2(link: str | sp.Expr) -> sp.Expr:
    r""":math:`\|P_{>1} f^*\|^2 = \mathbb E[(\sigma^*)^2] - (\mu^*_0)^2 - (\mu^*_1)^2` (module docstring).

    >>> p_gt1_norm2("relu"), p_gt1_norm2("z + He2(z)"), p_gt1_norm2("He3(z)")
    (1/4 - 1/(2*pi), 2, 6)
    >>> round(float(p_gt1_norm2("tanh")), 6)
    0.027415
    """
    mu0, mu1, second = hermite_parts(link)
    value = second - mu0**2 - mu1**2
    return sp.expand(sp.simplify(value)) if not value.has(sp.Float) else sp.Float(value)


def spike_alignment_law(link: str | sp.Expr, activation: str | sp.Expr = "tanh") -> sp.Expr:
    r"""Predicted :math:`|\langle u_1, \beta^*\rangle|` as a function of :data:`PSI` and :data:`NOISE`.

    Zero when :math:`\mu_1(\sigma) = 0` or :math:`\mu^*_1 = 0` (no spike along :math:`\beta^*`).

    >>> spike_alignment_law("relu", "relu").subs({PSI: 4, NOISE: 0})
    sqrt(6)/3
    """
    _, mu1, second = hermite_parts(link)
    student_mu1 = _value(hermite_coefficients(parse_link(activation), 1), 1)
    if _is_zero(student_mu1) or _is_zero(mu1):
        return sp.Integer(0)
    return sp.sqrt(PSI * mu1**2 / (PSI * mu1**2 + second + NOISE**2))


def step_size_relation() -> sp.Eq:
    r"""The dictionary to the giant-step system: :math:`\tilde\eta = \eta_{\rm GS}/p` (module ``model``).

    >>> step_size_relation()
    Eq(eta_tilde, eta_GS/p)
    """
    return sp.Eq(sp.Symbol("eta_tilde", positive=True), _ETA_GS / _P)


def _is_zero(value: sp.Expr) -> bool:
    return bool(value.is_zero) or (value.has(sp.Float) and abs(float(value)) < 1e-10)


def one_step_laws(link: str | sp.Expr = "tanh", activation: str | sp.Expr = "tanh") -> dict[str, Law]:
    r"""The system's laws for target link ``link`` and student ``activation`` (module docstring).

    >>> laws = one_step_laws("relu", "relu")
    >>> laws["random-feature lower bound"].latex()  # doctest: +NORMALIZE_WHITESPACE
    '\\inf_{\\lambda} \\mathcal{R}(\\hat f_{\\lambda}) \\geq \\frac{1}{4} - \\frac{1}{2 \\pi} \\quad (\\tilde\\eta =
    0,\\ n, d, N \\to \\infty,\\ n/d = \\psi)'
    >>> round(laws["one step beats random features"].number(), 6)
    0.090845
    """
    bound = p_gt1_norm2(link)
    sigma_star = sp.latex(parse_link(link))
    limit = r"n, d, N \to \infty"
    return {
        "random-feature lower bound": Law(
            name="random-feature lower bound", lhs=r"\inf_{\lambda} \mathcal{R}(\hat f_{\lambda})", relation="geq",
            value=bound, conditions=(r"\tilde\eta = 0", limit, r"n/d = \psi"), source=BA,
            words=f"random features (W at init): ridge risk ≥ ‖P_>1 f*‖² = {float(bound):.4g} + o(1)",
            hypotheses=(HYPOTHESES["proportional"], HYPOTHESES["random features"]), hypotheses_reading=_READING,
        ),
        "one step beats random features": Law(
            name="one step beats random features", lhs=r"\mathcal{R}(\hat f_{\lambda})", relation="leq", value=bound,
            conditions=(r"\eta = \tilde\eta\sqrt{N}", r"\tilde\eta,\ \psi \text{ large enough}", limit), source=BA,
            words=f"after one step η = η̃√N: ridge risk < ‖P_>1 f*‖² = {float(bound):.4g} (η̃, ψ large enough)",
            regime="σ* = " + str(parse_link(link)) + ", N = d",
            hypotheses=(HYPOTHESES["proportional"], HYPOTHESES["large step"], HYPOTHESES["large psi"]),
            hypotheses_reading=_READING + f"; η = Θ(√N) as any η̃ > 0; 'ψ large enough' as ψ ≥ {LARGE_PSI} (this "
                               "project's reading: the source gives no constant)",
        ),
        "p_gt1 norm": Law(
            name="p_gt1 norm", lhs=r"\|P_{>1} f^*\|_{L^2}^2", relation="eq", value=bound,
            conditions=(rf"\sigma^*(z) = {sigma_star}",), status="derived", source=BA,
            words=f"‖P_>1 f*‖² = E[σ*²] − μ0*² − μ1*² = {float(bound):.6g}",
            hypotheses_reading="an exact identity (Parseval): true at every size, no condition",
        ),
        "spike alignment": Law(
            name="spike alignment", lhs=r"|\langle u_1(\nabla_W), \beta^*\rangle|", relation="to",
            value=spike_alignment_law(link, activation), conditions=(r"\mu_1(\sigma) \neq 0", limit, r"n/d = \psi"),
            status="derived", source=BA,
            words="alignment of the step's spike with β*: √(ψμ1*² / (ψμ1*² + E[σ*²] + σ_ε²))",
            hypotheses=(HYPOTHESES["proportional"],),
            hypotheses_reading="derived here (a limit d → ∞ at fixed ψ, module docstring); d ≥ 64 read as large",
        ),
    }
