r"""System 1 of CLAIMS.md: giant-step GD on Gaussian multi-index targets (seed ``004``, DKLPS '23).

Wires the symbolic laws (:mod:`flt_theory.symbolic`: leap index, one-step subspace, staircase,
norm law, conditional variance) to the simulator (:func:`flt_theory.numeric.giant_steps`) and the
comparator (:mod:`flt_theory.compare`). Each claim is registered with its negative control (a
deliberately wrong law checked on the SAME measurement, which must fail).

Order parameter. The mass :math:`m = \frac1p\sum_i \|P_{U} w_i\|^2/\|w_i\|^2` on a subspace
:math:`U` of :math:`V^*` (averaged over neurons, per seed); a random unit vector has
:math:`\mathbb E\,m = \dim U/d`. For the phase transitions the *excess mass*
:math:`(m - r/d)/(1 - r/d)` on :math:`V^*` is used, so that the random-initialisation level, which
depends on :math:`d`, does not shift the crossing of the curves of different :math:`d`.

Why the curves of different :math:`d` cross at :math:`\kappa = \ell` (finite-size scaling, derived
from the two laws of the seed). With :math:`\eta = p\,d^{(\ell-1)/2}` the signal part of the update
has :math:`\Theta(1)` norm along :math:`V^*` and the sample noise has squared norm
:math:`\asymp d\eta^2/(np^2) = d^{\ell}/n = d^{\ell-\kappa}`, so
:math:`m \approx S/(1 + S + K d^{\ell-\kappa})`: a function of :math:`(\ell-\kappa)\log d`, the
same for every :math:`d` at :math:`\kappa = \ell`, decreasing in :math:`d` below, increasing above.

Measurement sizes. ``small`` keeps each claim to seconds on 2 CPU cores (default pytest run);
``paper`` uses the sizes at which CLAIMS.md reports the effects clearly (``pytest -m slow``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
import sympy as sp

from ..compare import (
    check_at_least,
    check_ordering,
    check_not_learned,
    check_power_law,
    check_power_law_2d,
    check_subspace_learned,
    check_transition,
    mean_ci,
)
from ..numeric.backend import to_numpy as _np
from ..compare.result import CheckResult, all_of as _all_of
from ..numeric import (
    complement_basis,
    giant_steps,
    least_direction_mass,
    norm_growth,
    overlaps,
    subspace_mass,
    top_direction_overlap,
    update_singular_values,
)
from ..symbolic import Subspace, Target, conditional_variance, giant_step_laws, leap_index, staircase
from ..symbolic.laws import Law
from .claims import Claim, check_scale, register

__all__ = [
    "LEAP1_TARGET",
    "LEAP2_TARGET",
    "SECOND_LAYER_TARGET",
    "SIZES",
    "SPIKE_TARGET",
    "STAIRCASE_EXAMPLES",
    "SYSTEM",
    "excess_mass_curves",
    "samples_for",
    "second_layer_errors",
    "simulate",
    "staircase_masses",
]

SYSTEM = "giant-step"

#: The worked staircase examples (a)–(d) of CLAIMS.md §1 / seed 004.
STAIRCASE_EXAMPLES: dict[str, Target] = {
    "a": Target.from_links(["z + He2(z)", "z - He2(z)"], name="(a) z1 + He2(z1) + z2 - He2(z2)"),
    "b": Target.from_links(["z + He2(z)", "z + He2(z)"], name="(b) z1 + He2(z1) + z2 + He2(z2)"),
    "c": Target.parse("z1 + z1*z2 + z1*z3", rank=3, name="(c) z1 + z1*z2 + z1*z3"),
    "d": Target.parse("z1 + z1*z2 + He3(z1)*z3", rank=3, name="(d) z1 + z1*z2 + He3(z1)*z3"),
}

LEAP1_TARGET = Target.from_links(["z + He2(z)"], name="He1 + He2")
LEAP2_TARGET = Target.from_links(["He2(z)"], name="He2")
SPIKE_TARGET = Target.from_links(["z + He2(z)", "2*z"], name="z1 + He2(z1) + 2 z2")
SECOND_LAYER_TARGET = Target.parse("z1 + z1*z2", rank=2, name="z1 + z1*z2")


# ----------------------------------------------------------------------------------------------
# simulation front end (also used by `flt simulate giant-step`)


def simulate(
    target: Target,
    *,
    ds: Sequence[int],
    kappas: Sequence[float],
    p: int = 64,
    eta: float | str = "theory",
    steps: int = 1,
    seeds: int = 4,
    activation: str = "relu",
    ridge: float | None = None,
    device: str = "auto",
    dtype: str = "float32",
) -> list[dict]:
    r"""Simulate ``target`` on the grid ``ds × kappas`` (:math:`n = \lceil d^\kappa\rceil`) and
    measure, per step, the observables of the giant-step laws. One JSON-ready record per
    (d, κ, step): ``d, n, p, eta, kappa, step, mass_V, mass_V_ci, mass_dirs, mass_staircase``
    and ``test_error`` (mean over seeds, when ``ridge`` is given, last step only). ``mass_V_ci`` is
    ``None`` for a single seed (no interval, rather than NaN, which JSON cannot hold).

    >>> recs = simulate(Target.from_links(["z + He2(z)"]), ds=[16], kappas=[1.0], p=8, seeds=2, device="cpu")
    >>> sorted(recs[0])[:5], recs[0]["n"]
    (['d', 'eta', 'kappa', 'mass_V', 'mass_V_ci'], 16)
    """
    ell = leap_index(target)
    ladder = staircase(target, max(steps, 1))
    records = []
    for d in ds:
        for kappa in kappas:
            n = samples_for(d, kappa)
            res = giant_steps(
                target, d=d, p=p, n=n, steps=steps, eta=eta, leap_index=ell, activation=activation,
                seeds=seeds, ridge=ridge, device=device, dtype=dtype,
            )
            for step in range(1, steps + 1):
                w = res.weights[step]
                mass_v = _np(subspace_mass(w, res.w_star))
                ci = [float(v) for v in mean_ci(mass_v).ci] if len(mass_v) >= 2 else None  # no CI from one seed
                record = {
                    "d": d, "n": n, "p": p, "eta": float(res.config.eta[step - 1]), "kappa": kappa, "step": step,
                    "mass_V": float(mass_v.mean()), "mass_V_ci": ci,
                    "mass_dirs": _np(overlaps(w, res.w_star).square().mean(dim=(-3, -2))).tolist(),
                    "mass_staircase": [float(_np(subspace_mass(w, res.w_star, u)).mean()) if u.dim else 0.0 for u in ladder],
                }
                if res.test_error is not None and step == steps:
                    record["test_error"] = float(_np(res.test_error).mean())
                records.append(record)
    return records


def samples_for(d: int, kappa: float) -> int:
    r""":math:`n = \lceil d^\kappa \rceil` (at least 2)."""
    return max(2, int(math.ceil(d**kappa - 1e-9)))


def excess_mass_curves(
    target: Target, *, ds: Sequence[int], kappas: Sequence[float], p: int, seeds: int, activation: str = "relu",
    eta: float | str = "theory",
) -> dict[int, np.ndarray]:
    r"""Excess mass :math:`(m_{V^*} - r/d)/(1 - r/d)` after one step, per d: ``(seeds, kappas)``."""
    return {d: np.stack([_one_step_mass(target, d, k, p, seeds, activation, eta) for k in kappas], axis=1) for d in ds}


@lru_cache(maxsize=256)
def _one_step_mass(target: Target, d: int, kappa: float, p: int, seeds: int, activation: str, eta) -> np.ndarray:
    res = giant_steps(
        target, d=d, p=p, n=samples_for(d, kappa), steps=1, eta=eta, leap_index=leap_index(target),
        activation=activation, seeds=seeds, ridge=None, device="auto",
    )
    base = target.rank / d
    return (_np(subspace_mass(res.weights[1], res.w_star)) - base) / (1 - base)


def staircase_masses(target: Target, *, d: int, p: int, n: int, eta: float, steps: int, seeds: int) -> dict:
    r"""The (cached) multi-step run behind the staircase claims: ``{"weights": (T+1, seeds, p, d),
    "w_star": (seeds, r, d), "d": d}``, from which masses on any candidate staircase are read."""
    res = _staircase_run(target, d, p, n, float(eta), steps, seeds)
    return {"weights": res.weights, "w_star": res.w_star, "d": d}


@lru_cache(maxsize=32)
def _staircase_run(target: Target, d: int, p: int, n: int, eta: float, steps: int, seeds: int):
    return giant_steps(target, d=d, p=p, n=n, steps=steps, eta=eta, seeds=seeds, ridge=None, device="auto")




# ----------------------------------------------------------------------------------------------
# sizes


@dataclass(frozen=True)
class _Sizes:
    leap1_ds: tuple[int, ...]
    leap1_kappas: tuple[float, ...]
    leap2_ds: tuple[int, ...]
    leap2_kappas: tuple[float, ...]
    p: int
    seeds: int
    norm_ds: tuple[int, ...]
    norm_ns: tuple[int, ...]
    spike_d: int
    staircase_d: int
    staircase_p: int


SIZES = {
    "small": _Sizes((64, 128, 256), (0.5, 0.75, 1.0, 1.25, 1.5, 2.0), (64, 128, 256), (1.0, 1.5, 2.0), 32, 8,
                    (128, 256, 512), (8, 16, 32), 128, 128, 64),
    "paper": _Sizes((128, 256, 512), (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0), (128, 256, 512), (1.0, 1.5, 2.0, 2.25), 64, 8,
                    (256, 512, 1024), (8, 16, 32, 64), 256, 256, 256),
}


@lru_cache(maxsize=16)
def _laws(target: Target, activation: str = "relu") -> dict[str, Law]:
    return {law.name: law for law in giant_step_laws(target, activation)}


# ----------------------------------------------------------------------------------------------
# claims


def _leap1_transition(scale: str, threshold: float, activation: str) -> CheckResult:
    r"""ℓ = 1, η = p: where the excess mass reaches half its saturation value, per d.

    From :math:`m \approx S/(1 + S + K d^{1-\kappa})` the half-saturation point is
    :math:`\kappa_{1/2} = 1 + \log(K/(1+S))/\log d \to 1`; the level is half the mean excess mass
    at the largest κ (measured). Sharpening is not demanded: the slope at the crossing grows only
    like :math:`\log d` (×1.3 from d = 128 to 512), which 8 seeds do not resolve (measured at
    ``paper`` scale: crossing 1.03 [0.97, 1.085] at d = 512, steepness not increasing)."""
    s = SIZES[check_scale(scale)]
    curves = excess_mass_curves(LEAP1_TARGET, ds=s.leap1_ds, kappas=s.leap1_kappas, p=s.p, seeds=s.seeds, activation=activation)
    level = 0.5 * float(np.mean([c[:, -1].mean() for c in curves.values()]))
    return check_transition(
        s.leap1_kappas, curves, threshold, level=level, tolerance=0.25, require_sharpening=False,
        name=f"leap-1 one-step transition ({activation} student, half-saturation {level:.3f})",
    )


def _leap2_slopes(scale: str, threshold: float, activation: str = "relu") -> CheckResult:
    r"""Slope of the excess mass in :math:`d` at each κ: predicted :math:`\min(0, \kappa - \kappa^*)`."""
    s = SIZES[check_scale(scale)]
    curves = excess_mass_curves(LEAP2_TARGET, ds=s.leap2_ds, kappas=s.leap2_kappas, p=s.p, seeds=s.seeds, activation=activation)
    ds = np.array(s.leap2_ds, dtype=float)
    results = []
    for j, kappa in enumerate(s.leap2_kappas):
        y = np.clip(np.stack([curves[d][:, j] for d in s.leap2_ds], axis=1), 1e-6, None)
        results.append(check_power_law(ds, y, min(0.0, kappa - threshold), tolerance=0.3,
                                       name=f"excess mass ∝ d^(min(0, κ-{threshold:g})) at κ={kappa:g}"))
    return _all_of(f"leap-2 threshold κ*={threshold:g}", threshold, results)


def _no_learning_vanishing_coefficient(scale: str, learns: bool) -> CheckResult:
    r"""tanh student, He2 target, :math:`\eta = p\sqrt d`, largest d and κ of the ℓ = 2 grid.

    :math:`c_\sigma = \mu_2(\tanh) = 0` and :math:`C_j = 0` for :math:`j \ne 2`, so the population
    update has no component along :math:`V^*` at any order: the mass stays at its random level up to
    the sample noise, which is anisotropic (along :math:`w^*` its variance is
    :math:`\mathbb E[z^2\mathrm{He}_2(z)^2]/\mathbb E[\mathrm{He}_2(z)^2] = 5` times larger), hence
    the allowance of 8× the random level :math:`1/d`. The wrong law ("tanh learns like a student
    with :math:`c_\sigma \ne 0`") predicts a mass of the relu student's order, ≥ 0.1 here."""
    s = SIZES[check_scale(scale)]
    d, kappa = s.leap2_ds[-1], s.leap2_kappas[-1]
    mass = _one_step_mass(LEAP2_TARGET, d, kappa, s.p, s.seeds, "tanh", "theory") * (1 - 1 / d) + 1 / d
    name = f"tanh student on He2, d={d}, κ={kappa:g}"
    if learns:
        return check_subspace_learned(mass, np.zeros_like(mass), 1.0, min_mass=0.1, name=name + ": learns (mass ≥ 0.1)")
    return check_not_learned(mass, 1 / d, max_ratio=8.0, name=name + ": mass at random level")


def _norm_law(scale: str, exponents: tuple[float, float]) -> CheckResult:
    r"""Norm law :math:`\|w_i^1\|^2 - 1 \propto d\eta^2/(np^2)` at fixed :math:`\eta = p`, fitted jointly
    in :math:`d` and :math:`n` with :math:`n \ll d` (noise-dominated; the :math:`\Theta(1)` signal part
    is then a small correction)."""
    s = SIZES[check_scale(scale)]
    x1, x2, ys = [], [], []
    for d in s.norm_ds:
        for n in s.norm_ns:
            res = giant_steps(LEAP1_TARGET, d=d, p=s.p, n=n, steps=1, eta=float(s.p), seeds=s.seeds, ridge=None, device="auto")
            x1.append(d)
            x2.append(n)
            ys.append(_np(norm_growth(res.weights[1])).mean(-1))
    return check_power_law_2d(np.array(x1, float), np.array(x2, float), np.stack(ys, axis=1), exponents, tolerance=0.1,
                              name="norm law ‖w¹‖²−1 ∝ d^a n^b")


def _rank_one_spike(scale: str, direction: Sequence[float]) -> CheckResult:
    r"""ℓ = 1: :math:`W^1 - W^0` has one outlier singular value whose right vector is ∥ :math:`v^*`.
    Checks the top right singular vector's squared overlap with ``direction`` ≥ 0.8 and the outlier
    ratio :math:`s_1/s_2 \ge 2` (both with CIs over seeds)."""
    s = SIZES[check_scale(scale)]
    d = s.spike_d
    res = giant_steps(SPIKE_TARGET, d=d, p=2 * s.p, n=samples_for(d, 1.5), steps=1, eta="theory", seeds=s.seeds, ridge=None, device="auto")
    sv = _np(update_singular_values(res.weights[1], res.weights[0]))
    ratio = sv[:, 0] / sv[:, 1]
    align = _np(top_direction_overlap(res.weights[1], res.weights[0], res.w_star, list(direction))).reshape(-1) ** 2
    ratio_check = check_subspace_learned(ratio / 100.0, np.full_like(ratio, 0.0), 1.0, min_mass=0.02, name="outlier ratio s1/s2 >= 2")
    align_check = check_subspace_learned(align, np.full_like(align, 0.0), 1.0, min_mass=0.8,
                                         name=f"top right singular vector ∥ {list(direction)}")
    return _all_of("rank-one update along v*", str(list(direction)), [ratio_check, align_check])


def _staircase_check(scale: str, example: str, claimed: Sequence[Subspace], every_direction: bool = True) -> CheckResult:
    r"""After step :math:`t`: the new part :math:`U_t \ominus U_{t-1}` carries ≥ 10× its random mass,
    and :math:`V^*\ominus U_t` stays ≤ 3× its random level (CIs over seeds). With
    ``every_direction`` the new part's *least-learned direction* must carry ≥ 10/d
    (:func:`~flt_theory.numeric.least_direction_mass`), otherwise its total mass ≥ 10·dim/d.
    Sizes: :math:`n = 64d`, :math:`\eta = 4p` at every step (CLAIMS.md §1: "n = 64d–256d, η a few
    times p")."""
    s = SIZES[check_scale(scale)]
    target = STAIRCASE_EXAMPLES[example]
    d, p = s.staircase_d, s.staircase_p
    res = _staircase_run(target, d, p, 64 * d, float(4 * p), len(claimed), s.seeds)
    checks, previous = [], Subspace.zero(target.rank)
    for t, u in enumerate(claimed, start=1):
        w = res.weights[t]
        new = _new_part(previous, u)
        comp = complement_basis(u, target.rank)
        off = _np(subspace_mass(w, res.w_star, comp)) if len(comp) else np.zeros(w.shape[0])
        if new.dim == 0:
            on, base = np.ones(w.shape[0]), 1 / d
        elif every_direction:
            on, base = _np(least_direction_mass(w, res.w_star, new)), 1 / d
        else:
            on, base = _np(subspace_mass(w, res.w_star, new)), new.dim / d
        checks.append(
            check_subspace_learned(
                on, off, max(len(comp), 1) / d, min_factor=10.0, baseline_on_U=base, max_ratio=3.0,
                name=f"({example}) step {t}: U_{t} = {u.latex()}",
            )
        )
        previous = u
    return _all_of(f"staircase ({example})", " ⊂ ".join(u.latex() for u in claimed), checks)


def _one_new_direction(scale: str, claim_one: bool) -> CheckResult:
    r"""Example (d) at finite width: how many directions of :math:`\mathrm{span}(w^*_2, w^*_3)` step 2 adds.

    Derivation. After an ℓ = 1 first step every neuron has the same :math:`|\langle w_i, w^*_1\rangle|`
    (the update is rank one, :math:`\propto a_i v^*` with :math:`a_i = \pm 1`), and the step-2 update
    of neuron :math:`i` along :math:`(w^*_2, w^*_3)` is
    :math:`\propto a_i\,(\mathbb E[z_1\sigma'(w_i\cdot x)],\ \mathbb E[\mathrm{He}_3(z_1)\sigma'(w_i\cdot x)])`,
    a function of that common overlap only, up to a sign that is the same for both entries (both
    Hermite polynomials are odd). So all neurons move along ONE direction of the plane, while
    Conjecture 1 predicts the whole plane :math:`U_2 \ominus U_1`. Measured: the least-learned direction
    of the plane stays at its random level :math:`1/d` (≤ 3×) while the plane's total mass is high."""
    s = SIZES[check_scale(scale)]
    d, p = s.staircase_d, s.staircase_p
    res = _staircase_run(STAIRCASE_EXAMPLES["d"], d, p, 64 * d, float(4 * p), 2, s.seeds)
    plane = [[0, 1, 0], [0, 0, 1]]
    least = _np(least_direction_mass(res.weights[2], res.w_star, plane))
    if claim_one:
        return check_not_learned(least, 1 / d, max_ratio=3.0, name="(d) step 2: least direction of span(w2, w3) at random level")
    return check_subspace_learned(least, np.zeros_like(least), 1.0, min_factor=10.0, baseline_on_U=1 / d,
                                  name="(d) step 2: every direction of span(w2, w3) learned (Conjecture 1)")


def _new_part(previous: Subspace, current: Subspace) -> Subspace:
    r""":math:`U_t \ominus U_{t-1}` (the directions a step is claimed to add)."""
    if previous.dim == 0:
        return current
    rows = np.array(current.numpy()) - np.array(current.numpy()) @ previous.numpy().T @ previous.numpy()
    return Subspace.span([list(map(float, r)) for r in rows], current.ambient) if np.abs(rows).max() > 1e-9 else Subspace.zero(current.ambient)


def second_layer_errors(scale: str) -> dict[int, np.ndarray]:
    r"""Test error of the ridge second layer after :math:`T = 0, 1, 2` steps, per seed.

    Target :math:`z_1 + z_1z_2` (staircase :math:`\{0\} \subset \mathrm{span}(w_1) \subset V^*`),
    :math:`p = 8` (the :math:`p = O(1)` regime of the theorem), :math:`n = 64d`, :math:`\eta = 4p`,
    ridge :math:`\lambda = 10^{-4}` on 16384 fresh samples, test on 8192."""
    s = SIZES[check_scale(scale)]
    return {steps: _second_layer_error(s.staircase_d, steps, s.seeds) for steps in (0, 1, 2)}


@lru_cache(maxsize=8)
def _second_layer_error(d: int, steps: int, seeds: int) -> np.ndarray:
    p = 8
    res = giant_steps(SECOND_LAYER_TARGET, d=d, p=p, n=64 * d, steps=steps, eta=4.0 * p, seeds=seeds,
                      ridge=1e-4, n_ridge=16384, n_test=8192, device="auto")
    return _np(res.test_error)


def _second_layer_bounds(scale: str, subspaces: Sequence[Subspace]) -> CheckResult:
    r"""Error after :math:`T` steps :math:`\ge \mathbb E[\mathrm{Var}(f^*\mid P_{U_T}x)]` (Theorem,
    :math:`p = O(1)`) for :math:`T = 0, 1, 2` with the given :math:`U_T`, and the errors strictly
    decrease with :math:`T` (CIs over seeds). Lower bounds are read in ``consistent`` mode: a bound
    fails only when the data exclude it."""
    errors = second_layer_errors(scale)
    parts = []
    for steps, u in zip((0, 1, 2), subspaces):
        bound = float(conditional_variance(SECOND_LAYER_TARGET, u))
        parts.append(check_at_least(errors[steps], bound, name=f"T={steps}: error ≥ E[Var(f*|P_U x)] = {bound:g}, U = {u.latex()}"))
    parts.append(check_ordering([errors[0], errors[1], errors[2]], name="error decreases with T"))
    return _all_of("second layer: conditional-variance bounds", tuple(p.predicted for p in parts[:3]), parts)




def _wrong_staircase(example: str) -> list[Subspace]:
    """A deliberately wrong staircase for each example (the negative control)."""
    target = STAIRCASE_EXAMPLES[example]
    full = Subspace.full(target.rank)
    right = staircase(target, 2)
    return {
        "a": [full, full],  # claims everything is learned at step 1
        "b": [right[0], full],  # claims the second direction is learned at step 2
        "c": [right[0], full],  # claims w2 - w3 is learned too
        "d": [right[0], Subspace.span([[1, 0, 0], [0, 1, 1]], 3)],  # (c)'s staircase: w2 - w3 not learned
    }[example]


def _register_all() -> None:
    def law(target: Target, name: str, activation: str = "relu"):
        return lambda: _laws(target, activation)[name]

    for activation in ("relu", "tanh"):
        register(Claim(
            SYSTEM, f"leap1-transition-{activation}", law(LEAP1_TARGET, "one-step threshold"),
            f"one giant step (η = p) learns the ℓ = 1 direction once n ≳ d ({activation} student)",
            lambda scale, a=activation: _leap1_transition(scale, 1.0, a),
            lambda scale, a=activation: _leap1_transition(scale, 2.0, a),
            "threshold κ* = 2",
        ))
    register(Claim(
        SYSTEM, "leap2-threshold", law(LEAP2_TARGET, "one-step threshold"),
        "ℓ = 2, η = p√d: excess mass ∝ d^{min(0, κ−2)} — no learning for κ < 2, learning for κ ≥ 2",
        lambda scale: _leap2_slopes(scale, 2.0), lambda scale: _leap2_slopes(scale, 1.0), "threshold κ* = 1",
    ))
    register(Claim(
        SYSTEM, "vanishing-student-coefficient", law(LEAP2_TARGET, "vanishing student coefficient", "tanh"),
        "tanh student on an ℓ = 2 target: c_σ = μ₂(tanh) = 0, nothing is learned at any κ",
        lambda scale: _no_learning_vanishing_coefficient(scale, learns=False),
        lambda scale: _no_learning_vanishing_coefficient(scale, learns=True),
        "the tanh student learns (mass ∝ d⁰)",
    ))
    register(Claim(
        SYSTEM, "norm-law", law(LEAP1_TARGET, "norm law"), "‖w¹‖² − 1 ∝ d η²/(n p²): exponents (1, −1) in (d, n)",
        lambda scale: _norm_law(scale, (1.0, -1.0)), lambda scale: _norm_law(scale, (1.0, -2.0)),
        "exponents (1, −2)",
    ))
    register(Claim(
        SYSTEM, "rank-one-update", law(SPIKE_TARGET, "one-step subspace"),
        "ℓ = 1: W¹ − W⁰ is a rank-one spike along v* = Σ_k μ*_{k,1} w*_k = w1 + 2 w2",
        lambda scale: _rank_one_spike(scale, (1.0, 2.0)), lambda scale: _rank_one_spike(scale, (1.0, 0.0)),
        "spike along w1",
    ))
    for key, target in STAIRCASE_EXAMPLES.items():
        register(Claim(
            SYSTEM, f"staircase-{key}", law(target, "staircase U_2"), f"staircase {target.name}: " + " ⊂ ".join(u.latex() for u in staircase(target, 2)),
            lambda scale, k=key, t=target: _staircase_check(scale, k, staircase(t, 2), every_direction=k != "d"),
            lambda scale, k=key: _staircase_check(scale, k, _wrong_staircase(k), every_direction=k != "d"),
            "wrong staircase " + " ⊂ ".join(u.latex() for u in _wrong_staircase(key)),
        ))
    ladder = [Subspace.zero(2)] + staircase(SECOND_LAYER_TARGET, 2)
    register(Claim(
        SYSTEM, "second-layer-bounds",
        law(SECOND_LAYER_TARGET, "conditional-variance lower bound"),
        "after T steps the ridge second layer's error is ≥ E[Var(f*|P_{U_T} x)] (2, 1, 0 for z1 + z1 z2) and decreases with T",
        lambda scale: _second_layer_bounds(scale, ladder),
        lambda scale: _second_layer_bounds(scale, [ladder[0], ladder[1], ladder[1]]),
        "U_2 = U_1 (bound 1 after two steps)",
    ))
    register(Claim(
        SYSTEM, "staircase-d-one-new-direction",
        Law("staircase (d) at finite width", r"\dim(\text{learned} \cap \mathrm{span}\{w^*_2, w^*_3\})", "eq", "1", sp.Integer(1),
            {}, (r"a_i = \pm 1", r"\sigma = \mathrm{ReLU}", "t = 2"), "derived",
            "flt_theory: counter-example to the full-plane reading of Conjecture 1 (seed 004)"),
        "example (d): step 2 adds ONE direction of span(w2, w3), not the plane Conjecture 1 predicts",
        lambda scale: _one_new_direction(scale, True), lambda scale: _one_new_direction(scale, False),
        "Conjecture 1: every direction of span(w2, w3) is learned at step 2",
    ))


_register_all()
