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

**Mini-batches and repeated passes** (``batch`` :math:`n_b`, ``passes`` :math:`P`; the simulation :mod:`.model`,
the laws :mod:`.batch_laws`; :func:`predicted_law`). The decision is the one above (:func:`compare_limit`: effective
exponents, the limit, censored rungs never fitted, the same raises, INCONCLUSIVE with the reason); what changes is
the law, the time read and the sizes.

* ``batch`` :math:`n_b \ge 2`, one pass (Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan 2024, arXiv
  2406.02157): :math:`\eta = \tilde\eta\,n_b\,d^{-\max(1,k/2)}`, and below the saturation batch
  :math:`d^{\max(k-1,1)}` the ITERATIONS (gradient steps, column ``iterations``) are the one-pass samples over
  :math:`n_b`, :math:`T \asymp \mathrm{time}_k(d)/n_b` (:func:`~.batch_laws.fixed_batch_iterations_law`: the same
  power of :math:`d`); wrong laws :func:`wrong_laws`. A batch at or above the saturation batch at the ladder's
  smallest :math:`d` is refused (the law does not apply there). The escape term, a number of samples, is added over
  :math:`n_b`. The step-size bound at :math:`k \le 2` is the one-pass one: the drift and the retraction both scale
  with :math:`\eta^2 d/n_b` against :math:`\eta`, the same ratio in :math:`\tilde\eta`. Sizes: the iterations are
  :math:`n_b` times fewer and each costs little more (:mod:`.run_time`), so ``small`` runs the one-pass ``paper``
  ladder and ``paper`` that ladder extended (:data:`BATCH_DOUBLINGS`); ``max_steps`` is the one-pass cap over
  :math:`n_b`.
* ``passes`` :math:`P \ge 2` (Arnaboldi, Dandi, Krzakala, Pesce, Stephan 2024, arXiv 2405.15459):
  :math:`\eta = \tilde\eta\,n_b/d`, and the SAMPLES (column ``steps``) follow the one-pass law of the generative
  exponent :math:`k^*` (:func:`~.laws.label_transform`, polynomial links; :func:`~.batch_laws.repeated_samples_law`),
  :math:`d` at :math:`k^* = 1`, :math:`d\log d` at :math:`k^* = 2`; wrong laws :func:`wrong_laws` and, where
  :math:`k^* < k`, the one-pass rate :math:`\mathrm{time}_k(d)` of the information exponent. Default
  :math:`\tilde\eta` :data:`REPEATED_ETA_TILDE`, ladders and cap :data:`_REPEATED`. No escape term and no
  step-size bound (neither is derived for two passes). **Finite d**: the second pass's drift at the equator,
  :math:`\phi(0) = 17496\,\tilde\eta^2` for :math:`\mathrm{He}_3` (:func:`~.batch_laws.second_pass_equator_drift`),
  competes with the information-exponent drift of the passes from :math:`m_0 = a/\sqrt d`, which is larger up to
  the crossover :math:`d_c` (:func:`crossover_dimension`; 914 for :math:`\mathrm{He}_3` at :math:`\tilde\eta =
  0.003`, :math:`a = 2`): below it the escape is still that of the information exponent (measured, 32 seeds: mean
  samples / d 25.9, 35.1, 61.6, 75.8 at d = 64 … 512, effective exponents 1.44, 1.81, 1.30; the deterministic
  escape with both drifts, :math:`T/d = \tilde\eta^{-1}\int_{m_0}^{1/2} dm/(\phi(0) + 36 m^2)`, gives 17.8, 31.7,
  49.7, 71.5 there, 95.5 at d = 1024 and 197 as :math:`d \to \infty`), so a FAIL on a fitted
  ladder entirely below :math:`d_c` whose limit lies between the generative and the one-pass rate (what the
  crossover explains) is reported INCONCLUSIVE (the data cannot test the limit there; any other FAIL stands), and a
  verdict other than PASS states :math:`\phi(0)`, :math:`d_c` and the ladder that would decide. The crossover is
  derived for two passes only (:math:`P \ge 3`: no crossover, no masking). **A fixed batch** :math:`B`: the law
  :math:`\mathrm{time}_k(d)/B` has the power of :math:`d` of one sample per step, and the limit decision reads
  that power only — the gain :math:`1/B` is a constant factor it does not test (the catalogue's claims
  ``batch-iterations-k1/k2/k3`` test the gain, at :math:`n_b = d^{\mu}`).

