r"""Figures of the giant-step claims, drawn from the claim's stored measurement (no re-simulation).

* Transitions (``leap1-transition-*``, ``leap2-threshold``): the excess mass
  :math:`(m_{V^*} - r/d)/(1 - r/d)` against :math:`\kappa` (:math:`n = d^\kappa`), one curve per
  :math:`d` (mean and 95% CI over seeds, clipped to the mass's range), the law's threshold
  :math:`\kappa^*` and the wrong law's threshold marked.
* Staircases (``staircase-a`` … ``staircase-d``): after each giant step the mass on :math:`U_1`, on
  :math:`U_2 \ominus U_1` and on :math:`V^*\ominus U_2`, in units of its random level
  :math:`\dim/d`, with what the check demands of each part drawn as one-sided markers (▲ learned:
  ≥ 10× random; ▼ not learned: ≤ 3× random) for the law and, in grey, for the wrong law of the
  negative control; where the wrong staircase splits a part of the law (example (d)), its own parts
  are measured and drawn in grey too.

Each ``draw(figure, frame, law, wrong_law, check, control)`` draws on a matplotlib ``Figure``
handed over by the report (object API; nothing global).
"""

from __future__ import annotations

import numpy as np

from ...compare import mean_ci
from .readouts import _masses, curves, new_part, second_moments

