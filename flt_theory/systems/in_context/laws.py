r"""Laws of the in-context system (sympy only).

(a) Bu, Huang, Han, Nitanda, Suzuki, Zhang, Wong 2024, "Provably transformers harness multi-concept word semantics
for efficient in-context learning", arXiv 2411.02199 (model in :mod:`.model`). Upon convergence:
:math:`W_Q, W_K` learn the semantics, not the concept (:math:`a_k^\top W a_k \approx 0`,
:math:`b_k^\top W b_k = \Omega(1)`); :math:`w_O^y` learns both (:math:`\langle w_O^y, c_k\rangle,
\langle w_O^y, d_k\rangle = \Omega(1)`); prompts that recombine concepts and semantics are answered.

Why the concept is not learned (derived here). With scores :math:`s_\ell = (W_Kx_\ell)^\top(W_Qx_q)` and
:math:`g_\ell = \partial L/\partial s_\ell`, softmax invariance gives :math:`\sum_\ell g_\ell = 0`, so in
:math:`u = \sum_\ell g_\ell x_\ell = \sum_\ell g_\ell(y_\ell b_k + \xi_\ell)` the shared concept :math:`a_k`
cancels exactly, and

.. math::
    \nabla_{W_K}L = (W_Qx_q)\,u^\top,\qquad \nabla_{W_Q}L = W_K u\, x_q^\top .

Hence :math:`a_k^\top\nabla_{W_K}L\,a_k = (a_k^\top W_Qx_q)(u^\top a_k)` is pure noise (:math:`u^\top a_k =
\sum_\ell g_\ell\,\xi_\ell^\top a_k`), while :math:`a_k^\top\nabla_{W_Q}L\,a_k = (a_k^\top W_K u)` moves only
through the cross entry :math:`a_k^\top W_K b_k` — a random initial entry of order :math:`1/\sqrt D`, whose
drive has mean zero over :math:`y_q` — against :math:`b_k^\top W_K u` for the semantic entry. The comparison
reads the ratio of the changes from initialisation, concept over semantics, :math:`\to 0`.

(b) Kim, Suzuki 2024, "Transformers learn nonlinear features in context: nonconvex mean-field dynamics on the
attention landscape", arXiv 2402.01258: pretraining drives the ICL risk to 0, so that unseen tasks
:math:`\beta_{\rm new}` are predicted in context, :math:`\hat y_q = \beta_{\rm new}^\top f^\circ(x_q)`. The
statement is for the expected risk over task distributions (:math:`K \to \infty`). With :math:`K` pretraining
tasks the loss sees the errors only along :math:`\mathrm{span}(\beta_1..\beta_K)`; a network that learns exactly
those task functions and nothing orthogonal to them has, on isotropic unseen tasks, the relative risk

.. math::
    R_{\rm new}(K) = \max\Big(0,\ 1 - \frac Kk\Big)

(the unexplained fraction :math:`(k-K)/k` of :math:`\mathbb E\|\beta\|^2`), decreasing to 0 at :math:`K = k`
features (derived here; checked at :math:`K < k` and at :math:`K \ge 2k` — near :math:`K = k` the weakest
eigen-direction of :math:`\frac1K\sum_i\beta_i\beta_i^\top` is learned last and the finite training leaves a
visible risk, see :mod:`.declaration`).

Hypotheses (how established). The condition paragraphs of Bu et al. 2024 could not be retrieved here (the searchable
copies gave abstracts and summaries). Encoded for its three statements: the setting of its data model, an
orthonormal dictionary of concept and semantic vectors for the :math:`K` concepts in :math:`\mathbb R^D`
(:math:`D \ge 2K`), and low token noise, :math:`\sigma\sqrt D \le 1` (noise norm at most the unit norm of a
dictionary vector), both read with constant 1. Its step-size, width and prompt-length conditions are not encoded
(not retrieved). Kim and Suzuki's statement is for :math:`K \to \infty`; the finite-:math:`K` risk law is derived
here and carries no source hypothesis, only the conditions its derivation uses (:data:`UNSEEN_HYPOTHESES`): the
:math:`k` orthonormal features lie in :math:`\mathbb R^d` (:math:`k \le d`); the feature map can learn exactly the
task functions (width :math:`m \ge k`, constant 1); and :math:`K` stays away from the kink, :math:`K < k` or
:math:`K \ge 2k` (near :math:`K = k` a finite run does not learn the weakest direction of the task span, so the
network is not the one the derivation assumes; :mod:`.declaration`).
"""

