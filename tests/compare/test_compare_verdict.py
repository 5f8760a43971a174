"""The one verdict decision (flt_theory.compare.verdict): a comparison at a level; a claim from law and wrong law."""

from __future__ import annotations

import numpy as np
import pytest

from flt_theory.compare import CheckResult, all_of, check_not_learned
from flt_theory.compare.verdict import FAIL, INCONCLUSIVE, PASS, decide, decide_claim, p_value, passes
from flt_theory.errors import InvalidParameterTypeError


def masses(mean: float, seed: int, seeds: int = 8, sd: float = 0.004) -> np.ndarray:
    return np.clip(mean + sd * np.random.default_rng(seed).standard_normal(seeds), 1e-6, 1)


def with_p(p: float, confidence: float = 0.95) -> CheckResult:
    """A comparison with p-value ``p`` that passed at its own confidence iff p >= 1 - confidence."""
    return CheckResult("slope", p >= 1 - confidence, 1.0, 1.1, (1.0, 1.2), 8, "slope", {"p_value": p})


NOT_LEARNED = check_not_learned(masses(0.01, 0), 0.01, max_ratio=3.0)          # passes
EXCLUDED = check_not_learned(masses(0.08, 0), 0.01, max_ratio=3.0)            # 8x > 3x: the data exclude it
STRADDLING = check_not_learned(masses(0.028, 3, sd=0.006), 0.01, max_ratio=3.0)  # its interval contains 3x


def test_the_fixtures_are_what_they_say():
    assert NOT_LEARNED.passed and not EXCLUDED.passed and not STRADDLING.passed
    low, high = STRADDLING.ci
    assert low < 3.0 < high and EXCLUDED.ci[0] > 3.0


def test_one_comparison_at_its_own_confidence_and_at_a_level():
    assert decide(NOT_LEARNED).outcome == PASS and decide(EXCLUDED).outcome == FAIL
    straddled = decide(STRADDLING)
    assert straddled.outcome == INCONCLUSIVE and straddled.seeds_needed > 8
    assert "straddles its bound" in straddled.text() and "seeds would decide it" in straddled.to_decide
    # a p-value decides at a level: p = 0.01 fails at 0.05, passes at 0.05/25; its failure is always decided
    assert decide(with_p(0.01)).outcome == FAIL and decide(with_p(0.01), 0.05).outcome == FAIL
    at = decide(with_p(0.01), 0.05 / 25)
    assert at.outcome == PASS and at.level == 0.05 / 25 and at.p_value == 0.01
    assert decide(STRADDLING, 0.002).outcome == INCONCLUSIVE  # no p-value: the level does not apply


def test_passes_is_the_pass_of_decide_and_the_old_rule_of_flt_check():
    """flt calibrate counts rejections with passes (through report.check.decide): it must stay the rule it was."""
    results = [NOT_LEARNED, EXCLUDED, STRADDLING, with_p(0.5), with_p(0.01), with_p(1e-9),
               all_of("both", "x", [NOT_LEARNED, STRADDLING]), all_of("p", "x", [with_p(0.3), with_p(0.004)])]
    for result in results:
        as_dict = result.to_dict()
        for level in (None, 0.05, 0.05 / 25, 1e-6):
            p = p_value(as_dict)
            old = bool(as_dict["passed"]) if level is None or p is None else p >= level
            assert passes(result, level) == passes(as_dict, level) == decide(result, level).passed == old


def test_the_table_of_claim_outcomes():
    assert decide_claim(NOT_LEARNED, EXCLUDED).outcome == PASS
    assert decide_claim(EXCLUDED, NOT_LEARNED).outcome == FAIL
    assert decide_claim(EXCLUDED, STRADDLING).outcome == FAIL
    law_undecided = decide_claim(STRADDLING, EXCLUDED)
    assert law_undecided.outcome == INCONCLUSIVE and law_undecided.rejected
    assert law_undecided.message.startswith("the law: interval straddles its bound")
    assert "seeds would decide it" in law_undecided.message
    # a wrong law that does not pass is rejected, decided or straddled: the rejection flt calibrate counts
    straddled_control = decide_claim(NOT_LEARNED, STRADDLING)
    assert straddled_control.outcome == PASS and straddled_control.rejected and straddled_control.message == ""
    no_power = decide_claim(NOT_LEARNED, NOT_LEARNED)
    assert no_power.outcome == INCONCLUSIVE and not no_power.rejected and not no_power.passed
    assert no_power.reason == "the wrong law also passes: the sizes cannot tell them apart"


def test_a_claim_at_the_family_level():
    """p = 0.01: the law fails at 0.05 and passes at 0.05/25; a wrong law with p = 0.01 is rejected at 0.05 only."""
    wrong = with_p(1e-9)
    assert decide_claim(with_p(0.01), wrong).outcome == FAIL
    assert decide_claim(with_p(0.01), wrong, 0.05).outcome == FAIL
    family = decide_claim(with_p(0.01), wrong, 0.05 / 25)
    assert family.outcome == PASS and family.level == 0.05 / 25 and family.by_p_value
    assert decide_claim(with_p(0.5), with_p(0.01), 0.05).outcome == PASS
    assert decide_claim(with_p(0.5), with_p(0.01), 0.05 / 25).outcome == INCONCLUSIVE
    assert not decide_claim(NOT_LEARNED, EXCLUDED, 0.002).by_p_value


def test_bad_input_names_the_function():
    with pytest.raises(InvalidParameterTypeError, match="decide takes a CheckResult"):
        decide("pass")
    with pytest.raises(InvalidParameterTypeError, match="passes takes a CheckResult"):
        passes(None)