__all__ = ["draw_staircase", "draw_transition"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"
_PALETTE = ("#1f4e9c", "#2b8a3e", "#862e9c", "#c2255c", "#e67700", "#0b7285")


def _band(values: np.ndarray, low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), np.nan, np.nan
    est = mean_ci(values, method="t")
    return float(est.value), max(low, float(est.ci[0])), min(high, float(est.ci[1]))


def draw_transition(fig, frame, law, wrong_law, check, control, *, log: bool = False,
                    no_learning: bool = False) -> None:
    """Excess-mass curves per d with the predicted and the wrong threshold."""
    ax = fig.subplots()
    kappa_values, data = curves(frame, "excess_mass")
    kappas = np.asarray(kappa_values)
    floor = 1e-4
    for colour, (d, curve) in zip(_PALETTE * 4, sorted(data.items()), strict=False):
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
    ax.set_ylabel("excess mass on V*, (m − r/d)/(1 − r/d)" + ("\n[log scale, floor 1e-4]" if log else ""))
    first = frame.iloc[0]
    ax.set_title(f"one giant step on f* = {first['target']}, {first['activation']} student, p = {first['p']}, "
                 f"{frame['seed'].nunique()} seeds", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")


def _parts(staircase, r: int) -> list[tuple[str, np.ndarray, int | None]]:
    """The orthogonal parts of a staircase ``(U_1, U_2)``: ``(name, orthonormal rows, first step learned)``."""
    u1, u2 = staircase
    parts: list[tuple[str, np.ndarray, int | None]] = [("U₁", u1.numpy(), 1)] if u1.dim else []
    new = new_part(u1, u2)
    if len(new):
        parts.append(("U₂ ⊖ U₁", new, 2))
    if u2.dim < r:
        parts.append(("V* ⊖ U₂", u2.complement().numpy(), None))
    return parts


def _inside(basis: np.ndarray, subspace) -> float:
    """Fraction of the span of ``basis`` (orthonormal rows) inside ``subspace``: 1 inside, 0 orthogonal."""
    if subspace.dim == 0 or len(basis) == 0:
        return 0.0
    q = subspace.numpy()
    return float(np.sum((basis @ q.T) ** 2) / len(basis))


def _plain(subspace) -> str:
    from ..._text import subspace_text

    return subspace_text(subspace)


def draw_staircase(fig, frame, law, wrong_law, check, control) -> None:
    """Masses on the claimed staircase's parts over the steps, in units of their random level, with
    what the check demands of each (▲ learned: ≥ 10× random; ▼ not learned: ≤ 3× random) for the
    law (colour) and the wrong law of the negative control (grey), and the wrong law's own parts
    where they split a part of the law."""
    ax = fig.subplots()
    claimed, wrong = law.subspaces(), wrong_law.subspaces()
    r, d = claimed[0].ambient, int(frame["d"].iloc[0])
    steps = np.arange(3)
    ax.axhline(1.0, color=CONTROL, lw=1, alpha=0.6, label="random level (dim / d)")
    ax.axhspan(3.0, 10.0, color=CONTROL, alpha=0.07, lw=0, label="between the check's thresholds 3× and 10×")

    def measured(basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level = len(basis) / d
        ratios = [_masses(second_moments(frame, int(t), r), basis)[0] / level for t in steps]
        stats = np.array([_band(x, 0.0, 1.0 / level) for x in ratios])
        mean = stats[:, 0]
        return mean, np.nan_to_num(np.array([mean - stats[:, 1], stats[:, 2] - mean]), nan=0.0).clip(0)

    def demands(start: int | None, shift: float, colour: str, label: str, **style) -> None:
        """▲ at 10 from step ``start`` on, ▼ at 3 before (steps 1, 2; step 0 is the random start)."""
        up = [t for t in (1, 2) if start is not None and t >= start]
        down = [t for t in (1, 2) if t not in up]
        for ts, y, marker in ((up, 10.0, "^"), (down, 3.0, "v")):
            if ts:
                ax.plot(np.array(ts) + shift, [y] * len(ts), marker, color=colour, ms=9, mfc="none", mew=1.6, ls="none",
                        label=label, **style)
                label = "_nolegend_"

    law_parts = _parts(claimed, r)
    for colour, (name, basis, start) in zip(_PALETTE, law_parts, strict=False):
        mean, err = measured(basis)
        ax.errorbar(steps, mean, yerr=err, fmt="o-", color=colour, lw=2, ms=6, capsize=4, label=f"measured: {name}")
        when = f"learned from step {start}" if start is not None else "never learned"
        demands(start, 0.07, colour, f"law: {name} {when}")
        # the wrong law's demand on the same part, where it says something else and something whole
        fractions = [_inside(basis, w) for w in wrong]
        if all(f in (0.0, 1.0) or np.isclose(f, 0.0) or np.isclose(f, 1.0) for f in fractions):
            wrong_start = next((t for t, f in zip((1, 2), fractions, strict=False) if np.isclose(f, 1.0)), None)
            if wrong_start != start:
                when = f"learned from step {wrong_start}" if wrong_start is not None else "never learned"
                demands(wrong_start, -0.07, CONTROL, f"wrong law: {name} {when}")
    # parts of the wrong staircase that split a part of the law: measured and demanded on their own
    splitting = [(n, b, s) for n, b, s in _parts(wrong, r)
                 if any(0.01 < _inside(lb, _span(b, r)) < 0.99 for _, lb, _ in law_parts)]
    for style, (name, basis, start) in zip(("--", "-."), splitting, strict=False):
        mean, err = measured(basis)
        rows = "span{" + ", ".join(_vector(v) for v in basis) + "}"
        ax.errorbar(steps - 0.04, mean, yerr=err, fmt="s" + style, color=CONTROL, lw=1.4, ms=5, capsize=3,
                    label=f"measured: wrong law's {name.replace('U', 'W')} = {rows}")
        when = f"learned from step {start}" if start is not None else "never learned"
        demands(start, -0.1, CONTROL, f"wrong law: {name.replace('U', 'W')} {when}")
    ax.set_yscale("log")
    ax.set_xticks(steps, [f"t = {t}" for t in steps])
    ax.set_xlim(-0.3, 2.3)
    ax.set_xlabel("giant step t")
    ax.set_ylabel("mass on the part / its random level dim/d  (× random)")
    first = frame.iloc[0]
    fig.suptitle(f"staircase of f* = {first['target']}\nlaw: {' ⊂ '.join(_plain(u) for u in claimed)};   wrong law: "
                 f"{' ⊂ '.join(_plain(u) for u in wrong)}\nd = {d}, p = {first['p']}, n = {first['n']}, "
                 f"η = {first['eta']:g}, {frame['seed'].nunique()} seeds, 95% CI over seeds", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="outside lower center", ncols=2, frameon=False)


def _span(basis: np.ndarray, r: int):
    from ...symbolic import Subspace

    return Subspace.span(basis.tolist(), r) if len(basis) else Subspace.zero(r)


def _vector(row: np.ndarray) -> str:
    """``w2 − w3`` for a unit row of w*-coordinates (up to scale)."""
    scale = np.max(np.abs(row))
    terms = []
    for k, x in enumerate(row / scale, start=1):
        if abs(x) < 1e-9:
            continue
        coef = "" if np.isclose(abs(x), 1.0) else f"{abs(x):.3g} "
        terms.append(("− " if x < 0 else "+ ") + f"{coef}w{k}")
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else "−" + text[2:]
