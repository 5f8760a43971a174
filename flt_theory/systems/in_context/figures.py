r"""Figures of the in-context claims, drawn from the claim's stored measurement (no re-simulation).

* ``unseen-task-risk``: the relative ICL risk on unseen tasks against the number :math:`K` of pretraining tasks
  (per seed and mean with 95% CI), the law :math:`\max(0, 1 - K/k)` with its tolerance band and the wrong law.
* the concept/semantics claims use the per-seed level plot of :mod:`flt_theory.systems.levels`.
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci

__all__ = ["draw_risk_curve"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"


def draw_risk_curve(fig, frame, law, wrong_law, check, control, *, tolerance: float) -> None:
    """Unseen-task risk against K with the law's curve and the wrong law's."""
    ax = fig.subplots()
    ks = sorted(int(t) for t in frame["tasks"].unique())
    k = int(frame["k"].iloc[0])
    for K in ks:
        values = frame[frame["tasks"] == K]["risk_new"].to_numpy(float)
        ax.plot(np.full_like(values, K), values, "o", color=MEASURED, alpha=0.35, ms=4)
        est = mean_ci(values, method="t")
        ax.errorbar([K], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="s", color=MEASURED,
                    capsize=4)
    grid = np.linspace(min(ks), max(ks), 200)
    curve = np.array([law.number(K=float(g), k=k) for g in grid])
    ax.plot(grid, curve, color=PREDICTED, lw=2, label=f"law: {law.text()}"[:80])
    ax.fill_between(grid, curve - tolerance, curve + tolerance, color=PREDICTED, alpha=0.12, lw=0)
    ax.plot(grid, [wrong_law.number(K=float(g), k=k) for g in grid], color=CONTROL, lw=1.5, ls=":",
            label=f"wrong law: {wrong_law.text()}"[:80])
    ax.plot([], [], "s", color=MEASURED, label=f"measured (mean, 95% CI), {frame['seed'].nunique()} seeds")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"number K of pretraining tasks (k = {k} features)")
    ax.set_ylabel("relative ICL risk on unseen tasks")
    ax.set_title("linear-attention ICL with a two-layer feature map (infinite-prompt limit)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
