r"""System 3 of CLAIMS.md: sparse coding, symmetric ReLU, good property sets (seed ``000``).

Wires the laws of :mod:`flt_theory.symbolic.good_sets` to the simulator
:func:`flt_theory.numeric.train_sparse_coding` and to the comparators. Every claim is registered with
a negative control (the same measurement against a deliberately wrong law, which must fail).

Three measurements, cached per scale (so a claim and its control cost one simulation):

* **initialisation** (:func:`initial_counts`): :math:`W^{(0)}` only, with many neurons, to test the exact
  set-size law with a tight Clopper–Pearson interval;
* **early phase** (:func:`early_run`, the regime the theory describes): tiny initialisation
  :math:`\sigma_1 = 0.01/(m\sqrt d)` so that :math:`f \approx 0` and the logistic derivative is
  :math:`\tfrac12` throughout, step size :math:`\eta = 30\sigma_1` (each step moves a coordinate by
  :math:`\approx 0.7\sigma_1`, a fraction of the gaps between the set levels), fixed training set,
  :math:`\sigma_0 = 0.1`, :math:`d = 32`, :math:`s = 3`, :math:`c_1 = 2.5`, :math:`c_2 = 0.5`,
  ``"mean-abs"`` thresholds with :math:`\beta = 2.5`, per-neuron scale :math:`\sigma_3`; the same
  with :math:`\eta = 3\cdot 10^4\sigma_1` (a step of :math:`\approx 700\sigma_1`) for the break;
* **full training** (:func:`trained_run`): :math:`\sigma_1 = 1/(m\sqrt d)`, :math:`\eta = 1`,
  :math:`\sigma_0 = 0.15`, :math:`n = 4096`, trained until :math:`|f| = O(1)`, for the accuracies.

Findings built into the claims (details in ``derivations/derive_good_sets.py``):

* "No neuron exits the highest set" holds, at these sizes, in the form *a neuron that leaves*
  :math:`S_{j,\text{sure}}` *lands in* :math:`S_{j,\text{pot}}` *with the sign of* :math:`w^*_j` (the :math:`c_2` gap is
  never crossed in one step); the literal principle is rejected: 5–10% of the neurons that are ever sure leave,
  mostly because a second coordinate reaches the pot level (the exclusivity condition has no gap on
  that side), rarely (paper sizes) by a demotion to :math:`S_{j,\text{pot}}`. With a large step, neurons
  cross the gap in one step (they skip the pot set on the way in).
* Under the ``"global"`` scale (RMS over all :math:`(i, j)`), neurons also leave :math:`S_\text{sure}` by the
  on-condition without losing anything: other neurons' growth raises :math:`\sigma_3`. The per-neuron
  scale is used for the claims.

Sizes: ``small`` keeps the whole system to a few seconds on 2 CPU cores; ``paper`` uses more seeds and
neurons (``pytest -m slow``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp
import torch
from scipy import stats

from ..compare import check_at_least, check_at_most, mean_ci
from ..compare.result import CheckResult, all_of as _all_of, fmt, fmt_ci, make_result
from ..errors import InvalidParameterError
from ..numeric.data import as_seeds
from ..numeric.sparse_coding import SparseCodingResult, train_sparse_coding
from ..symbolic.good_sets import (
    good_set_laws,
    growth_rate,
    linear_accuracy,
    pot_probability,
    sure_probability,
    tie_probability,
)
from ..symbolic.laws import Law
from .claims import Claim, check_scale, register

__all__ = [
    "SIZES",
    "SYSTEM",
    "clopper_pearson",
    "check_count",
    "early_run",
    "growth_rates",
    "initial_counts",
    "trained_run",
]

SYSTEM = "good-sets"


@dataclass(frozen=True)
class _Sizes:
    """Sizes of one scale; a seed count may also be a tuple of seed values."""

    seeds: int
    d: int
    m: int
    n: int
    steps: int
    init_seeds: int
    init_m: int
    break_steps: int
    trained_seeds: int
    trained_m: int
    trained_n: int
    trained_steps: int


SIZES = {
    "small": _Sizes(6, 32, 256, 2048, 150, 8, 16384, 30, 6, 256, 4096, 100),
    "paper": _Sizes(16, 32, 512, 4096, 200, 16, 65536, 40, 12, 512, 8192, 150),
}

#: Constants of the sets and of the data used by every measurement.
C1, C2, SPARSITY, SIGMA0, THRESHOLD = 2.5, 0.5, 3, 0.1, 2.5
#: Step size of the early phase in units of sigma1, and of the large-step break.
LR_RATIO, BREAK_LR_RATIO = 30.0, 3.0e4
TRAINED_SIGMA0, TRAINED_LR = 0.15, 1.0


# ----------------------------------------------------------------------------------------------
# counts against a binomial law


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Exact (Clopper–Pearson) interval of a binomial proportion from ``k`` successes in ``n`` trials:
    :math:`[B(\alpha/2; k, n-k+1),\ B(1-\alpha/2; k+1, n-k)]` with :math:`B` the Beta quantile
    (0 and 1 at the ends).

    >>> [round(v, 4) for v in clopper_pearson(5, 100)]
    [0.0164, 0.1128]
    >>> clopper_pearson(0, 10)[0], clopper_pearson(10, 10)[1]
    (0.0, 1.0)
    """
    if not (0 <= k <= n) or n < 1:
        raise InvalidParameterError(f"clopper_pearson needs 0 <= k <= n and n >= 1. Got {k=} and {n=} instead.")
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"The 'confidence' parameter must be in (0, 1). Got {confidence} instead.")
    alpha = 1 - confidence
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high


