r"""Figures of the attention claims, drawn from the claim's stored measurement (no re-simulation), read through
:mod:`.readouts` (the same arrays the comparisons read).

* ``boundary``: the test loss against :math:`n\,\mathrm{SNR}^2` per :math:`n`, and the measured boundary
  :math:`\mathrm{SNR}^*(n)` (test loss :math:`= \frac12\log 2`) against the law :math:`n^{-1/2}` and the wrong law
  (Jiang, Huang, Zhang, Suzuki, Nie 2024, arXiv 2409.19345);
* ``regimes``: test loss, attention on the signal token and value alignment across :math:`n\,\mathrm{SNR}^2` at the
  largest :math:`n`: benign overfitting on the right, harmful on the left.

Drawn on a matplotlib ``Figure`` handed over by the report (object API; nothing global).
"""

from __future__ import annotations

import math

import numpy as np

from .readouts import LEVEL, crossings, loss_curves, regime_curves

__all__ = ["draw_boundary", "draw_regimes"]


def draw_boundary(fig, frame, law, wrong_law, check, control) -> None:
    """Test loss against n·SNR² per n, and the measured SNR*(n) against both laws."""
    ax, bx = fig.subplots(1, 2)
    palette = ("#1f4e9c", "#2b8a3e", "#862e9c", "#c2255c", "#e67700")
    for colour, (n, (x, mean, sd)) in zip(palette, loss_curves(frame).items(), strict=False):
        ax.plot(x, mean.to_numpy(), "o-", color=colour, ms=4, label=f"n = {n}")
        ax.fill_between(x, mean - sd, mean + sd, color=colour, alpha=0.15, lw=0)
    ax.axhline(LEVEL, color="#7a7a7a", ls=":", label="level ½ log 2")
    ax.axhline(math.log(2), color="#7a7a7a", ls="--", lw=1, label="log 2")
    ax.set_xscale("log")
    ax.set_xlabel("n · SNR²")
    ax.set_ylabel("test loss at L_S ≤ ε (mean ± sd over seeds)")
    ax.legend(fontsize=7)
    ns, star = crossings(frame)
    ok = np.isfinite(star).all(axis=1)
    mean = np.exp(np.log(star[ok]).mean(0))
    bx.errorbar(ns, mean, yerr=star[ok].std(0), fmt="o", color="#1f4e9c",
                capsize=3, label="measured SNR*(n)")
    grid = np.geomspace(ns.min(), ns.max(), 50)
    for lw_, ls, lw_law, colour in ((2, "--", law, "#d9480f"), (1.5, ":", wrong_law, "#7a7a7a")):
        e = float(lw_law.exponent("n"))
        bx.plot(grid, mean[0] * (grid / ns[0]) ** e, ls, color=colour, lw=lw_, label=f"{lw_law.name}: n^({e:g})")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("n")
    bx.set_ylabel("SNR* (test loss = ½ log 2)")
    bx.legend(fontsize=7)
    fig.suptitle(f"single-head attention, L = {int(frame['tokens'].iloc[0])}, d = {int(frame['d'].iloc[0])}, "
                 f"{frame['seed'].nunique()} seeds", fontsize=9)


def draw_regimes(fig, frame, law, wrong_law, check, control) -> None:
    """Observables across n·SNR² at the largest n: test loss, attention on the signal token, value alignments."""
    n = int(frame["n"].max())
    x, means = regime_curves(frame, n)
    ax = fig.subplots()
    ax.plot(x, means["test_loss"], "o-", color="#c2255c", label="test loss")
    ax.plot(x, means["attention_signal"], "s-", color="#1f4e9c", label="attention on signal token")
    ax.plot(x, means["share"], "^-", color="#2b8a3e", label="value: noise / signal alignment")
    ax.axhline(1 / int(frame["tokens"].iloc[0]), color="#7a7a7a", ls=":", label="uniform attention 1/L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n · SNR²")
    ax.set_title(f"benign (right) vs harmful (left) overfitting, n = {n}", fontsize=9)
    ax.legend(fontsize=7)
