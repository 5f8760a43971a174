r"""The comparisons of the giant-step claims: ``compare(frame, law)``, each reading its prediction from the law it is
given.

Every claim of the system (:mod:`.declaration`) is one stored measurement and one of these comparisons, called
twice: with the claim's law and with the wrong law of its negative control; ``flt verify TARGET``
(:mod:`.verify`) calls the same ones on its own measurements. The frames are those the experiments of
:mod:`.model` store (per seed); :mod:`.readouts` reads them back into arrays. Source of the laws: Dandi,
Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..._text import subspace_text
from ...compare import (
    check_at_least,
    check_limit_power_law_2d,
    check_not_learned,
    check_ordering,
    check_power_law,
    check_power_law_2d,
    check_subspace_learned,
    check_transition,
    grid_ladders,
    grid_rungs,
)
from ...compare.result import CheckResult, all_of, make_result
from ...errors import InvalidParameterError
from ...symbolic import Subspace
from ...symbolic.law import Law
from ..frames import ladder_by, per_seed
from .readouts import _masses, curves, new_part, second_moments

__all__ = ["LEARNED_FACTOR", "NORM_LIMIT_RUNGS", "NORM_TOLERANCE", "compare_floors", "compare_leap2_slopes",
           "compare_norm_law", "compare_plane_directions", "compare_spike", "compare_staircase",
           "compare_staircase_at_every_width", "compare_student_coefficient", "compare_transition", "norm_ladder",
           "norm_grid", "norm_ladders", "plane_ladder", "width_ladder"]


def compare_transition(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""ℓ = 1, η = p: where the excess mass reaches half its saturation value, per d, against the
    threshold :math:`\kappa^*` = ``law.exponent("d")`` of :math:`n^* \asymp d^{\kappa^*}`.

    From :math:`m \approx S/(1 + S + K d^{1-\kappa})` the half-saturation point is
    :math:`\kappa_{1/2} = 1 + \log(K/(1+S))/\log d \to 1`; the level is half the mean excess mass at
    the largest κ (measured). Sharpening is not demanded: the slope at the crossing grows only like
    :math:`\log d`, which the seeds do not resolve. 32 seeds (``leap1_seeds``): with 8, the crossing's interval at
    the catalogue's per-claim level 0.0007 let κ* ± 0.5 pass in 15–45% of 20 seed sets; with 32, none."""
    threshold = float(law.exponent("d"))
    kappas, data = curves(frame, "excess_mass")
    level = 0.5 * float(np.mean([c[:, -1].mean() for c in data.values()]))
    return check_transition(kappas, data, threshold, level=level, tolerance=0.25, require_sharpening=False,
                            name=f"one-step transition at κ* = {threshold:g} (half-saturation level {level:.3f})")


