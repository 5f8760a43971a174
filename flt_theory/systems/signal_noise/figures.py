r"""Figures of the signal-noise claims, drawn from the claim's stored measurement (no re-simulation).

* Boundaries (``relu-boundary-slope``: the phase diagram; ``relu3-boundary-d``, ``relu3-boundary-slope``):
  the measured :math:`\mathrm{SNR}^*` per :math:`n` (or :math:`d`), mean and 95% CI over seeds, on top of the
  mean final test error over the :math:`(n, \mathrm{SNR})` grid where it was measured; the law's boundary
  :math:`\mathrm{SNR}^* = C x^{b}` (``law.exponent``; for the finding, the wedge between its two exponents)
  and the wrong law's, each anchored at the geometric mean of the measured points (the laws fix the
  exponent, not the constant).
* Trajectories (``relu-growth-slopes``): :math:`\max\gamma` and :math:`\bar\rho` along the early phase with
  the derived straight lines ``law.numbers(...)`` :math:`\times t` and the wrong law's.
* Collapse (``relu-collapse``): every :math:`(n, d)`'s test-error curve against :math:`X` and against the wrong
  law's :math:`n\,\mathrm{SNR}^2`. Tail (``relu-exponential-tail``): :math:`-\log\mathrm{err}` with and without
  the :math:`\frac12\log X` prefactor against :math:`X`, the law's straight line and the wrong law's :math:`\sqrt X`.
* Two-stage curve (``label-noise-rise``): test error and fraction of flipped samples fitted along GD,
  per measured point, with :math:`\tau/2`.

Each ``draw(figure, frame, law, wrong_law, check, control)`` draws on a matplotlib ``Figure`` handed over
by the report (object API; nothing global).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from ...compare import mean_ci
from .readouts import boundary_table, error_curves, growth_prediction

__all__ = ["draw_boundary", "draw_collapse", "draw_growth", "draw_label_noise", "draw_tail"]

MEASURED, PREDICTED, CONTROL = "#1f4e9c", "#d9480f", "#7a7a7a"
_PALETTE = ("#1f4e9c", "#2b8a3e", "#862e9c", "#c2255c", "#e67700", "#0b7285")
#: (marker, line style) pairs that tell apart the values of a second size drawn in one colour.
_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."), ("v", (0, (5, 1, 1, 1))))


def _cycled(options: tuple, values: list) -> dict:
    """Each of ``values`` (sorted) mapped to one of ``options``, cycling when there are more values than options."""
    return {value: options[i % len(options)] for i, value in enumerate(values)}


def _curve_styles(curves: dict) -> tuple[dict, dict]:
    """``(colours, styles)`` of the test-error curves keyed ``(n, d)``: a colour per value of :math:`n`, a
    (marker, line style) per value of :math:`d`, so that every curve of a grid is drawn and told apart."""
    ns, ds = (sorted({point[i] for point in curves}) for i in (0, 1))
    return _cycled(_PALETTE, ns), _cycled(_STYLES, ds)


def _band(values: np.ndarray, low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return (float(values.mean()) if values.size else math.nan), math.nan, math.nan
    est = mean_ci(values, method="t")
    return float(est.value), max(low, float(est.ci[0])), min(high, float(est.ci[1]))


def _log_axes(axes, *, y: bool = False, xlabel: str | None = None) -> None:
    """Log scale in x (and in y with ``y``), ``xlabel`` when given, and a light grid, on each of ``axes``."""
    for ax in axes:
        ax.set_xscale("log")
        if y:
            ax.set_yscale("log")
        if xlabel is not None:
            ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3, which="both")


def _slope_of(law, variable: str) -> float:
    """The exponent of ``variable`` a boundary law predicts: the value itself for a law about the slope (a number)."""
    value = sp.sympify(law.value)
    return float(value) if value.is_number else float(law.exponent(variable))


def _law_exponents(law) -> tuple[float, ...]:
    return (float(law.value.inf), float(law.value.sup)) if isinstance(law.value, sp.Interval) else ()


def draw_boundary(fig, frame, law, wrong_law, check, control, *, variable: str) -> None:
    """Boundary points with CIs, the phase diagram where the grid was measured, law and wrong law."""
    ax = fig.subplots()
    xs, y, dropped = boundary_table(frame, variable)
    grid = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("err_") and frame[c].notna().any())
    if grid and variable == "n":
        snrs = np.array([float(frame[f"snr_{k}"].dropna().iloc[0]) for k in grid])
        errors = np.array([[frame.loc[frame["n"] == x, f"err_{k}"].mean() for x in xs] for k in grid])  # (snr, n)
        edges = lambda v: np.exp(np.concatenate([[1.5 * np.log(v[0]) - 0.5 * np.log(v[1])],  # noqa: E731
                                                 0.5 * (np.log(v[1:]) + np.log(v[:-1])),
                                                 [1.5 * np.log(v[-1]) - 0.5 * np.log(v[-2])]]))
        mesh = ax.pcolormesh(edges(xs), edges(snrs), errors, cmap="RdYlBu_r", vmin=0, vmax=0.5, shading="flat")
        fig.colorbar(mesh, ax=ax, label="final test error (fraction misclassified), mean over seeds")
    stats = np.array([_band(y[:, j], 0.0) for j in range(len(xs))])
    mean = stats[:, 0]
    err = np.nan_to_num(np.array([mean - stats[:, 1], stats[:, 2] - mean]), nan=0.0).clip(0)
    ax.errorbar(xs, mean, yerr=err, fmt="o", color="black", mfc="white", ms=6, capsize=4, lw=1.5, zorder=5,
                label=f"measured SNR* (mean, 95% CI, {len(y)} seeds)" + (f"; {dropped} dropped" if dropped else ""))
    anchor_x, anchor_y = math.exp(np.log(xs).mean()), math.exp(np.log(mean).mean())
    line_x = np.geomspace(xs[0], xs[-1], 50)

    def line(b: float) -> np.ndarray:
        return anchor_y * (line_x / anchor_x) ** b

    wedge = _law_exponents(law)
    if wedge:
        ax.fill_between(line_x, line(wedge[0]), line(wedge[1]), color=PREDICTED, alpha=0.18, lw=0,
                        label=f"law (finding): exponent in ({wedge[0]:.3g}, {wedge[1]:.3g})")
    else:
        b = _slope_of(law, variable)
        ax.plot(line_x, line(b), "-", color=PREDICTED, lw=2.2,
                label=f"law: SNR* ∝ {variable}^({b:.3g}) ({law.source.authors.split(',')[0]} et al.)")
    b_wrong = _slope_of(wrong_law, variable)
    ax.plot(line_x, line(b_wrong), "--", color=CONTROL, lw=1.8,
            label=f"wrong law (control): SNR* ∝ {variable}^({b_wrong:.3g})")
    fitted = check.get("measured") if isinstance(check, dict) else None
    if isinstance(fitted, (int, float)):
        limit = (check.get("details") or {}).get("limit") or {}
        estimate = limit.get("estimate")
        # decided in the limit: the measured value is the limit's estimate (a finding's one fit only shows its limit)
        in_limit = isinstance(estimate, (int, float)) and math.isclose(estimate, fitted, rel_tol=1e-9, abs_tol=1e-12)
        ax.plot([], [], " ", label=f"{'exponent in the limit' if in_limit else 'fitted exponent'} {fitted:.3f}")
    _log_axes((ax,), y=True)
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())  # the measured sizes label the axis (minor labels overlapped)
    ax.set_xticks(xs, [f"{v:.3g}" for v in xs])
    first = frame.iloc[0]
    if variable == "n":
        ax.set_xlabel("training samples n (log scale)")
    else:
        ax.set_xlabel("dimension d (log scale)")
    ax.set_ylabel("SNR = ||μ|| / (σ_ξ √d)  (dimensionless, log scale)")
    other = "d" if variable == "n" else "n"
    values = sorted(int(v) for v in frame[other].unique())  # d grows with n inside Cao et al.'s Condition 4.2
    text = (lambda v: f"{v:.3g}") if other == "d" else str
    fixed = f"{other} = {text(values[0])}" + (f"..{text(values[-1])}" if len(values) > 1 else "")
    ax.set_title(f"{first['activation']}: boundary where the final test error = {first['level']:g}; {fixed}, "
                 f"m = {first['width']}",
                 fontsize=9)
    ax.legend(fontsize=7, loc="lower left")


def draw_growth(fig, frame, law, wrong_law, check, control) -> None:
    """max γ and ρ̄ against the step over the early phase, with the law's slopes and the wrong law's."""
    rows = frame.sort_values("seed")
    ks = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("step_"))
    steps = np.array([rows[f"step_{k}"].iloc[0] for k in ks])
    early = float(rows["early_steps"].min())
    shown = steps <= early
    first = rows.iloc[0]
    right, wrong = growth_prediction(law, first), growth_prediction(wrong_law, first)
    axes = fig.subplots(1, 2)
    for i, (ax, key, label) in enumerate(zip(axes, ("gamma", "rho"),
                                             ("max_{j,r} γ_{j,r}  (signal coefficient, units of ⟨w, μ⟩)",
                                              "ρ̄ = mean_i max_r ρ_{ỹ_i,r,i}  (units of ⟨w, ξ_i⟩)"), strict=True)):
        values = np.stack([rows[f"{key}_{k}"].to_numpy(float) for k in ks], axis=1)  # (seeds, samples)
        stats = np.array([_band(values[:, j]) for j in range(len(ks))])
        ax.plot(steps[shown], stats[shown, 0], "o", color=MEASURED, ms=5, label=f"measured (mean, {len(rows)} seeds)")
        ax.fill_between(steps[shown], stats[shown, 1], stats[shown, 2], color=MEASURED, alpha=0.2, lw=0)
        t = np.linspace(0, steps[shown].max(), 50)
        ax.plot(t, right[i] * t, "-", color=PREDICTED, lw=2, label=f"law: slope {right[i]:.3g} per step")
        if not math.isclose(wrong[i], right[i]):
            ax.plot(t, wrong[i] * t, "--", color=CONTROL, lw=1.8, label=f"wrong law: slope {wrong[i]:.3g} (no 1 − 2τ)")
        ax.set_xlabel("GD step t (early phase: |f(x_i)| ≤ 0.05)")
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"ReLU early phase: n = {first['n']}, d = {int(first['d']):.0e}, m = {first['width']}, "
                 f"τ = {first['label_noise']:g}, "
                 f"η = {first['eta']:.3g}, ||μ|| = {first['mu_norm']:.3g}", fontsize=9)


def draw_label_noise(fig, frame, law, wrong_law, check, control) -> None:
    """Test error and flipped-fitted fraction against the GD step, one curve per measured point."""
    from .laws import value_in_regime

    ks = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("error_"))
    ax, ax2 = fig.subplots(1, 2)
    points = frame[["n", "d", "n_snr2", "label_noise"]].drop_duplicates().sort_values(["n_snr2", "d"]).to_numpy()
    tau = float(points[0][3])
    for colour, (n, d, n_snr2, _) in zip(itertools.cycle(_PALETTE), points):  # every point, colours reused
        rows = frame[(frame["d"] == d) & np.isclose(frame["n_snr2"], n_snr2)].sort_values("seed")
        snr = sp.sqrt(sp.nsimplify(n_snr2) / int(n))
        inside = math.isfinite(value_in_regime(law, tau=tau, d=int(d), n=int(n), snr=snr))
        label = f"d/n = {int(d) // int(n)}, n SNR² = {n_snr2:g}" + ("" if inside else " (out of regime)")
        steps = np.stack([rows[f"step_{k}"].to_numpy(float) for k in ks], axis=1)
        errors = np.stack([rows[f"error_{k}"].to_numpy(float) for k in ks], axis=1)
        fitted = np.stack([rows[f"fitted_{k}"].to_numpy(float) for k in ks], axis=1)
        grid = np.geomspace(1, steps.max(), 60)
        mean_err = np.mean([np.interp(grid, s, e) for s, e in zip(steps, errors, strict=True)], axis=0)
        mean_fit = np.mean([np.interp(grid, s, f) for s, f in zip(steps, fitted, strict=True)], axis=0)
        style = "-" if inside else ":"
        ax.plot(grid, mean_err, style, color=colour, lw=2.2 if inside else 1.5, label=label)
        ax2.plot(grid, mean_fit, style, color=colour, lw=2.2 if inside else 1.5, label=label)
    ax.axhline(tau / 2, color=PREDICTED, lw=1.8, ls="--", label=f"law: final error ≥ τ/2 = {tau / 2:g} (wrong law: ≤)")
    ax.axhline(tau, color=CONTROL, lw=1, ls=":", label=f"τ = {tau:g} (flipped fraction)")
    _log_axes((ax, ax2), xlabel="GD step t (log scale)")
    ax.set_ylabel("test error against the true label (fraction)")
    ax2.set_ylabel("fraction of flipped training samples fitted")
    ax.legend(fontsize=7, loc="upper left")
    ax2.legend(fontsize=7, loc="upper left")
    first = frame.iloc[0]
    fig.suptitle(f"ReLU, label noise τ = {tau:g}, n = {first['n']}, m = {first['width']}: mean over "
                 f"{frame['seed'].nunique()} seeds (solid: in the law's regime; dotted: out of regime)", fontsize=9)


def draw_collapse(fig, frame, law, wrong_law, check, control) -> None:
    r"""The test-error curves of every :math:`(n, d)` against Kou et al.'s :math:`X = n\|\mu\|^4/(\sigma_\xi^4 d)`
    (left: they collapse) and against the wrong law's variable :math:`n\,\mathrm{SNR}^2 = \sqrt{nX/d}` (right:
    they do not); mean and 95% CI over seeds, log scales; one colour per :math:`n`, one marker and line style per
    :math:`d`."""
    from matplotlib.lines import Line2D

    curves = error_curves(frame)
    left, right = fig.subplots(1, 2, sharey=True)
    colours, styles = _curve_styles(curves)
    ns, ds = sorted(colours), sorted(styles)
    for (n, d), (xs, errors) in sorted(curves.items()):
        stats = np.array([_band(errors[:, k], 0.0, 0.5) for k in range(len(xs))])
        marker, line = styles[d]
        for ax, x in ((left, xs), (right, np.sqrt(n * xs / d))):
            ax.plot(x, stats[:, 0], marker=marker, ls=line, color=colours[n], ms=3.0, lw=1.1)
            ax.fill_between(x, np.maximum(stats[:, 1], 1e-12), stats[:, 2], color=colours[n], alpha=0.12, lw=0)
    _log_axes((left, right), y=True)
    left.set_xlabel("X = n ||μ||⁴ / (σ_ξ⁴ d)  (law's variable, log scale)")
    right.set_xlabel("n SNR² = √(n X / d)  (wrong law's variable, log scale)")
    left.set_ylabel("final test error (fraction misclassified, log scale)")
    handles = ([Line2D([], [], color=colours[n], lw=1.6, label=f"n = {n}") for n in ns]
               + [Line2D([], [], color="0.3", marker=styles[d][0], ls=styles[d][1], ms=3.5, label=f"d = {d:.0e}")
                  for d in ds])
    left.legend(handles=handles, fontsize=7, loc="lower left", ncol=2,
                title=f"mean, 95% CI over {frame['seed'].nunique()} seeds ({len(curves)} curves)", title_fontsize=7)
    first = frame.iloc[0]
    fig.suptitle(f"ReLU, m = {first['width']}: the whole test-error curve is a function of X alone "
                 f"(law, Kou et al.), not of n SNR² (wrong law)", fontsize=9)


def draw_tail(fig, frame, law, wrong_law, check, control) -> None:
    r""":math:`L(X) = -\log\mathrm{err} - \frac12\log X` and the raw :math:`-\log\mathrm{err}` against :math:`X` per
    :math:`(n, d)` (mean over seeds), with the law's straight line (slope fitted on the last window) and the
    wrong law's :math:`\sqrt X` through the same two end points."""
    from matplotlib.lines import Line2D

    curves = error_curves(frame)
    ax = fig.subplots()
    colours, styles = _curve_styles(curves)
    for (n, d), (xs, errors) in sorted(curves.items()):
        shown = xs >= 0.5
        with np.errstate(divide="ignore"):
            raw = -np.log(errors).mean(axis=0)[shown]
        ax.plot(xs[shown], raw - 0.5 * np.log(xs[shown]), marker=styles[d][0], ls="-", color=colours[n], ms=3.5,
                lw=1.3)
        ax.plot(xs[shown], raw, ":", color=colours[n], lw=1.0)
    for n in sorted(colours):
        ax.plot([], [], "-", color=colours[n], lw=1.6, label=f"n = {n}")
    for d in sorted(styles):
        ax.add_line(Line2D([], [], color="0.3", marker=styles[d][0], ls="-", ms=3.5, label=f"d = {d:.0e}"))
    ax.plot([], [], "k:", lw=1.2, label="dotted: raw −log err (no prefactor)")
    xs, errors = next(iter(curves.values()))
    with np.errstate(divide="ignore"):
        corrected = (-np.log(errors).mean(axis=0)) - 0.5 * np.log(xs)
    last = len(xs) - 1
    first = int(np.argmin(abs(np.log(xs) - math.log(xs[last] / 4))))
    t = np.linspace(xs[first], xs[last], 50)
    slope = (corrected[last] - corrected[first]) / (xs[last] - xs[first])
    ax.plot(t, corrected[first] + slope * (t - xs[first]), "-", color=PREDICTED, lw=2.4,
            label="law: exponential tail, L ∝ X (straight line)")
    b = float(wrong_law.exponent("X"))
    scale = (corrected[last] - corrected[first]) / (xs[last] ** b - xs[first] ** b)
    ax.plot(t, corrected[first] + scale * (t ** b - xs[first] ** b), "--", color=CONTROL, lw=1.8,
            label=f"wrong law: L ∝ X^{b:g} (same end points)")
    ax.set_xlabel("X = n ||μ||⁴ / (σ_ξ⁴ d)  (linear scale)")
    ax.set_ylabel("L = −log err − ½ log X  (solid), nats")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax.set_title(f"ReLU tail of the test error (mean over {frame['seed'].nunique()} seeds);\nthe check reads the local "
                 "power on the last two doubling windows", fontsize=8.5)
