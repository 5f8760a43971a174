"""A finding states its size ladder or why none applies (``Claim.no_ladder``), and the reason travels to the
catalogue entry, the verdict record and CLAIMS.md's table of recorded verdicts, where the ladder would be shown.

No simulation runs here: the contract check reads declarations, the record rows are built by hand.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from flt_theory.checking.catalogue import catalogue
from flt_theory.checking.scale_record import verdict_entries, verdict_rows
from flt_theory.compare import check_at_least
from flt_theory.report.scale_record import no_ladder_text, verdicts_markdown
from flt_theory.runner import experiment
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.systems import get_claim
from flt_theory.systems.declaration import Claim, Measurement
from flt_theory.testing import SystemCheckError, check_catalogue_entry, check_claim_declaration

#: Findings to which no size ladder applies (exact inequalities at a point), and one finding that has a ladder.
NO_LADDER = ("virtual-covariance/theorem3-tanh", "virtual-covariance/theorem3-relu", "virtual-covariance/theorem3-norm")
WITH_LADDER = "signal-noise/relu3-boundary-slope"


@pytest.mark.parametrize("key", NO_LADDER)
def test_the_theorem3_findings_say_why_no_ladder_applies(key):
    claim = get_claim(key)
    assert claim.the_law.status == "finding" and claim.ladder is None
    assert "exact inequality at a point" in claim.no_ladder
    check_claim_declaration(claim)


def test_a_finding_with_neither_a_ladder_nor_a_reason_fails_the_contract():
    bare = dataclasses.replace(get_claim(NO_LADDER[0]), no_ladder="")
    with pytest.raises(SystemCheckError, match=r"check_claim_declaration\[virtual-covariance/theorem3-tanh\].*"
                                               r"a finding needs its size ladder"):
        check_claim_declaration(bare)
    blank = dataclasses.replace(get_claim(NO_LADDER[0]), no_ladder="   ")  # a reason of blanks is no reason
    with pytest.raises(SystemCheckError, match="a finding needs its size ladder"):
        check_claim_declaration(blank)
    without = dataclasses.replace(get_claim(WITH_LADDER), ladder=None)
    with pytest.raises(SystemCheckError, match="a finding needs its size ladder"):
        check_claim_declaration(without)


def test_a_ladder_and_a_reason_for_none_together_fail_and_a_reason_must_be_text():
    claim = get_claim(WITH_LADDER)
    check_claim_declaration(claim)
    with pytest.raises(SystemCheckError, match="declares a size ladder AND says none applies"):
        check_claim_declaration(dataclasses.replace(claim, no_ladder="none applies"))
    with pytest.raises(SystemCheckError, match="no_ladder must be a string"):
        check_claim_declaration(dataclasses.replace(get_claim(NO_LADDER[0]), no_ladder=None))


def test_a_claim_that_is_not_a_finding_needs_no_ladder():
    claim = get_claim("giant-step/rank-one-update")
    assert claim.the_law.status != "finding" and claim.ladder is None and not claim.no_ladder
    check_claim_declaration(claim)


def test_the_catalogue_entry_carries_the_ladder_or_the_reason():
    entries = {e["key"]: e for e in catalogue(keys={*NO_LADDER, WITH_LADDER})}
    for key in NO_LADDER:
        assert entries[key]["has_ladder"] is False and entries[key]["no_ladder"] == get_claim(key).no_ladder
        check_catalogue_entry(get_claim(key), list(entries.values()))
    assert entries[WITH_LADDER]["has_ladder"] is True and entries[WITH_LADDER]["no_ladder"] == ""
    broken = [{**entries[NO_LADDER[0]], "no_ladder": None}]
    with pytest.raises(SystemCheckError, match="has_ladder .* and no_ladder"):
        check_catalogue_entry(get_claim(NO_LADDER[0]), broken)


def test_the_record_entry_keeps_the_reason():
    claims = [get_claim(NO_LADDER[0]), get_claim(WITH_LADDER)]
    frame = pd.DataFrame([{"claim": c.key, "verdict": "PASS", "seconds": 1.0, "computed": 1, "ladder": None}
                          for c in claims])
    entries = verdict_entries(frame, claims, "paper")
    assert entries[0]["no_ladder"] == claims[0].no_ladder and entries[1]["no_ladder"] is None


def _entry(**extra):
    return {"verdict": "PASS", "measured": 0.0, "ci": [0.0, 3.0], "seconds": 2.0, "created": "2026-12-06T00:00:00",
            "in_hypotheses": "all", "hardware": {"device": "cpu", "cores": 2, "torch_threads": 1}, **extra}


def test_claims_md_shows_the_reason_where_the_ladder_would_be():
    finding, laddered = get_claim(NO_LADDER[0]), get_claim(WITH_LADDER)
    rows = verdict_rows(None, [finding, laddered], "paper")
    assert [r["status"] for r in rows] == ["not run", "not run"]
    assert rows[0]["no_ladder"] == finding.no_ladder and rows[1]["no_ladder"] == ""
    rung = {"size": {"n": 5.7}, "estimate": -0.3, "ci": [-0.4, -0.2], "literal": -1 / 3}
    by_scale = {"paper": [{"status": "recorded", "entry": _entry(), "no_ladder": finding.no_ladder},
                          {"status": "recorded", "entry": _entry(ladder=[rung]), "no_ladder": ""}]}
    lines = verdicts_markdown({"entries": []}, [finding, laddered], by_scale)
    mine = next(line for line in lines if f"`{finding.key}`" in line)
    other = next(line for line in lines if f"`{laddered.key}`" in line)
    assert no_ladder_text(finding.no_ladder) in mine and "ladder -0.3 [-0.4, -0.2] (n = 5.7)" not in mine
    assert "ladder -0.3 [-0.4, -0.2] (n = 5.7); literal statement -0.3333" in other and "no size ladder" not in other
    assert no_ladder_text("") == "" and no_ladder_text(None) == ""
    piped = {"paper": [{"status": "recorded", "entry": _entry(), "no_ladder": "|x| is exact"}]}
    (line,) = [x for x in verdicts_markdown({"entries": []}, [finding], piped) if f"`{finding.key}`" in x]
    assert r"no size ladder: \|x\| is exact" in line
    assert len(re.findall(r"(?<!\\)\|", line)) == 3  # the row's own pipes only: a pipe in a reason splits no row


@experiment("test-no-ladder/mean", types={"n": int})
def _mean(params, seed):
    return {"y": 1.0 + 0.01 * np.random.default_rng(seed).standard_normal()}


def test_the_report_says_why_no_ladder_applies(tmp_path):
    from flt_theory.checking.check import run_claims, verdict_frame, write_check_report

    law = Law(name="mean", lhs=r"\bar y", relation="geq", value=sp.Rational(1, 2), source=THIS_PROJECT,
              status="finding", hypotheses_reading="none: an exact bound")
    reason = "an exact bound at one point: no size to grow"
    claim = Claim(name="toy", system="test-no-ladder", words="the mean is at least 1/2", law=law,
                  wrong_law=law.replace(value=sp.Integer(2)), no_ladder=reason,
                  compare=lambda frame, law: check_at_least(frame.y.to_numpy(), law.number(), mode="demonstrated",
                                                            name="mean of y"),
                  measurement=Measurement(experiment="test-no-ladder/mean", points={"small": [{"n": 4}],
                                                                                    "paper": [{"n": 4}]},
                                          seeds={"small": 4, "paper": 4}))
    check_claim_declaration(claim)
    runs = run_claims([claim], "small")
    write_check_report(tmp_path, [claim], runs, verdict_frame([claim], runs), "small")
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["claims"][0]["ladder"] is None and results["claims"][0]["no_ladder"] == reason
    assert f"*{no_ladder_text(reason)}*" in (tmp_path / "report.md").read_text(encoding="utf-8")
