r"""``flt verify TARGET``: any target in, its derived giant-step predictions checked by simulation.

For a target :math:`f^*` (rank :math:`r \le 4`, in the grammar of :class:`~flt_theory.symbolic.Target`)
and a student activation :math:`\sigma`, the symbolic layer derives (:mod:`.laws`):

1. **one-step threshold** :math:`\kappa^* = \ell` (the leap index): one giant step with
   :math:`\eta = p\,d^{(\ell-1)/2}` on :math:`n = d^\kappa` samples learns nothing for :math:`\kappa < \ell`
   (the excess mass on :math:`V^*` decays like :math:`d^{\kappa-\ell}`) and something at :math:`\kappa = \ell`
   (slope 0). With a vanishing student coefficient :math:`c_\sigma = \mu_\ell(\sigma)/(\ell-1)! = 0` the
   prediction is instead that nothing is learned at any :math:`\kappa` (mass at its random level);
2. **one-step subspace** :math:`U^*_\ell` at :math:`\kappa = \ell + \tfrac12` (above the threshold: at
   :math:`\kappa = \ell` the effect is only half saturated): every direction of it carries ≥ 10× its random
   mass, the rest of :math:`V^*` stays ≤ 3× its random level;
3. **staircase** :math:`U_1 \subset \dots \subset U_T` for :math:`T` steps with :math:`n = 64d`, :math:`\eta = 4p`
   (every new direction learned at its step, nothing outside) — a direction is called *learned at this size*
   only where its predicted size (:func:`flt_theory.symbolic.staircase_sizes.staircase_sizes`: population term
   plus finite-sample fluctuation) is resolvable (least new direction ≥ 15× random); the others are reported
   with the size that would resolve them and not checked (their complement still is), and a staircase with
   no resolvable step is **inconclusive**. The entry carries the predicted ``sizes``;
4. **second-layer floors**: the ridge second layer (:math:`p = 8`, :math:`n = 64d`, :math:`\eta = 4p`) after
   :math:`T = 0..` steps has error :math:`\ge` the random-feature floor at :math:`T = 0` (with its derived
   finite-width term, :func:`flt_theory.symbolic.projections.random_feature_floor`) and the conditional-variance
   floor :math:`\mathbb E[\mathrm{Var}(f^*\mid P_{U_T}x)]` after, and falls at every step whose new directions
   are resolvable; wrong law: the last such step learns nothing (its floor stays at the previous one).

Each prediction is a claim built on the spot with the giant-step system's experiments and comparisons
(:mod:`.declaration`): one stored measurement, compared with the predicted law and with a wrong law (a
threshold one higher, the complement of the subspace, a staircase that learns everything at once). A
prediction PASSES only when its law passes AND its wrong law is rejected; a law that passes while its
wrong law also passes is **inconclusive** (the sizes cannot tell them apart), as is a prediction whose
sizes would exceed the time budget — each says why and what size would resolve it.

Sizes are chosen from the leap index: :math:`d \in \{32, 64, 128\}` (``paper``: up to 256),
:math:`\kappa \in \{\ell - 1, \ell - \tfrac12, \ell\}` (at least 0.5), :math:`p = 32`, 8 seeds (16 at
``paper``). The cost of a point is estimated as :math:`n\,(p+r)\,p` multiply-adds per seed on the
projected path (:func:`flt_theory.numeric.giant_steps`), at about :data:`FLOPS_PER_SECOND`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from typing import Any

import numpy as np
import pandas as pd

from ...compare.result import CheckResult
from ...compare import check_not_learned, check_subspace_learned
from ...errors import FLTError, InvalidParameterError
from ..._text import subspace_text
from ...runner.store import ResultStore
from ...symbolic import Subspace, Target, conditional_variance, leap_index, staircase
from ...symbolic.law import SYMBOLS, Law
from ...symbolic.staircase_sizes import RESOLVABLE_FACTOR, predicted_moments, staircase_sizes
from ...symbolic.target import parse_link
from ..declaration import Claim, Measurement
from .declaration import (
    _masses,
    compare_floors,
    compare_leap2_slopes,
    compare_staircase,
    compare_student_coefficient,
    second_moments,
)
from .laws import giant_step_laws, second_layer_floors, subspace_law
from .simulate import samples_for

__all__ = ["FLOPS_PER_SECOND", "MAX_RANK", "verify"]

#: Largest target rank ``flt verify`` accepts.
MAX_RANK = 4
#: Multiply-adds per second assumed by the time estimate (one CPU core, float32, measured order).
FLOPS_PER_SECOND = 2e9
#: Largest samples per step a verify point uses.
MAX_SAMPLES = 4_000_000
#: Default time budget in seconds (fit for 2 cores).
DEFAULT_BUDGET = 120.0

_SIZES = {"small": {"ds": (32, 64, 128), "seeds": 8, "p": 32}, "paper": {"ds": (64, 128, 256), "seeds": 16, "p": 32}}


def _kappas(ell: int) -> tuple[float, ...]:
    return tuple(k for k in (ell - 1.0, ell - 0.5, float(ell)) if k >= 0.5)


def _cost_seconds(points: list[dict], seeds: int, r: int, steps: int = 1) -> float:
    """Estimated seconds of a measurement (module docstring)."""
    total = 0.0
    for point in points:
        n = point.get("n") or samples_for(point["d"], point["kappa"])
        total += n * (point["p"] + r) * point["p"] * 4 * steps  # forward + backward, both layers' products
    return total * seeds / FLOPS_PER_SECOND


def compare_one_step_subspace(frame: pd.DataFrame, law: Law, *, fluctuation: np.ndarray | None = None) -> CheckResult:
    r"""After one step at :math:`\kappa = \ell + \tfrac12`: every direction of ``law.subspaces()[0]`` carries ≥ 5×
    its random mass :math:`1/d` (least-learned direction) and :math:`V^* \ominus U` stays ≤ 3× its random level.

    Why 5×. With :math:`\eta = p\,d^{(\ell-1)/2}` the signal part of a neuron's update along :math:`V^*` has
    norm :math:`\approx c_\sigma\|C_\ell\|` (the overlap law), the noise part squared norm
    :math:`d^{\ell}/n = d^{-1/2}`, so the normalised mass per learned direction is about
    :math:`(c_\sigma\|C_\ell\|)^2/(\dim U\,(1 + (c_\sigma\|C_\ell\|)^2 + d^{-1/2}))`: for a ReLU student
    (:math:`c_\sigma = 1/\sqrt{2\pi}` at :math:`\ell = 2`) and :math:`z_1z_2` that is ≈ 0.065 per direction,
    8× the random :math:`1/128` — a 10× demand would fail a true law at these sizes.

    The complement's level. ``fluctuation`` (``r × r``, :func:`flt_theory.symbolic.staircase_sizes.predicted_moments`)
    is the predicted mass matrix of the initialisation and the sample noise alone: the noise is anisotropic
    (:math:`\kappa^2\mathbb E[y^2\sigma'^2 zz^\top]/n`; for :math:`\mathrm{He}_3(z_1) + z_2` at :math:`d = 128`,
    :math:`n = d^{1.5}` the direction :math:`w^*_1` is predicted at 1.8× random and measured at 2.0×), so
    :math:`V^* \ominus U` is compared with 3× the larger of its random level and its predicted fluctuation."""
    (u,) = law.subspaces()
    r, d = u.ambient, int(frame["d"].iloc[0])
    moments = second_moments(frame, 1, r)
    comp = u.complement().numpy() if u.dim < r else np.zeros((0, r))
    off = _masses(moments, comp)[0]
    if u.dim == 0:
        return check_not_learned(off, r / d, max_ratio=3.0, name="one step: nothing learned in V*")
    least = _masses(moments, u.numpy())[1]
    level = max(len(comp), 1) / d
    if fluctuation is not None and len(comp):
        level = max(level, float(np.trace(comp @ fluctuation @ comp.T)))
    return check_subspace_learned(least, off, level, min_factor=5.0, baseline_on_U=1 / d, max_ratio=3.0,
                                  name=f"one step above the threshold: U = {subspace_text(u)}")


def _wrong_subspace(u: Subspace) -> Subspace:
    """The negative control of a one-step subspace: its complement in V* ({0} → V*, V* → one direction fewer)."""
    if u.dim == 0:
        return Subspace.full(u.ambient)
    if u.dim < u.ambient:
        return u.complement()
    return Subspace.span([[float(x) for x in row] for row in u.numpy()[:-1]], u.ambient) if u.dim > 1 else Subspace.zero(u.ambient)


@dataclasses.dataclass(frozen=True)
class _Prediction:
    name: str
    claim: Claim
    cost: float
    sizes: tuple[dict, ...] = ()
    note: str = ""
    checkable: bool = True


def _resolving_size(target: Target, step: int, steps: int, p: int, eta: float, activation: str) -> str:
    """The smallest d = 2^k <= 4096 (n = 64d) at which step ``step``'s new part is predicted resolvable, in words."""
    for k in range(5, 13):
        d = 2**k
        if staircase_sizes(target, d=d, n=64 * d, p=p, eta=eta, steps=steps, activation=activation)[step - 1].resolvable:
            return f"resolvable from d = {d}, n = 64d"
    return "not resolvable for d <= 4096 at n = 64d"


