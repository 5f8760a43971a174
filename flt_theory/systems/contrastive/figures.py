r"""Figures of the contrastive claims, drawn from the claim's stored measurement (no re-simulation).

Each figure shows the per-seed values of the compared quantity (one point per seed, the mean and its 95%
interval), the region the law allows and the region of the wrong law (the negative control). Drawn on a
matplotlib ``Figure`` handed over by the report (object API; nothing global).
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci

__all__ = ["draw_levels"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"


def _region(law, tolerance: float) -> tuple[float, float]:
    value = law.number()
    if law.relation == "geq":
        return value, np.inf
    if law.relation == "leq":
        return -np.inf, value
    return value - tolerance, value + tolerance


def draw_levels(fig, frame, law, wrong_law, check, control, *, column: str, tolerance: float, label: str,
                log: bool = False) -> None:
    """Per-seed values of ``column`` against the law's region and the wrong law's region."""
    ax = fig.subplots()
    values = frame.sort_values("seed")[column].to_numpy(float)
    est = mean_ci(values, method="t")
    x = np.zeros_like(values) + 0.05 * np.linspace(-1, 1, len(values))
    ax.plot(x, values, "o", color=MEASURED, alpha=0.6, label=f"measured, {len(values)} seeds")
    ax.errorbar([0.25], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="s", color=MEASURED,
                capsize=5, label=f"mean {est.value:.3g}, 95% CI [{est.ci[0]:.3g}, {est.ci[1]:.3g}]")
    top = max(float(np.nanmax(values)), law.number(), wrong_law.number()) * 1.5 + tolerance
    floor = max(1e-4, 0.3 * float(np.nanmin(values))) if log else -0.05
    for (low, high), colour, name, alpha in ((_region(law, tolerance), PREDICTED, f"law: {law.text()}", 0.18),
                                             (_region(wrong_law, tolerance), CONTROL, f"wrong law: {wrong_law.text()}", 0.12)):
        low, high = max(low, floor), min(high, top)
        ax.axhspan(low, high, color=colour, alpha=alpha, lw=0, label=name[:90])
    ax.set_xlim(-0.4, 0.6)
    ax.set_xticks([])
    if log:
        ax.set_yscale("log")
        ax.set_ylim(floor, top)
    else:
        ax.set_ylim(floor, top)
    ax.set_ylabel(label)
    first = frame.iloc[0]
    ax.set_title(f"{first['mode']}-modal, n = {first['n']}, d = {first['d']}, n·SNR² = {first['n_snr2']:g}, "
                 f"C_μ = {first['c_mu']:g}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
