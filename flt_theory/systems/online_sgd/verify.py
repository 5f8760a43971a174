r"""``flt verify TARGET --algorithm online-sgd``: a single-index target's online-SGD sample complexity, derived and
checked by simulation.

For a link :math:`g` (``y = g(<w*, x>)``, the student :math:`\sigma = g`), the symbolic layer derives the
information exponent :math:`k` (:func:`~.laws.link_exponent`) and the weak-recovery time of spherical online SGD
(Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409; :func:`~.laws.recovery_law`):

.. math:: n_{\mathrm{wr}} \asymp d \ (k = 1), \qquad d\log d \ (k = 2), \qquad d^{k-1} \ (k \ge 3),

with step size :math:`\eta = \tilde\eta\,d^{-\max(1, k/2)}` and start :math:`m_0 = a/\sqrt d`. The simulation
(:func:`~.simulate.run_rows`, exact reduced dynamics) measures the samples to overlap 1/2 on a ladder of
:math:`d`; :func:`~.recovery_claims.compare_time` fits the exponent of the (restricted) mean time in :math:`d` (divided
by :math:`\log d` at :math:`k = 2`; plus the predicted next-order term :math:`B\,d^{k/2}` where it is a pure power,
:func:`has_escape_term`) with a seed-bootstrap interval widened by its finite-size tolerance, and compares
it with the prediction AND with the two wrong exponents :math:`e - 1` and :math:`e + 1` on the same measurement.
The prediction PASSES only when its law passes and both wrong laws are rejected
(:func:`flt_theory.compare.verdict.decide_claim`, each comparison at its own 95% confidence); it FAILS when the data
exclude the law; else it is INCONCLUSIVE with the reason (a wrong law not rejected, or sizes over the time budget).

Sizes (:func:`sizes_for`): for :math:`k \le 3` those of the system's claims ``recovery-time-k1/k2/k3``
(:data:`~.recovery_claims.SIZES`); for :math:`k \ge 4`, :math:`\tilde\eta = 0.05`, :math:`a = 2`, :math:`d = 32, 64,
128` (paper: to 256), ``max_steps`` :math:`= 10\,d^{k-1}`. The cost is estimated from the predicted time
(:func:`estimated_seconds`) and a prediction over ``budget`` is not run.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..._text import table
from ...compare.result import CheckResult, fmt, fmt_ci
from ...compare.verdict import FAIL, INCONCLUSIVE, PASS, decide_claim
from ...errors import FLTError, InvalidParameterError
from ...runner.store import ResultStore
from ...symbolic.law import Law
from ..declaration import Measurement
from .laws import D, has_escape_term, link_exponent, recovery_law, split_law, time_value
from .recovery_claims import SIZES, compare_time

__all__ = ["DEFAULT_BUDGET", "SECONDS_PER_STEP", "OnlineSGDVerifyResult", "estimated_seconds",
           "sizes_for", "verify_target", "verify_text"]

#: Default time budget in seconds.
DEFAULT_BUDGET = 300.0
#: Seconds per step of a batch of seeds (one free CPU core, the order measured; the loop over steps dominates). On a
#: shared machine runs take longer: He3 / He4 at the small sizes ran 41 s / 857 s on 2 cores under a load of ~13.
SECONDS_PER_STEP = 3e-4
_SCALES = ("small", "paper")
#: Sizes for information exponent k >= 4 (module docstring).
_HIGH_K: dict[str, Any] = dict(eta_tilde=0.05, overlap0=2.0, small=dict(ds=(32, 64, 128), seeds=64),
                               paper=dict(ds=(32, 64, 128, 256), seeds=128))


def sizes_for(k: int, scale: str = "small") -> dict[str, Any]:
    r"""``{"ds", "seeds", "eta_tilde", "overlap0", "max_steps"}`` for information exponent ``k`` at ``scale``
    (module docstring); ``max_steps`` is a function of :math:`d`.

    >>> sizes_for(3)["ds"], sizes_for(4)["ds"], sizes_for(4)["max_steps"](32)
    ((32, 64, 128), (32, 64, 128), 327680)
    """
    if scale not in _SCALES:
        raise InvalidParameterError(f"--scale: must be one of {_SCALES}. Got {scale!r} instead.")
    if k <= 3:
        spec = SIZES[f"k{k}"]
        return dict(ds=spec[scale]["ds"], seeds=spec[scale]["seeds"], eta_tilde=spec["eta_tilde"],
                    overlap0=spec["overlap0"], max_steps=spec["max_steps"])
    return dict(ds=_HIGH_K[scale]["ds"], seeds=_HIGH_K[scale]["seeds"], eta_tilde=_HIGH_K["eta_tilde"],
                overlap0=_HIGH_K["overlap0"], max_steps=lambda d: 10 * d ** (k - 1))


def estimated_seconds(k: int, sizes: dict[str, Any]) -> float:
    r"""Seconds of the measurement: per :math:`d`, the slowest seed's steps, estimated as 3 times the predicted
    mean :math:`n \approx \mathrm{time}(d)/(\tilde\eta\,k\,k!\,a^{k-2})` (the escape integral of
    :func:`~.laws.recovery_law`'s derivation for :math:`\mathrm{He}_k`, whose population drift is
    :math:`k\,k!\,m^{k-1}`) and capped at ``max_steps``, times :data:`SECONDS_PER_STEP`.

    >>> round(estimated_seconds(1, sizes_for(1)), 1), round(estimated_seconds(4, sizes_for(4)))
    (3.6, 112)
    """
    total = 0.0
    for d in sizes["ds"]:
        drift = k * math.factorial(k) * max(sizes["overlap0"], 1.0) ** max(k - 2, 0)
        mean = float(time_value(k).subs(D, d)) / (sizes["eta_tilde"] * drift)
        total += min(3 * mean, sizes["max_steps"](d)) * SECONDS_PER_STEP * max(1.0, sizes["seeds"] / 64)
    return total


def _wrong(law: Law, shift: int) -> Law:
    """The law with the exponent of d moved by ``shift`` (the non-power factor kept)."""
    exponent, rest = split_law(law)
    power = sp.nsimplify(exponent) + shift
    value = sp.simplify(D**power * rest.value)
    return law.replace(name=f"wrong rate n ≍ {value}", value=value,
                       words=f"the exponent of d is {power} instead of {sp.nsimplify(exponent)}")


def _measurement(target: str, sizes: dict[str, Any]) -> Measurement:
    points = [{"target": target, "d": d, "eta_tilde": sizes["eta_tilde"], "overlap0": sizes["overlap0"],
               "max_steps": int(sizes["max_steps"](d))} for d in sizes["ds"]]
    return Measurement(experiment="online-sgd/recovery", points={s: points for s in _SCALES},
                       seeds={s: sizes["seeds"] for s in _SCALES})


def _verdict(check: CheckResult, controls: list[CheckResult]) -> tuple[str, list[str], str]:
    """The prediction's verdict (worst over its controls), each control's word, and the reason."""
    decisions = [decide_claim(check, control) for control in controls]
    words = ["rejected" if decision.rejected else "not rejected" for decision in decisions]
    outcomes = [decision.outcome for decision in decisions]
    verdict = FAIL if FAIL in outcomes else INCONCLUSIVE if INCONCLUSIVE in outcomes else PASS
    reason = next((decision.message for decision in decisions if decision.outcome == verdict and decision.message), "")
    return verdict, words, reason


def _entry(law: Law, wrongs: list[Law], seconds: float, check: CheckResult | None = None,
           controls: list[CheckResult] | None = None, reason: str = "") -> dict[str, Any]:
    if check is None:
        verdict, words = INCONCLUSIVE, ["not measured"] * len(wrongs)
    else:
        assert controls is not None  # measured: the check comes with its controls
        verdict, words, why = _verdict(check, controls)
        reason = reason or why
    per_control: Sequence[CheckResult | None] = controls or [None] * len(wrongs)
    return {"name": "weak-recovery time", "latex": law.latex(), "predicted": law.text(),
            "predicted_exponent": split_law(law)[0],
            "measured": None if check is None else check.measured, "ci": None if check is None else list(check.ci),
            "verdict": verdict,
            "control": "rejected" if all(w == "rejected" for w in words) else "not rejected",
            "wrong_law": "; ".join(w.text() for w in wrongs),
            "controls": [{"wrong_law": w.text(), "exponent": split_law(w)[0], "control": word,
                          "measured_message": None if c is None else c.message}
                         for w, word, c in zip(wrongs, words, per_control)],
            "message": reason or ("" if check is None else check.message), "seconds": seconds}


class OnlineSGDVerifyResult(dict):
    """The document of :func:`verify_target` (a dict, JSON-ready: ``json.dumps(result)``); ``passed`` as an
    attribute and :meth:`text` for the table ``flt verify`` prints."""

    @property
    def passed(self) -> bool:
        return bool(self["passed"])

    def text(self) -> str:
        """:func:`verify_text` of this document."""
        return verify_text(self)


def verify_text(document: dict[str, Any]) -> str:
    """The report as text: a summary table (prediction, verdict, negative controls), then the law, the measured
    exponent with its 95% interval, each wrong law with its outcome, and the reason of a verdict other than pass."""
    rows = [("prediction", "verdict", "negative controls")]
    rows += [(p["name"], p["verdict"], p["control"]) for p in document["predictions"]]
    lines = [f"target g(z) = {document['target']}, online SGD (student σ = g), information exponent "
             f"{document['information_exponent']}, d = {', '.join(map(str, document['ds']))}, "
             f"{document['seeds']} seeds", table(rows), ""]
    for p in document["predictions"]:
        lines += [p["name"], f"  law                {p['predicted']}"]
        if p["measured"] is not None:
            lines.append(f"  measured [95% CI]  exponent {fmt(p['measured'])} {fmt_ci(tuple(p['ci']))} "
                         f"(predicted {fmt(p['predicted_exponent'])})")
        lines += [f"  wrong law          {c['wrong_law']}: {c['control']}" for c in p["controls"]]
        if p["verdict"] != PASS:
            lines.append(f"  {p['verdict']}: {p['message']}")
    return "\n".join(lines)


def _parse(target: str) -> int:
    if not isinstance(target, str):
        raise InvalidParameterError(f"TARGET: must be a string (a link g(z)). Got {target!r} instead.")
    try:
        return link_exponent(target)
    except FLTError as exc:
        raise InvalidParameterError(f"TARGET: --algorithm online-sgd takes a single-index link g(z) (e.g. 'He3(z)'): "
                                    f"{exc}") from exc


def verify_target(target: str, *, scale: str = "small", seeds: int | None = None, budget: float = DEFAULT_BUDGET,
                  store: Any = None) -> OnlineSGDVerifyResult:
    r"""Derive the online-SGD weak-recovery time of the link ``target`` and check it by simulation against the
    wrong exponents :math:`\pm 1` (module docstring).

    Returns the JSON-ready :class:`OnlineSGDVerifyResult` ``{"algorithm", "target", "information_exponent",
    "scale", "ds", "seeds", "predictions": [{"name", "latex", "predicted", "predicted_exponent", "measured", "ci",
    "verdict", "control", "wrong_law", "controls", "message", "seconds"}], "passed"}``; ``passed`` is True iff every
    prediction passed. ``seeds`` replaces the scale's seed count; ``budget`` (seconds) bounds the estimated cost
    (:func:`estimated_seconds`): a prediction over it is inconclusive with the budget it needs. Bad input raises
    :class:`~flt_theory.errors.InvalidParameterError` naming ``TARGET`` or the option.

    >>> doc = verify_target("z", seeds=16, budget=60)
    >>> doc["information_exponent"], doc["predictions"][0]["verdict"], doc["predictions"][0]["control"]
    (1, 'pass', 'rejected')
    """
    k = _parse(target)
    sizes = sizes_for(k, scale)
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 4:
            raise InvalidParameterError(f"--seeds: must be an int >= 4. Got {seeds!r} instead.")
        sizes = {**sizes, "seeds": seeds}
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        raise InvalidParameterError(f"--budget: must be a positive number of seconds. Got {budget!r} instead.")
    law = recovery_law(target)
    wrongs = [_wrong(law, -1), _wrong(law, +1)]
    seconds = estimated_seconds(k, sizes)
    if seconds > budget:
        entry = _entry(law, wrongs, seconds, reason=f"estimated {seconds:.0f} s exceeds the budget of {budget:.0f} s; "
                                                     f"run with --budget {math.ceil(seconds)} or more")
    else:
        start = time.perf_counter()
        frame = _measurement(target, sizes).run(scale, store=store if store is not None else ResultStore(":memory:"))
        compare = functools.partial(compare_time, escape=has_escape_term(target, sizes["eta_tilde"]))
        check = compare(frame, law)
        entry = _entry(law, wrongs, time.perf_counter() - start, check, [compare(frame, w) for w in wrongs])
    return OnlineSGDVerifyResult(algorithm="online-sgd", target=target, information_exponent=k, scale=scale,
                                 ds=list(sizes["ds"]), seeds=sizes["seeds"], predictions=[entry],
                                 passed=entry["verdict"] == PASS)