def _predictions(target: Target, text: str, activation: str, steps: int, scale: str) -> list[_Prediction]:
    sizes = _SIZES[scale]
    ell = leap_index(target)
    laws = {law.name: law for law in giant_step_laws(target, activation)}
    seeds = {"small": sizes["seeds"], "paper": sizes["seeds"]}
    r, p = target.rank, sizes["p"]
    c_sigma = laws["student coefficient"]
    d_symbol = SYMBOLS["d"]
    out = []
    kappas = _kappas(ell)
    grid = [{"target": text, "d": d, "kappa": k, "p": p, "activation": activation} for d in sizes["ds"] for k in kappas]
    threshold = laws["one-step threshold"]
    if c_sigma.value == 0:
        # the sample noise along w* is anisotropic and heavy-tailed: twice the seeds for the "random level" check
        seeds = {k: 2 * v for k, v in seeds.items()}
        point = [{"target": text, "d": sizes["ds"][-1], "kappa": float(ell), "p": p, "activation": activation}]
        claim = Claim(name="vanishing student coefficient", words="c_σ = 0: one step learns nothing along V*",
                      law=c_sigma, wrong_law=c_sigma.replace(value=1, words="the student learns (c_σ ≠ 0)"),
                      measurement=Measurement(experiment="giant-step/one-step-mass", points={"small": point, "paper": point},
                                              seeds=seeds),
                      compare=compare_student_coefficient, system="verify")
        out.append(_Prediction("vanishing student coefficient", claim, _cost_seconds(point, 2 * sizes["seeds"], r)))
        seeds = {k: v // 2 for k, v in seeds.items()}
    elif ell >= 1 and len(kappas) >= 2:
        claim = Claim(name="one-step threshold", words=f"excess mass ∝ d^(min(0, κ − {ell}))", law=threshold,
                      wrong_law=threshold.replace(value=d_symbol ** (ell + 1), words=f"threshold κ* = {ell + 1}"),
                      measurement=Measurement(experiment="giant-step/one-step-mass", points={"small": grid, "paper": grid},
                                              seeds=seeds),
                      compare=compare_leap2_slopes, system="verify")
        out.append(_Prediction("one-step threshold", claim, _cost_seconds(grid, sizes["seeds"], r)))
    if c_sigma.value != 0:
        u = laws["one-step subspace"].value
        kappa = ell + 0.5  # above the threshold (at kappa = ell the effect is only half saturated)
        d = max([x for x in sizes["ds"] if samples_for(x, kappa) <= MAX_SAMPLES] or [sizes["ds"][0]])
        point = [{"target": text, "d": d, "n": samples_for(d, kappa), "p": p,
                  "eta": float(p * d ** ((ell - 1) / 2)), "steps": 1, "activation": activation}]
        ((_, fluctuation),) = predicted_moments(target, d=d, n=point[0]["n"], p=p, eta=point[0]["eta"], steps=1,
                                                activation=activation)
        law = laws["one-step subspace"]
        wrong = _wrong_subspace(u)
        claim = Claim(name="one-step subspace", words=f"one step at n = d^{kappa:g} learns {subspace_text(u)}", law=law,
                      wrong_law=law.replace(value=wrong, words=f"one step learns {subspace_text(wrong)} instead"),
                      measurement=Measurement(experiment="giant-step/staircase", points={"small": point, "paper": point},
                                              seeds=seeds),
                      compare=functools.partial(compare_one_step_subspace, fluctuation=fluctuation), system="verify")
        out.append(_Prediction("one-step subspace", claim, _cost_seconds(point, sizes["seeds"], r)))
    ladder = tuple(staircase(target, steps))
    if any(u.dim for u in ladder):
        d = sizes["ds"][-1]
        point = [{"target": text, "d": d, "n": 64 * d, "p": 2 * p, "eta": 8.0 * p, "steps": steps, "activation": activation}]
        predicted = staircase_sizes(target, d=d, n=64 * d, p=2 * p, eta=8.0 * p, steps=steps, activation=activation)
        flags = tuple(s.resolvable for s in predicted)
        full = Subspace.full(r)
        wrong = tuple(full for _ in ladder) if ladder[0] != full else tuple(Subspace.zero(r) for _ in ladder)
        claim = Claim(name="staircase", words="U_1 ⊂ … ⊂ U_T learned step by step with n = 64d",
                      law=subspace_law("staircase", ladder, words="staircase " + " ⊂ ".join(subspace_text(u) for u in ladder)),
                      wrong_law=subspace_law("wrong staircase", wrong, words="all learned at once" if ladder[0] != full
                                             else "nothing learned"),
                      measurement=Measurement(experiment="giant-step/staircase", points={"small": point, "paper": point},
                                              seeds=seeds),
                      compare=functools.partial(compare_staircase, every_direction=True, resolvable=flags), system="verify")
        unresolved = [s for s in predicted if s.new_dim and not s.resolvable]
        note = "; ".join(f"step {s.step}: predicted least new direction {s.ratio:.2g}× random < {RESOLVABLE_FACTOR:g}× "
                         f"({_resolving_size(target, s.step, steps, 2 * p, 8.0 * p, activation)})" for s in unresolved)
        out.append(_Prediction("staircase", claim, _cost_seconds(point, sizes["seeds"], r, steps),
                               sizes=tuple(s.to_dict() for s in predicted),
                               note=f"not learned at this size, not checked: {note}" if note else "",
                               checkable=any(s.new_dim and s.resolvable for s in predicted)))
        floors_point = [{"target": text, "d": d, "n": 64 * d, "p": 8, "eta": 32.0, "steps": t, "activation": activation}
                        for t in range(steps + 1)]
        # the sizes depend on (p, eta) only through kappa = eta/p = 4, the same as the staircase's: reuse them
        variances = [conditional_variance(target, u) for u in ladder]
        decreasing = [s.resolvable and (t == 0 or variances[t] != variances[t - 1]) for t, s in enumerate(predicted)]
        if any(decreasing):
            stalled = max(t for t, flag in enumerate(decreasing, start=1) if flag)
            floors = Claim(name="second-layer floors", words="ridge error after T steps ≥ its random-feature / conditional-variance floor",
                          law=functools.partial(second_layer_floors, target, ladder, activation),
                          wrong_law=functools.partial(second_layer_floors, target, ladder, activation, stalled=stalled),
                          measurement=Measurement(experiment="giant-step/second-layer",
                                                  points={"small": floors_point, "paper": floors_point}, seeds=seeds),
                          compare=functools.partial(compare_floors, decreasing=tuple(decreasing)), system="verify")
            cost = sum(_cost_seconds([x], sizes["seeds"], r, max(x["steps"], 1)) for x in floors_point)
            out.append(_Prediction("second-layer floors", floors, cost))
    return out


def _entry(prediction: _Prediction, check: CheckResult | None, control: CheckResult | None, reason: str = "") -> dict:
    law = prediction.claim.the_law
    if check is not None and prediction.note:
        reason = reason or f"{check.message} [{prediction.note}]"
    if check is None:
        verdict, control_text = "inconclusive", None
    elif not check.passed:
        verdict, control_text = "fail", "rejected" if not control.passed else "not rejected"
    elif control.passed:
        verdict, control_text = "inconclusive", "not rejected"
        reason = reason or ("the wrong law also passes: the sizes cannot tell them apart; more seeds or larger d "
                            "(e.g. --scale paper) would resolve it")
    else:
        verdict, control_text = "pass", "rejected"
    return {"name": prediction.name, "latex": law.latex(), "predicted": law.text(),
            "measured": None if check is None else check.measured, "ci": None if check is None else check.ci,
            "verdict": verdict, "control": control_text, "wrong_law": prediction.claim.the_wrong_law.text(),
            "message": reason or (check.message if check is not None else ""), "seconds": prediction.cost,
            **({"sizes": list(prediction.sizes)} if prediction.sizes else {})}


def verify(target: str | Target, *, activation: str = "relu", steps: int = 2, scale: str = "small",
           budget: float = DEFAULT_BUDGET, store: Any = None) -> dict[str, Any]:
    r"""Derive the giant-step predictions for ``target`` and check each against simulation (module docstring).

    Returns the JSON-ready document ``{"target", "activation", "leap_index", "predictions": [{"name", "latex",
    "predicted", "measured", "ci", "verdict", "control", ...}], "passed"}``; ``passed`` is True iff every
    prediction passed.

    >>> doc = verify("z1", steps=1, budget=60)
    >>> doc["leap_index"], [(p["name"], p["verdict"], p["control"]) for p in doc["predictions"]]
    (1, [('one-step threshold', 'pass', 'rejected'), ('one-step subspace', 'pass', 'rejected'), ('staircase', 'pass', 'rejected'), ('second-layer floors', 'pass', 'rejected')])
    """
    if scale not in _SIZES:
        raise InvalidParameterError(f"The 'scale' parameter must be one of {sorted(_SIZES)}. Got {scale!r} instead.")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 4:
        raise InvalidParameterError(f"The 'steps' parameter must be an int in [1, 4]. Got {steps!r} instead.")
    if not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        raise InvalidParameterError(f"The 'budget' parameter must be a positive number of seconds. Got {budget!r} instead.")
    parsed = target if isinstance(target, Target) else Target.parse(target)
    if parsed.rank > MAX_RANK:
        raise InvalidParameterError(f"TARGET: rank {parsed.rank} > {MAX_RANK}; flt verify takes targets of z1..z{MAX_RANK}")
    try:
        parse_link(activation)
    except FLTError as exc:
        raise InvalidParameterError(f"--activation: {exc}") from exc
    text = str(parsed.expr) if isinstance(target, Target) else target
    predictions = _predictions(parsed, text, activation, steps, scale)
    st = store if store is not None else ResultStore(":memory:")
    entries, spent = [], 0.0
    for prediction in predictions:
        if spent + prediction.cost > budget:
            entries.append(_entry(prediction, None, None,
                                  f"estimated {prediction.cost:.0f} s exceeds the remaining budget of {budget - spent:.0f} s; "
                                  f"run with --budget {math.ceil(spent + prediction.cost)} or more"))
            continue
        if not prediction.checkable:
            entries.append(_entry(prediction, None, None, f"no step's new directions are resolvable at this size: "
                                                           f"{prediction.note.removeprefix('not learned at this size, not checked: ')}"))
            continue
        start = time.perf_counter()
        frame = prediction.claim.measurement.run(scale, store=st)
        verdict = prediction.claim.verdict(frame)
        spent += time.perf_counter() - start
        entries.append(_entry(prediction, verdict.check, verdict.control))
    return {"target": text, "activation": activation, "leap_index": leap_index(parsed), "scale": scale,
            "predictions": entries, "passed": bool(entries) and all(e["verdict"] == "pass" for e in entries)}
