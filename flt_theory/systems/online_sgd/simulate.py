r"""``flt simulate online-sgd``: samples to weak recovery of spherical online SGD, per dimension and seed.

Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409; model :mod:`.model` (exact reduced dynamics), laws
:mod:`.laws`. Records ``{d, seed, steps_to_weak_recovery, final_overlap, censored}``: the samples used until the
overlap first reaches 1/2 (:math:`|m| \ge 1/2` for an even link), the overlap at the end of the run (at recovery,
or after ``--max-steps`` with ``--run-to-end``), and whether ``--max-steps`` ended first (the time is then a lower
bound). The document adds, per :math:`d`, the mean and median time, and — with two :math:`d` or more and no
censored run — the fitted exponent of the mean time in :math:`d` (divided by :math:`\log d` at :math:`k = 2`) with
its 95% seed-bootstrap interval beside the predicted one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._text import json_ready, table
from ...compare import fit_power_law
from ...errors import FLTError, InvalidParameterError
from ..declaration import check_finite_records
from .laws import (
    DERIVED_STALLS,
    D,
    is_even,
    label_transform,
    link_exponent,
    polynomial_coefficients,
    smoothed_recovery_law,
    smoothed_time_value,
    step_size_power,
    time_value,
    transformed_link,
)
from .model import MAX_SMOOTHING, PolynomialLink, online_sgd
from .stall import largest_admissible_step

__all__ = ["THEORY_ETA_TILDE", "run_rows", "simulate_document", "simulate_table", "step_and_radius", "theory_eta_tilde",
           "transformed_eta_tilde"]

#: The default :math:`\tilde\eta` per information exponent (below the step bounds derived from the drift, laws.
#: DERIVED_STALLS: 3, 3/8 and 1/41·√d; small enough at k ≥ 3 that the martingale noise over the escape stays below
#: the initial overlap). With --label-transform the default is at most half the derived bound
#: (:func:`transformed_eta_tilde`).
THEORY_ETA_TILDE = {1: 0.5, 2: 0.2, 3: 0.05}
#: The largest default ``--max-steps`` (about ten minutes at the measured ~70 µs per step on one CPU core).
DEFAULT_CAP_LIMIT = 10**7


def theory_eta_tilde(k: int) -> float:
    """The default :math:`\\tilde\\eta` for information exponent ``k``.

    >>> theory_eta_tilde(1), theory_eta_tilde(4)
    (0.5, 0.05)
    """
    return THEORY_ETA_TILDE[min(k, 3)]


def transformed_eta_tilde(target: str, k: int) -> float:
    r"""The default :math:`\tilde\eta` with the label transform: :func:`theory_eta_tilde` of the transformed
    exponent, at most half the step bound derived from the drift (:data:`~.laws.DERIVED_STALLS`; He4: 0.0402, so
    0.0201, where 0.2 stalls the overlap at 0.17)."""
    known = DERIVED_STALLS.get((target, True))
    if known is None:
        try:
            bound = float(largest_admissible_step(transformed_link(target), f"He{k}(z)"))
        except FLTError:
            return theory_eta_tilde(k)
    else:
        bound = float(known[0])
    return min(theory_eta_tilde(k), bound / 2)


@functools.lru_cache(maxsize=64)
def _prepared(target: str, transform: bool = False) -> tuple[int, bool, Any, float, float, Any]:
    """``(k, symmetric, link, power, rate, student)`` of a target: information exponent, even population loss, the
    evaluator, the step-size power :math:`\\max(1, k/2)`, the exponent of the predicted time and the student (None:
    the link itself). With ``transform`` the link is :math:`T \\circ g` (:func:`~.laws.label_transform`), the
    student :math:`\\mathrm{He}_{k^*}` and :math:`k = k^*`."""
    try:
        if transform:
            _, k = label_transform(target)
            hermite = polynomial_coefficients(f"He{k}(z)")
            assert hermite is not None  # He_k is a polynomial
            student = PolynomialLink(hermite)
            coefficients, symmetric = polynomial_coefficients(transformed_link(target)), is_even(f"He{k}(z)")
        else:
            k, student = link_exponent(target), None
            coefficients, symmetric = polynomial_coefficients(target), is_even(target)
    except FLTError as exc:
        raise InvalidParameterError(f"--target: {exc}") from exc
    link = target if coefficients is None else PolynomialLink(coefficients)
    return k, symmetric, link, float(step_size_power(k)), float(k - 1 if k > 1 else 1), student


def _time(k: int, d: int, smoothing: float = 0.0) -> float:
    return float((smoothed_time_value(k) if smoothing else time_value(k)).subs(D, d))


def step_and_radius(k: int, d: int, eta_tilde: float, smoothing: float) -> tuple[float, float]:
    r"""``(eta, lam)``: without smoothing :math:`\eta = \tilde\eta\,d^{-\max(1,k/2)}`, :math:`\lambda = 0`; with
    ``smoothing`` :math:`= \tilde\lambda > 0`, :math:`\lambda = \tilde\lambda\,d^{1/4}` and the step of Damian et
    al. 2023, :math:`\eta = \tilde\eta\,\lambda^{2k-2} d^{-k/2}` (:func:`~.laws.smoothed_time_value`).

    >>> step_and_radius(3, 16, 0.5, 0.0), step_and_radius(3, 16, 0.5, 1.0)
    ((0.0078125, 0.0), (0.125, 2.0))
    """
    if not smoothing:
        return eta_tilde * d ** -float(step_size_power(k)), 0.0
    lam = smoothing * d**0.25
    return eta_tilde * lam ** (2 * k - 2) * d ** (-k / 2), lam


def run_rows(seeds: Sequence[int], *, target: str, d: int, eta_tilde: float, overlap0: float = 1.0,
             loss: str = "correlation", max_steps: int, stop_at_recovery: bool = True, smoothing: float = 0.0,
             transform: bool = False, device: str = "auto") -> list[dict[str, float]]:
    r"""One row per seed: ``steps`` (to weak recovery), ``censored`` (0/1), ``final_overlap``, with the step size
    and smoothing radius of :func:`step_and_radius` (:mod:`.laws`); with ``transform``, trained on the labels
    :math:`T(y)` with the student :math:`\mathrm{He}_{k^*}` (:func:`~.laws.label_transform`).

    >>> rows = run_rows([0, 1], target="z", d=64, eta_tilde=0.5, max_steps=5000, device="cpu")
    >>> sorted(rows[0]), [r["censored"] for r in rows]
    (['censored', 'final_overlap', 'steps'], [0.0, 0.0])
    """
    k, symmetric, link, _, _, student = _prepared(target, bool(transform))
    if not (math.isfinite(eta_tilde) and eta_tilde > 0):
        raise InvalidParameterError(f"--lr: must be a finite number > 0 or 'theory'. Got {eta_tilde!r} instead.")
    if not (math.isfinite(smoothing) and 0 <= smoothing <= MAX_SMOOTHING):
        raise InvalidParameterError(f"--smoothing: must be a number in [0, {MAX_SMOOTHING:g}]. Got {smoothing!r} "
                                    "instead.")
    if smoothing and not isinstance(link, PolynomialLink):
        raise InvalidParameterError(f"--smoothing: needs a polynomial --target (the smoothed loss is computed in "
                                    f"closed form). Got {target!r} instead.")
    eta, lam = step_and_radius(k, d, eta_tilde, smoothing)
    try:
        res = online_sgd(link, d, eta=eta, seeds=list(seeds), max_steps=max_steps, loss=loss, overlap0=overlap0,
                         symmetric=symmetric, stop_at_recovery=stop_at_recovery, smoothing=lam, activation=student,
                         device=device)
    except FLTError as exc:
        text = str(exc)
        option = next((o for o in ("max_steps", "overlap0", "loss", "smoothing", "device", "d") if f"'{o}'" in text),
                      "d")
        raise InvalidParameterError(f"--{option.replace('_', '-')}: {text}") from exc
    steps, censored, final = (t.cpu().numpy() for t in (res.steps, res.censored, res.final_overlap))
    return [{"steps": float(steps[i]), "censored": float(censored[i]), "final_overlap": float(final[i])}
            for i in range(len(steps))]


def simulate_document(*, target: str = "He3(z)", d: Sequence[int] = (32, 64, 128), loss: str = "correlation",
                      lr: float | str = "theory", overlap0: float = 1.0, max_steps: int | None = None, seeds: int = 8,
                      run_to_end: bool = False, smoothing: float = 0.0, transform: bool = False,
                      device: str = "auto") -> dict[str, Any]:
    """The JSON document of the command (module docstring).

    >>> doc = simulate_document(target="z", d=(64, 128), seeds=4, device="cpu")
    >>> sorted(doc["records"][0]), doc["predicted_exponent"]
    (['censored', 'd', 'final_overlap', 'seed', 'steps_to_weak_recovery'], 1.0)
    """
    k, symmetric, _, power, rate, _ = _prepared(target, transform)
    law_time = smoothed_time_value(k) if smoothing else time_value(k)
    if smoothing:
        rate = float(smoothed_recovery_law(target).exponent("d"))
    eta_tilde = (theory_eta_tilde(k) if not transform else transformed_eta_tilde(target, k)) if lr == "theory" \
        else float(lr)
    if seeds < 2:
        raise InvalidParameterError(f"--seeds: must be an int >= 2. Got {seeds} instead.")
    records, summary = [], []
    for dim in d:
        cap = max_steps if max_steps is not None else math.ceil(10 * _time(k, dim, smoothing) / eta_tilde)
        if max_steps is None and cap > DEFAULT_CAP_LIMIT:
            raise InvalidParameterError(
                f"--max-steps: the default cap 10·{law_time}/eta_tilde is {cap:.3g} steps at d = {dim} "
                f"(k = {k}), above {DEFAULT_CAP_LIMIT:.0e}; pass --max-steps (runs past it are reported censored) "
                "or smaller --d.")
        rows = run_rows(list(range(seeds)), target=target, d=dim, eta_tilde=eta_tilde, overlap0=overlap0, loss=loss,
                        max_steps=cap, stop_at_recovery=not run_to_end, smoothing=smoothing,
                        transform=transform, device=device)
        records += [{"d": dim, "seed": s, "steps_to_weak_recovery": int(r["steps"]),
                     "final_overlap": r["final_overlap"], "censored": bool(r["censored"])} for s, r in enumerate(rows)]
        times = np.array([r["steps"] for r in rows])
        summary.append({"d": dim, "max_steps": cap, "mean_steps": float(times.mean()),
                        "median_steps": float(np.median(times)), "censored": int(sum(r["censored"] for r in rows))})
    fit = None
    if len(set(d)) >= 2 and not any(s["censored"] for s in summary):
        ds = np.array([s["d"] for s in summary], float)
        y = np.array([[r["steps_to_weak_recovery"] for r in records if r["d"] == s["d"]] for s in summary], float).T
        divisor = np.log(ds) if k == 2 else np.ones_like(ds)
        f = fit_power_law(ds, y / divisor)
        fit = {"exponent": f.exponent, "ci": list(f.cis[0]), "divided_by": "log d" if k == 2 else None}
    eta_words = (f"eta_tilde * lambda^{2 * k - 2} * d^-{k / 2:g}, lambda = {smoothing:g} d^(1/4)" if smoothing
                 else f"eta_tilde * d^-{power:g}")
    config = {"target": target, "loss": loss, "d": list(d), "eta_tilde": eta_tilde, "smoothing": smoothing,
              "label_transform": str(label_transform(target)[0]) if transform else None,
              "eta": eta_words, "overlap0": overlap0, "seeds": seeds, "run_to_end": run_to_end,
              "weak_recovery": "|overlap| >= 1/2" if symmetric else "overlap >= 1/2"}
    # NaN or inf in a record is an error (before json_ready turns it into null)
    return json_ready(check_finite_records({"system": "online-sgd", "config": config, "information_exponent": k,
                                            "predicted_rate": str(law_time), "predicted_exponent": rate,
                                            "fit": fit, "summary": summary, "records": records}))


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg, fit = document["config"], document["fit"]
    rows = [["d", "mean steps", "median steps", "censored", "max steps"]]
    rows += [[str(s["d"]), f"{s['mean_steps']:.4g}", f"{s['median_steps']:.4g}", str(s["censored"]),
              str(s["max_steps"])] for s in document["summary"]]
    measured = "-" if fit is None else (f"{fit['exponent']:.3f} [{fit['ci'][0]:.3f}, {fit['ci'][1]:.3f}]"
                                        + (" (time / log d)" if fit["divided_by"] else ""))
    labels = (f"labels T(y) = {cfg['label_transform']}, sigma = He{document['information_exponent']}"
              if cfg.get("label_transform") else "sigma = g")
    head = [("target", (f"g(z) = {cfg['target']}, y = g(<w*, x>), {labels}, {cfg['loss']} loss, "
                        f"eta = {cfg['eta']} with eta_tilde = {cfg['eta_tilde']:g}, "
                        f"m0 = {cfg['overlap0']:g}/sqrt(d), {cfg['seeds']} seeds")),
            ("information exponent", f"k = {document['information_exponent']}"),
            ("predicted", f"n ~ {document['predicted_rate']} (exponent {document['predicted_exponent']:g})"),
            ("measured exponent", measured)]
    return table(head) + "\n\n" + table(rows)
