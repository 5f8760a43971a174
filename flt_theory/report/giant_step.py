r"""Figures specific to the giant-step system (:mod:`flt_theory.systems.giant_step`).

* Transitions (``leap1-transition-*``, ``leap2-threshold``, ``vanishing-student-coefficient``):
  the one-step order parameter — the excess mass :math:`(m_{V^*} - r/d)/(1 - r/d)` — against
  :math:`\kappa` (:math:`n = d^\kappa`), one curve per :math:`d` (mean and 95% CI over seeds),
  from :func:`~flt_theory.systems.giant_step.excess_mass_curves`; the predicted threshold
  :math:`\kappa^* = \ell` (the leap index) and the control's wrong threshold marked.
* Staircases (``staircase-a`` … ``staircase-d``): after each giant step :math:`t = 0, 1, 2`, the
  mass on :math:`U_1`, on :math:`U_2 \ominus U_1` and on :math:`V^* \ominus U_2`, each divided by
  its random level :math:`\dim/d`, from :func:`~flt_theory.systems.giant_step.staircase_masses`;
  the prediction drawn as hollow markers (random level before the step that learns the subspace,
  the check's "learned" threshold 10× from it on).

Data are read at the sizes the claims use (``SIZES`` of the system module), so the figures show the
measurements the verdicts were computed from (the system caches them; nothing runs twice).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .figures import (
    CONTROL,
    MEASURED,
    PREDICTED,
    FigureSpec,
    new_figure,
    plain_text,
    register_figure,
    save_figure,
)

__all__ = ["staircase_data", "transition_data"]

SYSTEM = "giant-step"
_PALETTE = ("#1f4e9c", "#2b8a3e", "#862e9c", "#c2255c", "#e67700", "#0b7285")


def _system():
    from ..systems import giant_step

    return giant_step


def _mean_ci(values: np.ndarray) -> tuple[float, float, float]:
    from ..compare import mean_ci

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        v = float(values.mean())
        return v, math.nan, math.nan
    est = mean_ci(values, method="t")
    return float(est.value), float(est.ci[0]), float(est.ci[1])


# ----------------------------------------------------------------------------------------------
# transitions


def transition_data(scale: str, which: str, activation: str) -> dict[str, Any]:
    """Excess-mass curves of the ``which`` (``"leap1"`` or ``"leap2"``) grid at ``scale``."""
    from ..symbolic import leap_index

    gs = _system()
    sizes = gs.SIZES[scale]
    target = gs.LEAP1_TARGET if which == "leap1" else gs.LEAP2_TARGET
    ds = sizes.leap1_ds if which == "leap1" else sizes.leap2_ds
    kappas = sizes.leap1_kappas if which == "leap1" else sizes.leap2_kappas
    curves = gs.excess_mass_curves(target, ds=ds, kappas=kappas, p=sizes.p, seeds=sizes.seeds, activation=activation)
    return {
        "target": target.name,
        "activation": activation,
        "leap_index": int(leap_index(target)),
        "kappas": list(map(float, kappas)),
        "curves": {int(d): np.asarray(c, dtype=float) for d, c in curves.items()},
        "p": sizes.p,
        "seeds": sizes.seeds,
    }


def _draw_transition(data: Mapping[str, Any], check: Mapping[str, Any], control: Mapping[str, Any] | None,
                     path: Path, *, log: bool = False, no_learning: bool = False) -> None:
    fig = new_figure(7.2, 4.6)
    ax = fig.subplots()
    kappas = np.asarray(data["kappas"])
    floor = 1e-4
    for colour, (d, curve) in zip(_PALETTE * 4, sorted(data["curves"].items())):
        stats = np.array([_mean_ci(curve[:, j]) for j in range(curve.shape[1])])
        mean, low, high = stats[:, 0], stats[:, 1], stats[:, 2]
        if log:
            mean, low, high = (np.clip(a, floor, None) for a in (mean, low, high))
        ax.plot(kappas, mean, "o-", color=colour, lw=1.8, ms=5, label=f"measured, d = {d}")
        ax.fill_between(kappas, low, high, color=colour, alpha=0.15, lw=0)
    ell = data["leap_index"]
    predicted = check.get("predicted")
    if no_learning:
        ax.axhline(0.0, color=PREDICTED, lw=2, ls="--", label="predicted: no learning (excess mass 0)")
        wrong = (control or {}).get("details", {}).get("threshold")
        if isinstance(wrong, (int, float)):
            ax.axhline(float(wrong), color=CONTROL, lw=1.5, ls=":", label=f"wrong law: mass ≥ {wrong:g} (negative control)")
    else:
        threshold = float(predicted) if isinstance(predicted, (int, float)) else float(ell)
        ax.axvline(threshold, color=PREDICTED, lw=2, ls="--", label=f"predicted threshold κ* = ℓ = {threshold:g}")
        wrong = (control or {}).get("predicted")
        if isinstance(wrong, (int, float)) and float(wrong) != threshold:
            ax.axvline(float(wrong), color=CONTROL, lw=1.5, ls=":", label=f"wrong law κ* = {float(wrong):g} (negative control)")
    details = check.get("details") or {}
    level = details.get("level")
    if isinstance(level, (int, float)):
        ax.axhline(float(level), color=MEASURED, lw=1, ls="-.", alpha=0.7, label=f"half-saturation level {level:.3g}")
        crossings = details.get("crossings") or {}
        xs = [(float(v[0]), float(v[1]), float(v[2])) for v in crossings.values() if isinstance(v, (list, tuple))]
        xs = [x for x in xs if all(math.isfinite(t) for t in x)]
        if xs:
            ax.errorbar([x[0] for x in xs], [float(level)] * len(xs),
                        xerr=[[x[0] - x[1] for x in xs], [x[2] - x[0] for x in xs]],
                        fmt="D", color="black", ms=5, capsize=4, label="measured crossings (95% CI)")
    pad = 0.04 * (kappas.max() - kappas.min() or 1.0)
    ax.set_xlim(kappas.min() - pad, kappas.max() + pad)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("κ   (samples n = ⌈d^κ⌉)")
    ax.set_ylabel("excess mass (m − r/d)/(1 − r/d)" + ("  [log, floor 1e-4]" if log else ""))
    ax.set_title(f"one giant step on f* = {data['target']}, {data['activation']} student, "
                 f"p = {data['p']}, {data['seeds']} seeds", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    save_figure(fig, path)


# ----------------------------------------------------------------------------------------------
# staircases


def _orthonormal(rows: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    if rows.size == 0:
        return rows.reshape(0, rows.shape[-1] if rows.ndim == 2 else 0)
    _, s, vt = np.linalg.svd(rows, full_matrices=False)
    return vt[s > tol]


def _span_text(basis: np.ndarray) -> str:
    """``span{w1 - w2}`` from orthonormal rows (each row scaled so its first nonzero entry is 1)."""
    parts = []
    for row in basis:
        nz = [x for x in row if abs(x) > 1e-9]
        row = row / nz[0] if nz else row
        terms = []
        for k, c in enumerate(row, start=1):
            if abs(c) < 1e-9:
                continue
            coeff = "" if abs(abs(c) - 1) < 1e-9 else f"{abs(c):.2g}·"
            terms.append(("- " if c < 0 else "+ ") + f"{coeff}w{k}")
        parts.append(" ".join(terms).removeprefix("+ "))
    return "span{" + ", ".join(parts) + "}"


def staircase_data(scale: str, example: str) -> dict[str, Any]:
    """Masses / random level on U_1, U_2 ⊖ U_1 and V* ⊖ U_2 after steps 0, 1, 2 (per seed)."""
    from ..numeric import subspace_mass
    from ..symbolic import staircase

    gs = _system()
    sizes = gs.SIZES[scale]
    target = gs.STAIRCASE_EXAMPLES[example]
    d, p = sizes.staircase_d, sizes.staircase_p
    res = gs.staircase_masses(target, d=d, p=p, n=64 * d, eta=4.0 * p, steps=2, seeds=sizes.seeds)
    u1, u2 = staircase(target, 2)
    b1, b2 = u1.numpy(), u2.numpy()
    new = _orthonormal(b2 - b2 @ b1.T @ b1) if len(b1) else b2
    comp = u2.complement().numpy() if u2.dim < target.rank else np.zeros((0, target.rank))
    parts = [(f"U₁ = {plain_text(u1.latex())}", b1, 1)]
    if len(new):
        parts.append((f"U₂ ⊖ U₁ = {_span_text(new)}", new, 2))
    if len(comp):
        parts.append((f"V* ⊖ U₂ = {_span_text(comp)}", comp, None))
    weights, w_star = res["weights"], res["w_star"]
    out = []
    for label, basis, step in parts:
        level = len(basis) / d
        ratios = np.stack([
            subspace_mass(weights[t], w_star, basis).detach().to("cpu").double().numpy() / level for t in range(3)
        ])  # (steps + 1, seeds)
        out.append({"label": label, "learned_from": step, "ratio": ratios})
    return {"target": target.name, "d": d, "p": p, "n": 64 * d, "eta": 4.0 * p, "seeds": sizes.seeds, "parts": out}


def _draw_staircase(data: Mapping[str, Any], check: Mapping[str, Any], control: Mapping[str, Any] | None, path: Path) -> None:
    fig = new_figure(7.2, 4.8)
    ax = fig.subplots()
    steps = np.arange(3)
    learned, random_level = 10.0, 1.0
    ax.axhline(random_level, color=CONTROL, lw=1, ls="-", alpha=0.6, label="random level (dim U / d)")
    ax.axhline(learned, color=CONTROL, lw=1, ls="--", alpha=0.6, label="learned: ≥ 10× random (check threshold)")
    ax.axhline(3.0, color=CONTROL, lw=1, ls=":", alpha=0.6, label="not learned: ≤ 3× random (check threshold)")
    for colour, part in zip(_PALETTE, data["parts"]):
        stats = np.array([_mean_ci(part["ratio"][t]) for t in steps])
        mean = stats[:, 0]
        yerr = np.array([mean - stats[:, 1], stats[:, 2] - mean])
        yerr = np.where(np.isfinite(yerr), np.clip(yerr, 0, None), 0.0)
        ax.errorbar(steps, mean, yerr=yerr, fmt="o-", color=colour, lw=2, ms=6, capsize=4, label=f"measured: {part['label']}")
        start = part["learned_from"]
        predicted = [learned if start is not None and t >= start else random_level for t in steps]
        when = f"learned (≥ 10×) from step {start}" if start is not None else "never learned (random level)"
        ax.plot(steps + 0.06, predicted, "s--", color=colour, mfc="none", ms=9, mew=1.5, lw=1, alpha=0.8,
                label=f"predicted: {when}")
    ax.set_yscale("log")
    ax.set_xticks(steps, [f"t = {t}" for t in steps])
    ax.set_xlabel("giant step t")
    ax.set_ylabel("mass on subspace / random level")
    ax.set_title(f"staircase of f* = {data['target']}\n d = {data['d']}, p = {data['p']}, n = {data['n']}, "
                 f"η = {data['eta']:g}, {data['seeds']} seeds", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    save_figure(fig, path)


# ----------------------------------------------------------------------------------------------
# registration


def _transition_spec(which: str, activation: str, *, log: bool = False, no_learning: bool = False) -> FigureSpec:
    return FigureSpec(
        "order-parameter",
        lambda scale: transition_data(scale, which, activation),
        lambda data, check, control, path: _draw_transition(data, check, control, path, log=log, no_learning=no_learning),
    )


def _register() -> None:
    register_figure(f"{SYSTEM}/leap1-transition-relu", _transition_spec("leap1", "relu"))
    register_figure(f"{SYSTEM}/leap1-transition-tanh", _transition_spec("leap1", "tanh"))
    register_figure(f"{SYSTEM}/leap2-threshold", _transition_spec("leap2", "relu", log=True))
    register_figure(f"{SYSTEM}/vanishing-student-coefficient", _transition_spec("leap2", "tanh", no_learning=True))
    for example in ("a", "b", "c", "d"):
        register_figure(
            f"{SYSTEM}/staircase-{example}",
            FigureSpec("staircase", lambda scale, e=example: staircase_data(scale, e), _draw_staircase),
        )


_register()
