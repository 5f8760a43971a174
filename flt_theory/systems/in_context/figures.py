r"""Figures of the in-context claims, drawn from the claim's stored measurement (no re-simulation).

* ``unseen-task-risk``: the relative ICL risk on unseen tasks against the number :math:`K` of pretraining tasks
  (per seed and mean with 95% CI), the law :math:`\max(0, 1 - K/k)` with its tolerance band and the wrong law.
* the concept/semantics claims use the per-seed level plot of :mod:`flt_theory.systems.levels`
  (:func:`draw_concepts`), titled with the transformer's setting.

Both read the frame through :mod:`.readouts`; drawn on a matplotlib ``Figure`` handed over by the report (object
API; nothing global).
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci
from ..levels import draw_levels
from .readouts import concept_setting, risk_curve

__all__ = ["draw_concepts", "draw_risk_curve"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"


def draw_risk_curve(fig, frame, law, wrong_law, check, control, *, tolerance: float) -> None:
    """Unseen-task risk against K with the law's curve and the wrong law's."""
    ax = fig.subplots()
    k, curve = risk_curve(frame)
    ks = [K for K, _ in curve]
    for K, rows in curve:
        values = rows["risk_new"].to_numpy(float)
        ax.plot(np.full_like(values, K), values, "o", color=MEASURED, alpha=0.35, ms=4)
        est = mean_ci(values, method="t")
        ax.errorbar([K], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="s", color=MEASURED,
                    capsize=4)
    grid = np.linspace(min(ks), max(ks), 200)
    predicted = np.array([law.number(K=float(g), k=k) for g in grid])
    ax.plot(grid, predicted, color=PREDICTED, lw=2, label=f"law: {law.text()}"[:80])
    ax.fill_between(grid, predicted - tolerance, predicted + tolerance, color=PREDICTED, alpha=0.12, lw=0)
    ax.plot(grid, [wrong_law.number(K=float(g), k=k) for g in grid], color=CONTROL, lw=1.5, ls=":",
            label=f"wrong law: {wrong_law.text()}"[:80])
    ax.plot([], [], "s", color=MEASURED, label=f"measured (mean, 95% CI), {frame['seed'].nunique()} seeds")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"number K of pretraining tasks (k = {k} features)")
    ax.set_ylabel("relative ICL risk on unseen tasks")
    ax.set_title("linear-attention ICL with a two-layer feature map (infinite-prompt limit)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")


def draw_concepts(fig, frame, law, wrong_law, check, control, *, column: str, tolerance: float, label: str) -> None:
    """Per-seed values of ``column`` against the law's region and the wrong law's region, titled with the setting."""
    first = concept_setting(frame)
    draw_levels(fig, frame, law, wrong_law, check, control, column=column, tolerance=tolerance, label=label)
    fig.axes[0].set_title(f"two-layer transformer, K = {first['concepts']} concepts, D = {first['dim']}, "
                          f"L = {first['length']}, {first['seeds']} seeds", fontsize=10)
