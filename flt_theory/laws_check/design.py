r"""The grid of ``flt verify --system``: designed from the time budget, the experiment's cost model and the
system's stated hypotheses.

A power-law exponent's interval narrows as the spread of :math:`\log x` on the grid grows (for a least-squares
slope its half-width is :math:`\propto \sigma / (\sqrt{m}\,\mathrm{sd}(\log x))`), so a conjecture is best tested
over the widest range of each parameter the budget allows. :func:`budget_axes` chooses, for every parameter of
the law's expression, five values :math:`x_0 W^{t + s}`, :math:`t \in \{-\tfrac12, -\tfrac14, 0, \tfrac14,
\tfrac12\}` around the declared base value :math:`x_0` — a range of width :math:`W` (:data:`WIDTHS`, from two
decades down to a factor 2), centred or shifted by :math:`s` (:data:`SHIFTS`) towards where the experiment accepts
it — the other parameters at the base (a star design, as :func:`design_grid` builds
it). A candidate range is admissible when the experiment accepts every value (its declared ranges), its declared
size limits do (:meth:`~flt_theory.runner.registry.Experiment.check_budget`), and every point lies inside the
hypotheses of the system's claims on the same experiment that hold at the base point, and of the claim the user's
fixed text values selected (:func:`base_claim`, :func:`claim_hypotheses`).
A designed grid is always inside both: without a budget, the values of :data:`FACTORS` that the experiment refuses
(its declared ranges, size limits and joint conditions, :func:`refusal`) or that leave the hypotheses are dropped;
when no range of a parameter is inside (a hypothesis that pins it, as "q = 2"), the design is refused, naming the
hypothesis, and ``--over`` measures outside it deliberately (the plan then names every point outside).
The plan's time is the sum of the experiment's calibrated cost estimates
(:meth:`~flt_theory.runner.registry.Experiment.estimate`, the estimates ``flt check --plan`` prints): while it is
over the budget, the parameter whose axis costs most moves to its next, cheaper range; when even the narrowest
ranges do not fit, the plan is refused with the budget that would.

>>> axis_values(64, 100.0, 0.0, integer=True), axis_values(0.5, 16.0, -0.5, integer=False)
([8, 16, 64, 256, 512], [0.0312, 0.0625, 0.125, 0.25, 0.5])
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ..errors import InvalidParameterError, InvalidParameterTypeError
from ..runner.registry import get_experiment
from ..symbolic.hypothesis import failed_hypotheses
from .parse import ObservableLaw

__all__ = ["FACTORS", "OFFSETS", "SHIFTS", "WIDTHS", "axis_values", "base_claim", "base_point", "budget_axes",
           "claim_hypotheses", "design_grid", "grid_plan", "outside_hypotheses", "plan_text", "refusal",
           "system_experiments"]

#: Multiples of a parameter's base value that a grid designed without ``over`` takes (a 16-fold range, 1.2 decades).
FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)

#: Ranges (largest over smallest value) a designed axis tries, widest first: two decades down to a factor 2 (an
#: integer parameter's nearest power of 4: 64, 16, 4).
WIDTHS = (100.0, 64.0, 32.0, 16.0, 10.0, 8.0, 4.0, 2.0)
#: Where an axis lies around its base value, in units of log W (0: centred; -1/2: the base at its top).
SHIFTS = (0.0, -0.25, 0.25, -0.5, 0.5)
#: Positions of an axis's five values, in units of log W.
OFFSETS = (-0.5, -0.25, 0.0, 0.25, 0.5)
#: Fewest distinct values a designed axis keeps (three determine a slope and show its curvature).
MIN_VALUES = 3

Constraint = tuple[str, Sequence[Any], Callable[[Mapping[str, Any]], Mapping[str, Any]] | None]


def axis_values(value: float, width: float, shift: float, *, integer: bool) -> list[float]:
    """The distinct positive values :math:`x_0 W^{t+s}`, :math:`t \\in` :data:`OFFSETS` (a real parameter: to 3
    significant digits), sorted. An integer parameter (a size: a width, a count, often required even) takes
    power-of-2 multiples :math:`x_0 2^j` instead, :math:`j \\in \\{-h, -\\lceil h/2\\rceil, 0, \\lceil h/2\\rceil,
    h\\}` shifted by :math:`\\mathrm{round}(2hs)`, :math:`h = \\mathrm{round}(\\log_2 W / 2)`, rounded; a value
    that rounds to 0 is dropped."""
    if integer:
        h = max(1, round(math.log2(width) / 2))
        offset = round(2 * h * shift)
        xs = [value * 2.0 ** (j + offset) for j in (-h, -math.ceil(h / 2), 0, math.ceil(h / 2), h)]
        return sorted({int(round(x)) for x in xs if round(x) > 0})
    out = {float(f"{value * width ** (t + shift):.3g}") for t in OFFSETS}
    return sorted(x for x in out if x > 0)


def claim_hypotheses(system: Any, experiment: Any, base: Mapping[str, Any],
                     subject: str | None = None) -> list[Constraint]:
    """The stated hypotheses of ``system``'s claims measuring ``experiment`` that all hold at ``base``:
    ``(claim key, hypotheses, hypothesis_values)`` each (a claim whose hypotheses cannot be read at the base, or
    fail there, speaks of another regime and constrains nothing), and those of the claim keyed ``subject`` even where
    they fail at ``base``, provided they hold at that claim's own declared point (the claim the user's text values
    selected, :func:`base_claim`: its hypotheses are the regime of the law asked about, so a number fixed outside
    them leaves the grid outside, and says so; a claim whose small point is itself outside them, a cheap scale, sets
    no such bound)."""
    out: list[Constraint] = []
    for claim in system.claims:
        hypotheses = tuple(claim.the_law.hypotheses)
        if claim.measurement.experiment != experiment.name or not hypotheses:
            continue
        values_of = claim.measurement.hypothesis_values
        if claim.key == subject and _holds_at_own_point(claim, experiment, hypotheses):
            out.append((claim.key, hypotheses, values_of))
            continue
        try:
            if failed_hypotheses(hypotheses, _values(values_of, base)):
                continue
        except Exception:  # noqa: BLE001 - a hypothesis this point cannot be read against constrains nothing
            continue
        out.append((claim.key, hypotheses, values_of))
    return out


def _holds_at_own_point(claim: Any, experiment: Any, hypotheses: tuple[Any, ...]) -> bool:
    """Whether ``hypotheses`` hold at the claim's first small-scale point."""
    points = claim.measurement.points.get("small") or []
    if not points:
        return False
    try:
        own = experiment.normalize(dict(points[0]))
        return not failed_hypotheses(hypotheses, _values(claim.measurement.hypothesis_values, own))
    except Exception:  # noqa: BLE001 - not readable at its own point: no bound
        return False


