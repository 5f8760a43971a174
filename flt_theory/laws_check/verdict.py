r"""The verdict of a researcher's law (``flt verify --system``) against its mutation panel, on one measurement.

**Power laws** (``OBS ~ EXPR``, ``PARAM* ~ EXPR``): the exponents :math:`b` of every varied symbol are fitted
jointly, :math:`\log \overline{y} = a + \sum_k b_k \log x_k`
(:func:`~flt_theory.compare.power_law.check_power_law_nd`: seed bootstrap, Bonferroni over the exponents — one
joint confidence set at level :math:`1 - \alpha`). The law and every mutant of the panel
(:meth:`~flt_theory.laws_check.parse.ObservableLaw.wrong_laws`: each exponent of EXPR ± 1/2 and ± 1, each varied
symbol EXPR lacks at ± 1/2) are read from that same set by the project's one decision
(:func:`~flt_theory.compare.decide_claim`). Since at most one of them is true and each is rejected only when the
set excludes it, the probability of rejecting the true one is at most :math:`\alpha`: the family-wise level covers
the law and all its mutants, with no further correction.

**Relations** (``OBS = EXPR``, ``OBS <= EXPR``, ``OBS >= EXPR``: EXPR with its constant, no fit): at each of the
:math:`m` grid points the seed-mean's interval (:func:`~flt_theory.compare.mean_ci`) at confidence
:math:`1 - \alpha/m` (two-sided, for ``=``) or :math:`1 - 2\alpha/m` (one side used, for ``<=``, ``>=``) —
simultaneous over the points by Bonferroni. ``=`` passes when every interval holds EXPR and fails when one excludes
it; ``<=`` passes when every upper bound is at most EXPR (shown, not merely not excluded), fails when a lower bound
is above it, and is inconclusive in between. The mutants are EXPR with an exponent moved, equal to EXPR at the
grid's geometric centre (so they differ from it only in scaling); the goal mutants move an exponent of EXPR by
± 1/2 (a varied symbol EXPR lacks: the law says nothing of its scaling, its mutants are reported only). For ``=``
each goal mutant must be excluded somewhere; for ``<=``/``>=`` the reversed relation is a goal control (rejected
exactly where the bound is shown), and a goal mutant that holds too means the bound is not sharp in that symbol
(inconclusive: the data cannot tell the stated scaling from a looser or tighter one).

An inconclusive verdict says what would decide it: the seeds (the interval's half-width shrinks as
:math:`1/\sqrt{\text{seeds}}`) and, for an exponent, the wider range (its half-width shrinks as the spread of
:math:`\log x`).

>>> seeds_to_separate(8, half_width=0.3, distance=0.15)
32
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from ..compare import mean_ci
from ..compare.limit import check_limit_power_law, unsettled_failure
from ..compare.power_law import check_power_law_nd
from ..compare.result import CheckResult
from ..compare.verdict import FAIL, INCONCLUSIVE, PASS, decide, decide_claim

#: Absolute tolerance on an exponent (its floating-point round-off): an observable that is an exact power of a
#: parameter for every seed (sign-GD's noise rate is proportional to eta) has an interval of zero width around an
#: estimate that differs from the exact exponent by round-off; 1e-6 is far below the mutants' 1/2.
ROUND_OFF = 1e-6

__all__ = ["ROUND_OFF", "decide_limit_law", "decide_power_law", "decide_relation", "point_means", "seeds_to_separate"]


def seeds_to_separate(seeds: int, *, half_width: float, distance: float) -> int | None:
    """Seeds at which an interval of ``half_width`` at ``seeds`` seeds shrinks (as :math:`1/\\sqrt{\\text{seeds}}`)
    below ``distance``; None when ``distance`` is not positive."""
    if not distance > 0:
        return None
    return max(seeds + 1, math.ceil(seeds * (half_width / distance) ** 2))


def decide_power_law(law: Any, xs: Mapping[str, np.ndarray], table: np.ndarray, varied: Sequence[str],
                     confidence: float, tolerance: float = 0.0) -> dict[str, Any]:
    """Decide ``law`` on ``table`` (rows, points) at the grid ``xs`` with its mutation panel (module docstring):
    in the limit along a ladder of one varied parameter (:func:`decide_limit_law`), else by the joint fit, each
    exponent's interval widened by ``tolerance`` (exponent units, the user's stated slack, below 1/4 so that no goal
    mutant passes by it): ``{"measured", "controls", "verdict", "reason", "check", "values"}``."""
    if len(varied) == 1 and len(np.unique(xs[varied[0]])) == len(xs[varied[0]]):
        return decide_limit_law(law, xs, table, varied[0], confidence, tolerance)
    predicted = {k: law.exponents.get(k, 0.0) for k in varied}
    logs = getattr(law, "log_powers", {})  # the law's log factors divided out: the fit reads the powers alone
    table = table / np.prod([np.log(xs[k]) ** p for k, p in logs.items() if k in xs], axis=0) if logs else table
    check = check_power_law_nd(xs, table, predicted, name=law.text, confidence=confidence,
                               tolerance=max(tolerance, ROUND_OFF))
    estimates = np.atleast_1d(check.measured).tolist()
    cis = [list(c) for c in cast("Sequence[tuple[float, float]]", check.ci if len(varied) > 1 else [check.ci])]
    measured = {k: {"estimate": e, "ci": c} for k, e, c in zip(varied, estimates, cis)}
    controls, undecided = [], []
    for label, exponents, goal in law.wrong_laws(varied):
        control = check_power_law_nd(xs, table, exponents, name=label, confidence=confidence,
                               tolerance=max(tolerance, ROUND_OFF))
        outcome = decide(control).outcome
        controls.append({"law": law.mutant_text(exponents), "verdict": outcome, "rejected": outcome == FAIL,
                         "goal": goal, "label": label, "exponents": exponents})
        if goal:
            decision = decide_claim(check, control)
            if decision.outcome != PASS:
                undecided.append((decision, label, exponents))
    if decide(check).outcome == FAIL:
        verdict, reason = FAIL, "the data exclude the law: " + check.message
    elif decide(check).outcome != PASS:
        verdict, reason = INCONCLUSIVE, f"the law: {decide(check).reason}"
    elif not undecided:
        verdict, reason = PASS, "every exponent agrees and every goal mutant (exponent ± 1/2) is rejected"
    else:
        decision, label, exponents = undecided[0]
        k = next(k for k in varied if exponents[k] != predicted[k])
        lo, hi = measured[k]["ci"]
        estimate = measured[k]["estimate"]
        side = hi - estimate if exponents[k] > estimate else estimate - lo  # the interval's side facing the mutant
        distance = abs(estimate - exponents[k])
        need = seeds_to_separate(len(table), half_width=side, distance=distance)
        to_decide = (f"about {need} {'seed groups' if getattr(law, 'parameter', '') else 'seeds'} or a range of {k} "
                     f"about {side / distance:.2g}x wider in log {k} would reject it (the interval's half-width "
                     f"shrinks as 1/sqrt(seeds) and as 1/spread of log {k})" if need is not None else
                     f"the estimate lies on the mutant: {decision.to_decide or decision.reason}")
        verdict = INCONCLUSIVE
        reason = f"{len(undecided)} goal mutant(s) agree with the data too ({label}): {to_decide}"
    return {"measured": measured, "controls": controls, "verdict": verdict, "reason": reason, "check": check,
            "values": point_means(xs, table, varied, confidence)}


def _limit_check(law: Any, x: np.ndarray, table: np.ndarray, name: str, exponent: float, log_power: float,
                 confidence: float, tolerance: float) -> CheckResult:
    return check_limit_power_law(x, table, exponent, log_power=log_power, name=name, confidence=confidence,
                                 variable=name, tolerance=max(tolerance, ROUND_OFF))


def decide_limit_law(law: Any, xs: Mapping[str, np.ndarray], table: np.ndarray, name: str, confidence: float,
                     tolerance: float = 0.0) -> dict[str, Any]:
    r"""Decide ``law`` in the limit of its one varied parameter ``name``
    (:func:`~flt_theory.compare.limit.check_limit_power_law`: effective exponents along the ladder, extrapolated with
    corrections to scaling), with
    its mutation panel read from the same limit: the exponent mutants (± 1/2 goal, ± 1 reported) and the log
    mutants (log power ± 1, reported: a log factor the law lacks fails the law itself where the ladder resolves its
    slow decay, and a pass says when the ladder does not). FAIL needs the deviation to persist at the largest sizes:
    where the extrapolation excludes the law but the last effective exponent's interval holds it, the verdict is
    INCONCLUSIVE (the extrapolation is a model of the corrections; larger sizes settle it). PASS when the
    law is inside the limit's set and every goal mutant outside; FAIL when the limit excludes the law; else
    INCONCLUSIVE with what would decide it (more rungs, a wider range, more seeds)."""
    order = np.argsort(xs[name])
    x, ladder = xs[name][order], table[:, order]
    exponent = float(law.exponents.get(name, 0.0))
    log_power = float(getattr(law, "log_powers", {}).get(name, 0.0))
    check = _limit_check(law, x, ladder, name, exponent, log_power, confidence, tolerance)
    limit = check.details["limit"]
    measured = {name: {"estimate": limit["estimate"], "ci": list(limit["ci"]), "model": limit["model"],
                       "effective": check.details["effective"], "log_power": log_power}}
    panel = [(label, exponents, {name: log_power}, goal) for label, exponents, goal in law.wrong_laws([name])]
    log_mutants = getattr(law, "log_mutants", None)
    if log_mutants is not None and x.min() > 1:  # log x > 0 on the ladder: a log factor can be told apart
        panel += [(label, exponents, dict(logs), goal) for label, exponents, logs, goal in log_mutants([name])]
    controls, undecided = [], []
    for label, exponents, logs, goal in panel:
        control = _limit_check(law, x, ladder, name, float(exponents[name]), float(logs.get(name, 0.0)), confidence,
                               tolerance)
        outcome = decide(control).outcome  # an unsettled rejection is INCONCLUSIVE there, as the law's own failure
        text = law.mutant_text(exponents, logs) if log_mutants is not None else law.mutant_text(exponents)
        controls.append({"law": text, "verdict": outcome, "rejected": outcome == FAIL, "goal": goal,
                         "label": label, "exponents": exponents, "log_powers": logs})
        if goal and outcome != FAIL:
            undecided.append(label)
    unsettled = unsettled_failure(check)
    if not check.passed and unsettled:  # the extrapolation excludes it, the largest sizes do not: not settled
        verdict, reason = INCONCLUSIVE, unsettled
    elif not check.passed:
        verdict, reason = FAIL, "the limit excludes the law: " + check.message
    elif not all(map(math.isfinite, limit["ci"])):
        verdict = INCONCLUSIVE
        reason = (f"{len(x)} values of {name} identify no limit (one effective exponent cannot tell a correction to "
                  f"scaling from a different exponent): give at least 3 values of {name}, e.g. --over {name}=...")
    elif not undecided:
        kept_logs = [c["law"] for c in controls if c["label"].startswith("log power") and not c["rejected"]]
        verdict, reason = PASS, ("the law is inside the limit of the effective exponents and every goal mutant "
                                 "(exponent ± 1/2) is excluded"
                                 + (f"; a log factor is not resolved by this ladder ({', '.join(kept_logs)} not "
                                    f"excluded: its effective exponent decays only like 1/log {name})"
                                    if kept_logs else ""))
    else:
        lo, hi = limit["ci"]
        logs_only = all(label.startswith("log power") for label in undecided)
        verdict = INCONCLUSIVE
        reason = (f"{len(undecided)} goal mutant(s) agree with the limit too ({undecided[0]}): the limit "
                  f"{limit['estimate']:.4g} [{lo:.4g}, {hi:.4g}] cannot exclude it; "
                  + (f"a log factor needs a ladder over more decades of {name} (its effective exponent decays only "
                     f"like 1/log {name})" if logs_only else
                     f"more values of {name} at larger sizes (the limit's interval shrinks as the ladder grows) or "
                     f"more seeds would"))
    return {"measured": measured, "controls": controls, "verdict": verdict, "reason": reason, "check": check,
            "values": point_means(xs, table, [name], confidence)}


def point_means(xs: Mapping[str, np.ndarray], table: np.ndarray, varied: Sequence[str],
                confidence: float) -> list[dict[str, Any]]:
    """Per grid point: its coordinates, the mean of ``table``'s rows there and its interval at ``confidence``
    (:func:`~flt_theory.compare.mean_ci`, on the log scale of a positive quantity) — what the fit figure draws."""
    out = []
    for j in range(table.shape[1]):
        ci = mean_ci(table[:, j], confidence=confidence, bounds=(0.0, math.inf))
        out.append({**{k: float(xs[k][j]) for k in varied}, "estimate": ci.value, "ci": [ci.low, ci.high]})
    return out


def _bound(law: Any, point: Mapping[str, Any], exponents: Mapping[str, float],
           centre: Mapping[str, float]) -> float:
    """EXPR at ``point`` with ``exponents`` in place of the law's, equal to EXPR at ``centre``."""
    value = law.value_at(point) if hasattr(law, "value_at") else \
        law.coefficient * math.prod(float(point[k]) ** b for k, b in law.exponents.items())
    return value * math.prod((float(point[k]) / centre[k]) ** (b - law.exponents.get(k, 0.0))
                             for k, b in exponents.items())


