r"""``flt simulate online-sgd``: samples to weak recovery of spherical online SGD, per dimension and seed.

Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409; model :mod:`.model` (exact reduced dynamics), laws
:mod:`.laws`. Records ``{d, seed, steps_to_weak_recovery, final_overlap, censored}``: the samples used until the
overlap first reaches 1/2 (:math:`|m| \ge 1/2` for an even link), the overlap at the end of the run (at recovery,
or after ``--max-steps`` with ``--run-to-end``), and whether ``--max-steps`` ended first (the time is then a lower
bound). The document adds, per :math:`d`, the mean and median time, and — with two :math:`d` or more and no
censored run — the fitted exponent of the mean time in :math:`d` (divided by :math:`\log d` at :math:`k = 2`) with
its 95% seed-bootstrap interval beside the predicted one.

Mini-batches and data repetition (``--batch`` :math:`n_b`, ``--passes`` :math:`P`; :mod:`.model`). ``--max-steps``
then counts gradient steps (iterations), each record adds ``iterations_to_weak_recovery`` (its samples are
:math:`\lceil t/P\rceil n_b`), and the step size is (:func:`step_and_radius`)

* one pass: :math:`\eta = \tilde\eta\,n_b\,d^{-\max(1, k/2)}`, the optimal scaling
  :math:`\gamma = \gamma_0 n_b d^{-\ell/2}` of Arnaboldi, Dandi, Krzakala, Loureiro, Pesce, Stephan 2024 (arXiv
  2406.02157) — the drift beats the retraction's contraction at :math:`m_0 \sim d^{-1/2}` up to
  :math:`\eta \propto n_b d^{-\ell/2}` (the batch divides the gradient noise by :math:`n_b`), so the samples to
  weak recovery keep the rate of one sample per step, :math:`d^{\max(1, k-1)}` (:math:`\times\log d` at
  :math:`k = 2`), while the iterations drop by :math:`n_b`;
* two passes or more: :math:`\eta = \tilde\eta\,n_b/d` (Arnaboldi, Dandi, Krzakala, Pesce, Stephan 2024, arXiv
  2405.15459: :math:`\gamma = \gamma_0/d` and look-ahead :math:`\rho_0/d`), which makes the second step's shift of
  the pre-activation, :math:`\eta\,y\,\sigma'(u)\,\|x\|^2/n_b`, of order one: the repeated step sees the label
  through a non-linear transform, and the rate is that of the generative exponent :math:`k^*`
  (:func:`~.laws.label_transform`), :math:`d^{\max(1, k^*-1)}` (:math:`\times\log d` at :math:`k^* = 2`) samples.

The default ``--max-steps`` is :math:`10\,P\,T(d)/(\tilde\eta\,n_b)` iterations, :math:`T(d)` that rate in
samples (with :math:`n_b = P = 1`: :math:`10\,T(d)/\tilde\eta`).
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
from ...symbolic.generative import generative_exponent
from ...symbolic.target import Target, parse_link
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
from .model import MAX_SMOOTHING, PARAMS, PolynomialLink, online_sgd
from .stall import largest_admissible_step

__all__ = ["THEORY_ETA_TILDE", "predicted_time", "rate_exponent", "run_rows", "simulate_document", "simulate_table",
           "step_and_radius", "theory_eta_tilde", "transformed_eta_tilde"]

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


@functools.lru_cache(maxsize=64)
def _generative(target: str) -> int:
    """The generative exponent :math:`k^*` of the link (:func:`~flt_theory.symbolic.generative.generative_exponent`):
    the rate of two passes or more per batch (module docstring)."""
    try:
        k_star = generative_exponent(Target.from_links([parse_link(target)]))
    except FLTError as exc:
        raise InvalidParameterError(f"--target: {exc}") from exc
    if k_star is None:
        raise InvalidParameterError(f"--target: the rate of --passes >= 2 is that of the generative exponent, which is "
                                    f"not computed for {target!r}.")
    return int(k_star)


def predicted_time(k: int, d: float, smoothing: float = 0.0) -> float:
    """The law's samples to weak recovery at :math:`d` for the rate of exponent ``k`` (:func:`~.laws.time_value`,
    :func:`~.laws.smoothed_time_value` with ``smoothing``), without its constant.

    >>> predicted_time(1, 64), predicted_time(3, 64), predicted_time(3, 64, smoothing=1.0)
    (64.0, 4096.0, 512.0)
    """
    return float((smoothed_time_value(k) if smoothing else time_value(k)).subs(D, d))


def rate_exponent(target: str, *, transform: bool = False, passes: int = 1) -> int:
    """The exponent of the rate a run of ``target`` follows: its information exponent, the generative exponent with
    two passes or more per batch (module docstring), the transformed link's with ``transform`` (:func:`_prepared`).

    >>> rate_exponent("He3(z)"), rate_exponent("He3(z)", passes=2), rate_exponent("He4(z)", transform=True)
    (3, 1, 2)
    """
    k = _prepared(target, bool(transform))[0]
    return _generative(target) if passes > 1 and not transform else k  # the transformed link has k = k*


def step_and_radius(k: int, d: int, eta_tilde: float, smoothing: float, *, batch: int = 1,
                    passes: int = 1) -> tuple[float, float]:
    r"""``(eta, lam)``: without smoothing :math:`\eta = \tilde\eta\,n_b\,d^{-\max(1,k/2)}` with one pass
    (Arnaboldi et al. 2024a; :math:`n_b` = ``batch``, 1 by default) and :math:`\eta = \tilde\eta\,n_b/d` with
    ``passes`` :math:`\ge 2` (Arnaboldi et al. 2024b; module docstring), :math:`\lambda = 0`; with
    ``smoothing`` :math:`= \tilde\lambda > 0` (one sample, one pass), :math:`\lambda = \tilde\lambda\,d^{1/4}` and
    the step of Damian et al. 2023, :math:`\eta = \tilde\eta\,\lambda^{2k-2} d^{-k/2}`
    (:func:`~.laws.smoothed_time_value`).

    >>> step_and_radius(3, 16, 0.5, 0.0), step_and_radius(3, 16, 0.5, 1.0)
    ((0.0078125, 0.0), (0.125, 2.0))
    >>> step_and_radius(3, 16, 0.5, 0.0, batch=4), step_and_radius(3, 16, 0.5, 0.0, batch=4, passes=2)
    ((0.03125, 0.0), (0.125, 0.0))
    """
    if not smoothing:
        if passes > 1:
            return eta_tilde * batch / d, 0.0
        return eta_tilde * batch * d ** -float(step_size_power(k)), 0.0
    lam = smoothing * d**0.25
    return eta_tilde * lam ** (2 * k - 2) * d ** (-k / 2), lam


def _check_batch_options(batch: int, passes: int, d: int, smoothing: float) -> tuple[int, int]:
    """``(batch, passes)`` checked as declared (:data:`.model.PARAMS`) and for their joint conditions, refused naming
    the option."""
    checked = []
    for name, value in (("batch", batch), ("passes", passes)):
        try:
            checked.append(int(PARAMS[name](value)))
        except FLTError as exc:
            raise InvalidParameterError(f"--{name}: {exc}") from exc
    batch, passes = checked
    if passes > 1 and batch > d - 2:
        raise InvalidParameterError(f"--batch: must be <= d - 2 = {d - 2} with --passes {passes} (repeated passes are "
                                    f"simulated through the Gram matrix of the batch's remainders). Got {batch} "
                                    "instead.")
    if smoothing and (batch > 1 or passes > 1):
        raise InvalidParameterError(f"--smoothing: is implemented for --batch 1 and --passes 1 only. Got "
                                    f"--smoothing {smoothing:g} with --batch {batch} and --passes {passes} instead.")
    return batch, passes


def run_rows(seeds: Sequence[int], *, target: str, d: int, eta_tilde: float, overlap0: float = 1.0,
             loss: str = "correlation", max_steps: int, stop_at_recovery: bool = True, smoothing: float = 0.0,
             transform: bool = False, batch: int = 1, passes: int = 1,
             device: str = "auto") -> list[dict[str, float]]:
    r"""One row per seed: ``steps`` (samples to weak recovery), ``iterations`` (gradient steps to weak recovery;
    ``steps`` for one sample and one pass per step), ``censored`` (0/1), ``final_overlap``, with the step size
    and smoothing radius of :func:`step_and_radius` (:mod:`.laws`); with ``transform``, trained on the labels
    :math:`T(y)` with the student :math:`\mathrm{He}_{k^*}` (:func:`~.laws.label_transform`); ``batch`` samples per
    gradient step and ``passes`` steps per batch (:mod:`.model`), ``max_steps`` counting gradient steps.

    >>> rows = run_rows([0, 1], target="z", d=64, eta_tilde=0.5, max_steps=5000, device="cpu")
    >>> sorted(rows[0]), [r["censored"] for r in rows]
    (['censored', 'final_overlap', 'iterations', 'steps'], [0.0, 0.0])
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
    batch, passes = _check_batch_options(batch, passes, d, smoothing)
    eta, lam = step_and_radius(k, d, eta_tilde, smoothing, batch=batch, passes=passes)
    try:
        res = online_sgd(link, d, eta=eta, seeds=list(seeds), max_steps=max_steps, loss=loss, overlap0=overlap0,
                         symmetric=symmetric, stop_at_recovery=stop_at_recovery, smoothing=lam, activation=student,
                         batch=batch, passes=passes, device=device)
    except FLTError as exc:
        text = str(exc)
        option = next((o for o in ("max_steps", "overlap0", "loss", "smoothing", "batch", "passes", "device", "d")
                       if f"'{o}'" in text), "d")
        raise InvalidParameterError(f"--{option.replace('_', '-')}: {text}") from exc
    steps, iterations, censored, final = (t.cpu().numpy() for t in (res.steps, res.iterations, res.censored,
                                                                     res.final_overlap))
    return [{"steps": float(steps[i]), "iterations": float(iterations[i]), "censored": float(censored[i]),
             "final_overlap": float(final[i])} for i in range(len(steps))]