from __future__ import annotations

from typing import TypedDict

import sympy as sp

from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import Law, Source

__all__ = ["BU", "KIM_SUZUKI", "UNSEEN_HYPOTHESES", "concept_ratio", "in_context_laws", "ood_error",
           "output_learns_both", "unseen_risk"]

BU = Source(authors="Bu, Huang, Han, Nitanda, Suzuki, Zhang, Wong", year=2024,
            title="Provably transformers harness multi-concept word semantics for efficient in-context learning",
            arxiv="2411.02199")
KIM_SUZUKI = Source(authors="Kim, Suzuki", year=2024, arxiv="2402.01258",
                    title="Transformers learn nonlinear features in context: nonconvex mean-field dynamics on the "
                          "attention landscape")

K_TASKS, K_FEATURES = sp.Symbol("K", positive=True), sp.Symbol("k", positive=True)
_d, _m = sp.Symbol("d", positive=True), sp.Symbol("m", positive=True)
_UNSEEN_WHERE = "derived here, flt_theory.systems.in_context.laws module docstring, (b) finite-K risk"
#: What the finite-K derivation of :func:`unseen_risk` uses (module docstring (b)), read at an ``in-context/features``
#: point by the declaration.
UNSEEN_HYPOTHESES = (
    Hypothesis(text="the k features f°_j(x) = ReLU(u_j^T x) - c, u_1..u_k orthonormal, lie in R^d: k <= d",
               condition=K_FEATURES <= _d, where=_UNSEEN_WHERE + " (setting: orthonormal u_1..u_k)"),
    Hypothesis(text="the feature map can learn exactly the task functions: width m >= k (constant 1)",
               condition=_m >= K_FEATURES, where=_UNSEEN_WHERE + " (a network that learns exactly those task "
                                                                  "functions)"),
    Hypothesis(text="the span of the K tasks learned exactly, read from the measurement as K away from the kink "
                    "K = k: K < k or K >= 2k (not a condition of the derivation's algebra: near K = k the weakest "
                    "eigen-direction of (1/K) sum_i beta_i beta_i^T is learned last, and a finite run measured a "
                    "residual risk of 0.29 at K = k)",
               condition=sp.Or(K_TASKS < K_FEATURES, K_TASKS >= 2 * K_FEATURES),
               where=_UNSEEN_WHERE + " (its assumption that the span of the K tasks is learned exactly, read where "
                                     "measured runs meet it: flt_theory.systems.in_context.declaration module "
                                     "docstring, Regimes (b))"),
)
_CONVERGED = r"\text{at convergence}"
_D, _SIGMA = sp.Symbol("D", positive=True), sp.Symbol("sigma", positive=True)
#: Bu et al.'s setting as checkable conditions (module docstring); read at a point by the declaration.
BU_HYPOTHESES = (
    Hypothesis(text="orthonormal dictionary: concept and semantic vectors of K concepts fit in R^D, D >= 2K",
               condition=_D >= 2 * K_TASKS, where="Bu et al. 2024, data model (Section 3) of Theorems 1-3"),
    Hypothesis(text="low token noise: sigma sqrt(D) <= 1", condition=_SIGMA * sp.sqrt(_D) <= 1,
               where="Bu et al. 2024, data model (Section 3): noise small against the unit dictionary vectors"),
)


class _HypothesesKeywords(TypedDict):
    """The ``hypotheses`` and ``hypotheses_reading`` keywords of :class:`~flt_theory.symbolic.law.Law`, together."""

    hypotheses: tuple[Hypothesis, ...]
    hypotheses_reading: str


_BU: _HypothesesKeywords = {"hypotheses": BU_HYPOTHESES, "hypotheses_reading": "constants 1; the source's step-size, "
                            "width and prompt-length conditions are not encoded (not retrieved, module docstring)"}