def check_count(k: int, trials: int, probability: float, *, name: str, confidence: float = 0.99) -> CheckResult:
    r"""A count :math:`k \sim \mathrm{Bin}(\text{trials}, p)`: PASSES iff the law's :math:`p` lies in the exact
    Clopper–Pearson interval of :math:`k/\text{trials}` (the law is the null hypothesis; false-FAIL rate
    at most :math:`1 - \text{confidence}`).

    >>> check_count(50, 1000, 0.05, name="demo").passed, check_count(50, 1000, 0.1, name="demo").passed
    (True, False)
    """
    low, high = clopper_pearson(int(k), int(trials), confidence)
    rate = k / trials
    return make_result(
        name=name, passed=low <= probability <= high, predicted=float(probability), measured=rate, ci=(low, high),
        n_seeds=1, summary=f"count {k}/{trials} = {fmt(rate)} {fmt_ci((low, high))} vs law p = {fmt(probability)}",
        details={"count": int(k), "trials": int(trials), "confidence": confidence},
    )


# ----------------------------------------------------------------------------------------------
# measurements


@lru_cache(maxsize=4)
def initial_counts(scale: str) -> dict[str, int]:
    r"""Total :math:`\sum_j|S_{j,\text{sure}}^0|` and :math:`\sum_j|S_{j,\text{pot}}^0|` over the seeds, with the
    numbers of trials of their binomial laws (:math:`km` and :math:`kmd`)."""
    s = SIZES[check_scale(scale)]
    seeds = len(as_seeds(s.init_seeds))
    res = train_sparse_coding(s.init_seeds, d=s.d, m=s.init_m, sparsity=SPARSITY, sigma0=SIGMA0, steps=0, n=1,
                              n_test=1, c1=C1, c2=C2, scale="neuron", device="auto")
    return {
        "sure": int(res.sure_sizes[0].sum()), "pot": int(res.pot_sizes[0].sum()),
        "sure_trials": seeds * s.init_m, "pot_trials": seeds * s.init_m * s.d, "d": s.d, "m": s.init_m, "seeds": seeds,
    }


def _sigma1(m: int, d: int) -> float:
    return 0.01 / (m * math.sqrt(d))


@lru_cache(maxsize=8)
def early_run(scale: str, lr_ratio: float = LR_RATIO, scale_rule: str = "neuron") -> SparseCodingResult:
    r"""The early phase (module docstring): :math:`\eta = \text{lr\_ratio}\cdot\sigma_1`."""
    s = SIZES[check_scale(scale)]
    sigma1 = _sigma1(s.m, s.d)
    steps = s.steps if lr_ratio == LR_RATIO else s.break_steps
    return train_sparse_coding(s.seeds, d=s.d, m=s.m, sparsity=SPARSITY, sigma0=SIGMA0, sigma1=sigma1, lr=lr_ratio * sigma1,
                               steps=steps, n=s.n, n_test=1024, threshold=THRESHOLD, c1=C1, c2=C2, scale=scale_rule,
                               device="auto")


