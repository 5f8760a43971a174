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
   no resolvable step is **inconclusive**. The complement :math:`V^*\ominus U_t` is compared with 3× its
   *predicted* level (:func:`compare_predicted_staircase`): a direction of a later leap keeps a mass
   :math:`\Theta(1/d)` at every :math:`d` and :math:`n = O(d)` — not learned — but a multiple of :math:`1/d` that
   the leap-2 linear response and the anisotropic sample noise set (7–9× for :math:`\mathrm{He}_2(z_2)` in
   :math:`z_1 + \mathrm{He}_2(z_2)` at :math:`d = 128..512`, also at :math:`n = 4d`: the staircase's regime
   :math:`n = \Theta(d)` is met, the later leap has not begun). The entry carries the predicted ``sizes``;
4. **second-layer floors**: the ridge second layer (:math:`p = 8`, :math:`n = 64d`, :math:`\eta = 4p`) after
   :math:`T = 0..` steps has error :math:`\ge` the random-feature floor at :math:`T = 0` (with its derived
   finite-width term, :func:`flt_theory.symbolic.projections.random_feature_floor`) and the conditional-variance
   floor :math:`\mathbb E[\mathrm{Var}(f^*\mid P_{U_T}x)]` after, and falls at every step whose new directions
   are resolvable; wrong law: the last such step learns nothing (its floor stays at the previous one). The test
   error is measured on :func:`second_layer_test_samples` points, enough for a heavy-tailed :math:`f^*`.

Each prediction is a claim built on the spot with the giant-step system's experiments and comparisons
(:mod:`.declaration`): one stored measurement, compared with the predicted law and with a wrong law (a
threshold one higher, the complement of the subspace, a staircase that learns everything at once). A
prediction is decided as ``flt check`` decides a claim, by the one decision
(:func:`flt_theory.compare.verdict.decide_claim`, each comparison at its own 95% confidence): it PASSES only when
its law passes AND its wrong law is rejected (does not pass); a law that passes while its wrong law also passes is
**inconclusive** (the sizes cannot tell them apart), as is a prediction whose sizes would exceed the time budget —
each says why and what size would resolve it. A law whose only failing intervals straddle their bounds is
undecided, so the prediction is **inconclusive** with the number of seeds that would decide it (from the observed
spread: half-width ∝ 1/√seeds; ``verify(..., seeds=S)`` runs that many); it FAILS only when an interval lies wholly
on the wrong side. A wrong law that passes gets the seeds that would reject it
(:func:`flt_theory.compare.straddle.seeds_to_reject`) or, when its estimates lie inside its tolerance, a larger size.

Sizes are chosen from the leap index: :math:`d \in \{32, 64, 128\}` (``paper``: up to 256),
:math:`\kappa \in \{\ell - 1, \ell - \tfrac12, \ell\}` (at least 0.5), :math:`p = 32`, 8 seeds (16 at
``paper``). The cost of a point is estimated as :math:`n\,(p+r)\,p` multiply-adds per seed on the
projected path (:func:`flt_theory.systems.giant_step.engine.giant_steps`), at about :data:`FLOPS_PER_SECOND`.

**Non-centred targets.** The predictions are those of the centred target :math:`f^* - \mathbb E f^*`, and that is
what is simulated (:func:`flt_theory.symbolic.centring.centre_target`, whose docstring derives why: at the symmetric
initialisation the constant :math:`c_0 = \mathbb E f^*` adds :math:`c_0\mu_2(\sigma)\,w_i` to every neuron's
update, a stretch along its own random direction of order :math:`d^{(\ell-1)/2}` with the one-step
:math:`\eta`, which hides the learned mass; measured on :math:`|z_1|` before: excess mass :math:`\propto d^{-1.00}`
at :math:`\kappa = \ell = 2` where the theory predicts :math:`d^0`). The exact :math:`c_0` from the Hermite
expansion is subtracted, not the batch mean, so a centred target (every catalogue target) is simulated unchanged. The
document's ``centring`` record and the text's first lines say what was subtracted.

**What the output says.** Per prediction: the sizes it simulated (``simulation``: per point :math:`d, n, p, \eta`,
steps, and the seed count), the estimated and the measured seconds, and per measured value the bound it is compared
with (``bounds``; the text prints ``value [95% CI] vs bound``). ``progress`` receives a line per prediction before and
after its simulation (``flt verify`` prints them on stderr, terminal or not). Every point is normalised by its
experiment before anything runs, so a designed point outside the declared parameter bounds
(:data:`flt_theory.systems.giant_step.model.PARAMS`) is refused up front.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ..._display import booktabs_longtable, html_table, latex_text, markdown_table, math_html
from ..._text import subspace_text, table
from ...compare import check_not_learned, check_subspace_learned
from ...compare.result import CheckResult, all_of, fmt, fmt_ci
from ...compare.verdict import INCONCLUSIVE, decide_claim
from ...errors import FLTError, InvalidParameterError
from ...runner.store import ResultStore
from ...symbolic import Subspace, Target, conditional_variance, leap_index, staircase
from ...symbolic.centring import centre_target
from ...symbolic.evaluate import evaluate
from ...symbolic.law import SYMBOLS, Law
from ...symbolic.staircase_sizes import RESOLVABLE_FACTOR, predicted_moments, staircase_sizes
from ...symbolic.target import parse_link
from ..declaration import Claim, Measurement
from .comparisons import compare_floors, compare_leap2_slopes, compare_student_coefficient
from .engine import theory_step_size
from .laws import giant_step_laws, second_layer_floors, subspace_law
from .readouts import _masses, new_part, second_moments
from .simulate import samples_for

