r"""Figures of the online-SGD claims, drawn from the claim's stored measurement (no re-simulation).

:func:`draw_times`: the mean time to weak recovery (divided by the law's non-power factor, e.g. :math:`\log d`)
against :math:`d` on log–log axes, one point per seed and the mean with its 95% interval per :math:`d`, beside the
slopes of the law (Ben Arous, Gheissari, Jagannath 2021, arXiv 2003.10409) and of the wrong law of the control,
both drawn through the geometric centre of the means. Object API on the ``Figure`` the report hands over.
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci
from .laws import split_law

__all__ = ["draw_times"]


def draw_times(fig, frame, law, wrong_law, check, control) -> None:
    """Log–log time to weak recovery against d with the predicted slopes (module docstring)."""
    exponent, rest = split_law(law)
    wrong_exponent, _ = split_law(wrong_law)
    ax = fig.add_subplot(1, 1, 1)
    ds, means = [], []
    for d, rows in sorted(frame.groupby("d"), key=lambda item: item[0]):
        y = rows.sort_values("seed")["steps"].to_numpy(float) / rest.number(d=float(d))
        est = mean_ci(y)
        ax.scatter(np.full(len(y), d), y, s=6, alpha=0.25, color="grey")
        ax.errorbar([d], [est.value], yerr=[[est.value - est.ci[0]], [est.ci[1] - est.value]], fmt="o", color="k",
                    capsize=3)
        ds.append(float(d))
        means.append(est.value)
    ds_arr, centre = np.array(ds), np.exp(np.mean(np.log(means)))
    grid = np.geomspace(ds_arr.min(), ds_arr.max(), 50)
    middle = np.exp(np.mean(np.log(ds_arr)))
    for slope, label, style in ((exponent, f"law: slope {exponent:g}", "-"),
                                (wrong_exponent, f"wrong law: slope {wrong_exponent:g}", "--")):
        ax.plot(grid, centre * (grid / middle) ** slope, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("d")
    ax.set_ylabel("samples to overlap 1/2" + ("" if rest.value == 1 else f" / {rest.value}"))
    slope = np.polyfit(np.log(ds_arr), np.log(means), 1)[0]
    ax.set_title(f"{law.name}: slope of the log mean {slope:.3g}", fontsize=10)
    ax.legend(fontsize=8)
