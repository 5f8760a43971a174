r"""The online-SGD system: one declaration of its experiment, claims and ``flt simulate``.

Ben Arous, Gheissari, Jagannath 2021 (arXiv 2003.10409): spherical online SGD of one neuron
:math:`\sigma(\langle w, x\rangle)`, :math:`\sigma = g`, on fresh Gaussian samples of :math:`y = g(\langle w^*, x\rangle)`
needs :math:`n \asymp d`, :math:`d\log d`, :math:`d^{k-1}` samples to reach overlap 1/2 for information exponent
:math:`k = 1`, :math:`2`, :math:`\ge 3`. Laws: :mod:`.laws` (the exponent from the symbolic layer, the step size
scaling :math:`\eta = \tilde\eta\,d^{-\max(1,k/2)}` and the regime as hypotheses); simulation: :mod:`.model` (exact
reduced dynamics, :math:`O(1)` per step in :math:`d`).

Claims (each ONE stored measurement of the weak-recovery time over a ladder of :math:`d`, compared with its law
and with the wrong law of its control by :func:`compare_time`):

* ``recovery-time-k1`` — :math:`g = z` (:math:`k = 1`): :math:`n \asymp d`; control :math:`d^{1/2}` (the
  :math:`d^{k/2}` rate).
* ``recovery-time-k2`` — :math:`g = \mathrm{He}_2` (:math:`k = 2`): :math:`n \asymp d\log d`; control
  :math:`d^2` (the rate of :math:`k = 3`).
* ``recovery-time-k3`` — :math:`g = \mathrm{He}_3` (:math:`k = 3`): :math:`n \asymp d^2`; control the CSQ rate
  :math:`d^{3/2}` of the smoothed loss (Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633), which plain online SGD
  does not reach.

Censoring: a seed that has not recovered after ``max_steps`` is censored and counts as ``max_steps``: the mean is
the restricted mean :math:`\mathbb E\min(T, T_{\max})`, accepted while at most :data:`MAX_CENSORED_FRACTION` of
the runs at every :math:`d` are censored (else the comparison fails). :math:`T_{\max}` scales as the law's own
rate (:data:`SIZES`: 40 d, 40 d log d, 10 d²), 5 (k = 3) to 30 times the slowest uncensored seed measured; a true
exponent above the law's would censor more runs as d grows and fail that bound.

Power (``flt calibrate``, 20 seed sets): at k = 3 the small scale (d ≤ 128) measures 2.2 ± 0.15, so the exponent
+0.5 mutant (:math:`d^{5/2}`) is not separated from :math:`d^2` there (:attr:`Claim.power_note`).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from ...compare import check_power_law
from ...compare.result import CheckResult, make_result
from ...runner import experiment
from ...runner.cost import Cost
from ...runner.registry import finite_float, strict_int
from ...symbolic.law import Law
from ..declaration import (
    DEVICE_OPTION,
    Claim,
    Figure,
    Measurement,
    Option,
    RecordField,
    SimulateCommand,
    System,
)
from ..frames import local_slope_ladder, seed_table
from . import model
from .figures import draw_times
from .laws import BAGJ, DNGL, D, recovery_law, split_law
from .simulate import run_rows, simulate_document, simulate_table

__all__ = ["MAX_CENSORED_FRACTION", "SIZES", "SLOPE_TOLERANCE", "SYSTEM", "compare_time", "time_ladder"]

NAME = "online-sgd"

#: Per claim: target, eta_tilde, overlap0, and per scale the d ladder, seeds and max_steps (a function of d).
SIZES: dict[str, dict[str, Any]] = {
    "k1": dict(target="z", eta_tilde=0.5, overlap0=1.0, max_steps=lambda d: 40 * d,
               small=dict(ds=(64, 128, 256, 512, 1024), seeds=64),
               paper=dict(ds=(256, 512, 1024, 2048, 4096, 8192), seeds=128)),
    "k2": dict(target="He2(z)", eta_tilde=0.2, overlap0=1.0, max_steps=lambda d: int(40 * d * math.log(d)),
               small=dict(ds=(64, 128, 256, 512), seeds=64),
               paper=dict(ds=(256, 512, 1024, 2048, 4096, 8192), seeds=128)),
    "k3": dict(target="He3(z)", eta_tilde=0.05, overlap0=2.0, max_steps=lambda d: 10 * d * d,
               small=dict(ds=(32, 64, 128), seeds=64),
               paper=dict(ds=(64, 128, 256, 512), seeds=128)),
}
SCALES = ("small", "paper")

#: Slack of the fitted exponent: the escape time from m0 = a/√d to 1/2 carries O(d^{-1/2}) corrections (the
#: integral of dm/m^(k-1) between the two ends) and, at k = 2, an additive constant beside log d whose share
#: drifts with d. Measured local slopes, pooled over the 1280 seeds of a calibration: k = 3: 2.37 (d = 32→64),
#: 2.06 (64→128) against the limit 2, fitted 2.2 ± 0.15 across 20 seed sets of 64; k = 2 (time / log d): 1.17,
#: 1.08, 0.98 (d = 64→512) against 1; k = 1: 1.06 [1.05, 1.08] against 1.
SLOPE_TOLERANCE = 0.15
#: Largest fraction of censored runs per d: below it the mean is the restricted mean E[min(T, max_steps)] (a
#: censored run counts as max_steps); above it the comparison fails. The k = 3 runs whose overlap is pushed below 0
#: by the noise (the odd link's drift vanishes there) are the only censored ones measured: 6 of 3840 at
#: max_steps = 10 d².
MAX_CENSORED_FRACTION = 1 / 32


@experiment("online-sgd/recovery", cost=Cost(memory="64*seeds*d", work="1e3*max_steps + max_steps*seeds*d"),
            batched=True, defaults={"loss": "correlation", "overlap0": 1.0},
            types={"target": str, "d": strict_int, "eta_tilde": finite_float, "overlap0": finite_float,
                   "loss": str, "max_steps": strict_int})
def recovery(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Samples to weak recovery (overlap 1/2), censoring flag and final overlap, per seed (:func:`.simulate.run_rows`)."""
    return run_rows(seeds, target=params["target"], d=params["d"], eta_tilde=params["eta_tilde"],
                    overlap0=params["overlap0"], loss=params["loss"], max_steps=params["max_steps"])


