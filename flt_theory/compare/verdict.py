r"""One verdict decision: a comparison read at a level, and a claim decided from its law's and its wrong law's.

Every surface that says whether a claim holds — :class:`~flt_theory.systems.declaration.ClaimVerdict` (and the
``assert_claim`` helper of derivations), ``flt check`` with its table, ``results.json`` and ``flt calibrate``, and
``flt verify`` — decides through :func:`decide_claim` (and, per comparison, :func:`decide`), in one vocabulary:
:data:`PASS`, :data:`FAIL` or :data:`INCONCLUSIVE`, with the reason and what would decide it.

**One comparison** (:func:`decide`), a :class:`~.result.CheckResult` at a level :math:`\alpha_1`:

* it *passes* iff its p-value (``details["p_value"]``, the law as null hypothesis: :mod:`.family`) is
  :math:`\ge \alpha_1`, or, without a p-value or without a level, iff the check passed at its own confidence
  (:func:`passes`). ``flt check`` gives :math:`\alpha_1 = \alpha/K` (Bonferroni over its :math:`K` claims);
  ``None`` reads every comparison at its own confidence (95%).
* a comparison that does not pass FAILS when the data exclude its law: always for a p-value (the law is the null
  hypothesis), and for a check that must *demonstrate* its law when some failing interval lies wholly on the wrong
  side of its bound or cannot be read. It is INCONCLUSIVE when every failing interval straddles its bound
  (:func:`~.straddle.straddling_sides`), with the seeds that would decide it
  (:func:`~.straddle.seeds_to_decide`: half-width :math:`\propto 1/\sqrt{S}` at the observed spread).

**A claim** (:func:`decide_claim`): the same measurement compared with its law (the *check*) and with a
deliberately wrong law (the *control*). Its wrong law is *rejected* iff the control does not pass at the same level
(so the power that ``flt calibrate`` reports — the fraction of repeats where a wrong law does not pass — is the
rejection ``flt check`` uses). Then

==============================  ==============================  ==================================================
law                             wrong law                       claim
==============================  ==============================  ==================================================
FAIL                            either                          **fail**: the data exclude the law
INCONCLUSIVE (straddles)        either                          **inconclusive**: the seeds that would decide it
INCONCLUSIVE (unsettled)        either                          **inconclusive**: larger sizes would settle it
PASS                            rejected (unsettled)            **inconclusive**: larger sizes would settle it
PASS                            rejected                        **pass**
PASS                            passes too                      **inconclusive**: the measurement cannot tell the
                                                                law from the wrong law; the seeds that would reject
                                                                the wrong law (:func:`~.straddle.seeds_to_reject`),
                                                                or a larger size
==============================  ==============================  ==================================================

A claim passes only when its law passes AND its wrong law is rejected on the same measurement.

**Unsettled** (a limit comparison, :func:`~.limit.check_limit_power_law`): a law the extrapolated limit excludes
while the effective exponent at the largest rungs alone still holds it (``details["p_largest"]`` at least the
level) is neither failed nor rejected: the extrapolation is a model of the corrections, the largest rungs a
measurement, and only larger sizes settle which is right. This holds for the law and for its wrong law alike.

>>> from flt_theory.compare import CheckResult
>>> law = CheckResult("slope", False, 1.0, 1.09, (1.02, 1.16), 8, "slope: FAIL", {"p_value": 0.01})
>>> wrong = CheckResult("slope", False, 2.0, 1.09, (1.02, 1.16), 8, "slope: FAIL", {"p_value": 1e-9})
>>> decide_claim(law, wrong).outcome, decide_claim(law, wrong, level=0.05 / 25).outcome
('fail', 'pass')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidParameterTypeError
from .limit import unsettled_failure
from .result import CheckResult
from .straddle import Side, seeds_to_decide, seeds_to_reject, straddling_sides

__all__ = ["FAIL", "INCONCLUSIVE", "PASS", "ClaimDecision", "Verdict", "decide", "decide_claim", "p_value", "passes"]

#: The three outcomes of a comparison and of a claim.
PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One comparison decided (:func:`decide`).

    ``outcome`` is :data:`PASS`, :data:`FAIL` or :data:`INCONCLUSIVE`; ``level`` the level it was decided at by its
    p-value (None: by its own verdict at its own confidence); ``p_value`` its p-value where it has one;
    ``straddling`` the intervals that straddle their bounds (an inconclusive one) and ``seeds_needed`` the largest
    :func:`~.straddle.seeds_to_decide` over them (None where an estimate sits on its bound); ``reason`` why it is
    not a pass and ``to_decide`` what would decide it (empty when decided)."""

    outcome: str
    level: float | None = None
    p_value: float | None = None
    straddling: tuple[Side, ...] = ()
    seeds_needed: int | None = None
    reason: str = ""
    to_decide: str = ""
    unsettled: bool = False

    @property
    def passed(self) -> bool:
        return self.outcome == PASS

    def text(self) -> str:
        """One line for a report: the outcome, or why it is inconclusive and what would decide it."""
        return f"{self.reason}: {self.to_decide}" if self.outcome == INCONCLUSIVE else self.outcome