The document then adds ``batch``, ``passes``, ``measured`` (``"iterations"`` or ``"samples"``), ``rate_exponent``
and ``prediction`` (the law in words), and its prediction ``means`` (per :math:`d` the mean time, over :math:`d`),
``time_read`` and ``crossover_dimension``; without them (``batch`` = ``passes`` = 1) it is unchanged.
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
from ...runner.cost import OPS_PER_SECOND, calibration_factor
from ...runner.store import ResultStore
from ...symbolic.law import Law
from .batch_laws import fixed_batch_iterations_law, repeated_samples_law, saturation_power, second_pass_equator_drift
from .laws import (
    D,
    has_escape_term,
    is_even,
    label_transform,
    link_exponent,
    recovery_law,
    split_law,
    time_value,
)
from .readouts import escape_term
from .recovery_claims import SIZES, law_powers, time_limit
from .run_time import mean_iterations, run_operations, slowest_iterations

__all__ = ["DEFAULT_BUDGET", "MAX_RAISES", "MAX_STEPS_FACTOR", "MIN_RUNGS", "RAISE_FACTOR", "REPEATED_ETA_TILDE",
           "STALL_FRACTION", "STALL_OVERLAP", "STALL_PROGRESS", "OnlineSGDVerifyResult",
           "compare_limit", "crossover_dimension", "dropped_message", "estimated_seconds", "law_powers",
           "measure_ladder", "predicted_iterations", "predicted_law", "predicted_steps", "sizes_for",
           "verify_target", "verify_text", "wrong_laws"]

#: Default time budget in seconds.
DEFAULT_BUDGET = 300.0
#: With ``passes`` >= 2: the default :math:`\tilde\eta` (:math:`\eta = \tilde\eta\,n_b/d`). Two passes on
#: :math:`\mathrm{He}_3` never reach overlap 1/2 within 60 d samples at :math:`\tilde\eta \ge 0.03`: the second
#: pass's retraction, :math:`\mathbb E[y^2(\sigma'(u)^2 + \sigma'(u')^2)]`, is heavy-tailed (6812 at 0.01 against
#: 216 at 0); at 0.003 89% to 93% recover at d = 500, 1000 (100 seeds, an exploration outside this repository).
REPEATED_ETA_TILDE = 0.003
#: With ``passes`` >= 2: the ladders, and the cap on the samples of a run, :data:`_REPEATED_CAP` times the one-pass
#: time of the generative exponent (:math:`400\,d` at :math:`k^* = 1`; ``max_steps`` counts gradient steps:
#: ``passes`` times the samples over the batch). Measured, ``He3(z)`` at :math:`\tilde\eta = 0.003`,
#: :math:`m_0 = 2/\sqrt d`, two passes, 32 seeds, one thread: mean samples / d 25.9, 35.1, 61.6, 75.8 and slowest
#: 122, 69, 341, 151 at d = 64, 128, 256, 512 (1.8, 2.7, 21, 27 s).
_REPEATED: dict[str, Any] = dict(small=dict(ds=(64, 128, 256, 512), seeds=32),
                                 paper=dict(ds=(64, 128, 256, 512, 1024, 2048), seeds=64))
_REPEATED_CAP = 400
#: With a batch of :math:`n_b \ge 2` fresh samples and one pass the gradient steps are :math:`n_b` times fewer and
#: each costs a little more than a one-sample step (per seed, :math:`1 + 0.38\,n_b` times; per step of the batch of
#: seeds, the same 25 µs: :mod:`.run_time`), so a ladder costs at most :math:`(1 + 0.38\,n_b)/n_b` of its one-pass
#: time (0.88 at :math:`n_b = 2`, 0.51 at 8) and less where the per-step cost dominates (64 seeds:
#: :math:`(1 + 0.1\,n_b)/n_b`, 0.6 at 2, 0.22 at 8): ``--scale small`` runs the one-pass ``paper`` ladder
#: and seeds, ``--scale paper`` that ladder with its largest :math:`d` doubled this many times. (At the one-pass
#: small ladder, d = 64 … 512, the limit does not reject ``He2``'s control :math:`d` — with or without a batch.)
BATCH_DOUBLINGS = 2
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
    r"""The predicted mean steps (samples) to overlap 1/2 at :math:`d` for one sample per step,
    :func:`~.run_time.mean_iterations` (:math:`\mathrm{time}(d)/(\tilde\eta\,k\,k!\,a^{k-2})`: the escape
    integral of :func:`~.laws.recovery_law`'s derivation for :math:`\mathrm{He}_k`, whose population drift is
    :math:`k\,k!\,m^{k-1}`; an order of magnitude for other links).

    >>> predicted_steps(1, 64, sizes_for(1))
    128.0
    """
    return mean_iterations(k, d, eta_tilde=sizes["eta_tilde"], overlap0=sizes["overlap0"])


