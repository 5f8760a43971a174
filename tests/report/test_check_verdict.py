"""One decision, three surfaces: ClaimVerdict, flt check's row and flt verify's entry give the same verdict for the
same comparison results (flt_theory.compare.verdict.decide_claim), at each comparison's own confidence and at a
family-wise level."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from flt_theory.checking.check import _row
from flt_theory.compare import CheckResult, check_not_learned
from flt_theory.compare.verdict import decide_claim
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.systems.declaration import Claim, ClaimVerdict, Measurement
from flt_theory.systems.giant_step.verify import _entry, _Prediction

LAW = Law(name="mass", lhs=r"m", relation="leq", value=sp.Integer(3), source=THIS_PROJECT, status="derived")
CLAIM = Claim(name="mass", words="the mass stays at most 3x random", law=LAW,
              wrong_law=LAW.replace(value=sp.Integer(1)),
              measurement=Measurement(experiment="demo/none", points={"small": [{}], "paper": [{}]},
                                      seeds={"small": 8, "paper": 8}),
              compare=lambda frame, law: None, system="demo")


def masses(mean: float, seed: int, sd: float = 0.004) -> np.ndarray:
    return np.clip(mean + sd * np.random.default_rng(seed).standard_normal(8), 1e-6, 1)


def with_p(p: float) -> CheckResult:
    return CheckResult("slope", p >= 0.05, 1.0, 1.1, (1.0, 1.2), 8, "slope", {"p_value": p})


PASSES = check_not_learned(masses(0.01, 0), 0.01, max_ratio=3.0)
EXCLUDED = check_not_learned(masses(0.08, 0), 0.01, max_ratio=3.0)
STRADDLING = check_not_learned(masses(0.028, 3, sd=0.006), 0.01, max_ratio=3.0)

#: (check, control, outcome at each comparison's own confidence, outcome at the family level 0.05/25)
CASES = {
    "law and rejected wrong law": (PASSES, EXCLUDED, "pass", "pass"),
    "law excluded": (EXCLUDED, PASSES, "fail", "fail"),
    "law straddled": (STRADDLING, EXCLUDED, "inconclusive", "inconclusive"),
    "wrong law straddled": (PASSES, STRADDLING, "pass", "pass"),
    "wrong law passes too": (PASSES, PASSES, "inconclusive", "inconclusive"),
    "law p = 0.01": (with_p(0.01), with_p(1e-9), "fail", "pass"),
    "wrong law p = 0.01": (with_p(0.5), with_p(0.01), "pass", "inconclusive"),
}


def surfaces(check: CheckResult, control: CheckResult, level: float) -> dict[str, tuple[str, str]]:
    """(outcome, control) as each surface shows them: ClaimVerdict at ``level``, flt check's row at ``level``, and,
    at each comparison's own confidence, ClaimVerdict and flt verify's entry."""
    verdict = ClaimVerdict(claim=CLAIM, check=check, control=control)
    run = {"check": check.to_dict(), "control": control.to_dict(), "error": None, "seeds": list(range(8)),
           "seconds": 0.0, "computed": 0, "reused": 0}
    row = _row(CLAIM, run, level)
    entry = _entry(_Prediction("mass", CLAIM, 0.0), check, control)

    def shown(decision):
        return decision.outcome, "rejected" if decision.rejected else "not rejected"

    return {"ClaimVerdict at level": shown(verdict.decision(level)),
            "flt check": (row["verdict"].lower(), row["control"].lower()),
            "ClaimVerdict": shown(verdict.decision()),
            "flt verify": (entry["verdict"], entry["control"])}


@pytest.mark.parametrize("case", list(CASES))
def test_the_three_surfaces_give_one_verdict(case):
    check, control, own, family = CASES[case]
    level = 0.05 / 25
    seen = surfaces(check, control, level)
    assert seen["ClaimVerdict at level"] == seen["flt check"], seen
    assert seen["ClaimVerdict"] == seen["flt verify"], seen
    assert seen["flt check"][0] == family and seen["flt verify"][0] == own, seen
    entry = _entry(_Prediction("m", CLAIM, 0.0), check, control)
    passed = ClaimVerdict(claim=CLAIM, check=check, control=control).passed
    assert passed == (own == "pass") == (entry["verdict"] == "pass")
    assert _row(CLAIM, {"check": check.to_dict(), "control": control.to_dict(), "error": None, "seeds": [],
                        "seconds": 0.0, "computed": 0, "reused": 0}, level)["passed"] == (family == "pass")


def test_the_surfaces_agree_at_the_comparisons_own_level():
    """flt check at level 0.05 with p-values that match each comparison's own 95% verdict is ClaimVerdict.passed."""
    for check, control, own, _ in CASES.values():
        seen = surfaces(check, control, 0.05)
        assert seen["flt check"] == seen["ClaimVerdict"] == seen["flt verify"], seen
        assert seen["flt check"][0] == own


def test_an_inconclusive_verdict_says_what_would_decide_it():
    entry = _entry(_Prediction("mass", CLAIM, 0.0), STRADDLING, EXCLUDED)
    assert entry["message"].startswith("the law: interval straddles its bound")
    assert "seeds would decide it" in entry["message"]
    no_power = _entry(_Prediction("mass", CLAIM, 0.0), PASSES, PASSES)["message"]
    assert no_power.startswith("the wrong law also passes: the sizes cannot tell them apart; ")
    assert decide_claim(PASSES, PASSES).message in no_power
    display = dict(ClaimVerdict(claim=CLAIM, check=STRADDLING, control=EXCLUDED)._display_rows(str, str))
    assert display["verdict"] == "INCONCLUSIVE" and display["check of the law"].startswith("FAIL: ")
