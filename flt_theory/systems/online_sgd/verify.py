r"""``flt verify TARGET --algorithm online-sgd``: a single-index target's online-SGD sample complexity, derived and
checked by simulation.

For a link :math:`g` (``y = g(<w*, x>)``, the student :math:`\sigma = g`), the symbolic layer derives the
information exponent :math:`k` (:func:`~.laws.link_exponent`) and the weak-recovery time of spherical online SGD
(Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409; :func:`~.laws.recovery_law`):

.. math:: n_{\mathrm{wr}} \asymp d \ (k = 1), \qquad d\log d \ (k = 2), \qquad d^{k-1} \ (k \ge 3),

with step size :math:`\eta = \tilde\eta\,d^{-\max(1, k/2)}` and start :math:`m_0 = a/\sqrt d`. The simulation
(:func:`~.simulate.run_rows`, exact reduced dynamics) measures the samples to overlap 1/2 on a ladder of :math:`d`.

**The decision** is about the limit :math:`d \to \infty`, which is what the law states
(:func:`flt_theory.compare.limit.check_limit_power_law`): the effective exponents of the mean time (of the time
divided by :math:`\log d` at :math:`k = 2`) between consecutive rungs, extrapolated with corrections to scaling
:math:`d^{-\omega}` allowed; the law :math:`d^a(\log d)^p` passes iff it lies in the limit's confidence set — no
tolerance is set by hand. The same measurement is compared with the wrong laws: the exponent :math:`a \mp 1`, and
at :math:`k = 2` the law without its :math:`\log d` (:func:`wrong_laws`). The prediction PASSES only when its law
passes and every wrong law is rejected (:func:`flt_theory.compare.verdict.decide_claim`, each comparison at its
own 95% confidence); it FAILS when the data exclude the law; else it is INCONCLUSIVE with the reason. With
``escape`` (default where :func:`~.laws.has_escape_term`, e.g. :math:`\mathrm{He}_3`) the predicted next-order term
:math:`B\,d^{k/2}` (:func:`~.laws.escape_correction`) is added to each time first: a correction of relative size
:math:`d^{1-k/2}` (:math:`d^{-1/2}` at :math:`k = 3`) that the limit decision also allows by itself.

**Censoring** (:func:`measure_ladder`). A run stopped by ``max_steps`` gives a lower bound, not a time, so a rung
with any censored run is never fitted. The censored seeds of such a rung are run again with ``max_steps`` raised
:data:`RAISE_FACTOR` times, at most :data:`MAX_RAISES` times, while the estimated cost stays within ``budget`` (a
seed's path does not depend on ``max_steps`` or on the batch: :mod:`.model`); a rung still censored is dropped with
a message naming :math:`d`, the number censored and the option that would fix it, and fewer than :data:`MIN_RUNGS`
rungs left make the prediction INCONCLUSIVE. A rung *stalls* when, after a raise to at least 3 times
the predicted mean time (:func:`predicted_steps`), at least :data:`STALL_FRACTION` of its runs are still censored,
their median overlap :math:`|m|` is below :data:`STALL_OVERLAP` and the raise moved it by less than
:data:`STALL_PROGRESS`: the step is too large for the
drift to beat the retraction to the sphere (:mod:`.stall`), reported as a step-size regime violation naming
:math:`\tilde\eta`. At :math:`k \le 2`, where :math:`\tilde\eta` is the step in units of :math:`1/d`, the
largest step whose limiting drift reaches 1/2 (:func:`~.stall.largest_admissible_step`) is reported with it; an
:math:`\tilde\eta` above it violates the law's step-size hypothesis, so the data cannot make the prediction FAIL
(INCONCLUSIVE instead, with the step that would test it).

Sizes (:func:`sizes_for`): for :math:`k \le 3` those of the system's claims ``recovery-time-k1/k2/k3``
(:data:`~.recovery_claims.SIZES`), except that the small :math:`k = 3` ladder adds :math:`d = 48, 96` (measured,
256 seeds, ``max_steps`` raised where censored: with the escape term the limit reads 1.97 [1.75, 2.91] and rejects
both :math:`d` and :math:`d^3`; on :math:`d = 32, 64, 128` alone, or without the escape term on the five rungs,
:math:`d^3` is not rejected); for :math:`k \ge 4`, :math:`\tilde\eta = 0.05`, :math:`a = 2`, :math:`d = 32, 64,
128` (paper: to 256), ``max_steps`` :math:`= 10\,d^{k-1}`. ``max_steps_factor`` multiplies ``max_steps`` at every
:math:`d` and ``eta_tilde`` replaces :math:`\tilde\eta`. The cost is estimated from the predicted time
(:func:`estimated_seconds`) and a prediction over ``budget`` is not run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from ..._text import table
from ...compare.limit import unsettled_failure
from ...compare.result import CheckResult, fmt, fmt_ci
from ...compare.verdict import FAIL, INCONCLUSIVE, PASS, decide_claim
from ...errors import FLTError, InvalidParameterError
from ...runner.store import ResultStore
from ...symbolic.law import Law
from .laws import D, has_escape_term, is_even, link_exponent, recovery_law, split_law, time_value
from .recovery_claims import SIZES, law_powers, time_limit

__all__ = ["DEFAULT_BUDGET", "MAX_RAISES", "MAX_STEPS_FACTOR", "MIN_RUNGS", "RAISE_FACTOR", "SECONDS_PER_STEP",
           "STALL_FRACTION", "STALL_OVERLAP", "STALL_PROGRESS", "OnlineSGDVerifyResult", "compare_limit",
           "dropped_message", "estimated_seconds", "law_powers", "measure_ladder", "predicted_steps", "sizes_for",
           "verify_target", "verify_text", "wrong_laws"]

#: Default time budget in seconds.
DEFAULT_BUDGET = 300.0
#: Seconds per step of a batch of seeds (one free CPU core; the loop over steps dominates). Measured on 2 cores:
#: ``flt verify z / He2(z) / He3(z) --algorithm online-sgd`` ran 0.32 / 0.59 / 12.1 s against estimates at this value
#: of 0.60 / 1.03 / 11.0 s (the earlier 3e-4 was 5 to 11 times the measured time); He4(z) ran 67.9 s against 19 s
#: (its slowest seed is far beyond 3 times the predicted mean: not within 2 times yet). On a shared machine runs take
#: longer: He3 / He4 at the small sizes ran 41 s / 857 s on 2 cores under a load of ~13.
SECONDS_PER_STEP = 5e-5
#: A censored rung's ``max_steps`` is multiplied by this at each automatic raise, at most :data:`MAX_RAISES` times.
RAISE_FACTOR = 4
MAX_RAISES = 2
#: Fewest rungs the limit is decided on (two give one effective exponent: every law would pass).
MIN_RUNGS = 3
#: A stall (module docstring): this fraction of the runs censored after a raise, their median overlap below
#: :data:`STALL_OVERLAP` (far below the recovery overlap 1/2) and moved by less than :data:`STALL_PROGRESS` by it.
STALL_FRACTION, STALL_OVERLAP, STALL_PROGRESS = 0.5, 0.4, 0.02
#: Largest ``max_steps_factor``.
MAX_STEPS_FACTOR = 1000.0
#: Largest ``eta_tilde`` (the theory's regime :math:`\tilde\eta \le 1`).
MAX_ETA_TILDE = 1.0
_EXPERIMENT = "online-sgd/recovery"
_SCALES = ("small", "paper")
#: The verify ladders that differ from the claims' (module docstring): k = 3 at the small scale adds d = 48 and 96, so
#: that the limit has four effective exponents (three leave the exponent d^3 unrejected at d <= 128).
_LADDERS: dict[tuple[int, str], tuple[int, ...]] = {(3, "small"): (32, 48, 64, 96, 128)}
#: Sizes for information exponent k >= 4 (module docstring).
_HIGH_K: dict[str, Any] = dict(eta_tilde=0.05, overlap0=2.0, small=dict(ds=(32, 64, 128), seeds=64),
                               paper=dict(ds=(32, 64, 128, 256), seeds=128))


def sizes_for(k: int, scale: str = "small") -> dict[str, Any]:
    r"""``{"ds", "seeds", "eta_tilde", "overlap0", "max_steps"}`` for information exponent ``k`` at ``scale``
    (module docstring); ``max_steps`` is a function of :math:`d`.

    >>> sizes_for(3)["ds"], sizes_for(4)["ds"], sizes_for(4)["max_steps"](32)
    ((32, 48, 64, 96, 128), (32, 64, 128), 327680)
    """
    if scale not in _SCALES:
        raise InvalidParameterError(f"--scale: must be one of {_SCALES}. Got {scale!r} instead.")
    if k <= 3:
        spec = SIZES[f"k{k}"]
        return dict(ds=_LADDERS.get((k, scale), spec[scale]["ds"]), seeds=spec[scale]["seeds"],
                    eta_tilde=spec["eta_tilde"], overlap0=spec["overlap0"], max_steps=spec["max_steps"])
    return dict(ds=_HIGH_K[scale]["ds"], seeds=_HIGH_K[scale]["seeds"], eta_tilde=_HIGH_K["eta_tilde"],
                overlap0=_HIGH_K["overlap0"], max_steps=lambda d: 10 * d ** (k - 1))


def predicted_steps(k: int, d: int, sizes: dict[str, Any]) -> float:
    r"""The predicted mean steps to overlap 1/2 at :math:`d`, :math:`\mathrm{time}(d)/(\tilde\eta\,k\,k!\,a^{k-2})`
    (the escape integral of :func:`~.laws.recovery_law`'s derivation for :math:`\mathrm{He}_k`, whose population drift
    is :math:`k\,k!\,m^{k-1}`; an order of magnitude for other links).

    >>> predicted_steps(1, 64, sizes_for(1))
    128.0
    """
    drift = k * math.factorial(k) * max(sizes["overlap0"], 1.0) ** max(k - 2, 0)
    return float(time_value(k).subs(D, d)) / (sizes["eta_tilde"] * drift)


def estimated_seconds(k: int, sizes: dict[str, Any]) -> float:
    r"""Seconds of the measurement: per :math:`d`, the slowest seed's steps, estimated as 3 times
    :func:`predicted_steps` and capped at ``max_steps``, times :data:`SECONDS_PER_STEP`.

    >>> round(estimated_seconds(1, sizes_for(1)), 1), round(estimated_seconds(4, sizes_for(4)))
    (0.6, 19)
    """
    return sum(min(3 * predicted_steps(k, d, sizes), sizes["max_steps"](d)) * SECONDS_PER_STEP
               * max(1.0, sizes["seeds"] / 64) for d in sizes["ds"])


def _raise_seconds(max_steps: int, seeds: int) -> float:
    """Estimated seconds of running ``seeds`` seeds to ``max_steps`` (the worst case of a censored seed)."""
    return max_steps * SECONDS_PER_STEP * max(1.0, seeds / 64)


def _wrong(law: Law, shift: int) -> Law:
    """The law with the exponent of d moved by ``shift`` (the non-power factor kept)."""
    exponent, rest = split_law(law)
    power = sp.nsimplify(exponent) + shift
    value = sp.simplify(D**power * rest.value)
    return law.replace(name=f"wrong rate n ≍ {value}", value=value,
                       words=f"the exponent of d is {power} instead of {sp.nsimplify(exponent)}")


def _without_log(law: Law) -> Law:
    """The law with its non-power factor (a log d) left out."""
    exponent, rest = split_law(law)
    value = D ** sp.nsimplify(exponent)
    return law.replace(name=f"wrong rate n ≍ {value}", value=value,
                       words=f"no factor {rest.value}: n ≍ {value}")


def wrong_laws(law: Law) -> list[Law]:
    r"""The wrong laws compared on the same measurement: the exponent of :math:`d` moved by :math:`-1` and
    :math:`+1`, and, for a law with a :math:`\log d` factor, the law without it.

    >>> [w.text() for w in wrong_laws(recovery_law("He2(z)"))][2]
    'no factor log(d): n ≍ d'
    """
    return [_wrong(law, -1), _wrong(law, +1)] + ([_without_log(law)] if law_powers(law)[1] else [])


def _points(target: str, sizes: dict[str, Any], caps: dict[int, int]) -> list[dict[str, Any]]:
    return [{"target": target, "d": d, "eta_tilde": sizes["eta_tilde"], "overlap0": sizes["overlap0"],
             "max_steps": cap} for d, cap in caps.items()]


def _run(target: str, sizes: dict[str, Any], caps: dict[int, int], seeds: Sequence[int], store: Any) -> pd.DataFrame:
    from ...runner import sweep

    return sweep(_EXPERIMENT, points=_points(target, sizes, caps), seeds=[int(s) for s in seeds], store=store,
                 progress=False)


def _overlap(rows: pd.DataFrame, even: bool) -> pd.Series:
    """The final overlap per seed (its absolute value for an even link, whose recovery reads :math:`|m|`)."""
    values = rows.set_index("seed")["final_overlap"]
    return values.abs() if even else values


def measure_ladder(target: str, sizes: dict[str, Any], *, budget: float, spent: float = 0.0,
                   store: Any = None) -> tuple[pd.DataFrame, list[dict[str, Any]], float]:
    r"""``(frame, rungs, spent)``: the measurement on the ladder ``sizes`` (:func:`sizes_for`, ``max_steps`` a
    function of :math:`d`) with the censored seeds run again at raised ``max_steps`` within ``budget`` (module
    docstring). ``rungs``: per :math:`d`, ``{"d", "max_steps", "raised", "censored", "seeds", "stalled",
    "overlap", "blocked"}`` (``overlap``: the median final overlap of the censored runs, None without any;
    ``blocked``: the estimated seconds of the raise ``budget`` did not allow, else None);
    ``spent``: ``spent`` plus the estimated seconds of the raises."""
    store = store if store is not None else ResultStore(":memory:")
    seeds, even, k = int(sizes["seeds"]), is_even(target), link_exponent(target)
    caps = {int(d): max(1, int(sizes["max_steps"](d))) for d in sizes["ds"]}
    frame = _run(target, sizes, caps, range(seeds), store)
    rungs: dict[int, dict[str, Any]] = {d: {"d": d, "max_steps": cap, "raised": 0, "stalled": False, "blocked": None}
                                        for d, cap in caps.items()}
    for _ in range(MAX_RAISES):
        for d, rung in rungs.items():
            censored = frame[(frame["d"] == d) & (frame["censored"] > 0)]
            if censored.empty or rung["stalled"]:
                continue
            cap = rung["max_steps"] * RAISE_FACTOR
            cost = _raise_seconds(cap, len(censored))
            if spent + cost > budget:
                rung["blocked"] = cost
                continue
            spent += cost
            again = _run(target, sizes, {d: cap}, censored["seed"].tolist(), store)
            frame = pd.concat([frame[~((frame["d"] == d) & frame["seed"].isin(censored["seed"]))], again],
                              ignore_index=True)
            rung.update(max_steps=cap, raised=rung["raised"] + 1, blocked=None)
            still = again[again["censored"] > 0]
            if len(still) >= STALL_FRACTION * seeds and cap >= 3 * predicted_steps(k, d, sizes):
                after, before = _overlap(still, even), _overlap(censored, even)
                progress = float(np.median(after - before.loc[after.index]))
                rung["stalled"] = bool(after.median() < STALL_OVERLAP and progress < STALL_PROGRESS)
    frame = frame.sort_values(["d", "seed"], ignore_index=True)
    for d, rung in rungs.items():
        censored = frame[(frame["d"] == d) & (frame["censored"] > 0)]
        rung.update(censored=len(censored), seeds=seeds,
                    overlap=float(_overlap(censored, even).median()) if len(censored) else None)
    return frame, list(rungs.values()), spent


def _admissible_step(target: str, k: int) -> float | None:
    r"""At :math:`k \le 2` (:math:`\tilde\eta` the step in units of :math:`1/d`): the largest :math:`\tilde\eta`
    whose limiting drift reaches overlap 1/2 (:func:`~.stall.largest_admissible_step`); None at :math:`k \ge 3`
    (the step in units of :math:`1/d` vanishes as :math:`d` grows) or where it is not derived (a non-polynomial
    link)."""
    if k > 2:
        return None
    from .stall import largest_admissible_step

    try:
        return float(largest_admissible_step(target))
    except (FLTError, ValueError, TypeError):
        return None


def dropped_message(rung: dict[str, Any], factor: float, eta_tilde: float, admissible: float | None) -> str:
    """Why a rung of :func:`measure_ladder` with censored runs is left out of the fit, and the option that would fix
    it (``factor``: the ``max_steps_factor`` of the run; ``admissible``: the largest admissible step, if known)."""
    d, n, seeds, cap = rung["d"], rung["censored"], rung["seeds"], rung["max_steps"]
    raised = f" after a ×{RAISE_FACTOR ** rung['raised']} raise" if rung["raised"] else ""
    if rung["stalled"]:
        bound = f" below {admissible:.3g}, the largest step whose limiting drift reaches 1/2" if admissible else ""
        return (f"d = {d}: {n} of {seeds} runs stalled (censored at max_steps = {cap}{raised}, median overlap "
                f"{rung['overlap']:.2f}, far below 1/2 and not moving): a step-size regime violation at eta_tilde = "
                f"{eta_tilde:g}; lower --eta-tilde{bound}")
    total = factor * RAISE_FACTOR ** rung["raised"]
    budget = (f", or a larger --budget (its automatic ×{RAISE_FACTOR} raise is estimated at {rung['blocked']:.0f} s)"
              if rung["blocked"] is not None else "")
    return (f"d = {d}: {n} of {seeds} runs censored at max_steps = {cap}{raised} (a censored time is only a lower "
            f"bound): raise --max-steps-factor to {total * RAISE_FACTOR:g} or more{budget}")


def compare_limit(frame: pd.DataFrame, law: Law, *, escape: bool = False) -> CheckResult:
    r"""The mean weak-recovery time of ``frame`` (uncensored rungs only; with ``escape`` plus
    :math:`B\,d^{k/2}`, :func:`~.readouts.escape_term`) against ``law`` in the limit :math:`d \to \infty`
    (:func:`.recovery_claims.time_limit`, the catalogue's decision)."""
    if (frame["censored"] > 0).any():
        raise InvalidParameterError("compare_limit takes uncensored rungs only (a censored time is a lower bound).")
    return time_limit(frame, law, escape=escape)


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _verdict(check: CheckResult, controls: list[CheckResult]) -> tuple[str, list[str], str]:
    """The prediction's verdict (worst over its controls), each control's word, and the reason."""
    decisions = [decide_claim(check, control) for control in controls]
    # a wrong law counts as rejected only where its failure is settled at the largest sizes (compare.verdict.decide)
    settled = [decision.rejected and not decision.wrong_law.unsettled for decision in decisions]
    words = ["rejected" if rejected else "not rejected" for rejected in settled]
    outcomes = [INCONCLUSIVE if decision.outcome == PASS and not rejected else decision.outcome
                for decision, rejected in zip(decisions, settled)]
    verdict = FAIL if FAIL in outcomes else INCONCLUSIVE if INCONCLUSIVE in outcomes else PASS
    reason = next((decision.message for decision in decisions if decision.outcome == verdict and decision.message), "")
    unsettled = unsettled_failure(check)
    if verdict == FAIL and unsettled:  # the largest sizes still agree with the law (compare.limit)
        verdict, reason = INCONCLUSIVE, unsettled
    return verdict, words, reason


def _entry(law: Law, wrongs: list[Law], seconds: float, measured: dict[str, Any], check: CheckResult | None = None,
           controls: list[CheckResult] | None = None, reason: str = "",
           effective: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One prediction of the document; ``measured``: its ``sizes``, ``dropped``, ``escape_term`` and
    ``step_size``."""
    if check is None:
        verdict, words = INCONCLUSIVE, ["not measured"] * len(wrongs)
    else:
        assert controls is not None  # measured: the check comes with its controls
        verdict, words, why = _verdict(check, controls)
        step = measured["step_size"]
        if verdict == FAIL and step["admissible"] is False:
            verdict, why = INCONCLUSIVE, (f"eta_tilde = {step['eta_tilde']:g} is outside the step-size regime the law "
                                          f"assumes (the limiting drift stalls below overlap 1/2): --eta-tilde below "
                                          f"{step['largest_admissible']:.3g} would test it; {check.message}")
        reason = reason or why
        effective = check.details["effective"]
    per_control: Sequence[CheckResult | None] = controls or [None] * len(wrongs)
    limit = None if check is None else {**check.details["limit"], "p_value": check.details["p_value"]}
    return {"name": "weak-recovery time", "latex": law.latex(), "predicted": law.text(),
            "predicted_exponent": split_law(law)[0], "log_power": law_powers(law)[1],
            "measured": None if check is None else _finite(check.measured),
            "ci": None if check is None else [_finite(c) for c in check.ci],
            "verdict": verdict,
            "control": "rejected" if all(w == "rejected" for w in words) else "not rejected",
            "wrong_law": "; ".join(w.text() for w in wrongs),
            "controls": [{"wrong_law": w.text(), "exponent": law_powers(w)[0], "log_power": law_powers(w)[1],
                          "control": word, "measured_message": None if c is None else c.message}
                         for w, word, c in zip(wrongs, words, per_control)],
            "message": reason or ("" if check is None else check.message), "seconds": seconds,
            **measured,
            "effective": [{"from": r["from"], "to": r["to"], "estimate": _finite(r["estimate"]),
                           "ci": [_finite(c) for c in r["ci"]]} for r in effective or []],
            "limit": None if limit is None else {"estimate": _finite(limit["estimate"]),
                                                 "ci": [_finite(c) for c in limit["ci"]], "model": limit["model"],
                                                 "p_value": limit["p_value"]}}


class OnlineSGDVerifyResult(dict):
    """The document of :func:`verify_target` (a dict, JSON-ready: ``json.dumps(result)``); ``passed`` as an
    attribute and :meth:`text` for the table ``flt verify`` prints."""

    @property
    def passed(self) -> bool:
        return bool(self["passed"])

    def text(self) -> str:
        """:func:`verify_text` of this document."""
        return verify_text(self)


def _ci_text(ci: Sequence[float | None]) -> str:
    low, high = ci
    return fmt_ci((-math.inf if low is None else low, math.inf if high is None else high))


def _prediction_text(p: dict[str, Any]) -> list[str]:
    sizes = p["sizes"]
    lines = [p["name"], f"  law                {p['predicted']}",
             f"  sizes              eta_tilde = {sizes['eta_tilde']:g}, m0 = {sizes['overlap0']:g}/√d, "
             f"{sizes['seeds']} seeds, max_steps × {sizes['max_steps_factor']:g}"
             + ("; the predicted term B d^(k/2) added to each time" if p["escape_term"] else "")]
    rows = [("d", "max steps", "censored", "fitted")]
    rows += [(str(d), str(cap), str(n), "yes" if d in sizes["fitted"] else "no")
             for d, cap, n in zip(sizes["ds"], sizes["max_steps"], sizes["censored"])]
    lines += ["    " + line for line in table(rows).splitlines()]
    log = "" if not p["log_power"] else " log d" if p["log_power"] == 1 else f" (log d)^{fmt(p['log_power'])}"
    what = f"exponent of n /{log}" if log else "exponent"
    if p["effective"]:
        lines.append(f"  effective {what}: " + "; ".join(
            f"{r['from']:g}→{r['to']:g} {fmt(r['estimate'])} {_ci_text(r['ci'])}" for r in p["effective"]))
    if p["limit"] is not None:
        lines.append(f"  limit [95% CI]     {what} {fmt(p['limit']['estimate'])} {_ci_text(p['limit']['ci'])} "
                     f"(predicted {fmt(p['predicted_exponent'])}; {p['limit']['model']})")
    lines += [f"  wrong law          {c['wrong_law']}: {c['control']}" for c in p["controls"]]
    lines += [f"  dropped            {message}" for message in p["dropped"] if message not in p["message"]]
    if p["verdict"] != PASS:
        lines.append(f"  {p['verdict']}: {p['message']}")
    return lines


def verify_text(document: dict[str, Any]) -> str:
    """The report as text: a summary table (prediction, verdict, negative controls), then per prediction the law,
    the sizes simulated (per d: max_steps, censored runs, fitted or not), the effective exponents along the ladder,
    the limit with its 95% interval and model, each wrong law with its outcome, the rungs dropped and the reason of a
    verdict other than pass."""
    rows = [("prediction", "verdict", "negative controls")]
    rows += [(p["name"], p["verdict"], p["control"]) for p in document["predictions"]]
    lines = [f"target g(z) = {document['target']}, online SGD (student σ = g), information exponent "
             f"{document['information_exponent']}, d = {', '.join(map(str, document['ds']))}, "
             f"{document['seeds']} seeds", table(rows), ""]
    for p in document["predictions"]:
        lines += _prediction_text(p)
    return "\n".join(lines)


def _parse(target: str) -> int:
    if not isinstance(target, str):
        raise InvalidParameterError(f"TARGET: must be a string (a link g(z)). Got {target!r} instead.")
    try:
        return link_exponent(target)
    except FLTError as exc:
        raise InvalidParameterError(f"TARGET: --algorithm online-sgd takes a single-index link g(z) (e.g. 'He3(z)'): "
                                    f"{exc}") from exc


def _number(value: Any, option: str, upper: float, words: str) -> float:
    """``value`` as a float in (0, upper], else an error naming ``option``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= upper:
        raise InvalidParameterError(f"{option}: must be a number in (0, {upper:g}] ({words}). Got {value!r} instead.")
    return float(value)


def _options(k: int, scale: str, seeds: int | None, budget: float, max_steps_factor: float,
             eta_tilde: float | None) -> dict[str, Any]:
    """The sizes of the run with the options applied, each option validated (errors name it)."""
    sizes = sizes_for(k, scale)
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 4:
            raise InvalidParameterError(f"--seeds: must be an int >= 4. Got {seeds!r} instead.")
        sizes = {**sizes, "seeds": seeds}
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        raise InvalidParameterError(f"--budget: must be a positive number of seconds. Got {budget!r} instead.")
    factor = _number(max_steps_factor, "--max-steps-factor", MAX_STEPS_FACTOR,
                     "it multiplies the ladder's max_steps at every d")
    if eta_tilde is not None:
        sizes["eta_tilde"] = _number(eta_tilde, "--eta-tilde", MAX_ETA_TILDE,
                                     "the step is eta_tilde * d^-max(1, k/2)")
    base = sizes["max_steps"]
    return {**sizes, "max_steps_factor": factor, "max_steps": lambda d: max(1, math.ceil(factor * base(d)))}


def verify_target(target: str, *, scale: str = "small", seeds: int | None = None, budget: float = DEFAULT_BUDGET,
                  store: Any = None, max_steps_factor: float = 1.0, eta_tilde: float | None = None,
                  escape: bool | None = None) -> OnlineSGDVerifyResult:
    r"""Derive the online-SGD weak-recovery time of the link ``target`` and check it by simulation, in the limit of
    large :math:`d`, against its wrong laws (module docstring).

    Returns the JSON-ready :class:`OnlineSGDVerifyResult` ``{"algorithm", "target", "information_exponent",
    "scale", "ds", "seeds", "eta_tilde", "max_steps_factor", "predictions": [{"name", "latex", "predicted",
    "predicted_exponent", "log_power", "measured", "ci", "verdict", "control", "wrong_law", "controls", "message",
    "seconds", "sizes", "dropped", "escape_term", "step_size", "effective", "limit"}], "passed"}``: ``measured`` and
    ``ci`` are the limit's exponent and interval (``limit`` adds its ``model`` and ``p_value``), ``effective`` the
    effective exponents ``{"from", "to", "estimate", "ci"}`` along the fitted ladder, ``sizes`` ``{"ds", "seeds",
    "eta_tilde", "overlap0", "max_steps_factor", "max_steps", "censored", "fitted"}`` (``max_steps`` and
    ``censored`` per d, after the automatic raises), ``dropped`` one message per rung left out; ``passed`` is True
    iff every prediction passed. ``seeds`` replaces the scale's seed count, ``max_steps_factor`` multiplies
    ``max_steps``, ``eta_tilde`` replaces :math:`\tilde\eta`, ``escape`` (default :func:`~.laws.has_escape_term`)
    adds the predicted :math:`B\,d^{k/2}`; ``budget`` (seconds) bounds the estimated cost (:func:`estimated_seconds`
    and the raises): a prediction over it is inconclusive with the budget it needs. Bad input raises
    :class:`~flt_theory.errors.InvalidParameterError` naming ``TARGET`` or the option.

    >>> doc = verify_target("z", seeds=16, budget=60)
    >>> doc["information_exponent"], doc["predictions"][0]["verdict"], doc["predictions"][0]["control"]
    (1, 'pass', 'rejected')
    """
    k = _parse(target)
    sizes = _options(k, scale, seeds, budget, max_steps_factor, eta_tilde)
    law = recovery_law(target)
    wrongs = wrong_laws(law)
    escape = has_escape_term(target, sizes["eta_tilde"]) if escape is None else bool(escape)
    admissible = _admissible_step(target, k)
    step = {"eta_tilde": sizes["eta_tilde"], "largest_admissible": admissible,
            "admissible": None if admissible is None else sizes["eta_tilde"] < admissible}
    ds = [int(d) for d in sizes["ds"]]
    planned = {"ds": ds, "seeds": sizes["seeds"], "eta_tilde": sizes["eta_tilde"], "overlap0": sizes["overlap0"],
               "max_steps_factor": sizes["max_steps_factor"], "max_steps": [int(sizes["max_steps"](d)) for d in ds],
               "censored": [None] * len(ds), "fitted": []}
    measured: dict[str, Any] = {"sizes": planned, "dropped": [], "escape_term": escape, "step_size": step}
    seconds = estimated_seconds(k, sizes)
    if seconds > budget:
        entry = _entry(law, wrongs, seconds, measured,
                       reason=f"estimated {seconds:.0f} s exceeds the budget of {budget:.0f} s; "
                              f"run with --budget {math.ceil(seconds)} or more")
    else:
        start = time.perf_counter()
        frame, rungs, _ = measure_ladder(target, sizes, budget=budget, spent=seconds, store=store)
        fitted = [r["d"] for r in rungs if not r["censored"]]
        dropped = [dropped_message(r, sizes["max_steps_factor"], sizes["eta_tilde"], admissible)
                   for r in rungs if r["censored"]]
        measured.update(sizes={**planned, "max_steps": [r["max_steps"] for r in rungs],
                               "censored": [r["censored"] for r in rungs], "fitted": fitted}, dropped=dropped)
        kept = frame[frame["d"].isin(fitted)]
        if len(fitted) < MIN_RUNGS:
            effective = time_limit(kept, law, escape=escape).details["effective"] if len(fitted) == 2 else None
            reason = (f"{len(fitted)} of the {len(ds)} rungs measured without censored runs, the limit needs at least "
                      f"{MIN_RUNGS}; dropped: " + "; ".join(dropped))
            if step["admissible"] is False and not any(r["stalled"] for r in rungs):
                reason += (f"; note that eta_tilde = {step['eta_tilde']:g} is above {admissible:.3g}, the largest step "
                           "whose limiting drift reaches overlap 1/2 (lower --eta-tilde)")
            entry = _entry(law, wrongs, time.perf_counter() - start, measured, reason=reason, effective=effective)
        else:
            check = compare_limit(kept, law, escape=escape)
            controls = [compare_limit(kept, w, escape=escape) for w in wrongs]
            entry = _entry(law, wrongs, time.perf_counter() - start, measured, check, controls)
    return OnlineSGDVerifyResult(algorithm="online-sgd", target=target, information_exponent=k, scale=scale,
                                 ds=ds, seeds=sizes["seeds"], eta_tilde=sizes["eta_tilde"],
                                 max_steps_factor=sizes["max_steps_factor"], predictions=[entry],
                                 passed=entry["verdict"] == PASS)