def concept_ratio(value: sp.Expr = sp.Integer(0)) -> Law:
    r"""Change of the concept entries of :math:`W_Q, W_K` over the change of the semantic entries.

    >>> concept_ratio().number(), concept_ratio().relation
    (0.0, 'approx')
    """
    return Law(name="attention learns semantics, not concept",
               lhs=r"\frac{\sum_{W \in \{W_Q, W_K\}} |a_k^\top \Delta W a_k|}"
                   r"{\sum_{W \in \{W_Q, W_K\}} |b_k^\top \Delta W b_k|}",
               relation="approx", value=value, conditions=(_CONVERGED,), source=BU, **_BU,
               words="W_Q, W_K learn the semantics b_k, not the concept a_k: concept/semantic change ≈ 0")


def output_learns_both(relation: str = "geq") -> Law:
    r"""Both :math:`|\langle \Delta w_{O}, c_k\rangle|` and :math:`|\langle \Delta w_{O}, d_k\rangle|` are
    :math:`\Omega(1)`: their minimum is :math:`\ge 0.1` (initial entries :math:`\sim 1/\sqrt D`).

    >>> output_learns_both().number()
    0.1
    """
    if relation == "approx":
        return Law(name="output learns one of concept and semantics", lhs=r"\min(|\langle\Delta w_O, c_k\rangle|, "
                   r"|\langle\Delta w_O, d_k\rangle|)", relation="approx", value=sp.Integer(0),
                   conditions=(_CONVERGED,), source=BU,
                   words="w_O learns only one of concept c_k and semantics d_k (the other change ≈ 0)")
    return Law(name="output learns concept and semantics",
               lhs=r"\min(|\langle\Delta w_O, c_k\rangle|, |\langle\Delta w_O, d_k\rangle|)", relation=relation,
               value=sp.Rational(1, 10), conditions=(_CONVERGED,), source=BU, **_BU,
               words="w_O^y learns both the concept c_k and the semantics d_k (both changes ≥ 0.1)")


def ood_error(value: sp.Expr = sp.Integer(0)) -> Law:
    r"""Test error on prompts recombining concept :math:`k` with the semantics of :math:`k' \ne k`.

    >>> ood_error().number()
    0.0
    """
    return Law(name="out-of-distribution prompts", lhs=r"\mathrm{err}(a_k + y\,b_{k'},\ c_k + y\,d_{k'})",
               relation="approx", value=value, conditions=(_CONVERGED, r"k' \neq k"), status="theorem", source=BU,
               **_BU,
               words="prompts with unseen concept–semantics combinations are answered (error ≈ 0)")


def unseen_risk(value: sp.Expr | None = None) -> Law:
    r"""Relative ICL risk on unseen tasks after pretraining on :math:`K` tasks with :math:`k` features.

    >>> law = unseen_risk()
    >>> law.latex() == (r"R_{\mathrm{new}}(K) \approx \max\left(0, - \frac{K}{k} + 1\right) \quad "
    ...                 r"(\text{$K$ pretraining tasks, $k$ features})")
    True
    >>> law.number(K=2, k=4), law.number(K=8, k=4)
    (0.5, 0.0)
    """
    value = sp.Max(0, 1 - K_TASKS / K_FEATURES) if value is None else value
    return Law(name="unseen-task ICL risk", lhs=r"R_{\mathrm{new}}(K)", relation="approx", value=value,
               conditions=(r"\text{$K$ pretraining tasks, $k$ features}",), status="derived", source=KIM_SUZUKI,
               hypotheses=UNSEEN_HYPOTHESES,
               hypotheses_reading="derived here for finite K (module docstring): the conditions its derivation uses, "
                                  "exact integer conditions on K, k, d and the width m (m >= k with constant 1); the "
                                  "source's statement is for K -> infinity, and no condition of it is used",
               words="ICL risk on unseen tasks ≈ max(0, 1 − K/k): decreasing in the number K of pretraining tasks")


def in_context_laws() -> list[Law]:
    """Every law of the system."""
    return [concept_ratio(), output_learns_both(), ood_error(), unseen_risk()]
