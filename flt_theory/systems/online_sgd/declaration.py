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
  does not reach. The fit reads :math:`T + B\,d^{3/2}`: the mean time is :math:`\tau d^2 - B d^{3/2} + O(d)`
  with :math:`B` predicted (:func:`~.laws.escape_correction`; the deterministic end of the escape), the same for
  every law compared.
* ``time-smoothed-k3`` — online SGD on the smoothed loss of Damian, Nichani, Ge, Lee 2023 (arXiv 2305.10633;
  closed form and reduced dynamics in :mod:`.smoothing`), :math:`g = \mathrm{He}_3`, :math:`\lambda = d^{1/4}`,
  :math:`\eta = \tilde\eta\,\lambda^{2k-2}d^{-k/2}`: :math:`n \asymp d^{k/2} = d^{3/2}`; control the plain rate
  :math:`d^{k-1} = d^2`. (He4, :math:`d^2` against :math:`d^3`, is not registered: at :math:`\tilde\eta = 0.05`
  the paper scale :math:`d = 64 \dots 512` measures 2.46 [2.38, 2.55], and :math:`d = 32 \dots 256` (64 seeds)
  2.31 [2.19, 2.41] with local slopes 2.02, 2.42, 2.44 — neither law, and not drifting towards 2 by
  :math:`d = 256`; see ``derivations/derive_online_sgd.py``, step 4.)
* ``time-transform-k4`` — :math:`y = \mathrm{He}_4(z)` (information exponent 4, generative exponent 2, Damian,
  Pillaud-Vivien, Lee, Bruna 2024, arXiv 2403.05529): the student :math:`\mathrm{He}_2` trained on the
  standardised :math:`T(y) = y^2` (:func:`~.laws.label_transform`) needs :math:`n \asymp d\log d`; control the
  rate :math:`d^3` of :math:`y` itself.

Multi-index claims (Abbe, Boix-Adserà, Misiakiewicz 2023, arXiv 2302.11055; :mod:`.leap_claims`): a two-layer
network in mean-field scaling (:mod:`.multi_index`) on :math:`z_1 + z_1z_2 + z_1z_2z_3` (leap 1) and
:math:`z_1 + z_1z_2z_3` (leap 2), ``leap-plateau-leap1`` (:math:`\asymp 1`, control :math:`\log d`), ``leap-plateau-leap2`` (the
plateau grows, :math:`t = A + B\log d` with :math:`B > 0`; control: it does not grow) and ``learned-order``
(:math:`e_1 < e_2 < e_3`, the leap closure of the symbolic layer; control the reversed order).

Censoring: a seed that has not recovered after ``max_steps`` is censored and counts as ``max_steps``: the mean is
the restricted mean :math:`\mathbb E\min(T, T_{\max})`, accepted while at most :data:`MAX_CENSORED_FRACTION` of
the runs at every :math:`d` are censored (else the comparison fails). :math:`T_{\max}` scales as the law's own
rate (:data:`SIZES`: 40 d, 40 d log d, 4 d²); a true exponent above the law's would censor more runs as d grows and
fail that bound. At k = 3 the cap 4 d² cuts the heavy tail of the runs whose overlap the noise pushed below 0 (the
odd link's drift vanishes there): about 1% of the runs, the mean's coefficient of variation from 1.5 to 0.7.

Power (``flt calibrate``, 20 seed sets): before the escape term (64 seeds, cap 10 d²) the k = 3 small scale
measured 2.2 ± 0.15, and the exponent ±0.5 mutants were rejected in 14/20 and 0/20 seed sets; with it, 256 seeds
and the cap 4 d², :math:`T + B d^{3/2}` fits 1.99 ± 0.03 (bootstrap over 1024 seeds) at :math:`d = 32, 64, 128`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import pandas as pd
import sympy as sp

from ...compare import check_power_law
from ...compare.result import CheckResult, make_result
from ...runner import experiment
from ...runner.cost import Cost
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
from ..frames import local_slope_ladder
from . import model
from .figures import draw_plateau, draw_smoothing_paths, draw_times
from .laws import (
    BAGJ,
    DNGL,
    DPVLB,
    D,
    label_transform_law,
    recovery_law,
    smoothed_recovery_law,
    split_law,
)
from .leap_claims import leap_claims
from .leap_laws import ABM
from .simulate import run_rows, simulate_document, simulate_table
from .times import recovery_times

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
    # The next-order term B d^(3/2) of the mean time is added before the fit (escape_correction).
    "k3": dict(target="He3(z)", eta_tilde=0.05, overlap0=2.0, max_steps=lambda d: 4 * d * d, escape=True,
               small=dict(ds=(32, 64, 128), seeds=256),
               paper=dict(ds=(64, 128, 256, 512), seeds=256)),
    # Damian, Nichani, Ge, Lee 2023: the smoothed loss at lambda = smoothing * d^(1/4).
    "smoothed-k3": dict(target="He3(z)", eta_tilde=0.05, overlap0=1.0, smoothing=1.0,
                        max_steps=lambda d: int(20 * d**1.5),
                        small=dict(ds=(32, 64, 128), seeds=128),
                        paper=dict(ds=(64, 128, 256, 512, 1024), seeds=128)),
    # Damian, Pillaud-Vivien, Lee, Bruna 2024: He4 labels transformed to T(y) of generative exponent 2.
    "transform-k4": dict(target="He4(z)", eta_tilde=0.2, overlap0=1.0, transform=1,
                         max_steps=lambda d: int(100 * d * math.log(d)),
                         small=dict(ds=(128, 256, 512), seeds=32),
                         paper=dict(ds=(128, 256, 512), seeds=128)),
}
SCALES = ("small", "paper")

