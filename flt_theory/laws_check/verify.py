r"""Your own scaling law for any system: ``flt verify --system SYSTEM --law "OBS ~ EXPR"``.

A researcher's conjecture about a simulated system is often one line — "the noise memorisation :math:`\rho_{\max}`
grows like :math:`\sqrt{d/n}`", "the NTK relative change is :math:`N^{-1/2}`". :func:`verify_law` checks such an
**observable law** against the system's own simulation, with nothing written per system:

1. **Parse** ``OBS ~ EXPR`` (:func:`~flt_theory.laws_check.parse.parse_observable_law`): ``OBS`` is an output of one of
   the system's runner experiments, ``EXPR`` a product of powers of that experiment's numeric parameters and positive
   constants, read by a restricted grammar of products, quotients, numeric powers and ``sqrt`` (``_PowerLawParser``: no
   ``eval``, no ``sympify`` of user text). The law says :math:`\mathbb E[\mathrm{OBS}] = C \prod_i x_i^{b_i}` for some
   constant :math:`C > 0`.
2. **Design** the grid (:func:`~flt_theory.laws_check.design.design_grid`): the parameters given by ``over`` take those
   values (their full product). Without ``over`` every parameter of ``EXPR`` varies alone around a base point the system
   already declares (the first small-scale point of a claim measuring the same experiment, or of the claim the text
   values of ``fix`` select, :func:`~flt_theory.laws_check.design.base_claim`; ``fix`` overriding it) — a
   *star* design, :math:`1 + 4k` points for :math:`k` parameters, enough to fit the :math:`k` exponents jointly — over
   the widest range that ``budget``, the experiment's calibrated cost model and the stated hypotheses of the system's
   claims on that experiment allow (:mod:`flt_theory.laws_check.design`), or over
   :data:`~flt_theory.laws_check.design.FACTORS` times the base without a budget. Points the experiment's declared cost
   refuses are dropped; the plan (points, seeds, estimated seconds, points outside the hypotheses) is passed to
   ``on_plan`` before anything runs, and refused when it exceeds ``budget``; a designed point whose simulation fails is
   dropped and reported.
3. **Fit** jointly, over the grid, :math:`\log \overline{\mathrm{OBS}} = a + \sum_i b_i \log x_i` for every varied
   parameter (:func:`~flt_theory.compare.power_law.check_power_law_nd`: seed bootstrap, Bonferroni over the
   exponents); a varied parameter absent from ``EXPR`` is predicted exponent 0.
4. **Decide** with the **mutation panel** of the same measurement
   (:meth:`~flt_theory.laws_check.parse.ObservableLaw.wrong_laws`, :mod:`flt_theory.laws_check.verdict`): each exponent
   of EXPR moved by ± 1/2 and ± 1 (:data:`~flt_theory.laws_check.parse.MUTATIONS`), each varied parameter EXPR lacks
   given exponent ± 1/2. The law *passes* when every predicted exponent lies in its interval AND every goal mutant (±
   1/2, :data:`~flt_theory.laws_check.parse.WRONG_SHIFT`) is rejected; it *fails* when the data exclude it; it is
   *inconclusive* when a goal mutant passes too, with the seeds or the wider range that would separate them. All are
   read from one joint interval at level ``alpha``, so the family-wise level covers the law and its mutants. ``OBS =
   EXPR``, ``OBS <= EXPR`` and ``OBS >= EXPR`` (:func:`~flt_theory.laws_check.parse.parse_relation_law`: EXPR with its
   constant) are decided point by point without a fit (:func:`~flt_theory.laws_check.verdict.decide_relation`).

**Extension.** With a ``budget``, an INCONCLUSIVE law along one varied parameter gets more rungs toward larger sizes
(the largest point moved on by the ladder's last ratio, at least x2), one at a time while the declared cost at the
probe's measured pace (:func:`~flt_theory.laws_check.design.paced_plan`) fits the rest of the budget, at most
:data:`MAX_EXTENSIONS`, until decided; ``extended`` lists them and why the extension stopped.

A parameter of ``EXPR`` that the grid holds fixed cannot be tested; it is reported as such, never counted as
agreement.

**Level-set laws** ``PARAM* ~ EXPR`` with ``where="OBS = LEVEL"`` (``flt verify --law "eta* ~ (n*p**2/d)**(1/2)" --where
"norm_growth = 1" --over d=64,128,256,512 --fix n=64``: the norm law :math:`\|w^1\|^2 - 1 \asymp d\eta^2/(np^2)` of
Dandi et al. 2023, arXiv 2305.18270, reaches 1 at :math:`\eta^* \propto (np^2/d)^{1/2}`). PARAM is a numeric parameter
of the experiment absent from EXPR, ``over`` and ``fix``; at every grid point it is solved for where the seed-mean of
OBS crosses LEVEL (:mod:`flt_theory.laws_check.level_set`: doubling/halving from its declared value to a bracket,
bounded, refused with an error naming the point when the admissible range holds no crossing; bisection in :math:`\log`
PARAM to 2%; every evaluation a seeded, stored :func:`~flt_theory.runner.sweep` with the same seeds at every value of a
point). **The interval.** The seeds are split into ``groups`` disjoint groups (default: one per seed) and each group's
crossing is interpolated on the same evaluations, linearly in :math:`(\log \mathrm{PARAM}, \log \mathrm{OBS})`. The
(groups, points) table of these crossings is fitted by :func:`~flt_theory.compare.power_law.check_power_law_nd` exactly
as a (seeds, points) table: its rows are independent (disjoint seeds), each row holds one group's crossings at every
point (correlated, like one seed's observations: resampled whole), so its row bootstrap is the seed bootstrap it is
calibrated for, and :math:`\log` of the row mean is fitted. Bootstrap replicates of the crossing would NOT do as rows:
they are not independent and resampling them measures the Monte-Carlo error of the replicates (shrinking as
:math:`1/\sqrt B`), not the seeds'. What is estimated is the exponent of :math:`\mathbb E[\mathrm{PARAM}^*_g]`, the
crossing of a group's mean curve, which differs from the crossing of :math:`\mathbb E[\mathrm{OBS}]` by a Jensen term
that varies along the grid only as the relative spread of OBS does (the same caveat as the observable form's mean over
seeds; larger groups shrink it as 1/size, at the price of fewer rows). The mutation panel is fitted on the same table.
The JSON document, the fit figure and the report: :class:`LawVerification`, :mod:`flt_theory.report.law_figure`.
"""


