r"""Figures of the training-choice claims, drawn from the claim's stored measurement (no re-simulation).

``draw_trajectories``: one panel per optimizer, side by side, with the signal coefficient :math:`\max_{j,r}\gamma_{j,r}`
and the noise coefficient :math:`\bar\rho = \mathrm{mean}_i\max_r\rho_{y_i,r,i}` against the step (mean and 95% CI
band over seeds), and a last panel with each optimizer's final test error (mean and 95% CI) against the law's
bound and the wrong law's bound.

Each ``draw(figure, frame, law, wrong_law, check, control)`` draws on a matplotlib ``Figure`` handed over by
the report (object API; nothing global).
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci
from .readouts import runs, trajectory

__all__ = ["draw_trajectories"]

LAW, CONTROL = "#d9480f", "#7a7a7a"
GAMMA, RHO = "#1f4e9c", "#2b8a3e"
_LABELS = {"gd": "GD", "adam": "Adam", "sign-gd": "sign-GD", "sam": "SAM", "label-noise-gd": "label-noise GD"}


def _band(values: np.ndarray, low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return (float(values.mean()) if values.size else np.nan), np.nan, np.nan
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0]), float(values[0])
    est = mean_ci(values, method="t")
    return float(est.value), max(low, float(est.ci[0])), min(high, float(est.ci[1]))


def draw_trajectories(fig, frame, law, wrong_law, check, control, *, optimizers: tuple[str, ...],
                      mu_norm: float | None = None) -> None:
    """γ/ρ̄ trajectories per optimizer side by side, and the final test errors against the law and the wrong law."""
    rows = frame if mu_norm is None else runs(frame, mu_norm=mu_norm)
    axes = fig.subplots(1, len(optimizers) + 1)
    for ax, opt in zip(axes, optimizers, strict=False):
        sub = runs(rows, opt)
        for key, colour, label in (("gamma", GAMMA, "signal  max γ"),
                                   ("rho", RHO, "noise  ρ̄ = mean_i max_r ρ_(y_i,r,i)")):
            steps, values = trajectory(sub, key)
            stats = np.array([_band(values[:, j]) for j in range(values.shape[1])])
            ax.plot(steps, stats[:, 0], "o-", ms=3, lw=1.8, color=colour, label=label)
            ax.fill_between(steps, stats[:, 1], stats[:, 2], color=colour, alpha=0.2, lw=0)
        err = _band(sub["test_error"].to_numpy(float), 0, 1)[0]
        ax.set_title(f"{_LABELS[opt]}: test error {err:.2f}", fontsize=9)
        ax.set_xlabel("training step t")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("coefficient (units of ⟨w, μ⟩ and ⟨w, ξ_i⟩)")
    axes[0].legend(fontsize=7, loc="center left")
    ax = axes[-1]
    for k, opt in enumerate(optimizers):
        mean, low, high = _band(runs(rows, opt)["test_error"].to_numpy(float), 0.0, 1.0)
        err = np.nan_to_num(np.array([[mean - low], [high - mean]]), nan=0.0).clip(0)
        ax.errorbar([k], [mean], yerr=err, fmt="o", color="black", ms=7, capsize=5)
    for lw_, colour, ls, the_law, tag in ((2.0, LAW, "--", law, "law"),
                                          (1.5, CONTROL, ":", wrong_law, "wrong law (control)")):
        sign = "≥" if the_law.relation == "geq" else "≤"
        ax.axhline(the_law.number(), color=colour, lw=lw_, ls=ls, label=f"{tag}: {sign} {the_law.number():g}")
    ax.set_xticks(range(len(optimizers)), [_LABELS[o] for o in optimizers], fontsize=8, rotation=20)
    ax.set_xlim(-0.5, len(optimizers) - 0.5)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("final test error (fraction, 95% CI)")
    ax.set_title(f"law: {law.lhs and law.name}", fontsize=8)
    ax.legend(fontsize=7, loc="center right")
    ax.grid(alpha=0.3)
    first = rows.iloc[0]
    mu = f"‖μ‖ = {float(first['mu_norm']):g}"
    sparse = f", s = {int(first['sparsity'])}" if int(first["sparsity"]) else ", dense noise"
    fig.suptitle(f"{first['activation']}, n = {int(first['n'])}, d = {int(first['d'])}, m = {int(first['width'])}, {mu}"
                 f", σ_ξ = {float(first['sigma_xi']):g}{sparse}, {rows['seed'].nunique()} seeds", fontsize=9)