def simulate_document(*, target: str = "He3(z)", d: Sequence[int] = (32, 64, 128), loss: str = "correlation",
                      lr: float | str = "theory", overlap0: float = 1.0, max_steps: int | None = None, seeds: int = 8,
                      run_to_end: bool = False, smoothing: float = 0.0, transform: bool = False, batch: int = 1,
                      passes: int = 1, device: str = "auto") -> dict[str, Any]:
    """The JSON document of the command (module docstring). With ``batch`` or ``passes`` above 1 the records add
    ``iterations_to_weak_recovery``, the summary ``mean_iterations`` and the config ``batch`` and ``passes``; with
    both 1 the document is that of one sample and one pass per step.

    >>> doc = simulate_document(target="z", d=(64, 128), seeds=4, device="cpu")
    >>> sorted(doc["records"][0]), doc["predicted_exponent"]
    (['censored', 'd', 'final_overlap', 'seed', 'steps_to_weak_recovery'], 1.0)
    >>> doc = simulate_document(target="He3(z)", d=(32,), lr=0.01, seeds=2, batch=2, passes=2, device="cpu")
    >>> doc["records"][0]["iterations_to_weak_recovery"] > 0, doc["predicted_rate"], doc["config"]["eta"]
    (True, 'd', 'eta_tilde * 2 / d')
    """
    k, symmetric, _, power, rate, _ = _prepared(target, transform)
    batched = batch != 1 or passes != 1
    if batched:
        batch, passes = _check_batch_options(batch, passes, min(d, default=3), smoothing)
    rate_k = rate_exponent(target, transform=transform, passes=passes)
    law_time = smoothed_time_value(k) if smoothing else time_value(rate_k)
    if smoothing:
        rate = float(smoothed_recovery_law(target).exponent("d"))
    elif rate_k != k:
        rate = float(rate_k - 1 if rate_k > 1 else 1)
    eta_tilde = (theory_eta_tilde(k) if not transform else transformed_eta_tilde(target, k)) if lr == "theory" \
        else float(lr)
    if seeds < 2:
        raise InvalidParameterError(f"--seeds: must be an int >= 2. Got {seeds} instead.")
    records, summary = [], []
    for dim in d:
        cap = max_steps if max_steps is not None else \
            math.ceil(10 * passes * predicted_time(rate_k, dim, smoothing) / (eta_tilde * batch))
        if max_steps is None and cap > DEFAULT_CAP_LIMIT:
            formula = f"10·{passes}·{law_time}/(eta_tilde·{batch})" if batched else f"10·{law_time}/eta_tilde"
            raise InvalidParameterError(
                f"--max-steps: the default cap {formula} is {cap:.3g} steps at d = {dim} "
                f"(k = {rate_k}), above {DEFAULT_CAP_LIMIT:.0e}; pass --max-steps (runs past it are reported censored) "
                "or smaller --d.")
        rows = run_rows(list(range(seeds)), target=target, d=dim, eta_tilde=eta_tilde, overlap0=overlap0, loss=loss,
                        max_steps=cap, stop_at_recovery=not run_to_end, smoothing=smoothing,
                        transform=transform, batch=batch, passes=passes, device=device)
        records += [{"d": dim, "seed": s, "steps_to_weak_recovery": int(r["steps"])}
                    | ({"iterations_to_weak_recovery": int(r["iterations"])} if batched else {})
                    | {"final_overlap": r["final_overlap"], "censored": bool(r["censored"])}
                    for s, r in enumerate(rows)]
        times = np.array([r["steps"] for r in rows])
        summary.append({"d": dim, "max_steps": cap, "mean_steps": float(times.mean()),
                        "median_steps": float(np.median(times))}
                       | ({"mean_iterations": float(np.mean([r["iterations"] for r in rows]))} if batched else {})
                       | {"censored": int(sum(r["censored"] for r in rows))})
    fit = None
    if len(set(d)) >= 2 and not any(s["censored"] for s in summary):
        ds = np.array([s["d"] for s in summary], float)
        y = np.array([[r["steps_to_weak_recovery"] for r in records if r["d"] == s["d"]] for s in summary], float).T
        divisor = np.log(ds) if rate_k == 2 else np.ones_like(ds)
        f = fit_power_law(ds, y / divisor)
        fit = {"exponent": f.exponent, "ci": list(f.cis[0]), "divided_by": "log d" if rate_k == 2 else None}
    eta_words = (f"eta_tilde * lambda^{2 * k - 2} * d^-{k / 2:g}, lambda = {smoothing:g} d^(1/4)" if smoothing
                 else f"eta_tilde * {batch} / d" if passes > 1
                 else f"eta_tilde * {batch} * d^-{power:g}" if batched else f"eta_tilde * d^-{power:g}")
    config = {"target": target, "loss": loss, "d": list(d), "eta_tilde": eta_tilde, "smoothing": smoothing,
              "label_transform": str(label_transform(target)[0]) if transform else None,
              "eta": eta_words, "overlap0": overlap0, "seeds": seeds, "run_to_end": run_to_end,
              "weak_recovery": "|overlap| >= 1/2" if symmetric else "overlap >= 1/2"}
    if batched:
        config |= {"batch": batch, "passes": passes}
    # NaN or inf in a record is an error (before json_ready turns it into null)
    repeated = {"generative_exponent": rate_k} if passes > 1 else {}
    return json_ready(check_finite_records({"system": "online-sgd", "config": config, "information_exponent": k}
                                           | repeated
                                           | {"predicted_rate": str(law_time), "predicted_exponent": rate,
                                              "fit": fit, "summary": summary, "records": records}))