def _values(values_of: Callable | None, point: Mapping[str, Any]) -> dict[str, Any]:
    values = values_of(point) if values_of is not None else point
    return {k: v for k, v in dict(values).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def outside_hypotheses(constraints: Sequence[Constraint], point: Mapping[str, Any]) -> list[str]:
    """The hypotheses of ``constraints`` that fail at ``point`` (a normalised experiment point), as
    ``"claim: where: text"``; a hypothesis that cannot be read there is counted as failing."""
    out = []
    for key, hypotheses, values_of in constraints:
        try:
            failed = [f"{key}: {h.where}: {h.text}" for h in failed_hypotheses(hypotheses, _values(values_of, point))]
        except Exception as exc:  # noqa: BLE001 - unreadable here: not inside
            failed = [f"{key}: unreadable at this point ({exc})"]
        out.extend(failed)
    return out


def refusal(experiment: Any, point: Mapping[str, Any], seeds: int,
            constraints: Sequence[Constraint] = ()) -> str | None:
    """Why a designed grid may not hold ``point`` (None: it may): the experiment refuses it (a value outside its
    declared range, :meth:`~flt_theory.runner.registry.Experiment.normalize`; its declared cost over the limits or a
    joint condition of its ``guard``, :meth:`~flt_theory.runner.registry.Experiment.check_budget`), or a hypothesis
    of ``constraints`` fails there (:func:`outside_hypotheses`)."""
    try:
        normal = experiment.normalize(dict(point))
        experiment.check_budget(normal, seeds)
    except (InvalidParameterError, InvalidParameterTypeError) as exc:
        return str(exc).splitlines()[0]
    failed = outside_hypotheses(constraints, normal)
    return f"outside the stated hypotheses ({failed[0]})" if failed else None


def _candidates(experiment: Any, fixed: Mapping[str, Any], name: str, seeds: int, multiplier: float,
                constraints: Sequence[Constraint]) -> list[tuple[float, list[Any], float, bool]]:
    """Every admissible range of ``name`` in preference order: ``(width, values, seconds of the points other than
    the base, inside the hypotheses)``."""
    base_value = fixed[name]
    integer = isinstance(base_value, int)
    found, seen = [], set()
    for width in WIDTHS:
        for shift in SHIFTS:
            values, seconds, inside = axis_values(base_value, width, shift, integer=integer), 0.0, True
            if len(values) < MIN_VALUES or base_value not in values or tuple(values) in seen:
                continue
            seen.add(tuple(values))
            try:
                for value in values:
                    point = experiment.normalize({**fixed, name: value})
                    experiment.check_budget(point, seeds)
                    inside = inside and not outside_hypotheses(constraints, point)
                    if value != base_value:
                        estimate = experiment.estimate(point, seeds)
                        seconds += (estimate.seconds if estimate is not None else 0.0) * multiplier
            except InvalidParameterError:
                continue
            found.append((width, values, seconds, inside))
    return found


def budget_axes(experiment: Any, fixed: Mapping[str, Any], names: Sequence[str], *, seeds: int, budget: float,
                multiplier: float = 1.0, constraints: Sequence[Constraint] = ()) -> dict[str, list[Any]]:
    """Each of ``names``'s values on a star design around ``fixed`` (module docstring): the widest admissible
    ranges whose plan (``multiplier`` times the declared cost of every point with ``seeds`` seeds) fits ``budget``
    seconds, inside ``constraints`` where any range is.

    Raises
    ------
    InvalidParameterError
        ``--law`` naming a parameter with no admissible range (``--fix`` where the fixed point itself is outside the
        hypotheses); ``--budget`` with the budget the narrowest plan
        needs when it does not fit.
    """
    options: dict[str, list[tuple[float, list[Any], float, bool]]] = {}
    for name in names:
        found = _candidates(experiment, fixed, name, seeds, multiplier, constraints)
        inside = [c for c in found if c[3]]
        if not found:
            raise InvalidParameterError(f"--law: the experiment {experiment.name!r} accepts no range of {name} around "
                                        f"its base value {fixed[name]!r} (at least {MIN_VALUES} values); give them "
                                        f"with --over {name}=V1,V2,...")
        if not inside:
            _refuse_fixed_outside(experiment, fixed, name, constraints)
            failed = next((failure for c in found for v in c[1]
                           if (failure := outside_hypotheses(constraints, experiment.normalize({**fixed, name: v})))),
                          ["?"])
            raise InvalidParameterError(
                f"--law: no range of {name} around its base value {fixed[name]!r} lies inside the stated hypotheses "
                f"({failed[0]}); a designed grid stays inside them: give values with --over {name}=V1,V2,... to "
                "measure outside them (the plan names each point outside)")
        options[name] = inside
    base = experiment.estimate(experiment.normalize(dict(fixed)), seeds)
    base_seconds = (base.seconds if base is not None else 0.0) * multiplier
    choice = dict.fromkeys(names, 0)

    def total() -> float:
        return base_seconds + sum(options[n][choice[n]][2] for n in names)

    while total() > budget:
        cheaper = [(options[n][choice[n]][2], n, j) for n in names
                   for j in [next((j for j in range(choice[n] + 1, len(options[n]))
                                   if options[n][j][2] < options[n][choice[n]][2]), None)] if j is not None]
        if not cheaper:
            points = 1 + sum(len(options[n][choice[n]][1]) - 1 for n in names)
            raise InvalidParameterError(
                f"--budget: the narrowest plan of experiment {experiment.name!r} ({points} points x {seeds} seeds) "
                f"would take about {total():.3g} s by its declared cost, over {budget:g} s; give --budget "
                f"{math.ceil(total() * 1.1)}, fewer --seeds, or smaller sizes with --fix/--over.")
        _, name, j = max(cheaper)
        choice[name] = j
    return {n: list(options[n][choice[n]][1]) for n in names}


def _refuse_fixed_outside(experiment: Any, fixed: Mapping[str, Any], name: str, constraints: Sequence[Any]) -> None:
    """Where no value of ``name`` can be designed inside the hypotheses and the point the grid is designed around
    (the base with ``--fix``) is itself outside one (a number fixed outside the selected claim's regime): refuse naming
    ``--fix`` and the hypothesis, not the range."""
    at_base = outside_hypotheses(constraints, experiment.normalize(dict(fixed)))
    if at_base:
        raise InvalidParameterError(
            f"--fix: the point the grid is designed around is outside the stated hypotheses ({at_base[0]}); a designed "
            f"grid stays inside them: change the fixed values, or give --over {name}=V1,V2,... to measure outside "
            "them (the plan names each point outside)")


def system_experiments(system: Any) -> list[Any]:
    """The runner experiments a system's claims measure, in declaration order (then those it only registers)."""
    names = list(dict.fromkeys([c.measurement.experiment for c in system.claims] + list(system.experiments)))
    return [get_experiment(name) for name in names]


def base_point(system: Any, experiment: Any, fixed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A point the system already declares for ``experiment``, with the experiment's defaults: :func:`base_claim`'s."""
    return base_claim(system, experiment, fixed)[1]


def base_claim(system: Any, experiment: Any, fixed: Mapping[str, Any] | None = None,
               given: Collection[str] = ()) -> tuple[str | None, dict[str, Any], bool]:
    """``(claim key, point, selected)``: the small-scale point of the first claim measuring ``experiment`` (key None
    and the experiment's defaults where no claim declares one), or, where ``fixed`` (the user's ``--fix``) holds a
    text value — the subject of the law: a link, a branch, a dynamics — the point of the first claim, in declaration
    order, that declares every fixed text value and keeps the first claim's other text values and every parameter
    that is 0 there (a mode the user did not switch on: smoothing, a transform), the names in ``fixed`` and
    ``given`` (``--over``) aside (``selected`` True). A number never selects: it is a size or a step of the subject's,
    not the subject. So ``--fix target=He2(z)`` on online-sgd holds the step at the He2 claim's η̃ = 0.2, inside its
    derived stall bound, not at z's 0.5; ``--fix target=He4(z)`` keeps the first claim's point (the He4 claims run
    smoothed or transformed). Text is compared as written (``He2( z )`` selects nothing; the plan says so)."""
    declared = [(claim.key, experiment.normalize(dict(claim.measurement.points["small"][0])))
                for claim in system.claims
                if claim.measurement.experiment == experiment.name and claim.measurement.points.get("small")]
    if not declared:
        return None, experiment.normalize({}), False
    first_key, first = declared[0]
    subject = {name: value for name, value in (fixed or {}).items() if not is_numeric(value)}
    kept = [name for name, value in first.items() if name not in (fixed or {}) and name not in given
            and (not is_numeric(value) or value == 0)]
    candidates = [(key, point) for key, point in declared
                  if all(_agrees(point.get(name), value) for name, value in subject.items())
                  and all(_agrees(point.get(name), first[name]) for name in kept)]
    if not subject or not candidates:
        return first_key, first, False
    key, point = candidates[0]
    return key, point, True


def _agrees(declared: Any, given: Any) -> bool:
    """Whether a declared value equals a ``--fix`` value (numbers as floats, anything else as text)."""
    if is_numeric(declared) and is_numeric(given):
        return float(declared) == float(given)
    return str(declared) == str(given)


def is_numeric(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool) within the floating-point range: a parameter a power law can
    vary (an int of 4,000 digits is not: it is compared, never converted, so no ``OverflowError``)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= sys.float_info.max


def design_grid(experiment: Any, base: Mapping[str, Any], law: ObservableLaw, *,
                over: Mapping[str, Sequence[float]] | None = None, fix: Mapping[str, Any] | None = None,
                seeds: int = 8, budget: float | None = None, multiplier: float = 1.0,
                constraints: Sequence[Any] = ()) -> tuple[list[dict[str, Any]], list[str]]:
    """The grid's points and the names of the varied parameters (:mod:`flt_theory.laws_check.verify`, step 2). Without
    ``over`` and with a ``budget``, each parameter of EXPR spans the widest range the budget, the experiment's cost
    model and the hypotheses ``constraints`` allow (:func:`budget_axes`; ``multiplier`` evaluations per point); without
    a budget, :data:`FACTORS` times its base value, less the values :func:`refusal` names (outside the experiment's
    declared ranges, size limits or joint conditions, or outside ``constraints``). A designed grid is thus inside the
    experiment's bounds and the stated hypotheses; one left with fewer than 2 values of a varied parameter is
    refused, naming it and why. Values given by ``over`` are the user's: only those the experiment refuses are
    dropped, and :func:`grid_plan` names the points outside the hypotheses."""
    unknown = sorted((set(fix or {}) | set(over or {})) - set(base))
    if unknown:
        raise InvalidParameterError(f"--over/--fix: experiment {experiment.name!r} has no parameter "
                                    f"{', '.join(map(repr, unknown))}; its parameters are {sorted(base)}.")
    try:
        fixed = experiment.normalize({**base, **dict(fix or {})})
    except (InvalidParameterError, InvalidParameterTypeError) as exc:
        raise InvalidParameterError(f"--fix: {exc}") from None
    if over:
        axes = {name: list(values) for name, values in over.items()}
    elif budget is not None:
        names = [k for k in law.exponents if k not in (fix or {})]
        for name in names:
            if not is_numeric(fixed[name]) or fixed[name] == 0:
                raise InvalidParameterError(f"--law: parameter {name!r} has the base value {fixed[name]!r}; give its "
                                            f"values with --over {name}=V1,V2,...")
        axes = budget_axes(experiment, fixed, names, seeds=seeds, budget=budget, multiplier=multiplier,
                           constraints=constraints)
    else:
        axes = {}
        for name in (k for k in law.exponents if k not in (fix or {})):  # what --fix holds stays fixed
            value = fixed[name]
            if not is_numeric(value) or value == 0:
                raise InvalidParameterError(f"--law: parameter {name!r} has the base value {value!r}; give its values "
                                            f"with --over {name}=V1,V2,...")
            integer = isinstance(value, int)
            values = list(dict.fromkeys(v for v in (round(value * f) if integer else value * f for f in FACTORS)
                                        if v != 0))
            why = {v: refusal(experiment, {**fixed, name: v}, seeds, constraints) for v in values}
            axes[name] = [v for v in values if why[v] is None]
            if len(axes[name]) < 2:
                _refuse_fixed_outside(experiment, fixed, name, constraints)
                reasons = "; ".join(f"{name}={v:g}: {reason}" for v, reason in why.items() if reason is not None)
                raise InvalidParameterError(
                    f"--law: of the designed values {', '.join(f'{v:g}' for v in values)} of {name} (its base value "
                    f"times {', '.join(f'{f:g}' for f in FACTORS)}) fewer than 2 may be run inside the experiment's "
                    f"bounds and the stated hypotheses ({reasons}); give values with --over {name}=V1,V2,...")
    kept: dict[str, list[Any]] = {}
    for name, values in axes.items():
        ok = []
        for value in values:
            if not is_numeric(value) or value <= 0:
                shown = (repr(value) if not isinstance(value, int) or abs(value) < 10**40
                         else f"<an integer of {value.bit_length()} bits>")  # no str() of 5,000 digits
                raise InvalidParameterError(f"--over: {name}={shown}: a power law needs finite positive values.")
            try:
                value = experiment.normalize({**fixed, name: value})[name]
            except InvalidParameterError:
                continue
            if value not in ok:  # 64 and 64.0 are one grid value
                ok.append(value)
        if len(ok) < 2:
            raise InvalidParameterError(f"--over: {name} needs at least 2 admissible values; of {values} the "
                                        f"experiment {experiment.name!r} accepts {ok}.")
        kept[name] = ok
    if not kept:
        raise InvalidParameterError("--law: no parameter of EXPR is varied (each is held by --fix, or EXPR has none): "
                                    "give one's values with --over NAME=V1,V2,...")
    if over:
        points = [{**fixed, **dict(zip(kept, combo))} for combo in itertools.product(*kept.values())]
    else:  # a star around the base point: each parameter varied alone
        points = list({repr(sorted(p.items())): p for p in (
            {**fixed, name: value} for name, values in kept.items() for value in values)}.values())
    affordable, refusals = [], []
    for point in points:
        try:
            experiment.check_budget(point, seeds)
        except InvalidParameterError as exc:
            refusals.append(str(exc))
            continue
        affordable.append(point)
    for name in kept:
        if len({p[name] for p in affordable}) < 2:
            raise InvalidParameterError(f"--over: {name} keeps fewer than 2 values once the points the experiment "
                                        "refuses are dropped (its guard, its size limits FLT_MAX_SIM_BYTES / "
                                        "FLT_MAX_SIM_SECONDS); the first refusal: "
                                        f"{refusals[0] if refusals else 'none'}")
    return affordable, list(kept)


def grid_plan(experiment: Any, points: Sequence[Mapping[str, Any]], varied: Sequence[str], seeds: int,
              multiplier: float, constraints: Sequence[Any]) -> dict[str, Any]:
    """What a run will do: the experiment, grid, points, seeds, the estimated seconds (the experiment's calibrated
    cost, :meth:`~flt_theory.runner.registry.Experiment.estimate`) and the points outside the stated hypotheses."""
    estimates = [experiment.estimate(p, seeds) for p in points]
    outside = []
    for p in points:
        failed = outside_hypotheses(constraints, p)
        if failed:
            outside.append({**{k: p[k] for k in varied}, "failed": failed})
    return {"experiment": experiment.name, "grid": {k: sorted({p[k] for p in points}) for k in varied},
            "points": len(points), "seeds": seeds,
            "estimated_seconds": sum(e.seconds for e in estimates if e is not None) * multiplier,
            "hypotheses": sorted({key for key, _, _ in constraints}), "outside_hypotheses": outside}


#: The probe's pace is read only from a run at least this long (shorter ones measure start-up, not the work).
MIN_PROBE_SECONDS = 0.5


def paced_plan(plan: Mapping[str, Any], estimate: Any, probe_seconds: float) -> dict[str, Any]:
    """``plan`` with the pace of the one-point, one-seed probe: ``probe_seconds`` measured against its declared
    ``estimate`` (an :class:`~flt_theory.runner.cost.CostEstimate` or None) scales the whole plan's estimate
    (``paced_seconds``), since a declared cost is calibrated on another machine and load. Unchanged when the probe
    was too short to time (:data:`MIN_PROBE_SECONDS`) or has no declared cost."""
    if estimate is None or not estimate.seconds > 0 or probe_seconds < MIN_PROBE_SECONDS:
        return dict(plan)
    pace = probe_seconds / estimate.seconds
    return {**plan, "probe_seconds": probe_seconds, "pace": pace, "paced_seconds": plan["estimated_seconds"] * pace}


def plan_text(plan: Mapping[str, Any]) -> str:
    """One line saying what a run will do (printed before it runs)."""
    grid = "; ".join(f"{k} = {', '.join(f'{v:g}' for v in values)}" for k, values in plan["grid"].items())
    inside = (f"; inside the hypotheses of {', '.join(plan['hypotheses'])}" if plan["hypotheses"] and not
              plan["outside_hypotheses"] else f"; {len(plan['outside_hypotheses'])} point(s) outside the stated "
              f"hypotheses" if plan["outside_hypotheses"] else "")
    paced = (f"; the one-seed probe took {plan['probe_seconds']:.3g} s, {plan['pace']:.3g}x its declared cost: "
             f"about {plan['paced_seconds']:.3g} s at that pace" if "paced_seconds" in plan else "")
    held = f"; the other parameters at the point of {plan['base_claim']}" if plan.get("base_claim") else ""
    if plan.get("unmatched"):  # a text --fix that no claim declares (as written) with the first claim's modes
        held += f" (no claim declares {', '.join(plan['unmatched'])} with that claim's modes)"
    return (f"plan: {plan['experiment']}, {plan['points']} points x {plan['seeds']} seeds, about "
            f"{plan['estimated_seconds']:.3g} s by its declared cost ({grid}){held}{paced}{inside}")
