"""Every registered claim states the conditions its law's derivation or source uses, so its points are classified
(``all`` / ``some`` / ``none``, never ``not stated``), and each condition stated for a law derived here can fail: a
point that violates it is classified outside.

The 13 claims below had no hypotheses before (issue 36, item 7); their classification per scale is pinned, outside
points included (``diffusion/balanced-features``: the shared grid's classification-only points at ``||mu|| > 1/2``;
``good-sets/net-beats-linear`` moved to sigma_0 = 0.2, sigma_0 sqrt(d) = 1.13: inside; at 0.15 it was 0.85, outside).
"""

from __future__ import annotations

from typing import Any

import pytest

from flt_theory.runner.registry import get_experiment
from flt_theory.symbolic.hypothesis import failed_hypotheses
from flt_theory.systems import registry
from flt_theory.systems.declaration import Claim

CLAIMS = {claim.key: claim for claim in registry.registered_claims()}

#: The classification of each formerly "not stated" claim at (small, paper).
EXPECTED = {
    "contrastive/probe-single-modal": ("all", "all"),
    "contrastive/probe-multi-modal": ("all", "all"),
    "dictionary/gamma": ("all", "all"),
    "diffusion/balanced-features": ("some", "some"),
    "giant-step/vanishing-student-coefficient": ("all", "all"),
    "good-sets/initial-sizes": ("all", "all"),
    "good-sets/inclusion": ("all", "all"),
    "good-sets/growth-rate": ("all", "all"),
    "good-sets/net-beats-linear": ("all", "all"),
    "in-context/unseen-task-risk": ("all", "all"),
    "signal-noise/relu-growth-slopes": ("all", "all"),
    "virtual-covariance/residual-exact": ("all", "all"),
    "virtual-covariance/vcl-slower-than-gd": ("all", "all"),
}


def failed_at(claim: Claim, point: dict[str, Any]) -> list[str]:
    """The texts of the claim's law's hypotheses that fail at ``point`` (a raw point of its experiment, normalised and
    mapped as :meth:`Measurement.values_at` does)."""
    full = get_experiment(claim.measurement.experiment).normalize(point)
    values_of = claim.measurement.hypothesis_values
    values = dict(values_of(full) if values_of is not None else full)
    numbers = {k: v for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return [h.text for h in failed_hypotheses(claim.the_law.hypotheses, numbers)]


def declared(key: str, index: int = 0, scale: str = "small") -> dict[str, Any]:
    """A copy of the ``index``-th declared point of claim ``key`` at ``scale``."""
    return dict(CLAIMS[key].measurement.points[scale][index])


def test_every_registered_claim_states_hypotheses():
    assert [key for key, claim in CLAIMS.items() if not claim.the_law.hypotheses] == []


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_classification_of_the_formerly_unstated_claims(key):
    claim = CLAIMS[key]
    assert (claim.in_hypotheses("small"), claim.in_hypotheses("paper")) == EXPECTED[key]
    for h in claim.the_law.hypotheses:
        assert h.where.startswith(("derived here", "Huang et al.", "Allen-Zhu & Li")), h.where


def test_diffusion_outside_points_are_the_classification_only_ones():
    from flt_theory.systems.diffusion.readouts import BALANCED_MAX_MU

    claim = CLAIMS["diffusion/balanced-features"]
    for scale in ("small", "paper"):
        for point, where in zip(claim.measurement.points[scale], claim.hypotheses_at(scale), strict=True):
            assert where["inside"] == (point["mu_norm"] <= BALANCED_MAX_MU) == bool(point["denoiser"])
    assert failed_at(claim, {**declared("diffusion/balanced-features"), "n": 1024}) != []  # n > d = 500


def test_each_derived_condition_can_fail():
    cases = {
        # input structure and an even k
        "dictionary/gamma": {**declared("dictionary/gamma"), "structured": 0},
        # a leap-1 target: c_sigma is not taken at l = 2
        "giant-step/vanishing-student-coefficient": {**declared("giant-step/vanishing-student-coefficient"),
                                                     "target": "z + He2(z)"},
        # the break's 1000x step leaves the early phase f ~ 0
        "good-sets/growth-rate": {**declared("good-sets/growth-rate"), "lr_ratio": 3.0e4},
        # K at the kink
        "in-context/unseen-task-risk": {**declared("in-context/unseen-task-risk"), "tasks": 4},
        # the ReLU^3 growth point
        "signal-noise/relu-growth-slopes": dict(declared("signal-noise/relu3-growth-exponent")),
        # the batch-averaged covariance
        "virtual-covariance/residual-exact": dict(declared("virtual-covariance/residual-order-mean")),
        # a step of order 2
        "virtual-covariance/vcl-slower-than-gd": {**declared("virtual-covariance/vcl-slower-than-gd"), "gamma": 2.0},
        # d < n^2
        "contrastive/probe-single-modal": {**declared("contrastive/probe-single-modal"), "d": 512},
        # the initial sizes at c_1 = c_2: no positive pot level
        "good-sets/initial-sizes": {**declared("good-sets/initial-sizes"), "c1": 0.5},
    }
    for key, point in cases.items():
        assert failed_at(CLAIMS[key], point), key
        assert not failed_at(CLAIMS[key], declared(key)), key
    outside = {**declared("good-sets/net-beats-linear"), "sigma0": 0.15}  # sigma_0 sqrt(32) = 0.85
    assert failed_at(CLAIMS["good-sets/net-beats-linear"], outside)
    assert not failed_at(CLAIMS["good-sets/net-beats-linear"], declared("good-sets/net-beats-linear"))


def test_exact_conditions_read_exactly():
    from flt_theory.systems.dictionary.laws import GAMMA_HYPOTHESES
    from flt_theory.systems.good_sets.laws import LEVELS_ORDERED

    even = GAMMA_HYPOTHESES[1]
    assert [even.holds({"k": k}) for k in (2, 3, 4, 6)] == [True, False, True, True]
    assert LEVELS_ORDERED.holds({"c_2": 0}) is True and LEVELS_ORDERED.holds({"c_2": -0.1}) is False