from __future__ import annotations

import dataclasses
import math
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..compare import mean_ci
from ..compare.verdict import INCONCLUSIVE
from ..errors import InvalidParameterError, InvalidParameterTypeError
from ..runner import sweep
from ..runner.errors import ExperimentError
from ..runner.executors import Backend, shared_backend
from ..runner.store import ResultStore
from ..systems import get_system
from ..systems.vocabulary import Conversion, Vocabulary, vocabulary_of
from .design import (
    base_claim,
    claim_hypotheses,
    design_grid,
    grid_plan,
    is_numeric,
    outside_hypotheses,
    paced_plan,
    system_experiments,
)
from .level_set import EVALUATIONS, solve_crossings
from .parse import WRONG_SHIFT, LevelSetLaw, ObservableLaw, is_level_set, parse_any
from .verdict import decide_power_law, decide_relation

__all__ = ["LawVerification", "verify_law"]


class LawVerification(dict):
    """The JSON-ready result of :func:`verify_law` (a dict: ``system``, ``law``, ``form``, ``where``, ``grid``,
    ``predicted``, ``measured`` {symbol: {estimate, ci}}, ``controls`` [{law, verdict}], ``verdict``, ``reason``,
    ``seconds``, and the details), shown as text by ``str`` and as HTML in a notebook."""

    @property
    def passed(self) -> bool:
        return self["verdict"] == "pass"

    def __str__(self) -> str:
        lines = [f"{self['law']}  ({self['system']}, experiment {self['experiment']}; {self['points']} points x "
                 f"{self['seeds']} seeds)"]
        if "crossings" in self:
            name = f"{self['parameter']}*"
            lines[0] += f" where {self['where']}; {self['groups']} seed groups"
            for record in self["crossings"]:
                point = ", ".join(f"{k}={record[k]}" for k in self["varied"])
                lo, hi = record["group_ci"]
                lines.append(f"  {point}: {name} = {record[name]:.4g} (groups' mean {record['group_mean']:.4g} "
                             f"[{lo:.4g}, {hi:.4g}]; {len(record['evaluated'])} values evaluated)")
        for record in self["values"] if self["relation"] != "~" else []:
            point = ", ".join(f"{k}={record[k]}" for k in self["varied"])
            lo, hi = record["ci"]
            lines.append(f"  {point}: {self['observable']} = {record['estimate']:.4g} [{lo:.4g}, {hi:.4g}], "
                         f"law {record['law']:.4g}")
        for name, fit in self["measured"].items():
            lo, hi = fit["ci"]
            if "effective" in fit:  # decided in the limit (flt_theory.compare.limit)
                steps = ", ".join(f"{e['from']:g}->{e['to']:g}: {e['estimate']:.3g} [{e['ci'][0]:.3g}, "
                                  f"{e['ci'][1]:.3g}]" for e in fit["effective"])
                lines.append(f"  effective exponents of {name}: {steps}")
                lines.append(f"  limit exponent of {name}: {fit['estimate']:.3g} [{lo:.3g}, {hi:.3g}] "
                             f"({fit['model']}), law {self['predicted'][name]:g}"
                             + (f" with log({name})^{fit['log_power']:g}" if fit.get("log_power") else ""))
                continue
            lines.append(f"  exponent of {name}: measured {fit['estimate']:.3g} [{lo:.3g}, {hi:.3g}], "
                         f"law {self['predicted'][name]:g}")
        if self["not_tested"]:
            lines.append(f"  not tested (held fixed by the grid): {', '.join(self['not_tested'])}")
        for point in self["dropped"]:
            lines.append("  dropped (the simulation failed): "
                         f"{', '.join(f'{k}={v}' for k, v in point.items() if k != 'error')}")
        if self["outside_hypotheses"]:
            lines.append(f"  {len(self['outside_hypotheses'])} point(s) outside the system's stated hypotheses")
        for control in self["controls"]:
            lines.append(f"  {'goal mutant' if control['goal'] else 'mutant'} {control['law']}: "
                         f"{'rejected' if control['rejected'] else 'NOT rejected'}")
        lines.append(f"{self['verdict'].upper()}: {self['reason']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(str(self))}</pre>"


#: What runs a sweep: a number of worker processes, or an open backend the sweeps of one run share.
Workers = int | Backend


class _NotRecorded(Exception):
    """The experiment does not record the observable (its columns are the message)."""


def _record(experiment: Any, points: Sequence[Mapping[str, Any]], keys: Sequence[str], observable: str,
            seed_list: list[int], store: Any, jobs: Workers, tally: dict[str, int] | None = None) -> Any:
    """``observable`` at every point and seed through :func:`~flt_theory.runner.sweep` (seeded, stored): an array
    (points, seeds), seeds in ``seed_list`` order; ``keys`` are the parameters that tell the points apart;
    ``tally`` counts the rows ``computed`` and ``reused`` from the store."""
    frame = sweep(experiment.name, points=list(points), seeds=seed_list, store=store,
                  **({"jobs": jobs} if isinstance(jobs, int) else {"scheduler": jobs}))
    if tally is not None:
        for key in ("computed", "reused"):
            tally[key] = tally.get(key, 0) + int(frame.attrs.get(key, 0))
    if observable not in frame.columns:
        raise _NotRecorded(", ".join(sorted(c for c in frame.columns if c not in points[0] and c != "experiment")))
    frame = frame.sort_values("seed", kind="stable")
    return np.array([[frame[np.logical_and.reduce([frame[k] == p[k] for k in keys]) & (frame["seed"] == s)]
                      [observable].iloc[0] for s in seed_list] for p in points], dtype=float)


def _measure_level_set(experiment: Any, parsed: LevelSetLaw, points: list[dict[str, Any]], varied: list[str],
                       seed_list: list[int], groups: int, confidence: float, store: Any,
                       jobs: Workers, tally: dict[str, int] | None = None,
                       conversion: Conversion | None = None) -> tuple[Any, list[dict[str, Any]]]:
    """The crossings of every grid point (:func:`~flt_theory.laws_check.level_set.solve_crossings`): the (groups,
    points) table the fit reads, and one record per point (its coordinates, the seed-mean crossing, the groups'
    crossings with their mean and its interval at ``confidence`` (:func:`~flt_theory.compare.mean_ci`, on the log
    scale), the evaluated ``[value, seed-mean]`` pairs in increasing value). With a ``conversion`` (a natural
    parameter the experiment takes as ``conversion.parameter``), the crossings are solved for that parameter and
    every value is converted to the natural one at its point: a monomial, monotone in the solved parameter at a
    fixed point, so the crossing of the converted curve is the converted crossing (the interpolation, linear in
    log-log, commutes with it)."""
    name = parsed.parameter
    keys = [*varied, name]

    def at(i: int, value: float) -> dict[str, Any]:
        return experiment.normalize({**points[i], name: value})

    def admissible(i: int, value: float) -> bool:
        try:
            experiment.check_budget(at(i, value), len(seed_list))
        except InvalidParameterError:
            return False
        return True

    def evaluate(requests: list[tuple[int, float]]) -> Any:
        return _record(experiment, [at(i, v) for i, v in requests], keys, parsed.observable, seed_list, store, jobs,
                       tally)

    result = solve_crossings(evaluate, [points[i][name] for i in range(len(points))], parsed.level, groups=groups,
                             integer=isinstance(points[0][name], int), admissible=admissible,
                             labels=[", ".join(f"{k}={p[k]}" for k in varied) for p in points],
                             observable=parsed.observable, parameter=name)
    def natural(i: int, values: Any) -> Any:
        if conversion is None:
            return np.asarray(values, dtype=float)
        return conversion.natural({**points[i], name: 1.0}) * np.asarray(values, dtype=float) ** \
            conversion.powers[name]

    table = np.column_stack([natural(i, column) for i, column in enumerate(result.groups.T)])
    label = conversion.name if conversion is not None else name
    records = []
    for i, (p, c, g, values, means) in enumerate(zip(points, result.crossing, table.T, result.values, result.means)):
        spread = mean_ci(g, confidence=confidence, bounds=(0.0, math.inf))
        records.append({**{k: p[k] for k in varied}, f"{label}*": float(natural(i, c)), "group_crossings": g.tolist(),
                        "group_mean": spread.value, "group_ci": [spread.low, spread.high],
                        "evaluated": [[float(natural(i, v)), float(m)] for v, m in zip(values, means)]})
    return table, records


def _record_designed(experiment: Any, points: list[dict[str, Any]], varied: list[str], observable: str,
                     seed_list: list[int], store: Any, jobs: Workers, tally: dict[str, int]) -> tuple[Any, Any, list]:
    """:func:`_record` on a designed grid, point by point once the whole grid fails: ``(points kept, table (seeds,
    points kept), dropped points with the simulation's message)``; refused when a varied parameter keeps fewer than
    2 values."""
    try:
        return points, _record(experiment, points, varied, observable, seed_list, store, jobs, tally).T, []
    except ExperimentError:
        pass
    kept, rows, dropped = [], [], []
    for point in points:
        try:
            rows.append(_record(experiment, [point], varied, observable, seed_list, store, jobs, tally)[0])
            kept.append(point)
        except ExperimentError as exc:
            message = str(exc).splitlines()[0]
            dropped.append({**{k: point[k] for k in varied}, "error": message.split(" failed: ", 1)[-1]})
    for name in varied:
        if len({p[name] for p in kept}) < 2:
            raise InvalidParameterError(f"--law: the simulation refused {name}'s designed values "
                                        f"({dropped[0]['error'] if dropped else ''}); give them with --over {name}=...")
    return kept, np.array(rows).T, dropped


def _drop_censored(experiment: Any, points: list[dict[str, Any]], table: Any, varied: list[str],
                   seed_list: list[int], store: Any, jobs: Workers) -> tuple[list[dict[str, Any]], Any, list[str]]:
    """The grid points none of whose runs a step limit stopped, with their columns of ``table`` (seeds, points),
    and one message per dropped point: a censored run's value is a lower bound, never fitted as a measurement.
    An experiment that records no ``censored`` column keeps every point."""
    try:
        censored = _record(experiment, points, varied, "censored", seed_list, store, jobs).T.astype(bool)
    except _NotRecorded:
        return points, table, []
    keep = ~censored.any(axis=0)
    limit = "max_steps" if "max_steps" in points[0] else None
    messages = [f"{', '.join(f'{k}={p[k]}' for k in varied)}: {int(censored[:, j].sum())}/{len(seed_list)} runs "
                f"stopped by the step limit" + (f" (max_steps={p[limit]}; --fix max_steps={4 * int(p[limit])} would "
                                                 "raise it)" if limit else "")
                for j, p in enumerate(points) if not keep[j]]
    return [p for p, k in zip(points, keep) if k], table[:, keep], messages


#: At most this many rungs are added to an inconclusive ladder (:func:`verify_law` with a budget).
MAX_EXTENSIONS = 4


def _decide(parsed: Any, points: list[dict[str, Any]], table: Any, varied: list[str], alpha: float,
            tolerance: float, level_set: bool) -> dict[str, Any]:
    """The verdict of ``parsed`` on ``table`` (seeds or groups, points) at ``points``: a relation point by point, a
    power law by its fit or, along one varied parameter, in the limit (:mod:`flt_theory.laws_check.verdict`)."""
    if parsed.relation != "~":
        if not np.isfinite(table).all():
            raise InvalidParameterError(f"--law: {parsed.observable} is not finite at every point.")
        return decide_relation(parsed, points, table, varied, alpha)
    good = np.isfinite(table) & (table > 0)
    if not good.all():
        bad = [{k: points[j][k] for k in varied} for j in sorted(set(np.argwhere(~good)[:, 1]))]
        what = f"the crossing {parsed.parameter}*" if level_set else parsed.observable
        raise InvalidParameterError(f"{'--where' if level_set else '--law'}: {what} must be positive and finite at "
                                    f"every point to fit a power law; it is not at {bad[:3]}.")
    xs = {k: np.array([float(p[k]) for p in points]) for k in varied}
    return decide_power_law(parsed, xs, table, varied, 1 - alpha, tolerance)


def _next_rung(experiment: Any, points: list[dict[str, Any]], name: str, parsed: Any) -> dict[str, Any] | None:
    """The next rung of a one-parameter ladder: the largest point with ``name`` moved on by the ladder's last ratio
    (at least x2; rounded up for an integer parameter), or None where the experiment's declaration refuses it."""
    values = sorted(float(p[name]) for p in points)
    top = max(points, key=lambda p: float(p[name]))
    ratio = max(2.0, values[-1] / values[-2]) if len(values) > 1 and values[-2] > 0 else 2.0
    value: float | int = values[-1] * ratio
    if isinstance(top[name], int) and not isinstance(top[name], bool):
        value = int(math.ceil(value))
    try:
        rung = experiment.normalize({**top, name: value})
        parsed.check_point(rung, "--law")
    except InvalidParameterError:
        return None
    return dict(rung)


def _rung_seconds(experiment: Any, rung: Mapping[str, Any], seeds: int, plan: Mapping[str, Any]) -> float | None:
    """The declared seconds of one more rung at the plan's measured pace (None: its cost is refused)."""
    try:
        experiment.check_budget(rung, seeds)
    except InvalidParameterError:
        return None
    estimate = experiment.estimate(rung, seeds)
    return (estimate.seconds if estimate is not None else 0.0) * float(plan.get("pace", 1.0))


def _refused(exc: Exception, over: Any) -> InvalidParameterError:
    """A grid value the declaration admits but the simulation refuses (an odd width, say), as a one-line error."""
    return InvalidParameterError(f"{'--over' if over else '--law'}: the simulation refused a point of the grid; "
                                 f"{str(exc).splitlines()[0]}")


def _level_set(law: ObservableLaw) -> LevelSetLaw:
    """``law`` as the level-set law it is wherever its text is one (:func:`~flt_theory.laws_check.parse.parse_any`
    reads a level-set text as a :class:`~flt_theory.laws_check.parse.LevelSetLaw`)."""
    assert isinstance(law, LevelSetLaw)
    return law


def _observable(vocabulary: Vocabulary, experiment: str, name: str) -> tuple[str, str, str] | None:
    """``(typed, stored, public)`` of the observable ``name`` on ``experiment``: the name as typed, the column the
    experiment stores (:mod:`flt_theory.systems.vocabulary`: a public name, a stored key or an alias all reach it) and
    its one public name; None where the system declares it and ``experiment`` does not record it. A name the
    vocabulary does not declare is the experiment's column itself (the columns then decide)."""
    declared = vocabulary.observables.resolve(name)
    if declared is None:
        return name, name, name
    if experiment not in declared.experiments:  # none records one that only flt simulate records
        return None
    return name, declared.stored(name) or name, vocabulary.public(name)


def _public_columns(vocabulary: Vocabulary, columns: str) -> str:
    """A comma-separated list of stored columns by their public names."""
    return ", ".join(vocabulary.public(c) for c in columns.split(", "))


def _natural_parameters(vocabulary: Vocabulary, experiment: Any, base: Mapping[str, Any], law: str,
                        over: Mapping[str, Any] | None,
                        fix: Mapping[str, Any] | None) -> tuple[dict[str, Any], Conversion | None]:
    """The natural parameters of a law's front door on ``experiment`` (:class:`~flt_theory.systems.vocabulary
    .Conversion`): ``fix`` with each natural parameter the experiment takes otherwise converted to the experiment's
    own at the fixed point, and the conversion of the level-set law's solved parameter, if natural. Refused (naming
    the option): a natural parameter in ``over`` (its conversion would differ from point to point) and a fixed
    natural parameter whose conversion reads a varied one: one in ``over`` or one EXPR names (a designed grid varies
    it)."""
    fixed = dict(fix or {})
    in_expr = set(re.findall(r"[A-Za-z_]\w*", law.split("~", 1)[-1])) & set(base)
    for name in [n for n in fixed if n not in base]:
        conversion = vocabulary.conversion(experiment.name, name)
        if conversion is None:
            continue
        varied = sorted(set(conversion.powers) & (set(over or {}) | in_expr))
        if varied:
            raise InvalidParameterError(f"--fix: {experiment.name} takes {conversion.parameter}, not {name} "
                                        f"({conversion.text()}); with {', '.join(varied)} varied, give "
                                        f"{conversion.parameter} instead")
        value = fixed.pop(name)
        point = experiment.normalize({**base, **fixed})
        fixed[conversion.parameter] = conversion.parameter_value(float(value), point)
    for name in over or {}:
        conversion = vocabulary.conversion(experiment.name, name)
        if conversion is not None and name not in base:
            raise InvalidParameterError(f"--over: {experiment.name} takes {conversion.parameter}, not {name} "
                                        f"({conversion.text()}); vary {conversion.parameter} (or solve for {name} "
                                        f"with a level-set law '{name}* ~ ...')")
    solved = law.split("~")[0].strip()[:-1].strip() if is_level_set(law) else None
    conversion = None if solved is None or solved in base else vocabulary.conversion(experiment.name, solved)
    return fixed, conversion


def verify_law(
    system: str,
    law: str,
    *,
    where: str | None = None,
    over: Mapping[str, Sequence[float]] | None = None,
    fix: Mapping[str, Any] | None = None,
    seeds: int = 8,
    groups: int | None = None,
    seed_base: int = 0,
    alpha: float = 0.05,
    budget: float | None = None,
    store: Any = None,
    jobs: int = 1,
    on_plan: Any = None,
    tolerance: float = 0.0,
) -> LawVerification:
    """Check the observable law ``law`` (``"OBS ~ EXPR"``; or ``"OBS = EXPR"``, ``"OBS <= EXPR"``,
    ``"OBS >= EXPR"``), or the level-set law ``"PARAM* ~ EXPR"`` with ``where`` (``"OBS = LEVEL"``), on
    ``system``'s simulation (module docstring).

    ``over`` maps parameters to the values of the grid; ``fix`` sets other parameters; without ``over``, the grid is
    designed from ``budget`` (seconds; :mod:`flt_theory.laws_check.design`), or
    :data:`~flt_theory.laws_check.design.FACTORS` without one. ``seeds`` per point from ``seed_base``; the law and its
    mutation panel are decided at family-wise level ``alpha`` (:mod:`flt_theory.laws_check.verdict`); a plan whose
    declared cost exceeds ``budget`` is refused. A level-set law splits the seeds into ``groups`` disjoint groups
    (default: one per seed), one crossing each. ``store``: the results store (a path; None: in memory), so that a second
    run on the same grid reuses the measurements. ``on_plan`` is called with the plan
    (:func:`~flt_theory.laws_check.design.plan_text`) before anything runs. ``tolerance`` widens each exponent's
    interval (exponent units, in [0, 1/4): a stated slack for a law that holds up to a small drift, never enough for a
    goal mutant at 1/2 to pass by it). Bad input raises an :class:`~flt_theory.errors.InvalidParameterError` naming the
    option before anything runs.
    """
    start = time.perf_counter()
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 2 <= seeds <= 4096:
        raise InvalidParameterError(f"--seeds: a power-law fit needs an int in [2, 4096] seeds. Got {seeds!r}.")
    if not 0 < alpha < 1:
        raise InvalidParameterError(f"--alpha: must be in (0, 1). Got {alpha!r}.")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < WRONG_SHIFT / 2:
        raise InvalidParameterError(f"--tolerance: exponent units in [0, {WRONG_SHIFT / 2:g}). Got {tolerance!r}.")
    if budget is not None and not (isinstance(budget, (int, float)) and budget > 0):
        raise InvalidParameterError(f"--budget: a positive number of seconds. Got {budget!r}.")
    level_set = is_level_set(law)
    if level_set and where is None:
        raise InvalidParameterError("--where: a level-set law 'PARAM* ~ EXPR' needs --where 'OBS = LEVEL'.")
    if not level_set and where is not None:
        raise InvalidParameterError("--where: applies to a level-set law 'PARAM* ~ EXPR' only (the left side of "
                                    f"--law is a parameter's name and '*'). Got --law {law!r}.")
    if groups is not None and (not level_set or isinstance(groups, bool) or not isinstance(groups, int)
                               or not 2 <= groups <= seeds):
        raise InvalidParameterError(f"--groups: a level-set law's seed groups, an int in [2, --seeds={seeds}]. "
                                    f"Got {groups!r}{'' if level_set else ' with an observable law'}.")
    spec = get_system(system)
    vocabulary = vocabulary_of(spec)
    usable, reasons = [], []
    for experiment in system_experiments(spec):
        base_key, base, _ = base_claim(spec, experiment)
        try:
            fixed, conversion = _natural_parameters(vocabulary, experiment, base, law, over, fix)
            chosen_key, chosen, selected = base_claim(spec, experiment, fixed, over or {})  # what fixed text selects
            if chosen_key != base_key:
                base_key, base = chosen_key, chosen
                fixed, conversion = _natural_parameters(vocabulary, experiment, base, law, over, fix)
            unmatched = [f"{k}={v}" for k, v in fixed.items() if not is_numeric(v)] if not selected else []
        except InvalidParameterError as exc:
            reasons.append(str(exc))
            continue
        unknown = sorted((set(over or {}) | set(fixed)) - set(base))
        if unknown:
            reasons.append(f"{experiment.name} has no parameter {', '.join(map(repr, unknown))} (its parameters: "
                           f"{', '.join(sorted(base))})")
            continue
        numeric = [k for k, v in base.items() if is_numeric(v)] + ([conversion.name] if conversion else [])
        try:
            parsed = parse_any(law, where, numeric)
        except InvalidParameterError as exc:
            if str(exc).startswith("--where"):
                raise
            hint = next((f" ({c.name} is read on {experiment.name} as the level-set parameter '{c.name}* ~ ...' or "
                         f"in --fix; vary {c.parameter}: {c.text()})" for c in vocabulary.conversions
                         if c.experiment == experiment.name and re.search(rf"\b{c.name}\b", law)), "")
            reasons.append(f"{experiment.name}: {str(exc).removeprefix('--law: ')}{hint}")
            continue
        named = _observable(vocabulary, experiment.name, parsed.observable)
        if named is None:
            declared = vocabulary.observables.resolve(parsed.observable)
            assert declared is not None  # only a declared observable recorded elsewhere is refused here
            reasons.append(f"{experiment.name} does not record {declared.name} (recorded by "
                           f"{', '.join(declared.experiments) or 'flt simulate only'})")
            continue
        for option, given in (("--over", over), ("--fix", fixed)):
            solved = _level_set(parsed).parameter if level_set else None
            for name in (solved, conversion.parameter if conversion else None):
                if name is not None and name in (given or {}):
                    raise InvalidParameterError(f"{option}: {name} is the parameter the level-set law solves for; it "
                                                f"starts from its declared value {base[name]!r}.")
        usable.append((experiment, parsed, base, fixed, conversion, named, base_key, unmatched))
    if not usable:
        option = "--law" if not over and not fix else "--law/--over/--fix"
        if len(reasons) == 1:
            raise InvalidParameterError(f"{option}: {reasons[0]}")
        raise InvalidParameterError(f"{option}: no experiment of system {system!r} can read {law!r}: "
                                    f"{'; '.join(reasons)}.")
    errors: list[str] = []
    seed_list = list(range(seed_base, seed_base + seeds))
    crossings: list[dict[str, Any]] | None = None
    tally: dict[str, int] = {}
    dropped: list[dict[str, Any]] = []
    if store is None:  # one in-memory store for the whole run: the probe's and the retries' rows are reused
        store = ResultStore(":memory:")
    multiplier = EVALUATIONS if level_set else 1
    with shared_backend(jobs) as backend:  # one pool for every sweep of the run
        pool: Workers = jobs if backend is None else backend
        for experiment, parsed, base, fix, conversion, names, base_key, unmatched in usable:
            typed, stored, public = names
            parsed = dataclasses.replace(parsed, observable=stored)  # the column the experiment stores
            if conversion is not None:  # solved for the experiment's own parameter, converted back per point
                parsed = dataclasses.replace(_level_set(parsed), parameter=conversion.parameter)
            try:
                constraints = claim_hypotheses(spec, experiment, experiment.normalize({**base, **dict(fix or {})}),
                                               subject=base_key)
            except (InvalidParameterError, InvalidParameterTypeError) as exc:  # a value its declaration refuses
                raise InvalidParameterError(f"--fix: {exc}") from None
            points, varied = design_grid(experiment, base, parsed, over=over, fix=fix, seeds=seeds, budget=budget,
                                         multiplier=multiplier, constraints=constraints)
            for point in points:  # a log factor needs its parameter above 1 at every point
                parsed.check_point(point, "--over" if over else "--law")
            plan = {**grid_plan(experiment, points, varied, seeds, multiplier, constraints), "base_claim": base_key,
                    "unmatched": unmatched}
            seconds = plan["estimated_seconds"]
            if budget is not None and seconds > budget:
                raise InvalidParameterError(
                    f"--budget: the plan of experiment {experiment.name!r} ({len(points)} points x "
                    f"{seeds} seeds"
                    f"{f' x about {EVALUATIONS} values of {_level_set(parsed).parameter}' if level_set else ''}) "
                    f"would take about {seconds:.3g} s by the experiment's declared cost, over "
                    f"{budget:g} s; give --budget {math.ceil(seconds * 1.1)} or a smaller grid."
                )
            try:  # one point and one seed first: an experiment that does not record OBS costs no grid
                computed_before, probe_start = tally.get("computed", 0), time.perf_counter()
                _record(experiment, points[:1], varied, parsed.observable, seed_list[:1], store, pool, tally)
                if tally.get("computed", 0) > computed_before:  # measured, not read from the store: its pace
                    plan = paced_plan(plan, experiment.estimate(points[0], 1), time.perf_counter() - probe_start)
            except ExperimentError as exc:
                raise _refused(exc, over) from None
            except _NotRecorded as exc:
                errors.append(f"{experiment.name} records {_public_columns(vocabulary, str(exc))}")
                continue
            if on_plan is not None:
                on_plan(plan)
            try:
                if level_set:
                    table, crossings = _measure_level_set(experiment, _level_set(parsed), points, varied, seed_list,
                                                          groups or seeds, 1 - alpha, store, pool, tally, conversion)
                elif over:
                    table = _record(experiment, points, varied, parsed.observable, seed_list, store, pool, tally).T
                else:  # a designed grid: a point the simulation refuses is dropped (and said), not the run
                    points, table, dropped = _record_designed(experiment, points, varied, parsed.observable, seed_list,
                                                              store, pool, tally)
            except ExperimentError as exc:
                raise _refused(exc, over) from None
            except _NotRecorded as exc:
                errors.append(f"{experiment.name} records {_public_columns(vocabulary, str(exc))}")
                continue
            break
        else:
            raise InvalidParameterError(f"{'--where' if level_set else '--law'}: no experiment of system {system!r} "
                                        f"records {typed!r} ({'; '.join(errors)}).")
        censored: list[str] = []
        tried = {tuple(p[k] for k in varied) for p in points}  # every value measured, a dropped one included
        if not level_set:
            points, table, censored = _drop_censored(experiment, points, table, varied, seed_list, store, pool)
        predicted = {k: parsed.exponents.get(k, 0.0) for k in varied}
        if censored and any(len({p[k] for p in points}) < 2 for k in varied):
            decided: dict[str, Any] = {"measured": {}, "controls": [], "values": [], "verdict": "inconclusive",
                                       "reason": f"{len(censored)} grid point(s) dropped: their runs were stopped by a "
                                                 f"step limit, so their values are lower bounds, not measurements "
                                                 f"({'; '.join(censored)}); too few points remain to decide the law"}
        else:
            decided = _decide(parsed, points, table, varied, alpha, tolerance, level_set)
        extended: list[dict[str, Any]] = []
        while (decided["verdict"] == INCONCLUSIVE and decided["measured"] and not level_set and parsed.relation == "~"
               and len(varied) == 1 and budget is not None and len(extended) < MAX_EXTENSIONS):
            rung = _next_rung(experiment, points, varied[0], parsed)
            if rung is not None and (rung[varied[0]],) in tried:  # dropped already: its step limit stops it again
                extended.append({"stopped": "the step limit", varied[0]: rung[varied[0]]})
                break
            failed = [] if rung is None else outside_hypotheses(constraints, experiment.normalize(rung))
            if rung is not None and failed and not plan["outside_hypotheses"]:  # an inside grid is not extended out
                extended.append({"stopped": f"the stated hypotheses ({failed[0]})", varied[0]: rung[varied[0]]})
                break
            cost = None if rung is None else _rung_seconds(experiment, rung, seeds, plan)
            if rung is None or cost is None or time.perf_counter() - start + cost > budget:
                extended.append({"stopped": "the budget" if rung is not None else "the declared bounds",
                                 **({} if rung is None else {varied[0]: rung[varied[0]], "estimated_seconds": cost})})
                break
            try:
                column = _record(experiment, [rung], varied, parsed.observable, seed_list, store, pool, tally).T
            except (ExperimentError, _NotRecorded):
                extended.append({"stopped": "the simulation", varied[0]: rung[varied[0]]})
                break
            kept, column, lost = _drop_censored(experiment, [rung], column, varied, seed_list, store, pool)
            if lost:
                censored += lost
                extended.append({"stopped": "the step limit", varied[0]: rung[varied[0]]})
                break
            tried.add((rung[varied[0]],))
            if failed:  # a grid measured outside already goes on outside, each added rung named
                plan["outside_hypotheses"] = [*plan["outside_hypotheses"], {varied[0]: rung[varied[0]],
                                                                            "failed": failed}]
            points, table = [*points, *kept], np.column_stack([table, column])
            extended.append({varied[0]: rung[varied[0]], "estimated_seconds": cost})
            decided = _decide(parsed, points, table, varied, alpha, tolerance, level_set)
    not_tested = sorted((set(parsed.exponents) | set(getattr(parsed, "log_powers", {}))) - set(varied))
    reason = decided["reason"] + (f"; not tested (held fixed): {', '.join(not_tested)}" if not_tested else "")
    if dropped:
        reason += f"; {len(dropped)} designed point(s) dropped where the simulation failed ({dropped[0]['error']})"
    grown = [e for e in extended if "stopped" not in e]
    if grown:
        reason += (f"; the inconclusive ladder was extended within --budget by {len(grown)} rung(s) "
                   f"({', '.join(f'{varied[0]}={e[varied[0]]}' for e in grown)})")
    if extended and "stopped" in extended[-1] and decided["verdict"] == INCONCLUSIVE:
        last = extended[-1]
        reason += (f"; not extended further: {last['stopped']}"
                   + (f" (the next rung {varied[0]}={last[varied[0]]} would take about "
                      f"{last['estimated_seconds']:.3g} s)" if last.get("estimated_seconds") is not None else ""))
    if plan["outside_hypotheses"]:
        first = plan["outside_hypotheses"][0]
        reason += (f"; {len(plan['outside_hypotheses'])} of the measured points outside the stated hypotheses (first, "
                   f"{', '.join(f'{k}={first[k]}' for k in varied)}: {first['failed'][0]}): there the verdict speaks "
                   "of the law outside the theorem's regime, not of the theorem")
    if censored and decided["measured"]:
        reason += (f"; {len(censored)} point(s) dropped because a step limit stopped runs there (lower bounds, not "
                   f"measurements): {'; '.join(censored)}")
    if typed != public:
        reason += f"; {typed} is read as {public}, its one name (flt observables {system})"
    if conversion is not None:
        reason += (f"; {conversion.name}* solved for as {conversion.parameter} on {experiment.name} and converted at "
                   f"every point: {conversion.text()}")
    text = public + parsed.text[len(typed):] if not level_set and parsed.text.startswith(typed) else parsed.text
    extra = {} if crossings is None else {"parameter": conversion.name if conversion is not None else
                                          _level_set(parsed).parameter, "level": _level_set(parsed).level,
                                          "groups": len(table), "crossings": crossings}
    return LawVerification(
        system=system, law=text, form="level-set" if level_set else "observable",
        where=f"{public} = {_level_set(parsed).level:g}" if level_set else None,
        grid={k: sorted({p[k] for p in points}) for k in varied},
        predicted=predicted, predicted_log_powers=dict(getattr(parsed, "log_powers", {})),
        measured=decided["measured"],
        controls=decided["controls"], verdict=decided["verdict"], reason=reason,
        seconds=time.perf_counter() - start,
        relation=parsed.relation, experiment=experiment.name, observable=public, varied=varied,
        not_tested=not_tested, points=len(points), seeds=seeds, seed_base=seed_base, confidence=1 - alpha,
        tolerance=tolerance,
        estimated_seconds=seconds, paced_seconds=plan.get("paced_seconds"), base_claim=plan.get("base_claim"),
        hypotheses=plan["hypotheses"],
        outside_hypotheses=plan["outside_hypotheses"],
        point_list=[{k: p[k] for k in varied} for p in points], censored_points=censored, extended=extended,
        computed=tally.get("computed", 0),
        reused=tally.get("reused", 0), values=decided["values"], dropped=dropped, **extra)
