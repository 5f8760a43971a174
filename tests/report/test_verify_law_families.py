"""``flt verify --system``: one true and one false law per family, restated from the registered claims.

Each true law is a registered claim's law written in the ``--law`` grammar on a small grid (``--over``/``--fix``, few
seeds); the false law is its registered wrong law or an exponent moved, measured on the same grid (the second run
reuses the store). The giant-step family is covered in ``test_verify_law.py`` (norm law, its level set, relations)
and lazy/rich by the guide's example there; the heavier families are marked slow.
"""

import pytest

from flt_theory.laws_check.verify import verify_law

# (system, true law, false law, over, fix, seeds): the claim each restates is named in the comment
CHEAP = [
    # virtual-covariance/residual-order-summed: ||R_l(gamma)||_F ≍ gamma^2 (one GD step, summed covariance)
    ("virtual-covariance", "residual_l1 ~ gamma**2", "residual_l1 ~ gamma", {"gamma": [0.001, 0.01, 0.1]}, {}, 4),
    # good-sets/initial-sizes: E|S_pot^0| = m erfc(sqrt(log d)), linear in the width m
    ("good-sets", "pot ~ m", "pot ~ m**(1/2)", {"m": [4096, 8192, 16384]}, {}, 4),  # 3 rungs: a limit needs them
]
SLOW = [
    # diffusion/balanced-features: ratio ≍ SNR^2 n / 2, SNR ∝ mu_norm at fixed d
    ("diffusion", "ratio ~ mu_norm**2", "ratio ~ mu_norm", {"mu_norm": [0.05, 0.1, 0.2]}, {}, 4),
    # contrastive/multi-modal-memorises-noise-at-convergence: Xi_end >= 1 (its wrong law: the reverse)
    ("contrastive", "noise_end >= 1", "noise_end <= 1", {"n": [8, 16]}, {"mode": "multi", "d": 500}, 4),
    # in-context/unseen-task-risk: R_new(K) ≈ max(0, 1 - K/k) = 3/4 at K = 1 task, k = 4 (width does not enter)
    ("in-context", "risk_new = 0.75", "risk_new = 0.5", {"width": [16, 32]}, {}, 4),
    # one-step-ba/no-gain-small-psi: at psi = 2 the risk stays above the random-feature bound (its wrong law: below)
    ("one-step-ba", "risk >= 0.0274153", "risk <= 0.0274153", {"eta_tilde": [1.0, 4.0]}, {"d": 8, "psi": 2.0}, 8),
    # signal-noise-optimizers/sign-gd-noise-rate: Delta<w, zeta> = sqrt(2/pi) eta s sigma_xi, linear in eta up to a
    # drift of 3e-4 in the exponent (a stated slack of 0.01, far below the mutants' 1/2)
    ("signal-noise-optimizers", "noise_rate ~ eta", "noise_rate ~ eta**2", {"eta": [0.005, 0.01, 0.02]},
     {"optimizer": "sign-gd", "max_steps": 80}, 3, {"tolerance": 0.01}),
    # signal-noise/relu-growth-slopes: the early-phase noise slope eta sigma_xi^2 (d-1)/(2nm) is linear in the step
    # (eta ∝ eta_scale; measured 0.997 [0.996, 0.998] at width 5..20: within the claim's 2%, a slack of 0.01)
    ("signal-noise", "rho_slope ~ eta_scale", "rho_slope ~ eta_scale**(1/2)", {"eta_scale": [0.001, 0.002, 0.004]},
     {}, 4,
     {"tolerance": 0.01}),
    # attention/boundary: the benign/harmful boundary (test loss = log(2)/2) is SNR* ∝ n^(-1/2) (SNR = mu_norm here);
    # measured -0.498 [-0.502, -0.495] at n = 16, 64 by one fit (its wrong law: n^(-1/4)); a limit needs 3 rungs
    ("attention", "mu_norm* ~ n**(-1/2)", "mu_norm* ~ n**(-1/4)", {"n": [16, 32, 64]}, {}, 4,
     {"where": "test_loss = 0.34657"}),
    # dictionary/gamma: the data's gamma is 1/8 (p0 = 1/4, k = 4), whatever the network's width
    ("dictionary", "gamma_hat = 0.125", "gamma_hat = 0.25", {"width": [64, 128]}, {}, 4),
]


def _verdicts(system, true, false, over, fix, seeds, store, options):
    kept = verify_law(system, true, over=over, fix=fix, seeds=seeds, store=store, **options)
    wrong = verify_law(system, false, over=over, fix=fix, seeds=seeds, store=store, **options)
    def measured(result):
        return [{k: v for k, v in row.items() if k != "law"} for row in result["values"]]

    assert measured(wrong) == measured(kept) and wrong["reused"] > 0  # the same measurement, read from the store
    return kept, wrong


@pytest.mark.parametrize("case", CHEAP, ids=[c[0] for c in CHEAP])
def test_a_restated_claim_passes_and_its_wrong_law_fails(case, tmp_path):
    system, true, false, over, fix, seeds, *options = case
    kept, wrong = _verdicts(system, true, false, over, fix, seeds, tmp_path / "runs.sqlite", *(options or [{}]))
    assert kept["verdict"] == "pass", kept["reason"]
    assert all(c["rejected"] for c in kept["controls"] if c["goal"])
    assert wrong["verdict"] == "fail", wrong["reason"]


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[c[0] for c in SLOW])
def test_a_restated_claim_passes_and_its_wrong_law_fails_slow(case, tmp_path):
    test_a_restated_claim_passes_and_its_wrong_law_fails(case, tmp_path)
