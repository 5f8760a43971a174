r"""Figures of the giant-step claims, drawn from the claim's stored measurement (no re-simulation).

* Transitions (``leap1-transition-*``, ``leap2-threshold``): the excess mass
  :math:`(m_{V^*} - r/d)/(1 - r/d)` against :math:`\kappa` (:math:`n = d^\kappa`), one curve per
  :math:`d` (mean and 95% CI over seeds, clipped to the mass's range), the law's threshold
  :math:`\kappa^*` and the wrong law's threshold marked.
* Staircases (``staircase-a`` … ``staircase-d``): after each giant step the mass on :math:`U_1`, on
  :math:`U_2 \ominus U_1` and on :math:`V^*\ominus U_2`, in units of its random level
  :math:`\dim/d`, with the check's thresholds (10× learned, 3× not learned) drawn.

Each ``draw(figure, frame, law, wrong_law, check, control)`` draws on a matplotlib ``Figure``
handed over by the report (object API; nothing global).
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci

__all__ = ["draw_staircase", "draw_transition"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"
_PALETTE = ("#1f4e9c", "#2b8a3e", "#862e9c", "#c2255c", "#e67700", "#0b7285")


def _band(values: np.ndarray, low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), np.nan, np.nan
    est = mean_ci(values, method="t")
    return float(est.value), max(low, float(est.ci[0])), min(high, float(est.ci[1]))


def draw_transition(fig, frame, law, wrong_law, check, control, *, log: bool = False, no_learning: bool = False) -> None:
    """Excess-mass curves per d with the predicted and the wrong threshold."""
    from .declaration import curves

    ax = fig.subplots()
    kappas, data = curves(frame, "excess_mass")
    kappas = np.asarray(kappas)
    floor = 1e-4
    for colour, (d, curve) in zip(_PALETTE * 4, sorted(data.items())):
        stats = np.array([_band(curve[:, j], -1.0, 1.0) for j in range(curve.shape[1])])
        mean, low, high = stats[:, 0], stats[:, 1], stats[:, 2]
        if log:
            mean, low, high = (np.clip(a, floor, None) for a in (mean, low, high))
        ax.plot(kappas, mean, "o-", color=colour, lw=1.8, ms=5, label=f"measured, d = {d}")
        ax.fill_between(kappas, low, high, color=colour, alpha=0.15, lw=0)
    threshold, wrong = float(law.exponent("d")), float(wrong_law.exponent("d"))
    ax.axvline(threshold, color=PREDICTED, lw=2, ls="--", label=f"law: threshold κ* = {threshold:g}")
    ax.axvline(wrong, color=CONTROL, lw=1.5, ls=":", label=f"wrong law (control): κ* = {wrong:g}")
    level = (check.get("details") or {}).get("level")
    if isinstance(level, (int, float)):
        ax.axhline(float(level), color=MEASURED, lw=1, ls="-.", alpha=0.7, label=f"half-saturation level {level:.3g}")
    pad = 0.04 * (kappas.max() - kappas.min() or 1.0)
    ax.set_xlim(kappas.min() - pad, kappas.max() + pad)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("κ   (samples per step n = ⌈d^κ⌉)")
    ax.set_ylabel("excess mass on V*, (m − r/d)/(1 − r/d)" + ("  [log scale, floor 1e-4]" if log else ""))
    first = frame.iloc[0]
    ax.set_title(f"one giant step on f* = {first['target']}, {first['activation']} student, p = {first['p']}, "
                 f"{frame['seed'].nunique()} seeds", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")


def draw_staircase(fig, frame, law, wrong_law, check, control) -> None:
    """Masses on the claimed staircase's parts over the steps, in units of their random level."""
    from .declaration import _masses, new_part, second_moments

    ax = fig.subplots()
    u1, u2 = law.subspaces()
    r, d = u1.ambient, int(frame["d"].iloc[0])
    steps = np.arange(3)
    parts = [("U₁", u1.numpy(), 1)]
    new = new_part(u1, u2)
    if len(new):
        parts.append(("U₂ ⊖ U₁", new, 2))
    if u2.dim < r:
        parts.append(("V* ⊖ U₂", u2.complement().numpy(), None))
    ax.axhline(1.0, color=CONTROL, lw=1, alpha=0.6, label="random level (dim / d)")
    ax.axhline(10.0, color=CONTROL, lw=1, ls="--", alpha=0.6, label="check: learned ≥ 10× random")
    ax.axhline(3.0, color=CONTROL, lw=1, ls=":", alpha=0.6, label="check: not learned ≤ 3× random")
    for colour, (label, basis, start) in zip(_PALETTE, parts):
        level = len(basis) / d
        ratios = [_masses(second_moments(frame, t, r), basis)[0] / level for t in steps]
        stats = np.array([_band(x, 0.0, 1.0 / level) for x in ratios])
        mean = stats[:, 0]
        err = np.nan_to_num(np.array([mean - stats[:, 1], stats[:, 2] - mean]), nan=0.0).clip(0)
        ax.errorbar(steps, mean, yerr=err, fmt="o-", color=colour, lw=2, ms=6, capsize=4, label=f"measured: {label}")
        predicted = [10.0 if start is not None and t >= start else 1.0 for t in steps]
        when = f"learned from step {start}" if start is not None else "never learned"
        ax.plot(steps + 0.06, predicted, "s--", color=colour, mfc="none", ms=9, mew=1.5, lw=1, alpha=0.8,
                label=f"law: {label} {when}")
    ax.set_yscale("log")
    ax.set_xticks(steps, [f"t = {t}" for t in steps])
    ax.set_xlabel("giant step t")
    ax.set_ylabel("mass on the subspace / its random level dim/d")
    first = frame.iloc[0]
    ax.set_title(f"staircase of f* = {first['target']}: d = {d}, p = {first['p']}, n = {first['n']}, η = {first['eta']:g}, "
                 f"{frame['seed'].nunique()} seeds", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