def decide_relation(law: Any, points: Sequence[Mapping[str, Any]], table: np.ndarray, varied: Sequence[str],
                    alpha: float) -> dict[str, Any]:
    """Decide ``law`` (``=``, ``<=`` or ``>=``) on ``table`` (seeds, points) at the grid ``points`` with its
    mutation panel (module docstring): ``{"measured", "values", "controls", "verdict", "reason"}``."""
    seeds, m = table.shape
    two_sided = law.relation == "="
    confidence = 1 - (alpha if two_sided else 2 * alpha) / m
    intervals = [mean_ci(table[:, j], confidence=confidence) for j in range(m)]
    centre = {k: math.exp(np.mean([math.log(float(p[k])) for p in points])) for k in varied}
    own = {k: law.exponents.get(k, 0.0) for k in varied}

    def excluded(exponents: Mapping[str, float], relation: str = law.relation) -> list[int]:
        out = []
        for j, (p, ci) in enumerate(zip(points, intervals)):
            c = _bound(law, p, exponents, centre)
            if (relation in ("=", "<=") and ci.low > c) or (relation in ("=", ">=") and ci.high < c):
                out.append(j)
        return out

    values = [{**{k: p[k] for k in varied}, "estimate": ci.value, "ci": [ci.low, ci.high],
               "law": _bound(law, p, own, centre)} for p, ci in zip(points, intervals)]
    controls = []
    if not two_sided:  # the reversed bound: rejected exactly where the law is shown
        flipped = {"<=": ">=", ">=": "<="}[law.relation]
        rejected = bool(excluded(own, flipped))
        controls.append({"law": law.mutant_text(own).replace(f" {law.relation} ", f" {flipped} ", 1),
                         "verdict": FAIL if rejected else PASS, "rejected": rejected, "goal": True,
                         "label": "the reversed relation", "exponents": own})
    for label, exponents, goal in law.wrong_laws(varied):
        rejected = bool(excluded(exponents))
        # a symbol EXPR lacks: the law says nothing of its scaling, so its mutants are reported, not required
        controls.append({"law": law.mutant_text(exponents), "verdict": FAIL if rejected else PASS, "rejected": rejected,
                         "goal": goal and any(k in law.exponents for k in exponents if exponents[k] != own[k]),
                         "label": label, "exponents": exponents})
    violated = excluded(own)
    half = [(ci.high - ci.low) / 2 for ci in intervals]
    if violated:
        j = violated[0]
        return {"measured": {}, "values": values, "controls": controls, "verdict": FAIL,
                "reason": f"the data exclude the law at {_where(points[j], varied)}: {law.observable} = "
                          f"{intervals[j].value:.4g} [{intervals[j].low:.4g}, {intervals[j].high:.4g}], the law "
                          f"{values[j]['law']:.4g}"}
    if not two_sided:  # the bound must be shown: every point's other side inside it
        unshown = [j for j, ci in enumerate(intervals)
                   if (ci.high > values[j]["law"] if law.relation == "<=" else ci.low < values[j]["law"])]
        if unshown:
            j = unshown[0]
            need = seeds_to_separate(seeds, half_width=half[j], distance=abs(values[j]["law"] - intervals[j].value))
            inside = (
                intervals[j].value <= values[j]["law"]
                if law.relation == "<="
                else intervals[j].value >= values[j]["law"]
            )
            more = ("more seeds cannot show it (the mean is on the bound)" if need is None else
                    f"about {need} seeds would show it" if inside else
                    f"the mean is on the wrong side: about {need} seeds would exclude the law")
            return {"measured": {}, "values": values, "controls": controls, "verdict": INCONCLUSIVE,
                    "reason": f"the bound is not shown at {len(unshown)} point(s), e.g. {_where(points[j], varied)} "
                              f"({law.observable} = {intervals[j].value:.4g} [{intervals[j].low:.4g}, "
                              f"{intervals[j].high:.4g}], the law {values[j]['law']:.4g}): {more}"}
    kept = [c for c in controls if c["goal"] and not c["rejected"]]
    if not kept:
        goal = [c["label"] for c in controls if c["goal"]]
        return {"measured": {}, "values": values, "controls": controls, "verdict": PASS,
                "reason": f"the law holds at every point (simultaneous {1 - alpha:.0%}); "
                          + (f"every goal control is rejected ({', '.join(goal)})" if goal else
                             "it has no goal mutant (EXPR holds no varied symbol)")}
    j = int(np.argmax(half))
    need = seeds_to_separate(seeds, half_width=half[j], distance=half[j] / 2)
    what = "agrees with the data too" if two_sided else "holds too: the bound is not shown sharp in that symbol"
    return {"measured": {}, "values": values, "controls": controls, "verdict": INCONCLUSIVE,
            "reason": f"{len(kept)} goal mutant(s) ({kept[0]['law']}) {what}; a wider range of "
                      f"{', '.join(varied)} or more seeds (about {need} would halve the intervals) may separate them"}


def _where(point: Mapping[str, Any], varied: Sequence[str]) -> str:
    return ", ".join(f"{k}={point[k]}" for k in varied)