def predicted_iterations(k: int, d: int, sizes: dict[str, Any]) -> float:
    r"""The predicted mean gradient steps to overlap 1/2 at :math:`d`: :func:`predicted_steps` (samples) times
    ``passes`` over ``batch`` (``sizes``' entries, 1 where absent), ``k`` the exponent of the rate (the generative
    exponent with ``passes`` >= 2: then an order of magnitude, :data:`_REPEATED` lists the measured times).

    >>> predicted_iterations(1, 64, {**sizes_for(1), "batch": 8})
    16.0
    """
    return mean_iterations(k, d, eta_tilde=sizes["eta_tilde"], overlap0=sizes["overlap0"],
                           batch=sizes.get("batch", 1), passes=sizes.get("passes", 1))


def _run_seconds(steps: float, seeds: int, sizes: dict[str, Any]) -> float:
    """Seconds of ``steps`` gradient steps over ``seeds`` seeds: the experiment's declared work
    (:func:`~.run_time.run_operations`) at its calibration factor, as its plans count it."""
    return (run_operations(steps, seeds, batch=sizes.get("batch", 1), passes=sizes.get("passes", 1))
            / OPS_PER_SECOND * calibration_factor(_EXPERIMENT))


def estimated_seconds(k: int, sizes: dict[str, Any]) -> float:
    r"""Seconds of the measurement: per :math:`d`, a run of every seed to the slowest seed's predicted gradient steps
    (:func:`~.run_time.slowest_iterations` of :func:`predicted_iterations`) capped at ``max_steps``
    (:func:`_run_seconds`: the model of :mod:`.run_time`, the one the experiment's declared cost uses).

    >>> round(estimated_seconds(1, sizes_for(1)), 2), round(estimated_seconds(4, sizes_for(4)))
    (0.19, 58)
    """
    averaged = sizes.get("batch", 1) > 1 or sizes.get("passes", 1) > 1
    return sum(_run_seconds(min(slowest_iterations(k, predicted_iterations(k, d, sizes), averaged=averaged),
                                sizes["max_steps"](d)), sizes["seeds"], sizes) for d in sizes["ds"])


def _wrong(law: Law, shift: int) -> Law:
    """The law with the exponent of d moved by ``shift`` (the non-power factor kept)."""
    exponent, rest = split_law(law)
    power = sp.nsimplify(exponent) + shift
    value = sp.simplify(D**power * rest.value)
    return law.replace(name=f"wrong rate {_letter(law)} ≍ {value}", value=value,
                       words=f"the exponent of d is {power} instead of {sp.nsimplify(exponent)}")


def _without_log(law: Law) -> Law:
    """The law with its non-power factor (a log d) left out."""
    exponent, rest = split_law(law)
    constant, factor = sp.sympify(rest.value).as_coeff_Mul()
    value = D ** sp.nsimplify(exponent) * constant
    return law.replace(name=f"wrong rate {_letter(law)} ≍ {value}", value=value,
                       words=f"no factor {factor}: {_letter(law)} ≍ {value}")


def _letter(law: Law) -> str:
    """The time a law states: ``T`` (iterations) or ``n`` (samples)."""
    return "T" if law.lhs.startswith("T") else "n"


def wrong_laws(law: Law) -> list[Law]:
    r"""The wrong laws compared on the same measurement: the exponent of :math:`d` moved by :math:`-1` and
    :math:`+1`, and, for a law with a :math:`\log d` factor, the law without it.

    >>> [w.text() for w in wrong_laws(recovery_law("He2(z)"))][2]
    'no factor log(d): n ≍ d'
    """
    return [_wrong(law, -1), _wrong(law, +1)] + ([_without_log(law)] if law_powers(law)[1] else [])


