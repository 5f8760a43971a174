r"""A per-seed level against a law: its comparison and its figure, shared by the systems whose claims read one number.

A claim of this kind measures one quantity per seed (a column of the claim's frame) and states its level:
``approx``/``to``/``eq`` (the value within ``± tolerance`` of the law's number), ``geq`` or ``leq``.
:func:`compare_level` decides it with the interval checks of :mod:`flt_theory.compare` (Student-t 95% interval
of the mean over seeds); :func:`draw_levels` shows the per-seed values against the law's region and the wrong
law's region (the negative control). Used by the contrastive and in-context systems.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..compare import check_at_least, check_at_most, mean_ci
from ..compare.result import CheckResult, all_of

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..symbolic.law import Law

__all__ = ["compare_level", "draw_levels", "level_region"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"


def compare_level(frame: pd.DataFrame, law: Law, *, column: str, tolerance: float) -> CheckResult:
    r"""The per-seed ``column`` against ``law``: ``approx``/``to``/``eq``: the law is the null hypothesis and fails
    only when the 95% interval of the mean excludes ``law.number() ± tolerance`` (``consistent``; its p-value
    enters the family-wise level of ``flt check``); ``geq``/``leq``: the data must demonstrate the side (the whole
    interval on that side of ``law.number()``)."""
    values = frame.sort_values("seed")[column].to_numpy(float)
    value = law.number()
    if law.relation == "geq":
        return check_at_least(values, value, mode="demonstrated", name=f"{column} ≥ {value:g}")
    if law.relation == "leq":
        return check_at_most(values, value, mode="demonstrated", name=f"{column} ≤ {value:g}")
    parts = [check_at_least(values, value - tolerance, mode="consistent",
                            name=f"{column} ≥ {value:g} − {tolerance:g}"),
             check_at_most(values, value + tolerance, mode="consistent",
                           name=f"{column} ≤ {value:g} + {tolerance:g}")]
    return all_of(f"{column} ≈ {value:g} (± {tolerance:g})", value, parts)


def level_region(law: Law, tolerance: float) -> tuple[float, float]:
    """The values ``law`` allows: ``[v, inf)`` (``geq``), ``(-inf, v]`` (``leq``), else ``v ± tolerance``."""
    value = law.number()
    if law.relation == "geq":
        return value, np.inf
    if law.relation == "leq":
        return -np.inf, value
    return value - tolerance, value + tolerance


def draw_levels(fig, frame, law, wrong_law, check, control, *, column: str, tolerance: float, label: str,
                log: bool = False) -> None:
    """Per-seed values of ``column`` against the law's region and the wrong law's region, on a matplotlib
    ``Figure`` handed over by the report (object API; the caller sets the title)."""
    ax = fig.subplots()
    values = frame.sort_values("seed")[column].to_numpy(float)
    est = mean_ci(values, method="t")
    x = np.zeros_like(values) + 0.05 * np.linspace(-1, 1, len(values))
    ax.plot(x, values, "o", color=MEASURED, alpha=0.6, label=f"measured, {len(values)} seeds")
    ax.errorbar([0.25], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="s", color=MEASURED,
                capsize=5, label=f"mean {est.value:.3g}, 95% CI [{est.ci[0]:.3g}, {est.ci[1]:.3g}]")
    top = max(float(np.nanmax(values)), law.number(), wrong_law.number()) * 1.5 + tolerance
    floor = max(1e-4, 0.3 * float(np.nanmin(values))) if log else -0.05
    for (low, high), colour, name, alpha in ((level_region(law, tolerance), PREDICTED, f"law: {law.text()}", 0.18),
                                             (level_region(wrong_law, tolerance), CONTROL,
                                              f"wrong law: {wrong_law.text()}", 0.12)):
        low, high = max(low, floor), min(high, top)
        ax.axhspan(low, high, color=colour, alpha=alpha, lw=0, label=name[:90])
    ax.set_xlim(-0.4, 0.6)
    ax.set_xticks([])
    if log:
        ax.set_yscale("log")
    ax.set_ylim(floor, top)
    ax.set_ylabel(label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
