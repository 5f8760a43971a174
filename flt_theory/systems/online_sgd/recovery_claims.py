r"""The single-index claims of the online-SGD system: the weak-recovery time of one neuron against :math:`d`
(Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409; Damian, Nichani, Ge, Lee 2023, arXiv 2305.10633; Damian,
Pillaud-Vivien, Lee, Bruna 2024, arXiv 2403.05529; laws :mod:`.laws`, simulation :mod:`.model`, readouts
:mod:`.readouts`). The claims, their measurements and the censoring rule are described in :mod:`.declaration`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import sympy as sp

from ...compare import check_limit_power_law, check_power_law
from ...compare.result import CheckResult, make_result
from ...errors import InvalidParameterError
from ...symbolic.law import Law
from ..declaration import Claim, Measurement
from ..frames import local_slope_ladder
from .laws import (
    BAGJ,
    DNGL,
    D,
    has_escape_term,
    label_transform_law,
    link_exponent,
    recovery_law,
    smoothed_recovery_law,
    split_law,
)
from .readouts import recovery_times
from .recovery_experiment import recovery

__all__ = ["FIT_TOLERANCE", "LIMIT_SIZES", "MAX_CENSORED_FRACTION", "SCALES", "SIZES", "claim_name", "compare_time",
           "law_of", "law_powers", "recovery", "recovery_claims", "time_ladder", "time_limit", "uses_escape_term"]

#: Per claim: target, eta_tilde, overlap0, and per scale the d ladder, seeds and max_steps (a function of d).
SIZES: dict[str, dict[str, Any]] = {
    "k1": dict(target="z", eta_tilde=0.5, overlap0=1.0, max_steps=lambda d: 40 * d,
               small=dict(ds=(64, 128, 256, 512, 1024), seeds=64),
               paper=dict(ds=(256, 512, 1024, 2048, 4096, 8192), seeds=128)),
    "k2": dict(target="He2(z)", eta_tilde=0.2, overlap0=1.0, max_steps=lambda d: int(40 * d * math.log(d)),
               small=dict(ds=(64, 128, 256, 512), seeds=64),
               paper=dict(ds=(256, 512, 1024, 2048, 4096, 8192), seeds=128)),
    # The next-order term B d^(3/2) of the mean time is added before the fit (escape_correction).
    "k3": dict(target="He3(z)", eta_tilde=0.05, overlap0=2.0, max_steps=lambda d: 4 * d * d,
               small=dict(ds=(32, 64, 128), seeds=256),
               paper=dict(ds=(64, 128, 256, 512), seeds=256)),
    # Damian, Nichani, Ge, Lee 2023: the smoothed loss at lambda = smoothing * d^(1/4).
    "smoothed-k3": dict(target="He3(z)", eta_tilde=0.05, overlap0=1.0, smoothing=1.0,
                        max_steps=lambda d: int(20 * d**1.5),
                        small=dict(ds=(32, 64, 128), seeds=128),
                        paper=dict(ds=(64, 128, 256, 512, 1024), seeds=128)),
    # The same at k = 4, with the smaller step its linear escape needs (RETRACTION_HYPOTHESIS of .laws).
    "smoothed-k4": dict(target="He4(z)", eta_tilde=0.01, overlap0=1.0, smoothing=1.0,
                        max_steps=lambda d: int(2 * d * d * math.log(d)),
                        small=dict(ds=(32, 64, 128), seeds=128),
                        paper=dict(ds=(64, 128, 256, 512), seeds=128)),
    # Damian, Pillaud-Vivien, Lee, Bruna 2024: He4 labels transformed to T(y) of generative exponent 2, at a step
    # below the stall bound 3√638/1883 ≈ 0.040 of its drift (.stall; at η̃ = 0.2 the overlap stalls at 0.17).
    "transform-k4": dict(target="He4(z)", eta_tilde=0.02, overlap0=1.0, transform=1,
                         max_steps=lambda d: int(200 * d * math.log(d)),
                         small=dict(ds=(64, 128, 256), seeds=32),
                         paper=dict(ds=(128, 256, 512, 1024, 2048, 4096), seeds=128)),
}
SCALES = ("small", "paper")

# The rate is decided in the limit (:func:`~flt_theory.compare.check_limit_power_law`): the effective exponents
# between adjacent d carry the corrections of the escape time from m0 = a/√d to 1/2, O(d^{-1/2}) (the integral of
# dm/m^(k-1) between the two ends) and, at k = 2, an additive constant beside log d whose share drifts with d.
# Measured local slopes, pooled over the 1280 seeds of a calibration: k = 3: 2.37 (d = 32→64), 2.06 (64→128) against
# the limit 2 — the predicted d^(3/2) term (:func:`~.laws.escape_correction`), which the k = 3 claim adds back:
# T + B d^(3/2) over 1024 seeds, capped at 4 d², is 0.71, 0.73, 0.72, 0.70, 0.69 d² at d = 32, 48, 64, 96, 128;
# k = 2 (time / log d): 1.17, 1.08, 0.98 (d = 64→512) against 1; k = 1: 1.06 [1.05, 1.08] against 1.

#: The claims whose SMALL ladder (d = 32, 64, 128: two effective exponents) is read by one fit within a tolerance, and
#: why; on a ladder of :data:`LIMIT_SIZES` sizes or more (every paper ladder: d = 64 … 512 or 1024) they are decided
#: in the limit like the others. k = 3: its small ladder
#: d = 32 … 128 (T + B d^(3/2), 256 seeds) has flat effective exponents 1.96, 1.90, 2.03, 1.99 on d = 32, 48, 64, 96,
#: 128, but a correction as slow as d^(-1/2) cannot be told from a constant over a factor 4 in d, so the limit's set
#: is [1.40, 2.80] and the claim's control d^(3/2) is not rejected there: it waits for a ladder that decides it.
#: Smoothed k = 4: the times' coefficient of variation is 0.5 to 0.6, and at the catalogue's level (0.05/80) the
#: control d^3 is not rejected in the limit on d = 32, 64, 128 (p = 0.02) nor on d = 32 … 256 (64 seeds: effective
#: exponents 1.96, 1.92, 2.10, limit 1.99 [1.62, 2.78] at 95%, p of d^3 = 0.008); at paper (d = 64 … 512, 128 seeds)
#: the limit 1.96 [1.68, 2.32] rejects it. Smoothed k = 3: on d = 32, 64, 128 (128 seeds) the limit rejects its
#: control d^2 in 9 of 20 calibration seed sets (the exponent -1/2 mutant in 3), and on d = 32 … 256 still not
#: reliably (p of d^2 = 0.12, 0.02, 3e-13 on three seed sets); at paper (d = 64 … 1024) the limit 1.53 [1.40, 1.69]
#: rejects it.
FIT_TOLERANCE: dict[str, float] = {"k3": 0.15, "smoothed-k4": 0.15, "smoothed-k3": 0.15}
#: The fewest sizes of d on which a claim of :data:`FIT_TOLERANCE` is decided in the limit (three effective exponents:
#: a trend and its correction can be told apart from a constant); on fewer, the one fit within its tolerance, and the
#: verdict says so. Measured at paper (the record's effective exponents): k = 3 2.01, 2.02, 1.99 (d = 64 … 512);
#: smoothed k = 3 1.48, 1.61, 1.53, 1.52 (64 … 1024); smoothed k = 4 1.93, 2.01, 1.95 (64 … 512).
LIMIT_SIZES = 4
#: Largest fraction of censored runs per d: below it the mean is the restricted mean E[min(T, max_steps)] (a
#: censored run counts as max_steps); above it the comparison fails. The k = 3 runs whose overlap is pushed below 0
#: by the noise (the odd link's drift vanishes there) are the only censored ones measured: 6 of 3840 at
#: max_steps = 10 d²; 0.6–1.4% at 3 d² and 0.4–1.0% at 5 d² (1024 seeds per d, d = 32 … 128).
MAX_CENSORED_FRACTION = 1 / 32


def compare_time(frame: pd.DataFrame, law: Law, *, escape: bool = False, fit_tolerance: float | None = None,
                 limit_sizes: int = LIMIT_SIZES, column: str = "steps") -> CheckResult:
    r"""The exponent in :math:`d` of the (restricted) mean weak-recovery time, divided by the law's non-power factor
    (e.g. :math:`\log d`), against the law's power of :math:`d` (:func:`~.laws.split_law`), decided in the limit
    :math:`d \to \infty` (:func:`~flt_theory.compare.check_limit_power_law`: the effective exponents between
    adjacent :math:`d`, seeds paired, extrapolated with corrections to scaling; no tolerance). With ``escape``, the
    next-order term :math:`B\,d^{k/2}` of the mean time that the theory predicts (:func:`~.laws.escape_correction`,
    from the frame's link and :math:`\tilde\eta`, the same for every law compared) is added to each time first.
    Fails when more than :data:`MAX_CENSORED_FRACTION` of the runs at some :math:`d` are censored (module
    docstring). With ``fit_tolerance`` (:data:`FIT_TOLERANCE`) and a ladder of fewer than ``limit_sizes``
    (:data:`LIMIT_SIZES`) sizes, one power-law fit over the ladder with its seed-bootstrap interval widened by it
    instead, the message saying that the ladder is too short for the limit (a claim passes ``limit_sizes`` in its
    comparison, so that the rule is part of the claim's fingerprint and a verdict decided by another rule is stale).
    ``column``: the time read, ``"steps"`` (samples) or ``"iterations"``
    (gradient steps; :mod:`.batch_claims`)."""
    exponent, rest = split_law(law)
    ds, y = recovery_times(frame, rest, escape, column)
    fraction = frame.groupby("d")["censored"].mean()
    name = f"time exponent in d, {law.name}"
    if float(fraction.max()) > MAX_CENSORED_FRACTION:
        return make_result(name=name, passed=False, predicted=exponent, measured=float("nan"),
                           ci=(float("nan"), float("nan")), n_seeds=int(frame["seed"].nunique()),
                           summary=f"censored runs {fraction.max():.3g} of the seeds at d = {int(fraction.idxmax())} > "
                                   f"{MAX_CENSORED_FRACTION:.3g}: the mean time is a lower bound; raise max_steps")
    sizes = len(ds)
    if fit_tolerance is not None and sizes < limit_sizes:
        fit = check_power_law(ds, y, exponent, tolerance=fit_tolerance, name=name)
        return dataclasses.replace(fit, message=f"{fit.message} (one fit: {sizes} sizes of d, the limit is decided on "
                                                f"{limit_sizes} or more)")
    return time_limit(frame, law, escape=escape, column=column)


def law_powers(law: Law) -> tuple[float, float]:
    r"""``(a, p)``: the law's value as :math:`c\,d^a (\log d)^p` (:func:`~.laws.split_law`; a constant factor
    :math:`c`, as a mutant's 4/5, changes neither); refused for any other factor.

    >>> law_powers(recovery_law("He2(z)")), law_powers(recovery_law("He3(z)"))
    ((1.0, 1.0), (2.0, 0.0))
    """
    exponent, rest = split_law(law)
    value = sp.sympify(rest.value).as_coeff_Mul()[1]
    if value.is_number:
        return float(exponent), 0.0
    base, power = value.as_base_exp()
    if base != sp.log(D) or not power.is_number:
        raise InvalidParameterError(f"The law {law.text()!r} is not of the form d^a (log d)^p.")
    return float(exponent), float(power)


def time_limit(frame: pd.DataFrame, law: Law, *, escape: bool = False, column: str = "steps") -> CheckResult:
    r"""The mean weak-recovery time of ``frame`` (with ``escape`` plus :math:`B\,d^{k/2}`,
    :func:`~.readouts.escape_term`) against ``law`` in the limit :math:`d \to \infty`
    (:func:`~flt_theory.compare.limit.check_limit_power_law` with the law's :func:`law_powers`: its log kept as a log
    factor, so the limit allows the constant beside it, :math:`1 + B/\log d`). The catalogue's comparison
    (:func:`compare_time`) and ``flt verify TARGET --algorithm online-sgd`` both decide through it."""
    exponent, log_power = law_powers(law)
    ds, y = recovery_times(frame, law.replace(value=sp.Integer(1)), escape, column)
    return check_limit_power_law(ds, y, exponent, log_power=log_power, name=f"time exponent in d, {law.name}",
                                 variable="d")


def time_ladder(frame: pd.DataFrame, claim_law: Law, *, escape: bool = False,
                column: str = "steps") -> list[dict[str, Any]]:
    r"""Local exponents of the (log-divided; with ``escape``, corrected as in :func:`compare_time`) time between
    adjacent :math:`d`, with the law's exponent as ``predicted``: the finite-size drift of the slope towards the
    limit, rung by rung."""
    exponent, rest = split_law(claim_law)
    ds, y = recovery_times(frame, rest, escape, column)
    return local_slope_ladder(ds, y, name="d", predicted=exponent)


def law_of(key: str) -> Law:
    spec = SIZES[key]
    if spec.get("transform"):
        return label_transform_law(spec["target"])
    return (smoothed_recovery_law if spec.get("smoothing") else recovery_law)(spec["target"])


def _wrong(key: str, value: sp.Expr, words: str, source=BAGJ) -> Law:
    return law_of(key).replace(name=f"wrong rate n ≍ {value}", value=value, words=words, source=source)


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _no_gain(key: str, method: str, rate: str = "the plain online-SGD rate", of: str = "") -> Callable[[], Law]:
    r"""The control of a claim whose ``method`` should beat plain online SGD: the rate :math:`d^{k-1}` of its
    target without it (:func:`~.laws.recovery_law`, Ben Arous et al. 2021)."""
    plain = recovery_law(SIZES[key]["target"]).value
    power = str(link_exponent(SIZES[key]["target"]) - 1).translate(_SUPERSCRIPT)
    return lambda: _wrong(key, plain, f"{method} does not help: {rate} n ≍ d^(k−1) = d{power}{of}")


def _measurement(key: str) -> Measurement:
    spec = SIZES[key]

    extra = {name: spec[name] for name in ("smoothing", "loss", "transform") if name in spec}

    def points(scale: str) -> list[dict[str, Any]]:
        return [{"target": spec["target"], "d": d, "eta_tilde": spec["eta_tilde"], "overlap0": spec["overlap0"],
                 "max_steps": spec["max_steps"](d)} | extra for d in spec[scale]["ds"]]

    return Measurement(experiment="online-sgd/recovery", points={s: points(s) for s in SCALES},
                       seeds={s: spec[s]["seeds"] for s in SCALES})


def uses_escape_term(key: str) -> bool:
    """Whether the claim's comparison adds the predicted next-order term (plain correlation-loss SGD on the raw
    labels only: :func:`~.laws.has_escape_term`)."""
    spec = SIZES[key]
    plain = not spec.get("smoothing") and not spec.get("transform") and spec.get("loss", "correlation") == "correlation"
    return plain and has_escape_term(spec["target"], spec["eta_tilde"])


def claim_name(key: str) -> str:
    return f"recovery-time-{key}" if key in ("k1", "k2", "k3") else f"time-{key}"


def _decided_by(key: str) -> dict[str, Any]:
    """The comparison's rule for the claim ``key``: for a claim of :data:`FIT_TOLERANCE`, its tolerance and the
    fewest sizes decided in the limit (:data:`LIMIT_SIZES`); no tolerance for the others (always the limit)."""
    tolerance = FIT_TOLERANCE.get(key)
    return {"fit_tolerance": None} if tolerance is None else {"fit_tolerance": tolerance, "limit_sizes": LIMIT_SIZES}


def _claim(key: str, words: str, wrong, power_note: str = "") -> Claim:
    law = functools.partial(law_of, key)
    escape = uses_escape_term(key)
    return Claim(name=claim_name(key), words=words, law=law, wrong_law=wrong, measurement=_measurement(key),
                 compare=functools.partial(compare_time, escape=escape, **_decided_by(key)),
                 ladder=lambda frame: time_ladder(frame, law_of(key), escape=escape), power_note=power_note)


def recovery_claims() -> list[Claim]:
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
               _no_gain("smoothed-k3", "smoothing"),
               power_note=("at 32 seeds the fitted exponent scatters by 0.075 across seed sets and calibration "
                           "rejected the exponent +0.5 mutant (the control's d²) in 17/20 seed sets; 128 seeds: "
                           "0.033 (bootstrap of 256 seeds, 1.52 at d = 32, 64, 128)")),
        _claim("smoothed-k4", "g = He4 (k = 4), smoothed correlation loss with λ = d^(1/4) and η̃ = 1/100: n ≍ "
                              "d^(k/2) = d² samples to overlap 1/2, up to a log (plain online SGD: d³)",
               _no_gain("smoothed-k4", "smoothing"),
               power_note=("at η̃ = 0.05 (inside the paper's η̃ = O(1), outside the retraction hypothesis) the "
                           "same fit reads 2.46 [2.38, 2.55] at d = 64 … 512 (128 seeds), neither law: the "
                           "retraction takes 0.77 of the linear drift and the mean time is 3 to 8 times the "
                           "deterministic escape, growing with d; at η̃ = 0.01 the ratio falls from 1.63 to 1.32 "
                           "(d = 64 → 512, the retraction's share shrinking) and the local slopes read 1.92, "
                           "2.10, 1.91 (64 seeds). Calibration (20 seed sets of 128 at d = 32, 64, 128): the "
                           "exponent ±1 and ±0.5 mutants rejected 20/20, −0.25 0/20, +0.25 3/20 (the one fit's "
                           "tolerance 0.15 plus its interval). At 64 seeds −0.5 was rejected 13/20: the times' "
                           "coefficient of variation is 0.5 to 0.6, and at the family-wise level the interval's "
                           "half-width with its tolerance was about 0.4. At PAPER the limit decision is weaker "
                           "(calibration below the table: 20 sets of 128 seeds, d = 64 … 512): −1 rejected 17/20, "
                           "+1 16/20, −0.5 6/20, +0.5 2/20 — on four rungs the union over correction shapes (ω down "
                           "to 1/2) reaches d^2.5 at the catalogue's level; more seeds do not close it (the same "
                           "rows as 10 sets of 256: +0.5 4/10; 5 sets of 512: 3/5, read with the Akaike support 2, "
                           "which keeps fewer shapes); a longer ladder is what could, and one rung more does not: "
                           "with d = 1024 added (4 times the cost of d = 512) 2 of 2 sets of 128 seeds still keep "
                           "+0.5 (limits 2.13 [1.90, 2.35] and 2.02 [1.79, 2.40]); d = 2048 alone costs about 16 "
                           "times d = 512 (not measured)")),
        _claim("transform-k4", "g = He4 (information exponent 4, generative exponent 2): online SGD of the student "
                               "He2 on the labels T(y) = standardised y², η̃ = 1/50, needs n ≍ d log d samples (on "
                               "y: d³)",
               _no_gain("transform-k4", "the label transform", rate="the information-exponent rate",
                        of=" of y itself"),
               power_note=("T/(d ln d) at η̃ = 0.02, none censored: 37.8, 37.3, 39.6, 39.1 at d = 64 … 512 (32 "
                           "seeds, fit 1.025 [0.93, 1.13]; the small ladder stops at 256: effective exponents 0.98, "
                           "1.09, limit 1.05 [0.86, 1.80], d³ rejected, p = 8e-8); 39.3, 39.4, 39.4, 38.3, 40.1, "
                           "39.6 at d = 128 … 4096 (128 seeds, fit 1.002 [0.981, 1.025]; control fit 1.16 against 3). "
                           "The step is below the bound "
                           "3√638/1883 ≈ 0.040 derived from the drift (.stall): T(y) is a degree-8 polynomial of z "
                           "whose second moment against z² (≈ 20.6) makes the retraction large, and at the earlier "
                           "η̃ = 0.2 the overlap stalls at m* ≈ 0.166 as d → ∞: T/(d ln d) 6.2 at d = 512, 14.1 at "
                           "d = 2048 (2/32 censored), the local slope of time / log d 1.57 from d = 512 to 1024")),
    ]