def _generative_exponent(target: str) -> int:
    r"""The generative exponent :math:`k^*` of a polynomial link (:func:`~.laws.label_transform`), refused naming
    ``--passes`` for any other link."""
    try:
        return int(label_transform(target)[1])
    except FLTError as exc:
        raise InvalidParameterError(f"--passes: the rate of two passes or more is that of the generative exponent, "
                                    f"derived here for a polynomial link only: {exc}") from exc


def predicted_law(target: str, *, batch: int = 1, passes: int = 1) -> tuple[Law, list[Law], int, str]:
    r"""``(law, wrongs, rate_exponent, column)``: the law checked for ``batch`` samples per gradient step and
    ``passes`` steps per batch, its wrong laws, the exponent of its rate and the column it reads (module docstring).

    * ``batch`` = ``passes`` = 1: :func:`~.laws.recovery_law` (samples, ``"steps"``), wrong laws :func:`wrong_laws`;
    * ``batch`` :math:`n_b > 1`, one pass: :func:`~.batch_laws.fixed_batch_iterations_law`,
      :math:`T \asymp \mathrm{time}_k(d)/n_b` gradient steps (``"iterations"``), wrong laws :func:`wrong_laws`;
    * ``passes`` :math:`\ge 2`: :func:`~.batch_laws.repeated_samples_law` of the generative exponent :math:`k^*`
      (samples, ``"steps"``); wrong laws :func:`wrong_laws` and, where :math:`k^* < k`, the one-pass rate of the
      information exponent (it replaces the wrong law of the same powers, e.g. :math:`d^2` for :math:`\mathrm{He}_3`).

    >>> law, wrongs, k, column = predicted_law("He3(z)", passes=2)
    >>> law.value, [w.value for w in wrongs], k, column
    (d, [1, d**2], 1, 'steps')
    >>> predicted_law("z", batch=8)[0].value, predicted_law("z", batch=8)[3]
    (d/8, 'iterations')
    """
    k = link_exponent(target)
    if passes > 1:
        k_star = _generative_exponent(target)
        law = repeated_samples_law(target, k_star, passes=passes)
        wrongs = wrong_laws(law)
        if k_star < k:
            one_pass = law.replace(name=f"wrong rate n ≍ {time_value(k)}", value=time_value(k),
                                   words=(f"repeating the samples does not help: the one-pass rate of the information "
                                          f"exponent k = {k}, n ≍ {time_value(k)}"))
            same = [w for w in wrongs if law_powers(w) == law_powers(one_pass)]
            wrongs = [one_pass if w in same else w for w in wrongs] + ([] if same else [one_pass])
        return law, wrongs, k_star, "steps"
    if batch > 1:
        law = fixed_batch_iterations_law(target, batch)
        return law, wrong_laws(law), k, "iterations"
    law = recovery_law(target)
    return law, wrong_laws(law), k, "steps"


def crossover_dimension(target: str, eta_tilde: float, overlap0: float, passes: int = 2) -> float | None:
    r"""Where the second pass's drift at the equator, :math:`\phi(0)` (:func:`~.batch_laws.
    second_pass_equator_drift`, per sample in units of :math:`\tilde\eta/d`), overtakes the information-exponent
    drift of the ``passes`` passes at the start, :math:`P\,A\,m_0^{k-1}` with :math:`A = c_k^2/(k-1)!`
    (:math:`c_k = \mathbb E[g\,\mathrm{He}_k]`; :math:`k\,k!` for :math:`\mathrm{He}_k`) and :math:`m_0 =
    a/\sqrt d`: :math:`d_c = a^2\,(P A/\phi(0))^{2/(k-1)}`. Below :math:`d_c` the escape from :math:`m_0` is
    driven by the information exponent (for :math:`k = 3` its time grows as :math:`d^{3/2}`), above it by the equator
    drift (time :math:`\propto d`): the limit of the generative exponent is read only on rungs well above
    :math:`d_c`. None where :math:`\phi(0) = 0` or :math:`k \le 1` (a polynomial link; refused otherwise).

    >>> round(crossover_dimension("He3(z)", 0.003, 2.0))
    914
    """
    from ...symbolic.hermite import hermite_coefficients
    from ...symbolic.target import parse_link

    k = link_exponent(target)
    phi = float(second_pass_equator_drift(target, eta_tilde))
    if k <= 1 or phi <= 0:
        return None
    c_k = sp.sympify(hermite_coefficients(parse_link(target), k).exact[k])
    a_k = float(c_k**2 / sp.factorial(k - 1))
    return overlap0**2 * (passes * a_k / phi) ** (2 / (k - 1))