__all__ = ["FLOPS_PER_SECOND", "MAX_RANK", "VerifyResult", "simulation_text", "verify", "verify_latex_table",
           "verify_text"]

#: Largest target rank ``flt verify`` accepts.
MAX_RANK = 4
#: Multiply-adds per second assumed by the time estimate (one CPU core, float32, measured order).
FLOPS_PER_SECOND = 2e9
#: Largest samples per step a verify point uses.
MAX_SAMPLES = 4_000_000
#: Default time budget in seconds (fit for 2 cores).
DEFAULT_BUDGET = 120.0

class _Scale(TypedDict):
    ds: tuple[int, ...]
    seeds: int
    p: int


_SIZES: dict[str, _Scale] = {"small": {"ds": (32, 64, 128), "seeds": 8, "p": 32},
                             "paper": {"ds": (64, 128, 256), "seeds": 16, "p": 32}}


def _kappas(ell: int) -> tuple[float, ...]:
    return tuple(k for k in (ell - 1.0, ell - 0.5, float(ell)) if k >= 0.5)


def _cost_seconds(points: Sequence[Mapping[str, Any]], seeds: int, r: int, steps: int = 1) -> float:
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
    if u.dim <= 1:
        return Subspace.zero(u.ambient)
    return Subspace.span([[float(x) for x in row] for row in u.numpy()[:-1]], u.ambient)


def compare_predicted_staircase(frame: pd.DataFrame, law: Law, *, resolvable: tuple[bool, ...],
                                fluctuations: tuple[np.ndarray, ...]) -> CheckResult:
    r"""After step :math:`t`: the new part :math:`U_t \ominus U_{t-1}` of ``law.subspaces()`` carries ≥ 10× its
    random mass (least-learned direction; a step adding nothing: :math:`U_t` itself ≥ 10·dim/d), and
    :math:`V^* \ominus U_t` stays ≤ 3× its *predicted* level: the larger of its random level and
    :math:`\mathrm{tr}(P F_t P)` with :math:`F_t` = ``fluctuations[t-1]``, the predicted mass matrix of the
    initialisation and sample noise alone (:func:`flt_theory.symbolic.staircase_sizes.predicted_moments`).

    Why a predicted level. A direction the staircase does not reach in :math:`O(1)` steps with :math:`n = O(d)` keeps
    a mass :math:`\Theta(1/d)` — not learned: its share vanishes as :math:`d \to \infty` — but the constant is
    not 1.
    A leap-2 term amplifies a neuron's own :math:`O(d^{-1/2})` overlap by :math:`1 + \kappa a J` per step
    (:math:`J` the linear response of the push); for :math:`z_1 + \mathrm{He}_2(z_2)` (:math:`\eta = 4p`,
    :math:`n = 64d`) :math:`w^*_2` carries 2.2× then 7.3× its random mass at :math:`d = 128`, 8.1× at
    :math:`d = 512`, 6.0× at :math:`d = 512`, :math:`n = 4d` (16 seeds; predicted 2.3×, 8.3×, 9.1×) — the same
    multiple at every :math:`d` and :math:`n/d`, so not an onset of the later leap, and "≤ 3× random" failed a
    true prediction. The heavy-tailed :math:`\mathrm{He}_4(z_1)` of :math:`\mathrm{He}_4(z_1) + z_2` makes the
    sample noise along :math:`w^*_1` anisotropic the same way (3.1× measured, 3.2× predicted).
    ``resolvable[t-1] = False`` skips the new part at step :math:`t` (its predicted size is below what the
    sizes resolve); its complement is still checked."""
    claimed = law.subspaces()
    r, d = claimed[0].ambient, int(frame["d"].iloc[0])
    checks, previous = [], Subspace.zero(r)
    for t, (u, noise) in enumerate(zip(claimed, fluctuations, strict=False), start=1):
        moments, new = second_moments(frame, t, r), new_part(previous, u)
        comp = u.complement().numpy() if u.dim < r else np.zeros((0, r))
        off = _masses(moments, comp)[0]
        level = max(max(len(comp), 1) / d, float(np.trace(comp @ noise @ comp.T)) if len(comp) else 0.0)
        skip = len(new) and not resolvable[t - 1]
        if u.dim == 0 or skip:
            if len(comp):
                note = " (new part not resolvable at this size: not checked)" if skip else ""
                name = f"step {t}: V* ⊖ U_{t} at its predicted level {level * d:.3g}/d{note}"
                checks.append(check_not_learned(off, level, max_ratio=3.0, name=name))
        else:
            on, base = (_masses(moments, new)[1], 1 / d) if len(new) else (_masses(moments, u.numpy())[0], u.dim / d)
            checks.append(check_subspace_learned(on, off, level, min_factor=10.0, baseline_on_U=base, max_ratio=3.0,
                                                 name=f"step {t}: U_{t} = {subspace_text(u)} (complement vs its "
                                                      f"predicted level {level * d:.3g}/d)"))
        previous = u
    return all_of("staircase", " ⊂ ".join(subspace_text(u) for u in claimed), checks)