@dataclasses.dataclass(frozen=True)
class ClaimDecision:
    """A claim decided from its law's comparison (``law``) and its wrong law's (``wrong_law``) at ``level``
    (:func:`decide_claim`). ``reason``: why it is not a pass; ``to_decide``: what would decide an inconclusive one;
    ``message``: the two in one line (empty unless inconclusive: a failure's reason is its comparison's message)."""

    outcome: str
    law: Verdict
    wrong_law: Verdict
    level: float | None = None
    reason: str = ""
    to_decide: str = ""
    message: str = ""

    @property
    def passed(self) -> bool:
        """The law passed AND the wrong law was rejected."""
        return self.outcome == PASS

    @property
    def rejected(self) -> bool:
        """The wrong law does not pass at the level (the negative control is rejected)."""
        return not self.wrong_law.passed

    @property
    def by_p_value(self) -> bool:
        """Whether either comparison was decided by its p-value at ``level`` (the level then applies)."""
        return self.level is not None and (self.law.p_value is not None or self.wrong_law.p_value is not None)


def _as_dict(result: CheckResult | Mapping[str, Any], caller: str) -> Mapping[str, Any]:
    if isinstance(result, CheckResult):
        return result.to_dict()
    if not isinstance(result, Mapping):
        raise InvalidParameterTypeError(f"{caller} takes a CheckResult or its to_dict(). "
                                        f"Got {type(result).__name__} instead.")
    return result


def p_value(result: CheckResult | Mapping[str, Any] | None) -> float | None:
    """A comparison's p-value (``details["p_value"]``), None when it has none.

    >>> p_value({"passed": True, "details": {"p_value": 0.2}}), p_value({"passed": True, "details": {}})
    (0.2, None)
    """
    if isinstance(result, CheckResult):
        result = result.to_dict()
    value = ((result or {}).get("details") or {}).get("p_value")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def passes(result: CheckResult | Mapping[str, Any], level: float | None = None) -> bool:
    """Whether a comparison passes at ``level``: by its p-value where it has one and a level is given, else by its
    own verdict (module docstring).

    >>> r = {"passed": False, "details": {"p_value": 0.01}}
    >>> passes(r), passes(r, 0.05), passes(r, 0.002)
    (False, False, True)
    """
    result = _as_dict(result, "passes")
    p = p_value(result)
    return bool(result["passed"]) if level is None or p is None else p >= level


