r"""In-context learning: concepts and semantics (Bu et al. 2024, arXiv 2411.02199) and nonlinear features in
context (Kim & Suzuki 2024, arXiv 2402.01258).

Claims. (a) At convergence the attention matrices learn the semantics :math:`b_k`, not the concept :math:`a_k`;
the output vector learns both :math:`c_k` and :math:`d_k`; prompts recombining concepts and semantics are
answered. (b) The ICL risk on unseen tasks decreases with the number :math:`K` of pretraining tasks.

Derivation. (a) Softmax invariance: :math:`\sum_\ell \partial L/\partial s_\ell = 0`, so the shared concept
cancels from :math:`u = \sum_\ell g_\ell x_\ell` and :math:`\nabla_{W_K}L = (W_Qx_q)u^\top` has no
:math:`a_k a_k^\top` component without noise — checked exactly below (:math:`\sigma = 0`). (b) The training
loss sees the errors along :math:`\mathrm{span}(\beta_1..\beta_K)` only; a network learning exactly those task
functions leaves the fraction :math:`\max(0, 1 - K/k)` of an isotropic unseen task unexplained.

Negative controls: the concept learned as much as the semantics; only one of concept and semantics in the
output; chance on recombined prompts; no decrease of the risk with :math:`K`.
"""

from flt_theory.systems import assert_claim
from flt_theory.systems.in_context.laws import unseen_risk
from flt_theory.systems.in_context.model import concept_rows

CLAIMS = [
    "in-context/attention-semantics",
    "in-context/output-concept-semantics",
    "in-context/out-of-distribution",
    "in-context/unseen-task-risk",
]


def test_prediction():
    law = unseen_risk()
    assert [law.number(K=K, k=4) for K in (1, 2, 4, 8)] == [0.75, 0.5, 0.0, 0.0]


def test_key_never_sees_the_concept_without_noise():
    """σ = 0: a_k^T ΔW_K a_k = 0 to rounding after training, while b_k^T ΔW_K b_k moves."""
    rows = concept_rows(concepts=2, dim=8, length=4, sigma=0.0, steps=40, batch=16, n_test=10, seeds=[0, 1], device="cpu")
    for row in rows:
        assert row["d_aa_k"] < 1e-12 < 1e-3 < row["d_bb_k"]


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