def second_layer_test_samples(target: Target) -> int:
    r"""Test samples of the second layer's error, from the tail of :math:`f^*`: :math:`n_{test} = 100\,K` with
    :math:`K = \mathbb E[g^4]/\mathbb E[g^2]^2`, :math:`g = f^* - \mathbb E f^*`, rounded up to a power of 2 in
    :math:`[2^{13}, 2^{18}]`: the relative standard deviation of one seed's test error,
    :math:`\approx\sqrt{K/n_{test}}`, is then at most 10%, and the error's right skew (a mean of heavy-tailed
    squares: most seeds fall below it) small enough for the interval over seeds to cover (up to the cap, reached at
    :math:`K > 2621`). For :math:`\mathrm{He}_4(z_1) + z_2` (:math:`K = 589`, 65536 points)
    the test error after one step was 21.0 [19.1, 23.2] with 8192 points — below its floor
    :math:`\mathrm{Var}\,\mathrm{He}_4 = 24` — and 23.4 with 65536. The coverage of the interval is checked by
    simulation in ``tests/systems/test_giant_step_verify.py``. The test inputs are drawn in full dimension
    (cost :math:`\propto n_{test}\,d` per seed and step), hence the cap. The moments are exact for polynomial targets
    (a 12-point Gauss–Hermite rule per coordinate, exact to degree 23)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(12)
    weights = weights / weights.sum()
    grid = np.meshgrid(*([nodes] * target.rank), indexing="ij")
    w = functools.reduce(np.multiply, np.meshgrid(*([weights] * target.rank), indexing="ij")).ravel()
    values = evaluate(target.expr, target.variables, [g.ravel() for g in grid])
    values = np.broadcast_to(np.asarray(values, dtype=float), w.shape)
    g = values - w @ values
    kurtosis = float(w @ g**4) / max(float(w @ g**2) ** 2, 1e-300)
    return int(min(2**18, max(2**13, 2 ** math.ceil(math.log2(max(1.0, 100 * kurtosis))))))


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
        sizes = staircase_sizes(target, d=d, n=64 * d, p=p, eta=eta, steps=steps, activation=activation)
        if sizes[step - 1].resolvable:
            return f"resolvable from d = {d}, n = 64d"
    return "not resolvable for d <= 4096 at n = 64d"


def _predictions(target: Target, text: str, activation: str, steps: int, scale: str,
                 seeds: int | None = None) -> list[_Prediction]:
    sizes: _Scale = _SIZES[scale] if seeds is None else {**_SIZES[scale], "seeds": seeds}
    ell = leap_index(target)
    laws = {law.name: law for law in giant_step_laws(target, activation)}
    counts = {"small": sizes["seeds"], "paper": sizes["seeds"]}
    r, p = target.rank, sizes["p"]
    c_sigma = laws["student coefficient"]
    d_symbol = SYMBOLS["d"]
    out = []
    kappas = _kappas(ell)
    grid: list[dict[str, Any]] = [{"target": text, "d": d, "kappa": k, "p": p, "activation": activation}
                                  for d in sizes["ds"] for k in kappas]
    threshold = laws["one-step threshold"]
    if c_sigma.value == 0:
        # the sample noise along w* is anisotropic and heavy-tailed: twice the seeds for the "random level" check
        counts = {k: 2 * v for k, v in counts.items()}
        point: list[dict[str, Any]] = [{"target": text, "d": sizes["ds"][-1], "kappa": float(ell), "p": p,
                                        "activation": activation}]
        claim = Claim(name="vanishing student coefficient", words="c_σ = 0: one step learns nothing along V*",
                      law=c_sigma, wrong_law=c_sigma.replace(value=1, words="the student learns (c_σ ≠ 0)"),
                      measurement=Measurement(experiment="giant-step/one-step-mass",
                                              points={"small": point, "paper": point}, seeds=counts),
                      compare=compare_student_coefficient, system="verify")
        out.append(_Prediction("vanishing student coefficient", claim, _cost_seconds(point, 2 * sizes["seeds"], r)))
        counts = {k: v // 2 for k, v in counts.items()}
    elif ell >= 1 and len(kappas) >= 2:
        claim = Claim(name="one-step threshold", words=f"excess mass ∝ d^(min(0, κ − {ell}))", law=threshold,
                      wrong_law=threshold.replace(value=d_symbol ** (ell + 1), words=f"threshold κ* = {ell + 1}"),
                      measurement=Measurement(experiment="giant-step/one-step-mass",
                                              points={"small": grid, "paper": grid}, seeds=counts),
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
                      measurement=Measurement(experiment="giant-step/staircase",
                                              points={"small": point, "paper": point}, seeds=counts),
                      compare=functools.partial(compare_one_step_subspace, fluctuation=fluctuation), system="verify")
        out.append(_Prediction("one-step subspace", claim, _cost_seconds(point, sizes["seeds"], r)))
    ladder = tuple(staircase(target, steps))
    if any(u.dim for u in ladder):
        d = sizes["ds"][-1]
        point = [{"target": text, "d": d, "n": 64 * d, "p": 2 * p, "eta": 8.0 * p, "steps": steps,
                  "activation": activation}]
        predicted = staircase_sizes(target, d=d, n=64 * d, p=2 * p, eta=8.0 * p, steps=steps, activation=activation)
        noise = tuple(f for _, f in predicted_moments(target, d=d, n=64 * d, p=2 * p, eta=8.0 * p, steps=steps,
                                                      activation=activation))
        flags = tuple(s.resolvable for s in predicted)
        full = Subspace.full(r)
        wrong_ladder = (tuple(full for _ in ladder) if ladder[0] != full
                        else tuple(Subspace.zero(r) for _ in ladder))
        claim = Claim(name="staircase", words="U_1 ⊂ … ⊂ U_T learned step by step with n = 64d",
                      law=subspace_law("staircase", ladder,
                                       words="staircase " + " ⊂ ".join(subspace_text(u) for u in ladder)),
                      wrong_law=subspace_law("wrong staircase", wrong_ladder,
                                             words="all learned at once" if ladder[0] != full
                                             else "nothing learned"),
                      measurement=Measurement(experiment="giant-step/staircase",
                                              points={"small": point, "paper": point}, seeds=counts),
                      compare=functools.partial(compare_predicted_staircase, resolvable=flags, fluctuations=noise),
                      system="verify")
        unresolved = [s for s in predicted if s.new_dim and not s.resolvable]
        note = "; ".join(f"step {s.step}: predicted least new direction {s.ratio:.2g}× random < {RESOLVABLE_FACTOR:g}× "
                         f"({_resolving_size(target, s.step, steps, 2 * p, 8.0 * p, activation)})" for s in unresolved)
        out.append(_Prediction("staircase", claim, _cost_seconds(point, sizes["seeds"], r, steps),
                               sizes=tuple(s.to_dict() for s in predicted),
                               note=f"not learned at this size, not checked: {note}" if note else "",
                               checkable=any(s.new_dim and s.resolvable for s in predicted)))
        n_test = second_layer_test_samples(target)
        floors_point: list[dict[str, Any]] = [{"target": text, "d": d, "n": 64 * d, "p": 8, "eta": 32.0, "steps": t,
                                               "activation": activation, "n_test": n_test} for t in range(steps + 1)]
        # the sizes depend on (p, eta) only through kappa = eta/p = 4, the same as the staircase's: reuse them
        variances = [conditional_variance(target, u) for u in ladder]
        decreasing = [s.resolvable and (t == 0 or variances[t] != variances[t - 1]) for t, s in enumerate(predicted)]
        if any(decreasing):
            stalled = max(t for t, flag in enumerate(decreasing, start=1) if flag)
            floors = Claim(name="second-layer floors",
                           words="ridge error after T steps ≥ its random-feature / conditional-variance floor",
                          law=functools.partial(second_layer_floors, target, ladder, activation),
                          wrong_law=functools.partial(second_layer_floors, target, ladder, activation, stalled=stalled),
                          measurement=Measurement(experiment="giant-step/second-layer",
                                                  points={"small": floors_point, "paper": floors_point}, seeds=counts),
                          compare=functools.partial(compare_floors, decreasing=tuple(decreasing)), system="verify")
            cost = sum(_cost_seconds([x], sizes["seeds"], r, max(x["steps"], 1)) for x in floors_point)
            cost += len(floors_point) * sizes["seeds"] * n_test * d * 8 * 2 / FLOPS_PER_SECOND  # dense test inputs
            out.append(_Prediction("second-layer floors", floors, cost))
    return out


def _labels(check: CheckResult) -> list[str]:
    """What each measured value of ``check`` is (``details["labels"]``, else the check's name)."""
    labels = check.details.get("labels")
    count = len(check.measured) if isinstance(check.measured, (list, tuple)) else 1
    if isinstance(labels, (list, tuple)) and len(labels) == count:
        return [str(x) for x in labels]
    return [check.name] if count == 1 else [f"{check.name} [{i}]" for i in range(count)]


def _bound_text(part: Mapping[str, Any]) -> str:
    """What one part of a check compares its entries with, from its ``predicted`` (``<= 3 x baseline``, an exponent
    ``0 ± 0.2``); a subspace-learned part adds its complement's measured ratio, which is not one of its entries."""
    predicted, details = part.get("predicted"), part.get("details") or {}
    if isinstance(predicted, str):
        text = predicted
    elif isinstance(predicted, (list, tuple)):
        text = fmt(tuple(_float(x) for x in predicted))
    else:
        text = fmt(_float(predicted))
    tolerance = details.get("tolerance")
    if not isinstance(predicted, str) and isinstance(tolerance, (int, float)) and tolerance:
        text += f" ± {fmt(float(tolerance))}"
    ratio, ratio_ci = details.get("complement_ratio"), details.get("complement_ratio_ci")
    if isinstance(ratio_ci, (list, tuple)) and len(ratio_ci) == 2 and any(_float(x) != 0 for x in (ratio, *ratio_ci)):
        # (an empty complement, U = V*, has ratio 0 [0, 0]: nothing to show)
        interval = fmt_ci((_float(ratio_ci[0]), _float(ratio_ci[1])))
        text += f" (complement/baseline measured {fmt(_float(ratio))} {interval})"
    return text


def _bounds(check: CheckResult) -> list[str]:
    """The bound of each measured value of ``check``, in the order of :func:`_labels`: a conjunction
    (:func:`flt_theory.compare.result.all_of`) gives each part's bound to each of its entries."""
    def walk(part: Mapping[str, Any]) -> list[str]:
        parts = (part.get("details") or {}).get("parts")
        if isinstance(parts, (list, tuple)) and parts:
            return [bound for inner in parts for bound in walk(inner)]
        measured = part.get("measured")
        return [_bound_text(part)] * (len(measured) if isinstance(measured, (list, tuple)) else 1)

    bounds = walk(check.to_dict())
    count = len(check.measured) if isinstance(check.measured, (list, tuple)) else 1
    return bounds if len(bounds) == count else [_bound_text(check.to_dict())] * count


def _simulation(prediction: _Prediction, scale: str, ell: int) -> dict[str, Any]:
    r"""What a prediction simulates: ``{"experiment", "seeds", "points": [{"d", "n", "p", "eta", "steps", ...}],
    "ran"}`` (``ran`` is set by :func:`verify`: False where the budget or the sizes left it unmeasured),
    each point with the experiment's defaults merged and checked against its declared bounds
    (:data:`.model.PARAMS`, through the experiment's ``normalize``: a point outside them raises here, before
    anything runs); ``n`` from :math:`\kappa` where the point gives :math:`\kappa` (kept too), ``eta`` as a number
    (``"theory"`` is :math:`p\,d^{(\ell-1)/2}`), ``steps`` 1 for a one-step measurement, and the second layer's
    ``ridge``, ``n_ridge``, ``n_test`` where it has one."""
    from ...runner.registry import get_experiment

    measurement = prediction.claim.measurement
    experiment = get_experiment(measurement.experiment)
    points = []
    for point in measurement.points[scale]:
        full = experiment.normalize(point)
        d, p = int(full["d"]), int(full["p"])
        n = int(full["n"]) if "n" in full else samples_for(d, float(full["kappa"]))
        eta = full.get("eta", "theory")
        row: dict[str, Any] = {"d": d, "n": n, "p": p,
                               "eta": theory_step_size(p, d, ell) if eta == "theory" else float(eta),
                               "steps": int(full.get("steps", 1))}
        row.update({key: full[key] for key in ("kappa", "ridge", "n_ridge", "n_test") if key in full})
        points.append(row)
    return {"experiment": measurement.experiment, "seeds": int(measurement.seeds[scale]), "points": points,
            "ran": False}


def _entry(prediction: _Prediction, check: CheckResult | None, control: CheckResult | None, reason: str = "", *,
           simulation: dict[str, Any] | None = None, elapsed: float | None = None) -> dict:
    law = prediction.claim.the_law
    if check is None:
        verdict, control_text = INCONCLUSIVE, None
    else:
        assert control is not None  # a check comes with its control (a ClaimVerdict)
        decision = decide_claim(check, control)
        verdict, control_text = decision.outcome, "rejected" if decision.rejected else "not rejected"
        reason = reason or (f"{decision.message} — {check.message}" if decision.message else "")
        if prediction.note:
            reason = f"{reason or check.message} [{prediction.note}]"
    return {"name": prediction.name, "latex": law.latex(), "predicted": law.text(),
            "measured": None if check is None else check.measured, "ci": None if check is None else check.ci,
            "labels": None if check is None else _labels(check), "bounds": None if check is None else _bounds(check),
            "verdict": verdict, "control": control_text, "wrong_law": prediction.claim.the_wrong_law.text(),
            "message": reason or (check.message if check is not None else ""), "seconds": prediction.cost,
            "elapsed_seconds": elapsed, "simulation": simulation,
            **({"sizes": list(prediction.sizes)} if prediction.sizes else {})}


def _rank_message(target: Target) -> str:
    """Why a target beyond z1..z4 is refused, naming the variable (its rank is its largest index, not a count).

    >>> _rank_message(Target.parse("z1 + z5"))  # doctest: +NORMALIZE_WHITESPACE
    'TARGET: uses z5; flt verify takes targets of z1..z4 (the rank is the largest variable index: 5 here, with 2
    variables used — renumber them z1..z2)'
    """
    used = len(target.expr.free_symbols)
    hint = f" — renumber them z1..z{used}" if used <= MAX_RANK else ""
    return (f"TARGET: uses z{target.rank}; flt verify takes targets of z1..z{MAX_RANK} (the rank is the largest "
            f"variable index: {target.rank} here, with {used} variable{'s' if used != 1 else ''} used{hint})")


def _measured_parts(entry: dict) -> list[str]:
    """Each measured value of a prediction with its label, 95% interval and the bound it is compared with:
    ``label: 0.322 [-0.02568, 0.856] vs <= 3 x baseline``."""
    measured, ci = entry.get("measured"), entry.get("ci")
    if measured is None:
        return []
    many = isinstance(measured, (list, tuple))
    values, cis = (list(measured), list(ci or [None] * len(measured))) if many else ([measured], [ci])
    labels = entry.get("labels") or []
    labels = labels if len(labels) == len(values) else [""] * len(values)
    bounds = entry.get("bounds") or []
    bounds = bounds if len(bounds) == len(values) else [""] * len(values)
    parts = []
    for label, value, interval, bound in zip(labels, values, cis, bounds, strict=False):
        shown = fmt(_float(value))
        if isinstance(interval, (list, tuple)) and len(interval) == 2:
            shown += " " + fmt_ci((_float(interval[0]), _float(interval[1])))
        shown += f" vs {bound}" if bound else ""
        parts.append(f"{label}: {shown}" if label else shown)
    return parts


def _values_text(values: Sequence[float]) -> str:
    """Distinct values, sorted: all of them up to four, else ``low..high (k values)``.

    >>> _values_text([32, 64, 64, 128]), _values_text([32, 182, 1024, 64, 363, 16384]), _values_text([181.019])
    ('32, 64, 128', '32..16384 (6 values)', '181')
    """
    distinct = sorted(set(values))
    shown = [str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{v:.4g}" for v in distinct]
    return ", ".join(shown) if len(shown) <= 4 else f"{shown[0]}..{shown[-1]} ({len(shown)} values)"


def simulation_text(simulation: Mapping[str, Any]) -> str:
    """The sizes of a prediction's simulation in one line (:func:`_simulation`'s record).

    >>> simulation_text({"experiment": "giant-step/one-step-mass", "seeds": 8, "ran": True,
    ...                  "points": [{"d": 32, "n": 1024, "p": 32, "eta": 181.0, "steps": 1, "kappa": 2.0}]})
    'd = 32, n = 1024 (kappa = 2), p = 32, eta = 181, steps = 1, 8 seeds (1 point of giant-step/one-step-mass)'
    """
    points = list(simulation["points"])
    column = lambda key: [float(x[key]) for x in points if key in x]  # noqa: E731
    parts = [f"d = {_values_text(column('d'))}", f"n = {_values_text(column('n'))}"]
    if column("kappa"):
        parts[-1] += f" (kappa = {_values_text(column('kappa'))})"
    parts += [f"{key} = {_values_text(column(key))}" for key in ("p", "eta", "steps", "n_test") if column(key)]
    count = len(points)
    return (", ".join(parts) + f", {simulation['seeds']} seeds ({count} point{'s' if count != 1 else ''} of "
            f"{simulation['experiment']})")


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _control_text(entry: dict) -> str:
    return f"{entry['wrong_law']}: {entry['control'] or 'not measured'}"


def verify_text(document: dict) -> str:
    """The ``flt verify`` report as text: a summary table (prediction, verdict, negative control), then per
    prediction its law in full, every measured value with its label and 95% interval, and the reason of a
    verdict other than pass."""
    rows = [("prediction", "verdict", "negative control")]
    rows += [(p["name"], p["verdict"], p["control"] or "not measured") for p in document["predictions"]]
    lines = [f"target f*(z) = {document['target']}, student {document['activation']}, "
             f"leap index {document['leap_index']}"]
    centring = document.get("centring") or {}
    if centring.get("centred"):
        how = f"exact {centring['exact']}" if centring.get("exact") else "Hermite quadrature"
        lines.append(f"target centred: subtracted E f* = {centring['subtracted']:.4g} ({how}); predicted and simulated "
                     f"for f* - E f* = {centring['simulated_target']} (the one-step theory's centred labels)")
    lines += [table(rows), ""]
    for p in document["predictions"]:
        lines += [f"{p['name']}", f"  law                {p['predicted']}"]
        if p.get("simulation"):
            ran = p["simulation"].get("ran")
            lines.append(f"  {'simulated' if ran else 'would simulate':<19}{simulation_text(p['simulation'])}"
                         + (f", {p['elapsed_seconds']:.1f} s" if ran and p.get("elapsed_seconds") is not None else ""))
        lines += [("  measured [95% CI]  " if i == 0 else " " * 21) + part for i, part in enumerate(_measured_parts(p))]
        lines.append(f"  wrong law          {_control_text(p)}")
        if p["verdict"] != "pass":
            lines.append(f"  {p['verdict']}: {p['message']}")
        if p.get("sizes"):
            steps = "; ".join(f"step {x['step']}: {x['ratio']:.3g}x" + ("" if x["resolvable"] else " (not resolvable)")
                              for x in p["sizes"] if x["new_dim"])
            lines.append(f"  predicted least new direction per step, in units of the random level 1/d: {steps}")
            if p["verdict"] == "pass" and "not learned at this size" in p["message"]:
                lines.append(f"  {p['message'].split('[', 1)[1].rstrip(']')}")
    return "\n".join(lines)


def _centring_note(document: Mapping[str, Any]) -> str:
    """``", centred: f* - E f*, E f* = 0.7979"`` for a centred target's captions (empty otherwise)."""
    centring = document.get("centring") or {}
    return f", centred: f* - E f*, E f* = {centring['subtracted']:.4g}" if centring.get("centred") else ""


def verify_latex_table(document: dict) -> str:
    r"""The ``flt verify`` verdicts as a booktabs ``longtable`` (prediction, law, measured with CI, verdict,
    negative control); :func:`flt_theory._display.latex_document` makes it a file that compiles alone and can be
    ``\input`` into a paper."""
    rows = []
    for p in document["predictions"]:
        measured = r" \newline ".join(latex_text(x) for x in _measured_parts(p)) or "---"
        rows.append((latex_text(p["name"]), f"${p['latex']}$", measured, latex_text(p["verdict"]),
                     latex_text(_control_text(p))))
    caption = latex_text(f"flt verify: giant-step predictions for f*(z) = {document['target']} "
                         f"(student {document['activation']}, leap index {document['leap_index']}, "
                         f"scale {document.get('scale', 'small')}{_centring_note(document)}); a prediction passes "
                         f"when its law passes AND its wrong law is rejected on the same measurement")
    return booktabs_longtable(("prediction", "law", "measured [95\\% CI]", "verdict", "negative control"), rows,
                              r"p{0.11\linewidth}p{0.29\linewidth}p{0.27\linewidth}lp{0.12\linewidth}",
                              caption=caption)


class VerifyResult(dict):
    """The document of :func:`verify` (a dict, JSON-ready), shown in a notebook as a table with one row per
    prediction (``_repr_html_``) and typeset laws; ``passed`` as an attribute too."""

    @property
    def passed(self) -> bool:
        return bool(self["passed"])

    def _repr_html_(self) -> str:
        import html

        def esc(text: str) -> str:
            return html.escape(text, quote=False)

        rows = [(esc(p["name"]), math_html(p["latex"]), "<br>".join(map(esc, _measured_parts(p))) or "—",
                 esc(p["verdict"]) + (f"<br><small>{esc(p['message'])}</small>" if p["verdict"] != "pass" else ""),
                 esc(_control_text(p))) for p in self["predictions"]]
        caption = (f"flt verify f*(z) = {self['target']}: student {self['activation']}, leap index "
                   f"{self['leap_index']}{_centring_note(self)}; "
                   f"{'every prediction passes' if self.passed else 'not every prediction passes'}")
        return html_table(("prediction", "law", "measured [95% CI]", "verdict", "negative control"), rows,
                          caption=caption, escaped=True)

    def _repr_markdown_(self) -> str:
        return markdown_table(("prediction", "law", "measured [95% CI]", "verdict", "negative control"),
                              [(p["name"], f"${p['latex']}$", "; ".join(_measured_parts(p)) or "—", p["verdict"],
                                _control_text(p)) for p in self["predictions"]])


def verify(target: str | Target, *, activation: str = "relu", steps: int = 2, scale: str = "small",
           budget: float = DEFAULT_BUDGET, store: Any = None, seeds: int | None = None,
           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    r"""Derive the giant-step predictions for ``target`` and check each against simulation (module docstring).

    Returns the JSON-ready document ``{"target", "activation", "leap_index", "scale", "centring", "predictions",
    "passed"}``; ``passed`` is True iff every prediction passed. ``centring`` is the record of
    :meth:`flt_theory.symbolic.centring.Centring.to_dict` (``centred``, ``subtracted`` :math:`= \mathbb E f^*`,
    ``exact``, ``simulated_target``): a target with a nonzero mean is predicted and simulated as
    :math:`f^* - \mathbb E f^*` (:mod:`flt_theory.symbolic.centring` says why). Each prediction is
    ``{"name", "latex", "predicted", "measured", "ci", "labels", "bounds", "verdict", "control", "wrong_law",
    "message", "seconds", "elapsed_seconds", "simulation"}``: ``bounds`` the bound each measured value is compared
    with (parallel to ``labels``), ``seconds`` the estimated and ``elapsed_seconds`` the measured wall time (None
    when not run), ``simulation`` the sizes (:func:`_simulation`: per point ``d, n, p, eta, steps``, the seed count,
    and ``ran``); a staircase also has its predicted ``sizes``. ``seeds`` replaces the scale's seed count (an
    inconclusive entry says how many would decide it). ``progress``, when given, receives one line per prediction
    before and after its simulation (the command prints them on stderr); a tqdm bar over each measurement's points
    is drawn as well where stderr is a terminal.

    >>> doc = verify("z1", steps=1, budget=60)
    >>> doc["leap_index"], [(p["name"], p["verdict"], p["control"]) for p in doc["predictions"]]
    ... # doctest: +NORMALIZE_WHITESPACE
    (1, [('one-step threshold', 'pass', 'rejected'), ('one-step subspace', 'pass', 'rejected'),
         ('staircase', 'pass', 'rejected'), ('second-layer floors', 'pass', 'rejected')])
    >>> doc["centring"]["centred"], doc["predictions"][0]["simulation"]["seeds"]
    (False, 8)
    """
    if scale not in _SIZES:
        raise InvalidParameterError(f"The 'scale' parameter must be one of {sorted(_SIZES)}. Got {scale!r} instead.")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 4:
        raise InvalidParameterError(f"The 'steps' parameter must be an int in [1, 4]. Got {steps!r} instead.")
    if not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        raise InvalidParameterError(
            f"The 'budget' parameter must be a positive number of seconds. Got {budget!r} instead.")
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 2):
        raise InvalidParameterError(f"The 'seeds' parameter must be an int >= 2. Got {seeds!r} instead.")
    parsed = target if isinstance(target, Target) else Target.parse(target)
    if parsed.rank > MAX_RANK:
        raise InvalidParameterError(_rank_message(parsed))
    try:
        parse_link(activation)
    except FLTError as exc:
        raise InvalidParameterError(f"--activation: {exc}") from exc
    text = str(parsed.expr) if isinstance(target, Target) else target
    ell = leap_index(parsed)  # refuses a constant target (no leap) before it is centred to zero
    centring = centre_target(parsed, text)
    predictions = _predictions(centring.target, centring.text, activation, steps, scale, seeds)
    simulations = [_simulation(prediction, scale, ell) for prediction in predictions]  # declared bounds checked here
    say = progress if progress is not None else (lambda line: None)
    if centring.centred:
        say(f"flt verify: {centring.describe()}")
    st = store if store is not None else ResultStore(":memory:")
    entries, spent, began = [], 0.0, time.perf_counter()
    for k, (prediction, simulation) in enumerate(zip(predictions, simulations, strict=True), start=1):
        head = f"flt verify: [{k}/{len(predictions)}] {prediction.name}"
        if spent + prediction.cost > budget:
            entries.append(_entry(prediction, None, None,
                                  f"estimated {prediction.cost:.0f} s exceeds the remaining budget of "
                                  f"{budget - spent:.0f} s; "
                                  f"run with --budget {math.ceil(spent + prediction.cost)} or more",
                                  simulation=simulation))
            say(f"{head}: not run (estimated {prediction.cost:.0f} s exceeds the remaining budget)")
            continue
        if not prediction.checkable:
            note = prediction.note.removeprefix("not learned at this size, not checked: ")
            entries.append(_entry(prediction, None, None,
                                  f"no step's new directions are resolvable at this size: {note}",
                                  simulation=simulation))
            say(f"{head}: not run (no step's new directions are resolvable at this size)")
            continue
        say(f"{head}: simulating {simulation_text(simulation)}, estimated {prediction.cost:.1f} s")
        start = time.perf_counter()
        frame = prediction.claim.measurement.run(scale, store=st, progress=None if progress is not None else False)
        verdict = prediction.claim.verdict(frame)
        elapsed = time.perf_counter() - start
        spent += elapsed
        entries.append(_entry(prediction, verdict.check, verdict.control, simulation={**simulation, "ran": True},
                              elapsed=elapsed))
        say(f"{head}: {entries[-1]['verdict']} in {elapsed:.1f} s ({time.perf_counter() - began:.1f} s elapsed)")
    return VerifyResult(target=text, activation=activation, leap_index=ell, scale=scale,
                        centring=centring.to_dict(), predictions=entries,
                        passed=bool(entries) and all(e["verdict"] == "pass" for e in entries))
