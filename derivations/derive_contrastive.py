r"""Single- vs multi-modal contrastive learning (Huang, Han, Chen, Cao, Xu, Suzuki 2024, arXiv 2411.02837).

Claim. At :math:`n\,\mathrm{SNR}^2 = \Theta(1)`, InfoNCE training of ReLU embeddings memorises the noise in the
single-modal setting (:math:`\langle w_r, \mu\rangle \approx 0`, :math:`\langle w_r, \xi_i\rangle \ge C`) and
learns the signal in the multi-modal one when the second modality's signal is stronger
(:math:`\|\tilde\mu\| = C_\mu\|\mu\|`); the downstream linear probe follows.

Derivation (:mod:`flt_theory.systems.contrastive.laws`). In the early phase every :math:`p_{ij} = 1/n` and the
overlaps grow exponentially; the ratio of the signal's rate to the noise's is :math:`n\mathrm{SNR}^2/4`
(single) and :math:`C_\mu n\mathrm{SNR}^2/4` (multi). At :math:`n\mathrm{SNR}^2 = 1` the single-modal ratio is
1/4 (noise wins), the multi-modal one is 2 at :math:`C_\mu = 8` (signal wins) and 1/2 at :math:`C_\mu = 2`
(noise wins: the finding that :math:`C_\mu > 1` alone is not enough). Only the noise separates two samples of
the same class, so it keeps growing after the signal saturates: at convergence the multi-modal network
memorises the noise too (finding). Measured: the overlaps when the noise first reaches :math:`C = 1`, the probe
error there, and the noise at the end.

Negative controls: each claim against the other setting's outcome, each finding against the literal statement.

Ladders. Both findings are measured at every :math:`n` of a ladder (``small``: 8, 16, 32; ``paper``: 4, 8, 16, 32,
80, 128 for the noise at convergence, and 5, 8, 16, 32, 80, 128, 160 for :math:`C_\mu = 2`, 1.5 decades each: the
bounds are in :mod:`flt_theory.systems.contrastive.declaration`) at :math:`d = \max(500, n^2)`, inside the
high-dimension hypothesis; :func:`test_findings_persist_along_the_ladder` fits the trend of the deviation from the
literal statement (:func:`flt_theory.compare.ladder_trend`): a finding whose deviation shrank with :math:`n` would be
a finite-size effect, not a finding.
"""

import pytest
import sympy as sp

from flt_theory.compare import ladder_trend
from flt_theory.systems import assert_claim, get_system, measure
from flt_theory.systems.contrastive.laws import race_ratio, signal_at_stop

CLAIMS = [
    "contrastive/single-modal-memorises-noise",
    "contrastive/multi-modal-learns-signal",
    "contrastive/probe-single-modal",
    "contrastive/probe-multi-modal",
    "contrastive/multi-modal-memorises-noise-at-convergence",
    "contrastive/multi-modal-needs-large-c-mu",
]


def test_prediction():
    """The race ratios at the measured points: the signal wins only where the ratio exceeds 1."""
    single, multi = race_ratio("single"), race_ratio("multi")
    n, snr = sp.Symbol("n", positive=True), sp.Symbol("SNR", positive=True)
    at = {"n": 32, "SNR": (1 / 32) ** 0.5}  # n SNR^2 = 1
    assert single.value == n * snr**2 / 4
    assert abs(single.number(**at) - 0.25) < 1e-12
    assert abs(multi.number(**at, C_mu=8) - 2.0) < 1e-12 and abs(multi.number(**at, C_mu=2) - 0.5) < 1e-12
    assert signal_at_stop("multi").relation == "geq" and signal_at_stop("single").number() == 0


def test_claim(claim_key, scale):
    assert_claim(claim_key, scale)


@pytest.mark.parametrize("scale", ["small", pytest.param("paper", marks=pytest.mark.slow)])
def test_findings_persist_along_the_ladder(scale):
    """The deviation of each finding from its literal statement does not shrink with n (Γ_T stays below 0.1 and
    Ξ_end above 0 at every rung, with no trend back towards the literal value)."""
    system = get_system("contrastive")
    for name in ("multi-modal-needs-large-c-mu", "multi-modal-memorises-noise-at-convergence"):
        claim = system.claim(name)
        rungs = claim.ladder(measure(claim, scale))  # the session's store: the frame test_claim measured
        assert len(rungs) >= 3 and all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in rungs)
        trend = ladder_trend(rungs, size="n", literal=rungs[0]["literal"])
        print(name, [(r["size"]["n"], round(r["estimate"], 4), [round(v, 4) for v in r["ci"]]) for r in rungs],
              {k: trend[k] for k in ("slope_per_decade", "slope_ci", "shrinking", "persisting")})
        assert not trend["shrinking"] and trend["persisting"], (name, trend)