def compare_leap2_slopes(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Slope of the excess mass in :math:`d` at each κ: predicted :math:`\min(0, \kappa - \kappa^*)`
    with :math:`\kappa^*` = ``law.exponent("d")``, ± 0.2 (finite-size curvature of the log-log fit). A
    threshold one off predicts slopes 0.5 away at :math:`\kappa = \kappa^* - \tfrac12`; a tolerance of 0.3
    left only 0.2 between the two bands and the control lost its power at the family-wise level."""
    threshold = float(law.exponent("d"))
    kappas, data = curves(frame, "excess_mass")
    ds = np.array(sorted(data), dtype=float)
    results = []
    for j, kappa in enumerate(kappas):
        y = np.clip(np.stack([data[int(d)][:, j] for d in ds], axis=1), 1e-6, None)
        results.append(check_power_law(ds, y, min(0.0, kappa - threshold), tolerance=0.2,
                                       name=f"excess mass ∝ d^(min(0, κ − {threshold:g})) at κ = {kappa:g}"))
    return all_of(f"one-step threshold κ* = {threshold:g}", threshold, results)


def compare_student_coefficient(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""He2 target, :math:`\eta = p\sqrt d`, largest d and κ of the ℓ = 2 grid, against the student
    coefficient :math:`c_\sigma` = ``law.number()``.

    :math:`c_\sigma = 0`: the population update has no component along :math:`V^*` at any order, so
    the mass stays at its random level :math:`1/d` up to the sample noise, which is anisotropic
    (along :math:`w^*` its variance is :math:`\mathbb E[z^2\mathrm{He}_2(z)^2]/\mathbb E[\mathrm{He}_2(z)^2] = 5`
    times larger): at most 8× the random level. :math:`c_\sigma \ne 0`: a mass of order one, ≥ 0.1."""
    d = int(frame["d"].max())
    mass = per_seed(frame, "mass_V", d=d, kappa=float(frame["kappa"].max()))
    c_sigma = law.number()
    if c_sigma == 0:
        return check_not_learned(mass, 1 / d, max_ratio=8.0, name=f"c_σ = 0: mass on V* at random level 1/d (d = {d})")
    return check_subspace_learned(mass, np.zeros_like(mass), 1.0, min_mass=0.1,
                                  name=f"c_σ = {c_sigma:.3g} ≠ 0: mass on V* ≥ 0.1 (d = {d})")


#: A norm-law grid is decided in the limit (:func:`compare_norm_law`) when it has at least this many values of
#: :math:`d` and of :math:`n` (``paper``: 5 and 5); a smaller one (``small``: 4 and 4, where the ladder in
#: :math:`n` cannot reject the control's exponent −2 in the limit: p = 0.035 over n = 8..64, 64 seeds, far above the
#: family level 0.05/85) keeps the one joint fit within :data:`NORM_TOLERANCE`, with its effective exponents shown
#: (:func:`norm_ladder`).
NORM_LIMIT_RUNGS = 5
#: The one joint fit's tolerance on each exponent (the Θ(1) signal part of the update can tilt it: the docstring of
#: :func:`compare_norm_law`).
NORM_TOLERANCE = 0.1


def norm_grid(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(d, n, y)``: the grid of ``giant-step/norm-growth`` as the sizes of its points (columns) and ``y`` (seeds,
    points), seeds paired across the grid (a seed missing at some point is left out; a point no seed measured is
    refused, naming it)."""
    table = frame.pivot_table(index="seed", columns=["d", "n"], values="norm_growth", aggfunc="mean").dropna()
    measured = {(float(d), float(n)) for d, n in table.columns}
    lost = sorted({(float(d), float(n)) for d, n in zip(frame["d"], frame["n"])} - measured)
    if lost:
        raise InvalidParameterError("the norm-law grid has no seed measured at every point: (d, n) = "
                                    + ", ".join(f"({d:g}, {n:g})" for d, n in lost))
    d, n = (table.columns.get_level_values(size).to_numpy(float) for size in ("d", "n"))
    return d, n, table.to_numpy(float)


def norm_ladders(frame: pd.DataFrame) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    r"""The grid of ``giant-step/norm-growth`` (:func:`norm_grid`) read as two ladders
    (:func:`~flt_theory.compare.grid_ladders`): ``((ds, y_d), (ns, y_n))`` with
    :math:`y_d[s, k] = \operatorname{mean}_n y_s(d_k, n)` (per seed :math:`s`, the mean over the grid's values of
    :math:`n`) and :math:`y_n[s, k] = \operatorname{mean}_d y_s(d, n_k)`. For :math:`y = C d^a n^b` exactly,
    :math:`y_d \propto d^a` and :math:`y_n \propto n^b`; each mean is led by the points deepest in :math:`n \ll d` (the
    largest :math:`y`). Arithmetic, not geometric means: :math:`y` is heavy-tailed at small :math:`n` (a sum of
    :math:`n` squared residuals; at ``paper`` its median is 0.5 of its mean at :math:`n = 8`, 0.9 at :math:`n = 128`),
    so a mean of logarithms would carry a Jensen gap that changes with :math:`n` (measured: a local exponent −0.88 in
    :math:`n` at :math:`n \approx 11` from it alone)."""
    return grid_ladders(*norm_grid(frame), labels=("d", "n"))


def norm_ladder(frame: pd.DataFrame, law: Law) -> list[dict[str, Any]]:
    """The effective exponents of :func:`norm_ladders`' two ladders (the ones :func:`compare_norm_law` extrapolates) as
    rungs (:func:`~flt_theory.compare.grid_rungs`): ``{"d": ...}`` against ``law.exponent("d")``, then ``{"n": ...}``
    against ``law.exponent("n")``, each at the geometric middle of its two sizes."""
    return grid_rungs(*norm_grid(frame), (float(law.exponent("d")), float(law.exponent("n"))), labels=("d", "n"))


def compare_norm_law(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Norm law :math:`\|w_i^1\|^2 - 1 \propto d^a n^b` at fixed :math:`\eta = p`, :math:`(a, b)` =
    ``law.exponent("d"), law.exponent("n")`` (noise-dominated regime :math:`n \ll d`).

    **Its finite-size form.** One step :math:`w_i^1 = w_i^0 + (\eta a_i/p) g_i`, :math:`g_i = \frac1n\sum_\mu r_\mu
    \sigma'(\langle w_i^0, x_\mu\rangle) x_\mu`, :math:`\|w_i^0\| = 1`, :math:`a_i = \pm 1`, gives
    :math:`\|w_i^1\|^2 - 1 = 2(\eta a_i/p) \langle w_i^0, g_i\rangle + (\eta/p)^2 \|g_i\|^2`. The first term
    cancels in the mean over neurons (the symmetric initialisation pairs :math:`w_{p/2+i}^0 = w_i^0` with
    :math:`a_{p/2+i} = -a_i`, :mod:`flt_theory.numeric.student`, so :math:`g_{p/2+i} = g_i`), and for independent
    samples :math:`\mathbb E\|g\|^2 = \|\mathbb E g\|^2 + \frac1n(\mathbb E[r^2\sigma'^2\|x\|^2] -
    \|\mathbb E g\|^2) = B\,d/n + A + O(1/n)`: the law is the sample-noise term, the :math:`\Theta(1)` signal part
    :math:`A` a correction :math:`1 + (A/B)\,n/d`. In :math:`d` at fixed :math:`n` it vanishes like :math:`d^{-1}`;
    in :math:`n` at fixed :math:`d` like :math:`n^{+1}`, i.e. the law in :math:`n` is a law of :math:`n \to 0`
    relative to :math:`d` (the regime :math:`n \ll d`), a correction :math:`u^{-1}` in :math:`u = 1/n`. Both shapes
    are in :mod:`~flt_theory.compare.limit`'s family. At ``paper`` (768 seeds) the correction is within the seeds'
    scatter: the seed mean of :math:`y\,n/d` is 1.49 to 1.70 over the grid (at :math:`d = 256` it rises from 1.59 at
    :math:`n = 8` to 1.70 at :math:`n = 128`, at :math:`d = 4096` it falls from 1.57 to 1.54), and the limit picks no
    correction.

    **The decision.** On a grid of at least :data:`NORM_LIMIT_RUNGS` values of each size: both exponents in the limit,
    no tolerance — :math:`a` on the ladder in :math:`d` (:func:`norm_ladders`, :math:`d \to \infty`) and :math:`b`
    on the ladder in :math:`n` (``toward="zero"``), each with :func:`~flt_theory.compare.check_limit_power_law`; the
    conjunction's p-value is Bonferroni's over the two (:func:`~flt_theory.compare.result.all_of`). On a smaller grid:
    one joint fit of :math:`(a, b)` (:func:`~flt_theory.compare.check_power_law_2d`) within :data:`NORM_TOLERANCE`."""
    exponents = (float(law.exponent("d")), float(law.exponent("n")))
    name = f"norm law ‖w¹‖² − 1 ∝ d^{exponents[0]:g} n^{exponents[1]:g}"
    if frame["d"].nunique() >= NORM_LIMIT_RUNGS and frame["n"].nunique() >= NORM_LIMIT_RUNGS:
        return check_limit_power_law_2d(*norm_grid(frame), exponents, labels=("d", "n"),
                                        toward=("infinity", "zero"), limits=("d → ∞", "n/d → 0"),
                                        name=f"{name} in the limit n/d → 0")
    points = frame[["d", "n"]].drop_duplicates().sort_values(["d", "n"]).to_numpy()
    ys = np.stack([per_seed(frame, "norm_growth", d=int(d), n=int(n)) for d, n in points], axis=1)
    return check_power_law_2d(points[:, 0].astype(float), points[:, 1].astype(float), ys, exponents,
                              tolerance=NORM_TOLERANCE, labels=("exponent of d", "exponent of n"),
                              name=f"{name} (one fit: fewer than {NORM_LIMIT_RUNGS} values of d or n)")


def compare_spike(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""The update :math:`W^1 - W^0` has :math:`k = \dim U` outlier singular values (:math:`s_k/s_{k+1} \ge 2`,
    demonstrated), :math:`U` = ``law.subspaces()[0]``, and its top-:math:`k` right singular subspace lies in
    :math:`U`: mean squared projection :math:`\operatorname{tr}(BQ_kB^\top)/k \ge 0.8` (from the stored
    :math:`Q_k`, :mod:`.model`). For the law (:math:`k = 1`, :math:`U = \operatorname{span}(v^*)`) this is a
    rank-one spike along :math:`v^*`; a plane holding :math:`v^*` is rejected: there is no second outlier and
    the second singular direction is a bulk one (the top-2 subspace is about half in the plane) — so the check
    reads the rank of the update as well as its direction (the top direction alone lies in any such plane).
    An empty :math:`U` predicts no update direction and fails."""
    (u,) = law.subspaces()
    k, r, basis = u.dim, u.ambient, u.numpy()
    rows = frame.sort_values("seed")
    if k == 0:
        return make_result(name="rank-one update along the one-step subspace", passed=False, predicted=subspace_text(u),
                           measured=math.nan, ci=(math.nan, math.nan), n_seeds=len(rows),
                           summary="the predicted subspace is empty: it predicts no spike, and W¹ − W⁰ ≠ 0")
    if f"sv_ratio{k}" not in rows:
        raise InvalidParameterError(f"the measurement records the top {int(frame['directions'].max())} singular "
                                    f"directions; a {k}-dimensional spike subspace needs directions >= {k}")
    top = np.stack([[rows[f"top{k}_{a}{b}"].to_numpy(float) for b in range(r)] for a in range(r)],
                   axis=-1).transpose(1, 0, 2)
    align = np.einsum("ka,sab,kb->s", basis, top, basis) / k
    parts = [check_at_least(rows[f"sv_ratio{k}"].to_numpy(float), 2.0, mode="demonstrated",
                            name=f"{k} outlier singular value{'s' if k > 1 else ''}: s{k}/s{k + 1} ≥ 2"),
             check_subspace_learned(align, np.zeros_like(align), 1.0, min_mass=0.8,
                                    name=f"top-{k} right singular subspace in {subspace_text(u)}: squared "
                                         "projection ≥ 0.8")]
    return all_of("rank-one update along the one-step subspace", subspace_text(u), parts)


def compare_staircase(frame: pd.DataFrame, law: Law, *, every_direction: bool | None = None,
                      resolvable: Sequence[bool] | None = None, name: str = "staircase") -> CheckResult:
    r"""After step :math:`t`: the new part :math:`U_t \ominus U_{t-1}` carries ≥ 10× its random mass
    and :math:`V^*\ominus U_t` stays ≤ 3× its random level (CIs over seeds), for the staircase
    ``law.subspaces()``. With ``every_direction`` (default: ``law.relation == "eq"``, :math:`U_t` exactly) the new
    part's least-learned direction must carry ≥ 10/d; otherwise (``"in"``: :math:`U_{t-1} \subsetneq U_t \subseteq`
    the given subspace, at least one new direction) its total mass ≥ 10·dim/d.
    A step that adds no direction is checked on the
    mass of :math:`U_t` itself (learned earlier, it must still carry ≥ 10× its random level).
    ``resolvable[t-1] = False`` (the predicted size of step :math:`t`'s new part is below what these sizes
    resolve, :func:`flt_theory.symbolic.staircase_sizes.staircase_sizes`) skips the new part's check at that
    step: only :math:`V^* \ominus U_t` is checked. Sizes: :math:`n = 64d`, :math:`\eta = 4p` at every step.
    ``frame`` holds one point (one d and one p); ``name`` heads the result."""
    claimed = law.subspaces()
    every_direction = law.relation == "eq" if every_direction is None else every_direction
    r = claimed[0].ambient
    d = int(frame["d"].iloc[0])
    checks, previous = [], Subspace.zero(r)
    for t, u in enumerate(claimed, start=1):
        moments = second_moments(frame, t, r)
        new = new_part(previous, u)
        comp = u.complement().numpy() if u.dim < r else np.zeros((0, r))
        off = _masses(moments, comp)[0]
        if u.dim == 0:  # nothing learned yet: V* stays at its random level
            checks.append(check_not_learned(off, r / d, max_ratio=3.0, name=f"step {t}: U_{t} = {{0}}"))
            previous = u
            continue
        if resolvable is not None and len(new) and not resolvable[t - 1]:
            if len(comp):
                checks.append(check_not_learned(off, len(comp) / d, max_ratio=3.0,
                                                name=f"step {t}: V* ⊖ U_{t} stays at its random level (the new part of "
                                                     f"U_{t} is not resolvable at this size: not checked)"))
            previous = u
            continue
        if len(new) == 0:
            on, base = _masses(moments, u.numpy())[0], u.dim / d
        elif every_direction:
            on, base = _masses(moments, new)[1], 1 / d
        else:
            on, base = _masses(moments, new)[0], len(new) / d
        checks.append(check_subspace_learned(on, off, max(len(comp), 1) / d, min_factor=10.0, baseline_on_U=base,
                                             max_ratio=3.0, name=f"step {t}: U_{t} = {u.latex()}"))
        previous = u
    label = " ⊂ ".join(u.latex() for u in claimed)
    return all_of(name, label if every_direction else f"{label} (⊆: at least one new direction)", checks)


def compare_staircase_at_every_width(frame: pd.DataFrame, law: Law) -> CheckResult:
    r""":func:`compare_staircase` at every measured width :math:`p` (one :math:`d`): PASSES iff it passes at each
    (:func:`~flt_theory.compare.result.all_of`); with one width, that width's comparison itself. The finite-width
    reading of the staircase (the step-2 update of every neuron is a function of the overlap all neurons share,
    :func:`compare_plane_directions`) holds neuron by neuron, so it does not depend on :math:`p`; the width ladder
    (:func:`width_ladder`) shows whether :math:`p \to \infty` brings the plane back."""
    widths = sorted(int(v) for v in frame["p"].unique())
    if len(widths) == 1:
        return compare_staircase(frame, law)
    parts = [compare_staircase(frame[frame["p"] == p], law, name=f"p = {p}: staircase") for p in widths]
    return all_of("staircase at every width p", parts[0].predicted, parts)


def compare_plane_directions(frame: pd.DataFrame, law: Law) -> CheckResult:
    r"""Example (d) at finite width: how many directions of :math:`\mathrm{span}(w^*_2, w^*_3)` step 2
    adds, against ``law.number()`` (1: the least-learned direction of the plane stays ≤ 3× its random
    level :math:`1/d`; 2: it carries ≥ 10/d).

    Derivation. After an ℓ = 1 first step every neuron has the same :math:`|\langle w_i, w^*_1\rangle|`
    (the update is rank one, :math:`\propto a_i v^*` with :math:`a_i = \pm 1`), and the step-2 update
    of neuron :math:`i` along :math:`(w^*_2, w^*_3)` is
    :math:`\propto a_i\,(\mathbb E[z_1\sigma'(w_i\cdot x)],\ \mathbb E[\mathrm{He}_3(z_1)\sigma'(w_i\cdot x)])`,
    a function of that common overlap only, up to a sign shared by both entries (both Hermite
    polynomials are odd). So all neurons move along ONE direction of the plane, while the full-plane
    reading of the staircase conjecture predicts two. The initial overlaps :math:`\langle w_i^0, w^*_1\rangle
    \sim d^{-1/2}` are what makes the neurons' overlaps differ, so the statement sharpens as :math:`d` grows
    (:func:`plane_ladder`). Checked at every measured :math:`d`."""
    dim = law.number()
    if dim not in (0, 1, 2):
        return make_result(name="directions of span(w2, w3) learned at step 2", passed=False, predicted=dim,
                           measured=math.nan, ci=(math.nan, math.nan), n_seeds=int(frame["seed"].nunique()),
                           summary=f"a subspace of a plane has 0, 1 or 2 dimensions, not {dim:g}")
    parts = []
    for d in sorted(int(v) for v in frame["d"].unique()):
        rows = frame[frame["d"] == d]
        least = _least_plane_mass(rows)
        if dim == 0:
            total = _masses(second_moments(rows, 2, 3), _PLANE)[0]
            parts.append(check_not_learned(total, 2 / d, max_ratio=3.0,
                                           name=f"d = {d}, step 2: span(w2, w3) at its random level"))
        elif dim == 1:
            parts.append(check_not_learned(least, 1 / d, max_ratio=3.0,
                                           name=f"d = {d}, step 2: least direction of span(w2, w3) at random level"))
        else:
            parts.append(check_subspace_learned(least, np.zeros_like(least), 1.0, min_factor=10.0, baseline_on_U=1 / d,
                                                name=f"d = {d}, step 2: every direction of span(w2, w3) learned"))
    return parts[0] if len(parts) == 1 else all_of("step 2 in span(w2, w3) at every d", dim, parts)


_PLANE = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def _least_plane_mass(frame: pd.DataFrame) -> np.ndarray:
    """Per seed: the mass of the least-learned direction of span(w2, w3) after step 2."""
    return _masses(second_moments(frame, 2, 3), _PLANE)[1]


#: The level (in units of the random level 1/d) at which a direction counts as learned (compare_staircase).
LEARNED_FACTOR = 10.0


def _plane_ladder_by(frame: pd.DataFrame, column: str) -> list[dict[str, Any]]:
    r"""Per value of ``column``: :math:`d\,\lambda_{\min}` of :math:`\mathrm{span}(w^*_2, w^*_3)` after step 2 (the
    least direction in units of its random level :math:`1/d`, :math:`d` of those rows), mean and 95% CI over seeds
    (:func:`~flt_theory.systems.frames.ladder_by`); ``predicted`` 1, ``literal`` :data:`LEARNED_FACTOR`."""
    return ladder_by(frame, column, lambda rows: int(rows["d"].iloc[0]) * _least_plane_mass(rows), predicted=1.0,
                     literal=LEARNED_FACTOR)


def plane_ladder(frame: pd.DataFrame) -> list[dict[str, Any]]:
    r"""Ladder of example (d) over :math:`d` (:class:`~flt_theory.systems.declaration.Claim`): per measured :math:`d`,
    :math:`d\,\lambda_{\min}` — the least direction of :math:`\mathrm{span}(w^*_2, w^*_3)` after step 2 in units
    of its random level :math:`1/d` — with its 95% CI over seeds; ``predicted`` 1 (random level: ONE direction
    learned), ``literal`` :data:`LEARNED_FACTOR` (the conjecture's plane: the direction learned)."""
    return _plane_ladder_by(frame, "d")


def width_ladder(frame: pd.DataFrame) -> list[dict[str, Any]]:
    r"""Ladder of example (d) over the width :math:`p` at one :math:`d`: the quantity of :func:`plane_ladder`
    (:math:`d\,\lambda_{\min}` of the plane after step 2) per measured :math:`p`, ``predicted`` 1, ``literal``
    :data:`LEARNED_FACTOR`. A plane that appears only as :math:`p \to \infty` would show as a rise toward the
    literal value along it."""
    return _plane_ladder_by(frame, "p")


def compare_floors(frame: pd.DataFrame, law: Law, *, decreasing: Sequence[bool] | None = None) -> CheckResult:
    r"""The second layer's test error after :math:`T = 0, 1, \dots` steps against the floors
    ``law.numbers(p=..., d=...)`` (:func:`.laws.second_layer_floors`), read in ``consistent`` mode (a floor fails
    only when the data exclude it), and strictly below the previous step's error (demonstrated) at every
    :math:`T` with ``decreasing[T-1]`` (default: every step)."""
    first = frame.iloc[0]
    bounds = law.numbers(p=int(first["p"]), d=int(first["d"]))
    errors = [per_seed(frame, "test_error", steps=t) for t in range(len(bounds))]
    decreasing = decreasing if decreasing is not None else (True,) * (len(bounds) - 1)
    parts = [check_at_least(e, b, bounds=(0, np.inf), name=f"T = {t}: error ≥ {b:.4g}")
             for t, (e, b) in enumerate(zip(errors, bounds, strict=True))]
    parts += [check_ordering([errors[t - 1], errors[t]], name=f"T = {t}: error below T = {t - 1}")
              for t in range(1, len(bounds)) if decreasing[t - 1]]
    return all_of("second layer: random-feature and conditional-variance floors", tuple(bounds), parts)