@lru_cache(maxsize=4)
def trained_run(scale: str) -> SparseCodingResult:
    r"""Full training for the accuracies (module docstring)."""
    s = SIZES[check_scale(scale)]
    return train_sparse_coding(s.trained_seeds, d=s.d, m=s.trained_m, sparsity=SPARSITY, sigma0=TRAINED_SIGMA0,
                               lr=TRAINED_LR, steps=s.trained_steps, n=s.trained_n, n_test=4096, threshold=THRESHOLD,
                               c1=C1, c2=C2, scale="neuron", device="auto")


def growth_rates(res: SparseCodingResult, law: str = "training-set") -> np.ndarray:
    r"""Per seed: the least-squares slope of :math:`\langle w_i^{(t)}, M_j\rangle\operatorname{sign}w^*_j` over
    :math:`t \in [T/2, T]` divided by the predicted rate, averaged over the *good* pairs
    :math:`i \in S_{j,\text{sure}}^0 \cap S_{j,\text{sure}}^T` (seeds without one are dropped), ``(seeds',)``.

    ``law="training-set"``: :math:`\hat r_j = \tfrac\eta2\,\frac1n\sum_\mu y_\mu z_{\mu j}\operatorname{sign}w^*_j` (the rate
    on the training set actually used); ``"population"``: its expectation :math:`r^* = \eta s\rho_s/(2d)`."""
    trace = res.lucky_trace.detach().to("cpu", torch.float64)  # (T+1, S, m)
    steps = trace.shape[0] - 1
    t = torch.arange(steps // 2, steps + 1, dtype=torch.float64)
    window = trace[steps // 2 :]
    tc = t - t.mean()
    slopes = (tc[:, None, None] * (window - window.mean(0))).sum(0) / tc.square().sum()  # (S, m)
    good = (res.sure0 & res.sure).cpu()  # (S, m, d); the lucky coordinate of a sure neuron is its j
    cfg = res.config
    if law == "training-set":
        rate = 0.5 * cfg.lr * res.label_correlation.detach().to("cpu", torch.float64)  # (S, d)
    elif law == "population":
        rate = torch.full((good.shape[0], cfg.d), float(growth_rate(sp.nsimplify(cfg.lr), cfg.sparsity, cfg.d)), dtype=torch.float64)
    else:
        raise InvalidParameterError(f"The 'law' parameter must be 'training-set' or 'population'. Got {law!r} instead.")
    ratio = slopes[..., None] / rate[:, None, :]  # (S, m, d)
    counts = good.sum((-1, -2))
    per_seed = (ratio * good).sum((-1, -2)) / counts.clamp(min=1)
    return per_seed[counts > 0].numpy()


def _counts(res: SparseCodingResult, kind: str) -> np.ndarray:
    return res.transition_counts()[kind].cpu().numpy().astype(float)


# ----------------------------------------------------------------------------------------------
# claims




def _initial_sizes(scale: str, c1: float) -> CheckResult:
    r"""Measured totals at :math:`t = 0` against the law evaluated at ``c1`` (:data:`C2` fixed)."""
    counts = initial_counts(scale)
    d = counts["d"]
    p_sure = d * float(sure_probability(d, sp.nsimplify(c1), sp.nsimplify(C2)))
    p_pot = float(pot_probability(d, sp.nsimplify(c1), sp.nsimplify(C2)))
    sure = check_count(counts["sure"], counts["sure_trials"], p_sure,
                       name=f"Σ_j |S_sure^0| ~ Bin(km, d p_sure), law at c1={c1:g}")
    pot = check_count(counts["pot"], counts["pot_trials"], p_pot, name=f"Σ_j |S_pot^0| ~ Bin(kmd, p_pot), law at c1={c1:g}")
    return _all_of(f"initial set sizes (c1={c1:g}, c2={C2:g}, d={d}, m={counts['m']}, {counts['seeds']} seeds)",
                   (p_sure, p_pot), [sure, pot])


def _zero(values: np.ndarray, name: str) -> CheckResult:
    """PASSES iff the count is 0 on every seed (a demonstrated 'never')."""
    total = int(values.sum())
    return make_result(name=name, passed=total == 0, predicted="0 on every seed", measured=float(values.mean()),
                       ci=(float(values.min()), float(values.max())), n_seeds=len(values),
                       summary=f"{total} events over {len(values)} seeds (per seed {values.astype(int).tolist()})",
                       details={"per_seed": values.tolist()})


def _positive(values: np.ndarray, name: str) -> CheckResult:
    """PASSES iff the mean count per seed is demonstrably positive (lower CI end > 0)."""
    est = mean_ci(values)
    return make_result(name=name, passed=est.low > 0, predicted="> 0", measured=est.value, ci=est.ci, n_seeds=est.n_seeds,
                       summary=f"mean {fmt(est.value)} {fmt_ci(est.ci)} per seed (per seed {values.astype(int).tolist()})")


def _inclusion(scale: str, reverse: bool) -> CheckResult:
    res = early_run(scale)
    if reverse:
        return _zero(res.outside_sure.cpu().numpy().astype(float), "S_pot ⊆ S_sure at every step (violations)")
    return _zero(res.outside_pot.cpu().numpy().astype(float), "S_sure ⊆ S_pot at every step (violations)")


def _no_exit(scale: str, literal: bool) -> CheckResult:
    res = early_run(scale)
    lost = _counts(res, "exit-sure-lost")
    if literal:
        every = lost + _counts(res, "exit-sure-second") + _counts(res, "exit-sure-demoted")
        return _zero(every, "no exit of any kind from S_sure (literal principle)")
    return _zero(lost, "no neuron leaves S_sure for outside S_pot (or with a sign flip)")


def _no_exit_breaks(scale: str, breaks: bool) -> CheckResult:
    res = early_run(scale, BREAK_LR_RATIO)
    lost = _counts(res, "exit-sure-lost") + _counts(res, "enter-sure-from-outside")
    if breaks:
        return _positive(lost, f"η = {BREAK_LR_RATIO:g} σ1: neurons lose their feature or skip S_pot")
    return _zero(lost, f"η = {BREAK_LR_RATIO:g} σ1: still no feature lost and no skip of S_pot")


def _entry(scale: str, grows: bool) -> CheckResult:
    res = early_run(scale)
    sizes = res.sure_sizes.sum(-1).cpu().numpy().astype(float)  # (T+1, S)
    jumps = _counts(res, "enter-sure-from-outside")
    ratio = sizes[-1] / np.maximum(sizes[0], 1.0)
    if grows:
        growth = check_at_least(ratio, 2.0, mode="demonstrated", name="|S_sure^T| / max(1, |S_sure^0|) ≥ 2")
        return _all_of("neurons enter S_sure, through S_pot", "growth ≥ 2, no skip",
                       [growth, _zero(jumps, "entries into S_sure from outside S_pot")])
    return check_at_most(ratio, 1.0, mode="demonstrated", name="no neuron enters S_sure after t = 0 (ratio ≤ 1)")


def _growth(scale: str, factor: float) -> CheckResult:
    r"""Slopes of the good neurons' coordinates vs ``factor`` × the rate law (1: the law), on the training set
    (within 5%) and in expectation (within 10%, the spread of :math:`\hat r_j` over features)."""
    res = early_run(scale)
    cfg = res.config
    predicted = factor * float(growth_rate(sp.nsimplify(cfg.lr), cfg.sparsity, cfg.d))
    parts = []
    for law, tol in (("training-set", 0.05), ("population", 0.10)):
        ratio = growth_rates(res, law) / factor
        parts += [check_at_least(ratio, 1.0, rel_tol=tol, name=f"slope / ({factor:g} × {law} rate) ≥ 1 − {tol:g}"),
                  check_at_most(ratio, 1.0, rel_tol=tol, name=f"slope / ({factor:g} × {law} rate) ≤ 1 + {tol:g}")]
    return _all_of(f"good-set growth rate = {factor:g} × η s ρ_s/(2d) = {predicted:.4g} per step", predicted, parts)


def _net_vs_linear(scale: str, net_wins: bool) -> CheckResult:
    res = trained_run(scale)
    cfg = res.config
    net, lin = res.test_accuracy.cpu().numpy().astype(float), res.linear_accuracy.cpu().numpy().astype(float)
    law = float(linear_accuracy(cfg.sparsity, cfg.d, sp.nsimplify(cfg.sigma0)))
    lin_law = _all_of(f"linear accuracy = exact law {law:.4f}", law, [
        check_at_least(lin, law, tolerance=0.01, name="linear accuracy ≥ law − 0.01"),
        check_at_most(lin, law, tolerance=0.01, name="linear accuracy ≤ law + 0.01"),
    ])
    if net_wins:
        gap = check_at_least(net - lin, 0.0, mode="demonstrated", name="net − linear accuracy > 0")
    else:
        gap = check_at_most(net - lin, 0.0, mode="demonstrated", name="linear ≥ net accuracy")
    return _all_of(f"net vs linear model at σ0 = {cfg.sigma0:g}", "net > linear" if net_wins else "linear ≥ net", [lin_law, gap])


def _laws() -> dict[str, Law]:
    return {law.name: law for law in good_set_laws(m=SIZES["small"].m, d=SIZES["small"].d, c1=C1, c2=C2, s=SPARSITY)}


def _finite_d_no_exit_law() -> Law:
    lhs = (r"\#\{i \in S_{j,\mathrm{sure}}^{t} \setminus S_{j,\mathrm{pot}}^{t+1}\}"
           r" + \#\{i \in S_{j,\mathrm{sure}}^{t}:\ C_{ij}^{(t+1)}w^*_j \le 0\}")
    return Law("no feature lost", lhs,
               "eq", "0", sp.Integer(0), {}, (r"\eta = 30\,\sigma_1", r"f \approx 0", "d = 32"), "derived",
               "flt_theory: finite-d form of the seminar's principle (seed 000)")


def _break_law() -> Law:
    return Law("large step breaks monotonicity", r"\#\{\text{feature lost or } S_\mathrm{pot} \text{ skipped}\}", "geq", "1",
               sp.Integer(1), {}, (r"\eta = 3\cdot 10^{4}\sigma_1",), "derived", "flt_theory (seed 000)")


def _register_all() -> None:
    laws = _laws()
    register(Claim(
        SYSTEM, "initial-sizes", laws["initial sure size"],
        "at t = 0, Σ_j|S_sure| ~ Bin(km, d·p_sure) and Σ_j|S_pot| ~ Bin(kmd, p_pot) with the exact Gaussian-tail p's",
        lambda scale: _initial_sizes(scale, C1), lambda scale: _initial_sizes(scale, C1 + 0.5), f"c1 = {C1 + 0.5:g} instead of {C1:g}",
    ))
    register(Claim(
        SYSTEM, "inclusion", laws["inclusion"], "S_sure^t ⊆ S_pot^t at every step",
        lambda scale: _inclusion(scale, False), lambda scale: _inclusion(scale, True), "S_pot^t ⊆ S_sure^t",
    ))
    register(Claim(
        SYSTEM, "no-exit", _finite_d_no_exit_law(),
        "a neuron leaving S_sure stays in S_pot of its feature with the sign of w*_j (early phase, small step)",
        lambda scale: _no_exit(scale, False), lambda scale: _no_exit(scale, True),
        "the literal principle: no exit of any kind (second features included)",
    ))
    register(Claim(
        SYSTEM, "no-exit-breaks", _break_law(),
        "with a step 1000× larger, neurons lose their feature or jump over S_pot",
        lambda scale: _no_exit_breaks(scale, True), lambda scale: _no_exit_breaks(scale, False),
        "the principle survives the large step",
    ))
    register(Claim(
        SYSTEM, "entry-from-pot", laws["entry from the lower set"],
        "neurons enter S_sure (it grows ≥ 2×) and every entry comes from S_pot",
        lambda scale: _entry(scale, True), lambda scale: _entry(scale, False), "no neuron enters S_sure after t = 0",
    ))
    register(Claim(
        SYSTEM, "growth-rate", laws["good-set growth"],
        "good neurons' coordinate grows linearly at r* = η s ρ_s / (2d) while f ≈ 0",
        lambda scale: _growth(scale, 1.0), lambda scale: _growth(scale, 1.0 / float(tie_probability(SPARSITY))),
        "rate η s/(2d): every active feature decides the label (no tie factor ρ_s)",
    ))
    register(Claim(
        SYSTEM, "net-beats-linear", laws["net beats linear"],
        "trained net is more accurate than ⟨Mw*, x⟩, whose accuracy matches its exact law, at σ0 = 0.15",
        lambda scale: _net_vs_linear(scale, True), lambda scale: _net_vs_linear(scale, False), "the linear model is at least as accurate",
    ))


_register_all()
