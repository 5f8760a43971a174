"""The rank-one update check reads the rank of W¹ − W⁰ as well as its direction."""

from __future__ import annotations

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic import Subspace
from flt_theory.systems import get_claim
from flt_theory.systems.registry import measure


@pytest.fixture(scope="module")
def spike():
    claim = get_claim("giant-step/rank-one-update")
    return claim, measure(claim, "small")


def test_a_plane_holding_the_spike_is_rejected(spike):
    """V* itself (the mutant "one direction added", which the direction of the top singular vector alone passes):
    there is no second outlier, and the second singular direction is a bulk direction, so the top-2 subspace
    is only about half in V*."""
    claim, frame = spike
    assert claim.evaluate(frame).passed
    plane = claim.the_law.replace(value=Subspace.span([[1, 0], [0, 1]], 2), words="the update spans V*")
    result = claim.evaluate(frame, plane)
    assert not result.passed
    ratio, projection = result.details["parts"]
    assert not ratio["passed"] and "s2/s3" in ratio["name"] and ratio["measured"] < 1.5  # no second outlier
    assert not projection["passed"] and 0.3 < projection["measured"] < 0.6


def test_the_recorded_directions_bound_the_subspaces_it_can_read(spike):
    claim, frame = spike
    assert sorted(c for c in frame if c.startswith("sv_ratio")) == ["sv_ratio1", "sv_ratio2"]
    with pytest.raises(InvalidParameterError, match="directions >= 2"):
        plane = claim.the_law.replace(value=Subspace.span([[1, 0], [0, 1]], 2))
        claim.evaluate(frame.drop(columns=["sv_ratio2"]), plane)