#: Slack of the fitted exponent: the escape time from m0 = a/√d to 1/2 carries O(d^{-1/2}) corrections (the
#: integral of dm/m^(k-1) between the two ends) and, at k = 2, an additive constant beside log d whose share
#: drifts with d. Measured local slopes, pooled over the 1280 seeds of a calibration: k = 3: 2.37 (d = 32→64),
#: 2.06 (64→128) against the limit 2, fitted 2.2 ± 0.15 across 20 seed sets of 64 — the predicted d^(3/2) term
#: (:func:`~.laws.escape_correction`), which the k = 3 claim now adds back: T + B d^(3/2) over 1024 seeds, capped
#: at 4 d², is 0.71, 0.73, 0.72, 0.70, 0.69 d² at d = 32, 48, 64, 96, 128; k = 2 (time / log d): 1.17, 1.08, 0.98
#: (d = 64→512) against 1; k = 1: 1.06 [1.05, 1.08] against 1.
SLOPE_TOLERANCE = 0.15
#: Largest fraction of censored runs per d: below it the mean is the restricted mean E[min(T, max_steps)] (a
#: censored run counts as max_steps); above it the comparison fails. The k = 3 runs whose overlap is pushed below 0
#: by the noise (the odd link's drift vanishes there) are the only censored ones measured: 6 of 3840 at
#: max_steps = 10 d²; 0.6–1.4% at 3 d² and 0.4–1.0% at 5 d² (1024 seeds per d, d = 32 … 128).
MAX_CENSORED_FRACTION = 1 / 32


#: The declared parameters (:data:`.model.PARAMS`): the experiments' converters and defaults, the options' bounds.
P = model.PARAMS


@experiment("online-sgd/recovery", cost=Cost(memory="64*seeds*d", work="1e3*max_steps + max_steps*seeds*d"),
            batched=True, params=P.subset("target", "d", "eta_tilde", "overlap0", "loss", "max_steps", "smoothing",
                                          "transform"))
def recovery(params: dict[str, Any], seeds: list[int]) -> list[dict[str, float]]:
    r"""Samples to weak recovery (overlap 1/2), censoring flag and final overlap, per seed (:func:`.simulate.run_rows`)."""
    return run_rows(seeds, target=params["target"], d=params["d"], eta_tilde=params["eta_tilde"],
                    overlap0=params["overlap0"], loss=params["loss"], max_steps=params["max_steps"],
                    smoothing=params["smoothing"], transform=bool(params["transform"]))


def compare_time(frame: pd.DataFrame, law: Law, *, escape: bool = False) -> CheckResult:
    r"""The exponent in :math:`d` of the (restricted) mean weak-recovery time, divided by the law's non-power factor
    (e.g. :math:`\log d`), against the law's power of :math:`d` (:func:`~.laws.split_law`): seed-bootstrap CI
    widened by :data:`SLOPE_TOLERANCE`. With ``escape``, the next-order term :math:`B\,d^{k/2}` of the mean time
    that the theory predicts (:func:`~.laws.escape_correction`, from the frame's link and :math:`\tilde\eta`, the
    same for every law compared) is added to each time first. Fails when more than :data:`MAX_CENSORED_FRACTION` of
    the runs at some :math:`d` are censored (module docstring)."""
    exponent, rest = split_law(law)
    ds, y = recovery_times(frame, rest, escape)
    fraction = frame.groupby("d")["censored"].mean()
    name = f"time exponent in d, {law.name}"
    if float(fraction.max()) > MAX_CENSORED_FRACTION:
        return make_result(name=name, passed=False, predicted=exponent, measured=float("nan"),
                           ci=(float("nan"), float("nan")), n_seeds=int(frame["seed"].nunique()),
                           summary=f"censored runs {fraction.max():.3g} of the seeds at d = {int(fraction.idxmax())} > "
                                   f"{MAX_CENSORED_FRACTION:.3g}: the mean time is a lower bound; raise max_steps")
    return check_power_law(ds, y, exponent, tolerance=SLOPE_TOLERANCE, name=name)