def _times(frame: pd.DataFrame, rest: Law) -> tuple[np.ndarray, np.ndarray]:
    ds, table = seed_table(frame, "d", "steps")
    return ds, table / np.array([rest.number(d=float(d)) for d in ds])


def compare_time(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""The exponent in :math:`d` of the (restricted) mean weak-recovery time, divided by the law's non-power factor
    (e.g. :math:`\log d`), against the law's power of :math:`d` (:func:`~.laws.split_law`): seed-bootstrap CI
    widened by :data:`SLOPE_TOLERANCE`. Fails when more than :data:`MAX_CENSORED_FRACTION` of the runs at some
    :math:`d` are censored (module docstring)."""
    exponent, rest = split_law(law)
    ds, y = _times(frame, rest)
    fraction = frame.groupby("d")["censored"].mean()
    name = f"time exponent in d, {law.name}"
    if float(fraction.max()) > MAX_CENSORED_FRACTION:
        return make_result(name=name, passed=False, predicted=exponent, measured=float("nan"),
                           ci=(float("nan"), float("nan")), n_seeds=int(frame["seed"].nunique()),
                           summary=f"censored runs {fraction.max():.3g} of the seeds at d = {int(fraction.idxmax())} > "
                                   f"{MAX_CENSORED_FRACTION:.3g}: the mean time is a lower bound; raise max_steps")
    return check_power_law(ds, y, exponent, tolerance=SLOPE_TOLERANCE, name=name)


def time_ladder(frame: pd.DataFrame, claim_law: Law) -> list[dict[str, Any]]:
    r"""Local exponents of the (log-divided) time between adjacent :math:`d`, with the law's exponent as
    ``predicted``: the finite-size drift of the slope towards the limit, rung by rung."""
    exponent, rest = split_law(claim_law)
    ds, y = _times(frame, rest)
    return local_slope_ladder(ds, y, name="d", predicted=exponent)


def _law(key: str) -> Law:
    return recovery_law(SIZES[key]["target"])


def _wrong(key: str, value: sp.Expr, words: str, source=BAGJ) -> Law:
    return _law(key).replace(name=f"wrong rate n ≍ {value}", value=value, words=words, source=source)


def _measurement(key: str) -> Measurement:
    spec = SIZES[key]

    def points(scale: str) -> list[dict[str, Any]]:
        return [{"target": spec["target"], "d": d, "eta_tilde": spec["eta_tilde"], "overlap0": spec["overlap0"],
                 "max_steps": spec["max_steps"](d)} for d in spec[scale]["ds"]]

    return Measurement(experiment="online-sgd/recovery", points={s: points(s) for s in SCALES},
                       seeds={s: spec[s]["seeds"] for s in SCALES})


def _claim(key: str, words: str, wrong, power_note: str = "") -> Claim:
    law = functools.partial(_law, key)
    return Claim(name=f"recovery-time-{key}", words=words, law=law, wrong_law=wrong, measurement=_measurement(key),
                 compare=compare_time, ladder=lambda frame: time_ladder(frame, _law(key)), power_note=power_note)


def _claims() -> list[Claim]:
    return [
        _claim("k1", "g = z (k = 1): online SGD reaches overlap 1/2 after n ≍ d samples",
               lambda: _wrong("k1", sp.sqrt(D), "n ≍ d^(k/2) = √d")),
        _claim("k2", "g = He2 (k = 2): n ≍ d log d samples to overlap 1/2",
               lambda: _wrong("k2", D**2, "n ≍ d², the rate of information exponent 3")),
        _claim("k3", "g = He3 (k = 3): n ≍ d^(k−1) = d² samples to overlap 1/2 (not the CSQ rate d^(3/2))",
               lambda: _wrong("k3", D ** sp.Rational(3, 2), "plain online SGD reaches the CSQ rate n ≍ d^(k/2) = "
                              "d^(3/2) (the smoothed loss's rate, Damian et al. 2023)", source=DNGL),
               power_note=("at d ≤ 128 with 64 seeds the fitted exponent is 2.2 ± 0.15 across seed sets (local "
                           "slopes 2.37, 2.06 pooled over 1280 seeds: the O(d^(-1/2)) correction of the escape from "
                           "m0 = 2/√d to 1/2 fading), and at the catalogue's family-wise level its interval is wide: "
                           "calibration rejects the exponent −1 mutant in 20/20 seed sets, +1 in 17/20, −0.5 (the "
                           "control's d^(3/2)) in 14/20, +0.5 and ±0.25 in none. More seeds or d up to 512 (the paper "
                           "scale, minutes per seed set) would separate them")),
    ]


#: The fields of a record of ``flt simulate online-sgd --json`` (listed by its ``--help``).
RECORD_FIELDS = (
    RecordField("d", "dimension", "count"),
    RecordField("seed", "the run's seed", "index"),
    RecordField("steps_to_weak_recovery", "samples (one per step) until the overlap first reaches 1/2 (|overlap| for an even link); the step limit when censored", "samples"),
    RecordField("final_overlap", "<w, w*> when the run stopped", "1"),
    RecordField("censored", "true when the step limit ended the run before weak recovery", "bool"),
)


SYSTEM = System(
    name=NAME,
    title="Online SGD: the information exponent sets the sample complexity (Ben Arous et al. 2021)",
    summary=("Spherical online SGD of one neuron σ(<w, x>), σ = g, on fresh Gaussian samples of y = g(<w*, x>), "
             "simulated exactly in reduced coordinates (overlap, and the rest of the sample through a χ²_{d−2} "
             "draw), so a step costs O(1) in d. The samples to weak recovery (overlap 1/2) scale as d, d log d and "
             "d^(k−1) for information exponent k = 1, 2, 3, with step size η = η̃ d^(−max(1, k/2))."),
    sources=(BAGJ, DNGL),
    laws=lambda: [recovery_law(SIZES[k]["target"]) for k in SIZES],
    claims=_claims(),
    experiments=("online-sgd/recovery",),
    figures=tuple(Figure(name="times", claim=f"recovery-time-{key}", draw=draw_times,
                         caption="samples to overlap 1/2 against d (log-log; one point per seed, mean with 95% CI), "
                                 "with the slopes of the law and of the wrong law")
                  for key in SIZES),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        cost=Cost(memory="64*seeds*d", work="1e3*max_steps + max_steps*seeds*d",
                  derived={"max_steps": lambda p: p.get("max_steps") or 0}),
        help=("Spherical online SGD of one neuron on fresh Gaussian samples (Ben Arous, Gheissari, Jagannath 2021, "
              "arXiv 2003.10409), in exact reduced coordinates (cost per step independent of d): samples to weak "
              "recovery (overlap >= 1/2, |overlap| for an even link), censoring and final overlap per d and seed, "
              "with the predicted rate."),
        options=(
            Option(name="target", default="He3(z)", help="Target link g(z) (the student is sigma = g)."),
            Option(name="d", kind="ints", default=(32, 64, 128), minimum=3, help="Dimensions, comma-separated."),
            Option(name="loss", kind="choice", choices=model.LOSSES, default="correlation", help="Per-sample loss."),
            Option(name="lr", kind="eta", default="theory",
                   help="eta_tilde in eta = eta_tilde d^(-max(1, k/2)), or 'theory' (0.5, 0.2, 0.05 for k = 1, 2, >= 3)."),
            Option(name="overlap0", kind="float", default=1.0, minimum=0,
                   help="Initial overlap times sqrt(d) (m0 = overlap0/sqrt(d) < 1)."),
            Option(name="max-steps", kind="int", default=None, minimum=1,
                   help="Samples at most per run (default: 10 (d, d log d or d^(k-1)) / eta_tilde)."),
            Option(name="seeds", kind="int", default=8, minimum=2, help="Independent runs (seeds 0..S-1)."),
            Option(name="run-to-end", kind="flag",
                   help="Continue every run to --max-steps (final_overlap = overlap after max-steps; default: stop "
                        "once every seed has recovered, final_overlap = overlap at recovery)."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
        table=simulate_table,
    ),
)
