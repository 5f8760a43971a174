"""Contract: every claim says where its source's theorem speaks, and its checks stay about one quantity.

* Every law carries its source's hypotheses as checkable conditions, or says why there are none
  (``hypotheses_reading``); every hypothesis can be read at every measurement point of its claim.
* A ``theorem`` claim has measurement points inside its hypotheses at some scale, or says why that is
  infeasible here (``extrapolation_note``: the size it would need and the cost), and is then reported as an
  extrapolation. A ``finding`` (a stated result that is false or narrower) likewise: outside the theorem's
  hypotheses it is not a correction of the theorem.
* The wrong law of a negative control is about the same quantity as its law (same ``lhs``).
"""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.symbolic.hypothesis import Hypothesis, classify_points, failed_hypotheses
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.systems import registry
from flt_theory.systems.declaration import SCALES

CLAIMS = [claim for system in registry.systems() for claim in system.claims]
IDS = [claim.key for claim in CLAIMS]


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_hypotheses_stated_or_absence_explained(claim):
    law = claim.the_law
    assert law.hypotheses or law.hypotheses_reading.strip(), (
        f"{claim.key}: its law carries no hypotheses and does not say why (hypotheses_reading)")
    for h in law.hypotheses:
        assert h.where.strip() and h.text.strip()


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_hypotheses_readable_at_every_point(claim):
    for scale in SCALES:
        for point in claim.hypotheses_at(scale):  # raises when a point lacks a symbol a hypothesis reads
            assert isinstance(point["inside"], bool)


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.the_law.status in ("theorem", "finding")],
                         ids=[c.key for c in CLAIMS if c.the_law.status in ("theorem", "finding")])
def test_theorems_and_findings_checked_inside_or_marked_extrapolation(claim):
    labels = {scale: claim.in_hypotheses(scale) for scale in SCALES}
    inside_somewhere = any(label in ("all", "some") for label in labels.values())
    assert inside_somewhere or claim.extrapolation_note.strip(), (
        f"{claim.key} ({claim.the_law.status}): no point inside its hypotheses at any scale ({labels}) and no "
        f"extrapolation_note saying why and what size it would need")


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_wrong_law_is_about_the_same_quantity(claim):
    assert claim.the_wrong_law.lhs == claim.the_law.lhs, (
        f"{claim.key}: the negative control speaks of {claim.the_wrong_law.lhs!r}, its law of {claim.the_law.lhs!r}")


def test_catalogue_reports_hypotheses_for_every_claim():
    from flt_theory.report.catalogue import catalogue

    entries = catalogue()
    assert len(entries) == len(CLAIMS)
    for entry in entries:
        assert entry["in_hypotheses"] in ("all", "some", "none", "not stated")
        for h in entry["hypotheses"]:
            assert set(h) == {"text", "latex", "condition", "where"}
            sp.parse_expr(h["condition"], evaluate=False)  # the condition string is sympy's own printing


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
