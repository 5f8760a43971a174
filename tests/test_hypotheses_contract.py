"""Contract: every claim says where its source's theorem speaks, and its checks stay about one quantity (the public
checks of :mod:`flt_theory.testing`, one test per claim).

* Every law carries its source's hypotheses as checkable conditions, or says why there are none
  (``hypotheses_reading``); every hypothesis can be read at every measurement point of its claim.
* A ``theorem`` claim has measurement points inside its hypotheses at some scale, or says why that is
  infeasible here (``extrapolation_note``: the size it would need and the cost), and is then reported as an
  extrapolation. A ``finding`` (a stated result that is false or narrower) likewise: outside the theorem's
  hypotheses it is not a correction of the theorem (:func:`~flt_theory.testing.check_hypotheses`).
* The wrong law of a negative control is about the same quantity as its law (same ``lhs``:
  :func:`~flt_theory.testing.check_claim_declaration`, run per claim by ``tests/test_systems_contract.py``).
* The catalogue reports every claim with its hypotheses (:func:`~flt_theory.testing.check_catalogue_entry`).
"""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory import testing
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.symbolic.hypothesis import Hypothesis, classify_points, failed_hypotheses
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.systems import registry

CLAIMS = [claim for system in registry.systems() for claim in system.claims]
IDS = [claim.key for claim in CLAIMS]


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_hypotheses_stated_readable_and_inside_or_explained(claim):
    testing.check_hypotheses(claim)


@pytest.fixture(scope="session")
def entries():
    """The catalogue, read once per process (the per-claim tests run grouped by system, between other modules)."""
    from flt_theory.checking.catalogue import catalogue

    return catalogue()


def test_the_catalogue_has_one_entry_per_claim(entries):
    assert [e["key"] for e in entries] == IDS


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_catalogue_reports_hypotheses(claim, entries):
    testing.check_catalogue_entry(claim, entries)


# -- the mechanism itself -------------------------------------------------------------------------

d, n, m = sp.symbols("d n m", positive=True)
DIM = Hypothesis(text="d at least m^4 n^4", condition=d >= m**4 * n**4, where="Condition 4.2")


def test_classification_of_points():
    small, large = {"d": 1e5, "n": 16, "m": 10}, {"d": 1e14, "n": 16, "m": 10}
    assert classify_points((DIM,), [small, large]) == "some"
    assert classify_points((DIM,), [large]) == "all"
    assert classify_points((DIM,), [small]) == "none"
    assert classify_points((), [small]) == "not stated"
    assert failed_hypotheses((DIM,), small) == [DIM]


def test_a_missing_symbol_is_an_error_not_a_pass():
    with pytest.raises(InvalidParameterError, match="does not give"):
        failed_hypotheses((DIM,), {"d": 1e14, "n": 16})


def test_bad_hypotheses_are_refused():
    with pytest.raises(InvalidParameterTypeError, match="sympy relation"):
        Hypothesis(text="d large", condition="d >= n**2", where="Theorem 1")
    with pytest.raises(InvalidParameterError, match="where"):
        Hypothesis(text="d large", condition=d >= n**2, where="")
    with pytest.raises(InvalidParameterError, match="hypotheses_reading"):
        Law(name="x", lhs="x", relation="eq", value=1, source=THIS_PROJECT, status="derived", hypotheses=(DIM,))
    with pytest.raises(InvalidParameterError, match="finite real"):
        DIM.holds({"d": float("nan"), "n": 1, "m": 1})


def test_large_sizes_are_decided_exactly():
    # d = m^4 n^4 exactly at m = 10, n = 256 (4.29e13): the boundary itself is inside, one below is not
    edge = 10**4 * 256**4
    assert DIM.holds({"d": edge, "n": 256, "m": 10}) is True
    assert DIM.holds({"d": edge - 1, "n": 256, "m": 10}) is False