def time_ladder(frame: pd.DataFrame, claim_law: Law, *, escape: bool = False) -> list[dict[str, Any]]:
    r"""Local exponents of the (log-divided; with ``escape``, corrected as in :func:`compare_time`) time between
    adjacent :math:`d`, with the law's exponent as ``predicted``: the finite-size drift of the slope towards the
    limit, rung by rung."""
    exponent, rest = split_law(claim_law)
    ds, y = recovery_times(frame, rest, escape)
    return local_slope_ladder(ds, y, name="d", predicted=exponent)


def _law(key: str) -> Law:
    spec = SIZES[key]
    if spec.get("transform"):
        return label_transform_law(spec["target"])
    return (smoothed_recovery_law if spec.get("smoothing") else recovery_law)(spec["target"])


def _wrong(key: str, value: sp.Expr, words: str, source=BAGJ) -> Law:
    return _law(key).replace(name=f"wrong rate n ≍ {value}", value=value, words=words, source=source)


def _measurement(key: str) -> Measurement:
    spec = SIZES[key]

    extra = {name: spec[name] for name in ("smoothing", "loss", "transform") if name in spec}

    def points(scale: str) -> list[dict[str, Any]]:
        return [{"target": spec["target"], "d": d, "eta_tilde": spec["eta_tilde"], "overlap0": spec["overlap0"],
                 "max_steps": spec["max_steps"](d)} | extra for d in spec[scale]["ds"]]

    return Measurement(experiment="online-sgd/recovery", points={s: points(s) for s in SCALES},
                       seeds={s: spec[s]["seeds"] for s in SCALES})


def _claim_name(key: str) -> str:
    return f"recovery-time-{key}" if key in ("k1", "k2", "k3") else f"time-{key}"


def _claim(key: str, words: str, wrong, power_note: str = "") -> Claim:
    law = functools.partial(_law, key)
    escape = bool(SIZES[key].get("escape"))
    return Claim(name=_claim_name(key), words=words, law=law, wrong_law=wrong, measurement=_measurement(key),
                 compare=functools.partial(compare_time, escape=escape),
                 ladder=lambda frame: time_ladder(frame, _law(key), escape=escape), power_note=power_note)