def decide(result: CheckResult | Mapping[str, Any], level: float | None = None) -> Verdict:
    """Pass, fail or inconclusive for one comparison (a check or its ``to_dict()``) at ``level`` (module docstring).

    >>> from flt_theory.compare import check_not_learned
    >>> straddling = check_not_learned([0.028, 0.02, 0.031, 0.015, 0.024, 0.03], 0.01, max_ratio=3.0)
    >>> straddling.message
    'not learned: mass/baseline 2.467 [1.733, 3.18] vs <= 3: FAIL'
    >>> verdict = decide(straddling)
    >>> verdict.outcome, verdict.seeds_needed
    ('inconclusive', 11)
    >>> decide(check_not_learned([0.05, 0.06, 0.055, 0.052], 0.01, max_ratio=2.5)).outcome
    'fail'
    """
    result = _as_dict(result, "decide")
    p = p_value(result)
    at = level if level is not None and p is not None else None
    if passes(result, level):
        return Verdict(PASS, at, p)
    unsettled = unsettled_failure(result, at)
    if unsettled:
        return Verdict(INCONCLUSIVE, at, p, reason=unsettled, to_decide="larger sizes would settle it",
                       unsettled=True)
    sides = () if at is not None else straddling_sides(result)  # a p-value's failure is always decided
    if not sides:
        return Verdict(FAIL, at, p, reason="the data exclude the law")
    needs = [n for n in (seeds_to_decide(s) for s in sides) if n is not None]
    need = max(needs) if len(needs) == len(sides) else None  # None where some side cannot be decided
    shown = "; ".join(f"{s.label}: {s.value:.4g} [{s.ci[0]:.4g}, {s.ci[1]:.4g}] vs "
                      f"{'>=' if s.at_least else '<='} {s.bound:.4g}" for s in sides)
    return Verdict(INCONCLUSIVE, at, p, sides, need, reason=f"interval straddles its bound ({shown})",
                   to_decide=(f"about {need} seeds would decide it (half-width ∝ 1/√seeds at the observed spread)"
                              if need is not None else "an estimate sits on its bound: more seeds cannot decide it"))


def decide_claim(check: CheckResult | Mapping[str, Any], control: CheckResult | Mapping[str, Any],
                 level: float | None = None) -> ClaimDecision:
    """The verdict of a claim from its law's comparison ``check`` and its wrong law's ``control`` on the same
    measurement, both read at ``level`` (module docstring: the table of outcomes).

    Parameters
    ----------
    check, control : CheckResult or its ``to_dict()``
        The measurement compared with the law and with the wrong law.
    level : float or None
        The level comparisons with a p-value are decided at (``flt check``: alpha/K); None: every comparison at
        its own confidence.

    Returns
    -------
    ClaimDecision

    Examples
    --------
    >>> from flt_theory.compare import check_not_learned
    >>> ok = check_not_learned([0.010, 0.011, 0.009, 0.010], 0.01, max_ratio=3.0)
    >>> wrong = check_not_learned([0.010, 0.011, 0.009, 0.010], 0.01, max_ratio=0.5)
    >>> decide_claim(ok, wrong).outcome, decide_claim(ok, ok).outcome
    ('pass', 'inconclusive')
    >>> decide_claim(ok, ok).reason
    'the wrong law also passes: the sizes cannot tell them apart'
    """
    law, wrong = decide(check, level), decide(control, level)
    if law.outcome == FAIL:
        return ClaimDecision(FAIL, law, wrong, level, reason="the data exclude the law")
    if law.outcome == INCONCLUSIVE:
        reason = f"the law: {law.reason}"
        return ClaimDecision(INCONCLUSIVE, law, wrong, level, reason, law.to_decide, f"{reason}: {law.to_decide}")
    if wrong.unsettled:
        reason = f"the wrong law: {wrong.reason}"
        return ClaimDecision(INCONCLUSIVE, law, wrong, level, reason, wrong.to_decide, f"{reason}: {wrong.to_decide}")
    if not wrong.passed:
        return ClaimDecision(PASS, law, wrong, level)
    need = seeds_to_reject(_as_dict(control, "decide_claim"))
    reason = "the wrong law also passes: the sizes cannot tell them apart"
    to_decide = (f"about {need} seeds would reject it at these sizes (half-width ∝ 1/√seeds at the observed spread)"
                 if need is not None else
                 "its estimates lie inside its tolerance: more seeds cannot reject it, larger d (--scale paper) may")
    return ClaimDecision(INCONCLUSIVE, law, wrong, level, reason, to_decide, f"{reason}; {to_decide}")
