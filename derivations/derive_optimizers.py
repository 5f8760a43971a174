r"""Training choices on signal-noise data: Adam / sign-GD vs GD, SAM, label-noise GD.

Claims (system ``signal-noise-optimizers``; laws in :mod:`flt_theory.systems.optimizers.laws`):

* Zou, Cao, Li, Gu 2023 (arXiv 2108.11371), sparse noise with feature noise, ReLU³: Adam and sign-GD reach
  training loss ≤ ε with test error ≥ 1/2 − 1/20, GD reaches it with test error ≤ 0.05. Each claim's negative
  control is the other optimizer's outcome.
* Derived here: sign-GD moves :math:`\langle w_{y_i,r}, \zeta_i\rangle` by exactly :math:`\eta\|\zeta_i\|_1` per step
  (disjoint supports), so its mean rate is :math:`\eta s\sigma_\xi\sqrt{2/\pi}`; the control is the literal
  :math:`\eta s\sigma_\xi`.
* Chen et al. 2023 (arXiv 2310.07269): SAM generalises at ‖μ‖ where GD (ReLU) overfits harmfully.
* Huang et al. 2025: label-noise GD (ReLU²) generalises at an SNR where GD overfits harmfully.
"""

import sympy as sp

from flt_theory.systems import assert_claim
from flt_theory.systems.optimizers import laws

CLAIMS = [
    "signal-noise-optimizers/adam-overfits-noise",
    "signal-noise-optimizers/sign-gd-overfits-noise",
    "signal-noise-optimizers/gd-learns-signal",
    "signal-noise-optimizers/sign-gd-noise-rate",
    "signal-noise-optimizers/sam-below-gd-boundary",
    "signal-noise-optimizers/label-noise-gd-low-snr",
]


def test_prediction():
    eta, s, sx = (laws.SYMBOLS[k] for k in ("eta", "s", "sigma_xi"))
    assert laws.half_normal_mean() == sp.sqrt(2 / sp.pi)
    assert sp.simplify(laws.sign_gd_noise_rate().value - eta * s * sx * sp.sqrt(2 / sp.pi)) == 0
    unit = dict(eta=1, s=1, sigma_xi=1)
    ratio = laws.sign_gd_noise_rate().number(**unit) / laws.sign_gd_noise_rate_literal().number(**unit)
    assert abs(ratio - 0.7978845608) < 1e-9
    assert laws.adam_overfits_law().number() == 0.45 and laws.benign_law().number() == 0.05


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)
