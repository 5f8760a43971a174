r"""``flt simulate giant-step`` and its Python twin: T giant steps on a target, observables per step.

For every ``d`` and ``κ`` (:math:`n = \lceil d^\kappa\rceil` fresh samples per step) the simulator
(:func:`~flt_theory.systems.giant_step.engine.giant_steps`) runs ``steps`` giant GD steps on the first layer of a
width-``p`` two-layer network and measures, per step, averaged over neurons and seeds: the mass
:math:`\|P_{V^*}w_i\|^2/\|w_i\|^2` on the teacher subspace (with a 95% CI over seeds inside
:math:`[0, 1]`; a random unit vector has :math:`r/d`), the mass on each teacher direction
:math:`w^*_k` and on each predicted staircase subspace :math:`U_t`, and, with ``ridge``, the test
error of a ridge second layer fitted after the last step.

The JSON document is ``{"system", "records", "config", "predicted"}``: one record per ``d``, ``κ`` and step
(its fields: :data:`flt_theory.systems.giant_step.declaration.RECORD_FIELDS`). The list was also repeated under
``results`` before version 0.2; that copy is gone (``records`` is the key every system shares).

A target with a nonzero mean is simulated centred, :math:`f^* - \mathbb E f^*`, as ``flt verify TARGET`` does
(:mod:`flt_theory.symbolic.centring` derives why: the constant stretches every neuron along itself and hides the
learned mass); ``config["centring"]`` records it: ``centred`` (bool), ``subtracted`` (:math:`\mathbb E f^*`),
``exact`` (its exact text, or null for a quadrature value) and ``simulated_target``. A centred target is simulated
as it is (the same object, the same numbers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._text import basis, json_ready, number_text, subspace_text, table
from ...compare import mean_ci
from ...errors import FLTError, InvalidParameterError
from ...numeric import overlaps, subspace_mass
from ...numeric.backend import to_numpy
from ...symbolic import Target, leap_index, one_step_subspace, staircase
from ...symbolic.centring import centre_target
from ...symbolic.target import MAX_POLYNOMIAL_TERMS, polynomial_degree_bound
from ..declaration import check_finite_records
from .engine import giant_steps
from .model import PARAMS

__all__ = ["MAX_SAMPLE_ENTRIES", "MAX_WEIGHT_ENTRIES", "load_target", "measure_mass", "samples_for", "simulate",
           "simulate_document", "simulate_table"]

#: Largest ``n * d * seeds`` (Gaussian numbers drawn per giant step) the command accepts.
MAX_SAMPLE_ENTRIES = 2e10
#: Largest ``(steps + 1) * seeds * p * d`` (first-layer weights kept in memory) it accepts.
MAX_WEIGHT_ENTRIES = 1e9


def samples_for(d: int, kappa: float) -> int:
    r""":math:`n = \lceil d^\kappa \rceil` (at least 2)."""
    return max(2, int(math.ceil(d**kappa - 1e-9)))


def _blame(param: str, exc: Exception) -> InvalidParameterError:
    return InvalidParameterError(f"{param}: {exc}")


def load_target(target: str | None, links: str | None) -> Target:
    """The :class:`Target` given as text or as ``'S1; S2; ...'`` separable links (exactly one)."""
    if target is not None and links is not None:
        raise InvalidParameterError("give either TARGET or --links, not both")
    try:
        if links is not None:
            parts = [part.strip() for part in links.split(";")]
            if any(part == "" for part in parts):
                raise InvalidParameterError(f"empty link in {links!r}; separate 1-D links in z by ';'")
            return Target.from_links(parts, name="sum of links " + "; ".join(parts))
    except FLTError as exc:
        raise _blame("--links", exc) from exc
    if target is None:
        raise InvalidParameterError("TARGET: missing (give a target or --links)")
    try:
        return Target.parse(target)
    except FLTError as exc:
        raise _blame("TARGET", exc) from exc


def simulate(target: Target, *, ds: Sequence[int], kappas: Sequence[float], p: int = 64, eta: float | str = "theory",
             steps: int = 1, seeds: int = 4, activation: str = "relu", ridge: float | None = None, device: str = "auto",
             dtype: str = "float32") -> list[dict]:
    r"""Simulate ``target`` on the grid ``ds × kappas`` and measure, per step, the observables of
    the giant-step laws. One JSON-ready record per (d, κ, step): ``d, n, p, eta, kappa, step,
    mass_V, mass_V_ci, mass_dirs, mass_staircase`` and ``test_error`` (mean over seeds, when
    ``ridge`` is given, last step only). ``mass_V_ci`` is ``None`` for a single seed.

    >>> recs = simulate(Target.from_links(["z + He2(z)"]), ds=[16], kappas=[1.0], p=8, seeds=2, device="cpu")
    >>> low, high = recs[0]["mass_V_ci"]
    >>> sorted(recs[0])[:5], recs[0]["n"], 0 <= low <= recs[0]["mass_V"] <= high <= 1
    (['d', 'eta', 'kappa', 'mass_V', 'mass_V_ci'], 16, True)
    """
    ell = leap_index(target)
    ladder = staircase(target, max(steps, 1))
    records = []
    for d in ds:
        for kappa in kappas:
            n = samples_for(d, kappa)
            res = giant_steps(target, d=d, p=p, n=n, steps=steps, eta=eta, leap_index=ell, activation=activation,
                              seeds=seeds, ridge=ridge, device=device, dtype=dtype)
            for step in range(1, steps + 1):
                w = res.weights[step]
                mass_v = to_numpy(subspace_mass(w, res.w_star))
                ci = [float(v) for v in _mass_ci(mass_v)] if len(mass_v) >= 2 else None
                record = {
                    "d": d, "n": n, "p": p, "eta": float(res.config.eta[step - 1]), "kappa": kappa, "step": step,
                    "mass_V": float(mass_v.mean()), "mass_V_ci": ci,
                    "mass_dirs": to_numpy(overlaps(w, res.w_star).square().mean(dim=(-3, -2))).tolist(),
                    "mass_staircase": [float(to_numpy(subspace_mass(w, res.w_star, u)).mean()) if u.dim else 0.0
                                       for u in ladder],
                }
                if res.test_error is not None and step == steps:
                    record["test_error"] = float(to_numpy(res.test_error).mean())
                records.append(record)
    return records


def measure_mass(result: Any, subspace: Any, *, step: int = -1, confidence: float = 0.95):
    r"""Mass :math:`\frac1p\sum_i\|P_U w_i\|^2/\|w_i\|^2` of a
    :func:`~flt_theory.systems.giant_step.engine.giant_steps` result on ``subspace`` (a
    :class:`~flt_theory.symbolic.Subspace` of :math:`V^*` or basis rows in w*-coordinates; None: all of :math:`V^*`)
    after ``step``, as an estimate with its CI over seeds inside :math:`[0, 1]` (:func:`flt_theory.compare.mean_ci` with
    ``bounds=(0, 1)``). A random unit vector has :math:`\dim U/d`.

    >>> from flt_theory.systems.giant_step.engine import giant_steps
    >>> res = giant_steps(Target.parse("z1 + He2(z1)"), d=32, p=16, n=1024, steps=1, eta="theory", seeds=4,
    ...                   device="cpu")
    >>> est = measure_mass(res, [[1.0]], step=1)
    >>> 0 <= est.ci[0] <= est.value <= est.ci[1] <= 1, est.n_seeds
    (True, 4)
    """
    basis = subspace.numpy() if hasattr(subspace, "numpy") and not hasattr(subspace, "shape") else subspace
    masses = to_numpy(subspace_mass(result.weights[step], result.w_star, basis))
    return mean_ci(masses, confidence=confidence, bounds=(0.0, 1.0))


def _mass_ci(values: np.ndarray) -> tuple[float, float]:
    """95% CI of a mean mass, inside its range [0, 1] (a mass is a fraction; logit-scale interval)."""
    low, high = mean_ci(values, bounds=(0.0, 1.0)).ci
    return float(low), float(high)


def _guard_size(target: Target) -> None:
    bound = polynomial_degree_bound(target.expr)
    if bound is not None and bound > 8 and math.comb(bound + target.rank, target.rank) > MAX_POLYNOMIAL_TERMS:
        raise InvalidParameterError(
            f"TARGET: polynomial of degree up to {bound} in {target.rank} variables is too large to expand exactly "
            f"(more than {MAX_POLYNOMIAL_TERMS} monomials)"
        )


def _exp_text(log_value: float) -> str:
    """``exp(log_value)`` in short scientific notation, also beyond the float range.

    >>> _exp_text(math.log(4.5e15)), _exp_text(1000 * math.log(10))
    ('4.5e+15', '1e+1000')
    """
    exponent = math.floor(log_value / math.log(10))
    mantissa = math.exp(log_value - exponent * math.log(10))
    if round(mantissa, 1) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.2g}e{exponent:+03d}"


def _guard_simulation_size(ds: Sequence[int], kappas: Sequence[float], p: int, steps: int, seeds: int) -> None:
    """Refuse grids whose data (``n * d * seeds`` per step, ``n = d^kappa``) or weights would not fit."""
    for d in ds:
        for kappa in kappas:
            log_entries = kappa * math.log(d) + math.log(d * seeds)  # in logs: d ** kappa overflows first
            if log_entries > math.log(MAX_SAMPLE_ENTRIES):
                largest = math.log(MAX_SAMPLE_ENTRIES / (d * seeds)) / math.log(d) if d > 1 else -1.0
                hint = (f"choose kappa <= {math.floor(largest * 100) / 100:g} at d = {d} (or fewer --seeds)"
                        if largest >= 0 else "use fewer --seeds or a smaller --d")
                raise InvalidParameterError(
                    f"--kappa: n*d*seeds ~ {_exp_text(log_entries)} Gaussian numbers per step at d = {d} exceeds "
                    f"{MAX_SAMPLE_ENTRIES:.0e}; {hint}"
                )
        if (steps + 1) * seeds * p * d > MAX_WEIGHT_ENTRIES:
            raise InvalidParameterError(
                f"--p: (steps+1)*seeds*p*d = {(steps + 1) * seeds * p * d:.3g} first-layer weights at d = {d} exceed "
                f"{MAX_WEIGHT_ENTRIES:.0e}; use a smaller --p, --seeds or --steps"
            )


def simulate_document(*, target: str | None = None, links: str | None = None, d: Sequence[int],
                      kappa: Sequence[float], p: int = 64, eta: float | str = "theory", steps: int = 1, seeds: int = 4,
                      activation: str = "relu", ridge: float | None = None, device: str = "auto",
                      dtype: str = "float32") -> dict[str, Any]:
    """What ``flt simulate giant-step`` prints with ``--json`` (bad input raises an FLTError naming the option): the
    declared ranges first (:data:`.model.PARAMS`), then the joint conditions."""
    from ...numeric import Activation, NonFiniteError, resolve_device

    PARAMS.check_flags({k: v for k, v in dict(d=d, kappa=kappa, p=p, eta=eta, steps=steps, activation=activation,
                                              ridge=ridge, dtype=dtype).items() if v is not None}, "simulate_document")
    if p % 2:
        raise InvalidParameterError(
            f"--p: expected an even integer >= 2 (the symmetric initialisation pairs neuron i with p/2+i); got {p}")
    f = load_target(target, links)
    _guard_size(f)
    if min(d) < f.rank:
        raise InvalidParameterError(f"--d: d = {min(d)} is smaller than the target rank r = {f.rank}; expected d >= r")
    _guard_simulation_size(d, kappa, p, steps, seeds)
    from .engine import check_budget

    for dim in d:  # memory and time, estimated before anything is allocated
        for k in kappa:
            try:
                check_budget(d=dim, n=samples_for(dim, k), p=p, seeds=seeds, steps=steps, dtype=dtype, r=f.rank,
                             ridge=ridge is not None)
            except FLTError as exc:
                raise InvalidParameterError(f"--d/--kappa/--p/--seeds: {exc}") from exc
    try:
        resolved = str(resolve_device(device))
    except FLTError as exc:
        raise _blame("--device", exc) from exc
    try:
        sigma = Activation.parse(activation).expr
    except FLTError as exc:
        raise _blame("--activation", exc) from exc
    try:
        with np.errstate(all="ignore"):
            ell = leap_index(f)  # refuses a constant target before it is centred to zero
            centring = centre_target(f, str(f.expr) if links is not None else None)
            ladder = staircase(f, steps)
            # C_j = 0 above the degree of the (truncated, default 8) expansion: cap kappa there
            top = polynomial_degree_bound(f.expr) if f.is_polynomial else None
            top = 8 if top is None else top
            one_step = {k: one_step_subspace(f, min(k, top), sigma) for k in kappa}
    except FLTError as exc:
        raise _blame("TARGET", exc) from exc
    try:
        records = simulate(centring.target, ds=d, kappas=kappa, p=p, eta=eta, steps=steps, seeds=seeds,
                           activation=activation, ridge=ridge, device=resolved, dtype=dtype)
    except NonFiniteError as exc:
        raise InvalidParameterError(f"--eta: the simulation diverged ({exc}); use a smaller --eta") from exc
    for record in records:
        record["mass_V_random"] = f.rank / record["d"]
    check_finite_records({"records": records})  # NaN or inf is an error (before json_ready turns it into null)
    records = json_ready(records)
    text = f.name if f.name is not None else str(f.expr)
    config = {"system": "giant-step", "target": text, "rank": f.rank, "leap_index": ell, "ds": list(d),
              "kappas": list(kappa), "p": p, "eta": eta, "steps": steps, "seeds": seeds, "activation": activation,
              "ridge": ridge, "device": resolved, "dtype": dtype, "centring": centring.to_dict()}
    predicted = {
        "staircase": [{"step": t, "dim": u.dim, "basis": basis(u)} for t, u in enumerate(ladder, start=1)],
        "one_step": [{"kappa": k, "dim": u.dim, "basis": basis(u)} for k, u in one_step.items()],
    }
    return {"system": "giant-step", "records": records, "config": config, "predicted": predicted,
            "_text": {"ladder": [subspace_text(u) for u in ladder],
                      "one_step": {number_text(k): subspace_text(u) for k, u in one_step.items()},
                      "polynomial": f.is_polynomial, "centring": centring.describe()}}


def _ci_text(ci: Sequence[float | None] | None) -> str:
    if ci is None or None in ci:
        return "-"
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg, records, shown = document["config"], document["records"], document["_text"]
    ell, rank, steps = cfg["leap_index"], cfg["rank"], cfg["steps"]
    eta = cfg["eta"]
    eta_text = f"theory = p d^((l-1)/2), l = {ell}" if eta == "theory" else number_text(eta)
    note = "" if shown["polynomial"] else "; non-polynomial: predictions use its Hermite truncation at degree 8"
    seeds = cfg["seeds"]
    ridge_text = "" if cfg["ridge"] is None else f", ridge lambda = {number_text(cfg['ridge'])}"
    head = [
        ("target", f"f*(z) = {cfg['target']}   (rank r = {rank}, leap index l = {ell}{note})"),
        ("student", f"{cfg['activation']}, p = {cfg['p']}, eta = {eta_text}, {seeds} seed{'s' if seeds > 1 else ''}, "
                    f"{cfg['dtype']} on {cfg['device']}{ridge_text}"),
        ("predicted", "one step, n ~ d^kappa: " + ", ".join(f"U({k}) = {u}" for k, u in shown["one_step"].items())),
        ("", "staircase, n = O(d): " + ", ".join(f"U_{t} = {u}" for t, u in enumerate(shown["ladder"], start=1))),
        ("random", "mass of a random unit vector on V* is r/d = "
                   + ", ".join(f"{rank}/{d} = {rank / d:.4g}" for d in cfg["ds"])
                   + "; column 'x r/d' = mass_V/(r/d) is about 1 at random initialisation"),
    ]
    if shown.get("centring"):
        head.append(("centred", shown["centring"].removeprefix("target centred: ")))
    lines = [table(head),
             "mass_V: mean over neurons of ||P_V* w_i||^2/||w_i||^2, mean over seeds [95% CI]; U_t, wk: mass "
             "on them", ""]
    header = ["d", "kappa", "n", "step", "eta", "mass_V", "95% CI", "x r/d"]
    header += [f"U_{t}" for t in range(1, steps + 1)] + [f"w{k}" for k in range(1, rank + 1)]
    header += ["test_error"] if cfg["ridge"] is not None else []
    rows = [header]
    for rec in records:
        row = [str(rec["d"]), number_text(rec["kappa"]), str(rec["n"]), str(rec["step"]), f"{rec['eta']:.4g}",
               f"{rec['mass_V']:.4f}", _ci_text(rec["mass_V_ci"]), f"{rec['mass_V'] / rec['mass_V_random']:.1f}"]
        row += [f"{m:.4f}" for m in rec["mass_staircase"]] + [f"{m:.4f}" for m in rec["mass_dirs"]]
        if cfg["ridge"] is not None:
            row.append(f"{rec['test_error']:.4g}" if "test_error" in rec else "-")
        rows.append(row)
    lines.append(table(rows))
    return "\n".join(lines)