def _points(target: str, sizes: dict[str, Any], caps: dict[int, int]) -> list[dict[str, Any]]:
    batched = {name: sizes[name] for name in ("batch", "passes") if sizes.get(name, 1) != 1}
    return [{"target": target, "d": d, "eta_tilde": sizes["eta_tilde"], "overlap0": sizes["overlap0"],
             "max_steps": cap} | batched for d, cap in caps.items()]


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
    docstring; with ``batch`` / ``passes`` in ``sizes``, ``max_steps`` counts gradient steps and ``rate_exponent``
    is the exponent of the predicted rate). ``rungs``: per :math:`d`, ``{"d", "max_steps", "raised", "censored",
    "seeds", "stalled", "overlap", "blocked"}`` (``overlap``: the median final overlap of the censored runs, None
    without any; ``blocked``: the estimated seconds of the raise ``budget`` did not allow, else None);
    ``spent``: ``spent`` plus the estimated seconds of the raises."""
    store = store if store is not None else ResultStore(":memory:")
    seeds, even = int(sizes["seeds"]), is_even(target)
    k = sizes.get("rate_exponent") or link_exponent(target)
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
            cost = _run_seconds(cap, len(censored), sizes)  # the worst case: every seed to the raised cap
            if spent + cost > budget:
                rung["blocked"] = cost
                continue
            spent += cost
            again = _run(target, sizes, {d: cap}, censored["seed"].tolist(), store)
            frame = pd.concat([frame[~((frame["d"] == d) & frame["seed"].isin(censored["seed"]))], again],
                              ignore_index=True)
            rung.update(max_steps=cap, raised=rung["raised"] + 1, blocked=None)
            still = again[again["censored"] > 0]
            if len(still) >= STALL_FRACTION * seeds and cap >= 3 * predicted_iterations(k, d, sizes):
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


def compare_limit(frame: pd.DataFrame, law: Law, *, escape: bool = False, column: str = "steps",
                  batch: int = 1) -> CheckResult:
    r"""The mean weak-recovery time of ``frame`` (uncensored rungs only; with ``escape`` plus
    :math:`B\,d^{k/2}`, :func:`~.readouts.escape_term`) against ``law`` in the limit :math:`d \to \infty`
    (:func:`.recovery_claims.time_limit`, the catalogue's decision). ``column``: the time read, ``"steps"``
    (samples) or ``"iterations"`` (gradient steps of ``batch`` samples each; the escape term, a number of samples,
    is then added over ``batch``: below saturation the chain is the same diffusion in the time
    :math:`T n_b\,d^{-\max(k-1,1)}` for every batch, :mod:`.batch_laws` step 1)."""
    if (frame["censored"] > 0).any():
        raise InvalidParameterError("compare_limit takes uncensored rungs only (a censored time is a lower bound).")
    if column == "iterations" and escape and batch != 1:
        term = pd.Series(escape_term(frame, frame["d"].to_numpy(float)), index=frame.index)
        return time_limit(frame.assign(iterations=frame["iterations"] + term / batch), law, column=column)
    return time_limit(frame, law, escape=escape, column=column)


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
    letter = "T" if p.get("time_read") == "iterations" else "n"
    what = f"exponent of {letter} /{log}" if log else "exponent"
    if p.get("means"):
        lines.append(f"  mean {p['time_read']} / d: " + "; ".join(
            f"d = {r['d']}: {fmt(r['per_d'])}" + ("" if r["fitted"] else " (censored runs: a lower bound)")
            for r in p["means"]))
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
    batches = ""
    if "batch" in document:
        batches = (f", batches of {document['batch']} fresh sample(s), {document['passes']} gradient step(s) per batch"
                   + (f", generative exponent {document['rate_exponent']}" if document["passes"] > 1 else "")
                   + f"; measured: {document['measured']} to overlap 1/2")
    lines = [f"target g(z) = {document['target']}, online SGD (student σ = g), information exponent "
             f"{document['information_exponent']}{batches}, d = {', '.join(map(str, document['ds']))}, "
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


def _count(value: Any, option: str) -> int:
    """``value`` as an int >= 1, else an error naming ``option``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{option}: must be an int >= 1. Got {value!r} instead.")
    return int(value)


def _batched_sizes(sizes: dict[str, Any], scale: str, batch: int, passes: int, rate_k: int) -> dict[str, Any]:
    r"""``sizes`` for ``batch`` samples per gradient step and ``passes`` steps per batch (module docstring):
    ``max_steps`` in gradient steps — one pass: the ladder's cap on the samples over ``batch``, on the ladder one
    scale up (:data:`BATCH_DOUBLINGS`); two passes or more: the ladders of :data:`_REPEATED` at
    :data:`REPEATED_ETA_TILDE`, ``passes`` times :data:`_REPEATED_CAP` times the one-pass time of ``rate_k`` (the
    generative exponent) over ``batch``."""
    sizes = {**sizes, "batch": batch, "passes": passes, "rate_exponent": rate_k}
    if passes == 1:
        paper = sizes_for(rate_k, "paper")
        top = paper["ds"][-1]
        extra = tuple(top * 2**i for i in range(1, BATCH_DOUBLINGS + 1)) if scale == "paper" else ()
        sizes.update(ds=tuple(paper["ds"]) + extra, seeds=paper["seeds"])
    if passes > 1:
        sizes.update(ds=_REPEATED[scale]["ds"], seeds=_REPEATED[scale]["seeds"], eta_tilde=REPEATED_ETA_TILDE,
                     max_steps=lambda d: math.ceil(passes * _REPEATED_CAP * float(time_value(rate_k).subs(D, d))
                                                   / batch))
    elif batch > 1:
        samples = sizes["max_steps"]
        sizes["max_steps"] = lambda d: math.ceil(samples(d) / batch)
    return sizes


def _options(k: int, scale: str, seeds: int | None, budget: float, max_steps_factor: float,
             eta_tilde: float | None, batch: int = 1, passes: int = 1, rate_k: int | None = None) -> dict[str, Any]:
    """The sizes of the run with the options applied, each option validated (errors name it)."""
    sizes = sizes_for(k, scale)
    if batch != 1 or passes != 1:
        sizes = _batched_sizes(sizes, scale, batch, passes, k if rate_k is None else rate_k)
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 4:
            raise InvalidParameterError(f"--seeds: must be an int >= 4. Got {seeds!r} instead.")
        sizes = {**sizes, "seeds": seeds}
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        raise InvalidParameterError(f"--budget: must be a positive number of seconds. Got {budget!r} instead.")
    factor = _number(max_steps_factor, "--max-steps-factor", MAX_STEPS_FACTOR,
                     "it multiplies the ladder's max_steps at every d")
    if eta_tilde is not None:
        step = ("the step is eta_tilde * batch / d" if passes > 1 else "the step is eta_tilde * batch * "
                "d^-max(1, k/2)" if batch > 1 else "the step is eta_tilde * d^-max(1, k/2)")
        sizes["eta_tilde"] = _number(eta_tilde, "--eta-tilde", MAX_ETA_TILDE, step)
    base = sizes["max_steps"]
    return {**sizes, "max_steps_factor": factor, "max_steps": lambda d: max(1, math.ceil(factor * base(d)))}


def _check_batch(batch: int, passes: int, k: int, rate_k: int, smallest: int) -> None:
    r"""Refuse, naming ``--batch``, a batch at or above the saturation batch :math:`d^{\max(k-1,1)}` of the rate's
    exponent at the ladder's smallest :math:`d` (the law does not apply there), and with two passes or more a batch
    above :math:`d - 2` (the Gram matrix of the remainders, :mod:`.model`)."""
    if batch == 1:
        return
    power = saturation_power(rate_k)
    saturation = smallest**power
    exponent = f"generative exponent k* = {rate_k}" if passes > 1 else f"information exponent k = {k}"
    if batch >= saturation:
        raise InvalidParameterError(
            f"--batch: {batch} is at or above the saturation batch d^{power} = {saturation} at the ladder's smallest "
            f"d = {smallest} ({exponent}); past it a gradient step is a power-iteration step and the iterations "
            "stay bounded (Arnaboldi et al. 2024, arXiv 2406.02157, Theorem 2 needs n_b = O(d^max(k-1, 1))), so the "
            f"law T ≍ time(d)/n_b checked here does not apply there. Give --batch below {saturation}.")
    if passes > 1 and batch > smallest - 2:
        raise InvalidParameterError(f"--batch: must be <= d - 2 = {smallest - 2} at the ladder's smallest d = "
                                    f"{smallest} with --passes {passes} (repeated passes are simulated through the "
                                    f"Gram matrix of the batch's remainders). Got {batch} instead.")


def _means(frame: pd.DataFrame, column: str, fitted: list[int]) -> list[dict[str, Any]]:
    """Per :math:`d`: the mean of ``column`` over the seeds, over :math:`d`, and whether the rung was fitted (a mean
    over censored runs is a lower bound)."""
    return [{"d": int(d), "mean": float(group[column].mean()), "per_d": float(group[column].mean()) / int(d),
             "censored": int((group["censored"] > 0).sum()), "fitted": int(d) in fitted}
            for d, group in frame.groupby("d")]


def _repetition_note(target: str, sizes: dict[str, Any], passes: int, crossover: float, ds: list[int]) -> str:
    """Why the limit of the generative exponent is not reached on the ladder ``ds`` (:func:`crossover_dimension`)."""
    phi = second_pass_equator_drift(target)
    value = float(second_pass_equator_drift(target, sizes["eta_tilde"]))
    where = "below" if max(ds) <= crossover else "within a factor 10 of" if max(ds) < 10 * crossover else "above"
    return (f"finite d: the second pass adds a drift at the equator, φ(0) = {phi} = {value:.3g} at eta_tilde = "
            f"{sizes['eta_tilde']:g} (d·E[Δm]/eta_tilde at m = 0 as d → ∞; its moments come from rare samples with "
            f"eta_tilde·|y σ'(u)| ≳ √d, which the retraction caps at finite d), while from m0 = "
            f"{sizes['overlap0']:g}/√d the information-exponent drift of the {passes} passes is larger up to the "
            f"crossover d_c ≈ {crossover:.0f}: on d ≤ {max(ds)}, {where} d_c, the escape is still mostly that of the "
            f"information exponent, and the rate of the generative exponent is read only on a ladder well above d_c "
            f"(d ≥ {math.ceil(10 * crossover)} or so)")


def verify_target(target: str, *, scale: str = "small", seeds: int | None = None, budget: float = DEFAULT_BUDGET,
                  store: Any = None, max_steps_factor: float = 1.0, eta_tilde: float | None = None,
                  escape: bool | None = None, batch: int = 1, passes: int = 1) -> OnlineSGDVerifyResult:
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
    and the raises): a prediction over it is inconclusive with the budget it needs. ``batch`` (fresh samples per
    gradient step) and ``passes`` (gradient steps per batch) change the law, the time read and the sizes (module
    docstring, "Mini-batches and repeated passes"; the document's extra keys are listed there). Bad input raises
    :class:`~flt_theory.errors.InvalidParameterError` naming ``TARGET`` or the option.

    >>> doc = verify_target("z", seeds=16, budget=60)
    >>> doc["information_exponent"], doc["predictions"][0]["verdict"], doc["predictions"][0]["control"]
    (1, 'pass', 'rejected')
    """
    k = _parse(target)
    batch, passes = _count(batch, "--batch"), _count(passes, "--passes")
    law, wrongs, rate_k, column = predicted_law(target, batch=batch, passes=passes)
    sizes = _options(k, scale, seeds, budget, max_steps_factor, eta_tilde, batch=batch, passes=passes, rate_k=rate_k)
    ds = [int(d) for d in sizes["ds"]]
    _check_batch(batch, passes, k, rate_k, min(ds))
    if passes > 1:
        if escape:
            raise InvalidParameterError("escape: the predicted term B d^(k/2) is derived for one pass per batch only. "
                                        f"Got escape=True with --passes {passes} instead.")
        escape = False
    escape = has_escape_term(target, sizes["eta_tilde"]) if escape is None else bool(escape)
    # the step-size bound is the one-pass drift's; the same in eta_tilde for any batch (module docstring)
    admissible = _admissible_step(target, k) if passes == 1 else None
    step = {"eta_tilde": sizes["eta_tilde"], "largest_admissible": admissible,
            "admissible": None if admissible is None else sizes["eta_tilde"] < admissible}
    planned = {"ds": ds, "seeds": sizes["seeds"], "eta_tilde": sizes["eta_tilde"], "overlap0": sizes["overlap0"],
               "max_steps_factor": sizes["max_steps_factor"], "max_steps": [int(sizes["max_steps"](d)) for d in ds],
               "censored": [None] * len(ds), "fitted": []}
    measured: dict[str, Any] = {"sizes": planned, "dropped": [], "escape_term": escape, "step_size": step}
    batched = batch != 1 or passes != 1
    # the crossover is derived for two passes (with P >= 3 the later passes see larger shifts: not derived)
    crossover = crossover_dimension(target, sizes["eta_tilde"], sizes["overlap0"], passes) \
        if passes == 2 and rate_k < k else None
    seconds = estimated_seconds(rate_k, sizes)
    measured["estimated_seconds"] = seconds  # the plan, before any raise of a censored rung (those count in spent)
    means: list[dict[str, Any]] = []
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
        means = _means(frame, column, fitted)
        kept = frame[frame["d"].isin(fitted)]

        def decide(compared: Law) -> CheckResult:
            if batched:
                return compare_limit(kept, compared, escape=escape, column=column, batch=batch)
            return compare_limit(kept, compared, escape=escape)

        if len(fitted) < MIN_RUNGS:
            effective = decide(law).details["effective"] if len(fitted) == 2 else None
            reason = (f"{len(fitted)} of the {len(ds)} rungs measured without censored runs, the limit needs at least "
                      f"{MIN_RUNGS}; dropped: " + "; ".join(dropped))
            if step["admissible"] is False and not any(r["stalled"] for r in rungs):
                reason += (f"; note that eta_tilde = {step['eta_tilde']:g} is above {admissible:.3g}, the largest step "
                           "whose limiting drift reaches overlap 1/2 (lower --eta-tilde)")
            entry = _entry(law, wrongs, time.perf_counter() - start, measured, reason=reason, effective=effective)
        else:
            check = decide(law)
            controls = [decide(w) for w in wrongs]
            entry = _entry(law, wrongs, time.perf_counter() - start, measured, check, controls)
            # masked only where the crossover explains it: the limit between the generative and the one-pass rate
            limit = check.measured
            between = isinstance(limit, float) and law_powers(law)[0] <= limit <= max(k - 1, 1)
            if crossover is not None and entry["verdict"] == FAIL and max(fitted) <= crossover and between:
                entry.update(verdict=INCONCLUSIVE, message=(f"the fitted ladder (d ≤ {max(fitted)}) lies below the "
                                                            f"crossover d_c ≈ {crossover:.0f}, where the data cannot "
                                                            f"test the limit; {entry['message']}"))
    if not batched:
        return OnlineSGDVerifyResult(algorithm="online-sgd", target=target, information_exponent=k, scale=scale,
                                     ds=ds, seeds=sizes["seeds"], eta_tilde=sizes["eta_tilde"],
                                     max_steps_factor=sizes["max_steps_factor"], predictions=[entry],
                                     passed=entry["verdict"] == PASS)
    if passes > 1 and entry["verdict"] != PASS and crossover is not None:
        entry["message"] += "; " + _repetition_note(target, sizes, passes, crossover, ds)
    entry.update(name=("weak-recovery samples" if passes > 1 else "weak-recovery iterations"), means=means,
                 time_read="iterations" if column == "iterations" else "samples", crossover_dimension=crossover)
    return OnlineSGDVerifyResult(algorithm="online-sgd", target=target, information_exponent=k, scale=scale,
                                 ds=ds, seeds=sizes["seeds"], eta_tilde=sizes["eta_tilde"],
                                 max_steps_factor=sizes["max_steps_factor"], batch=batch, passes=passes,
                                 measured="iterations" if column == "iterations" else "samples",
                                 rate_exponent=rate_k, prediction=law.text(), predictions=[entry],
                                 passed=entry["verdict"] == PASS)