def simulate_table(document: dict[str, Any]) -> str:
    """The text form of :func:`simulate_document`'s result."""
    cfg, fit = document["config"], document["fit"]
    batched = "batch" in cfg
    rows = [["d", "mean steps", "median steps", *(["mean iterations"] if batched else []), "censored", "max steps"]]
    rows += [[str(s["d"]), f"{s['mean_steps']:.4g}", f"{s['median_steps']:.4g}",
              *([f"{s['mean_iterations']:.4g}"] if batched else []), str(s["censored"]), str(s["max_steps"])]
             for s in document["summary"]]
    measured = "-" if fit is None else (f"{fit['exponent']:.3f} [{fit['ci'][0]:.3f}, {fit['ci'][1]:.3f}]"
                                        + (" (time / log d)" if fit["divided_by"] else ""))
    labels = (f"labels T(y) = {cfg['label_transform']}, sigma = He{document['information_exponent']}"
              if cfg.get("label_transform") else "sigma = g")
    batches = (f"batches of {cfg['batch']} fresh samples, {cfg['passes']} gradient step(s) per batch, "
               if "batch" in cfg else "")
    head = [("target", (f"g(z) = {cfg['target']}, y = g(<w*, x>), {labels}, {cfg['loss']} loss, {batches}"
                        f"eta = {cfg['eta']} with eta_tilde = {cfg['eta_tilde']:g}, "
                        f"m0 = {cfg['overlap0']:g}/sqrt(d), {cfg['seeds']} seeds")),
            ("information exponent", f"k = {document['information_exponent']}"),
            ("predicted", f"n ~ {document['predicted_rate']} (exponent {document['predicted_exponent']:g})"
                          + (f", the rate of the generative exponent k* = {document['generative_exponent']}"
                             if "generative_exponent" in document else "")),
            ("measured exponent", measured)]
    return table(head) + "\n\n" + table(rows)
