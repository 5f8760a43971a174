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

Ladder (``test_unseen_risk_ladder``): the unseen-task risk at each :math:`K` (small scale, 12 seeds, :math:`k = 4`)
against :math:`\max(0, 1 - K/k)`: :math:`K = 1`: 0.742 [0.729, 0.755] (law 0.75), 2: 0.500 [0.491, 0.508] (0.5),
8: 0.102 [0.052, 0.158] (0), 16: 0.059 [0.048, 0.070] (0). Below :math:`k` the law holds to 0.01; above it the risk
sits at the finite-training floor, which falls from :math:`K = 8` to 16 (towards Kim and Suzuki's
:math:`K \to \infty` limit 0). The trend of the deviation from the law over all four rungs is +0.061 per decade
[0.049, 0.074] (:func:`flt_theory.compare.ladder_trend`): not shrinking over :math:`K = 1..16`, because the
floor only appears at :math:`K \ge k`; the shrinking of the floor itself needs the third rung of the paper scale
(:math:`K = 8, 16, 32`).
"""

from flt_theory.compare import ladder_trend
from flt_theory.systems import assert_claim, get_claim, measure
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
    rows = concept_rows(concepts=2, dim=8, length=4, sigma=0.0, steps=40, batch=16, n_test=10, seeds=[0, 1],
                        device="cpu")
    for row in rows:
        assert row["d_aa_k"] < 1e-12 < 1e-3 < row["d_bb_k"]


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)


def test_unseen_risk_ladder():
    """The unseen-task risk at each K against max(0, 1 - K/k); the trend of its deviation from the law along K."""
    claim = get_claim("in-context/unseen-task-risk")
    rungs = claim.ladder(measure(claim, "small"))
    deviation = [{**r, "estimate": r["estimate"] - r["predicted"], "ci": [c - r["predicted"] for c in r["ci"]]}
                 for r in rungs]
    trend = ladder_trend(deviation, size="K", literal=0.0)
    print([(r["size"]["K"], round(r["estimate"], 3), [round(c, 3) for c in r["ci"]], r["predicted"]) for r in rungs],
          {k: trend[k] for k in ("slope_per_decade", "slope_ci", "shrinking", "persisting")})
    assert len(rungs) >= 2 and all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in rungs)
    assert [r["predicted"] for r in rungs] == [unseen_risk().number(K=r["size"]["K"], k=4) for r in rungs]