def _claims() -> list[Claim]:
    return [
        _claim("k1", "g = z (k = 1): online SGD reaches overlap 1/2 after n ≍ d samples",
               lambda: _wrong("k1", sp.sqrt(D), "n ≍ d^(k/2) = √d")),
        _claim("k2", "g = He2 (k = 2): n ≍ d log d samples to overlap 1/2",
               lambda: _wrong("k2", D**2, "n ≍ d², the rate of information exponent 3")),
        _claim("k3", "g = He3 (k = 3): n ≍ d^(k−1) = d² samples to overlap 1/2 (not the CSQ rate d^(3/2))",
               lambda: _wrong("k3", D ** sp.Rational(3, 2), "plain online SGD reaches the CSQ rate n ≍ d^(k/2) = "
                              "d^(3/2) (the smoothed loss's rate, Damian et al. 2023)", source=DNGL),
               power_note=("before the escape term the fit at d ≤ 128 (64 seeds, cap 10 d²) read 2.2 ± 0.15 across "
                           "seed sets (local slopes 2.37, 2.06: the predicted −B d^(3/2) term fading), and calibration "
                           "rejected the exponent −0.5 mutant in 14/20 seed sets, +0.5 in 0/20. T + B d^(3/2) with "
                           "256 seeds and the cap 4 d² reads 1.99 ± 0.03 (bootstrap of 1024 seeds), so at the "
                           "family-wise level the ±0.5 mutants sit about 0.25 outside the widened interval")),
        _claim("smoothed-k3", "g = He3 (k = 3), smoothed correlation loss with λ = d^(1/4): n ≍ d^(k/2) = d^(3/2) "
                              "samples to overlap 1/2 (plain online SGD: d²)",
               lambda: _wrong("smoothed-k3", D**2, "smoothing does not help: the plain online-SGD rate "
                              "n ≍ d^(k−1) = d²"),
               power_note=("at 32 seeds the fitted exponent scatters by 0.075 across seed sets and calibration "
                           "rejected the exponent +0.5 mutant (the control's d²) in 17/20 seed sets; 128 seeds: "
                           "0.033 (bootstrap of 256 seeds, 1.52 at d = 32, 64, 128)")),
        _claim("transform-k4", "g = He4 (information exponent 4, generative exponent 2): online SGD of the student "
                               "He2 on the labels T(y) = standardised y² needs n ≍ d log d samples (on y: d³)",
               lambda: _wrong("transform-k4", D**3, "the label transform does not help: the information-exponent "
                              "rate n ≍ d^(k−1) = d³ of y itself"),
               power_note=("local slopes of time / log d: 0.65 (d = 64→128), 0.92 (128→256), 1.01 (256→512) at 32 "
                           "seeds, hence the ladder from d = 128; at d = 1024 the mean time jumps (slope 1.57): "
                           "T(y) is a degree-8 polynomial of z, and its rare huge values kick w off at η̃ = 0.2, so "
                           "larger d needs a smaller η̃ or a bounded transform (E[He2(z) | y])")),
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
             "d^(k−1) for information exponent k = 1, 2, 3, with step size η = η̃ d^(−max(1, k/2)). "
             "On the smoothed loss of Damian et al. 2023 (λ = d^(1/4)) the k = 3 time drops to d^(3/2), and training "
             "He2 on the label transform T(y) = y² of y = He4 (generative exponent 2, Damian et al. 2024) needs "
             "d log d instead of d³. A two-layer mean-field network (Abbe et al. 2023) learns z1 + z1·z2·z3 (leap 2) "
             "after a plateau ≍ log d in mean-field time, z1 + z1·z2 + z1·z2·z3 (leap 1) without one, in the order "
             "of the leap closure."),
    sources=(BAGJ, DNGL, DPVLB, ABM),
    laws=lambda: [_law(key) for key in SIZES] + [claim.the_law for claim in leap_claims()],
    claims=_claims() + leap_claims(),
    experiments=("online-sgd/recovery", "online-sgd/multi-index"),
    figures=tuple(Figure(name="times", claim=_claim_name(key),
                         draw=functools.partial(draw_times, escape=bool(SIZES[key].get("escape"))),
                         caption="samples to overlap 1/2 against d (log-log; one point per seed, mean with 95% CI), "
                                 "with the slopes of the law and of the wrong law"
                                 + ("; each time plus the next-order term B d^(k/2) the comparison adds (red open "
                                    "circles: the means without it)" if SIZES[key].get("escape") else ""))
                  for key in SIZES)
    + tuple(Figure(name="plateau", claim=name, draw=draw_plateau,
                   caption="the plateau (mean-field time from learning z1 to learning every direction) against d, "
                           "log axis: one point per seed, mean with 95% CI, the fitted A + B log d and no growth")
            for name in ("leap-plateau-leap1", "leap-plateau-leap2"))
    + (Figure(name="paths", claim="time-smoothed-k3", draw=draw_smoothing_paths,
              caption="overlap against samples for plain and smoothed online SGD on He3 at d = 64 (8 seeds, thin "
                      "lines; median, thick), with the scales d^(3/2) and d² of the law and the wrong law"),),
    simulate=SimulateCommand(
        fields=RECORD_FIELDS,
        cost=Cost(memory="64*seeds*d", work="1e3*max_steps + max_steps*seeds*d",
                  derived={"max_steps": lambda p: p.get("max_steps") or 0}),
        help=("Spherical online SGD of one neuron on fresh Gaussian samples (Ben Arous, Gheissari, Jagannath 2021, "
              "arXiv 2003.10409), in exact reduced coordinates (cost per step independent of d): samples to weak "
              "recovery (overlap >= 1/2, |overlap| for an even link), censoring and final overlap per d and seed, "
              "with the predicted rate."),
        options=(
            Option.of(P["target"], default="He3(z)"),
            Option.of(P["d"], grid=True, default=(32, 64, 128), help="Dimensions, comma-separated."),
            Option.of(P["loss"]),
            Option(name="lr", kind="eta", default="theory",
                   help="eta_tilde in eta = eta_tilde d^(-max(1, k/2)), or 'theory' (0.5, 0.2, 0.05 for k = 1, 2, >= 3)."),
            Option.of(P["overlap0"]),
            Option.of(P["max_steps"], required=False,
                      help="Samples at most per run (default: 10 (d, d log d or d^(k-1)) / eta_tilde)."),
            Option.of(P["seeds"]),
            Option(name="label-transform", kind="flag", dest="transform",
                   help="Train the student He_{k*} on the labels T(y) whose information exponent is the generative "
                        "exponent k* (Damian et al. 2024; polynomial target only; T = standardised lowest power of y)."),
            Option.of(P["smoothing"], help=P["smoothing"].help + " The theorem's range is <= 1."),
            Option(name="run-to-end", kind="flag",
                   help="Continue every run to --max-steps (final_overlap = overlap after max-steps; default: stop "
                        "once every seed has recovered, final_overlap = overlap at recovery)."),
            DEVICE_OPTION,
        ),
        run=simulate_document,
        table=simulate_table,
    ),
)
