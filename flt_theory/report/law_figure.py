r"""The fit figure and report of ``flt verify --system ... --report DIR``.

One log-log panel per varied symbol :math:`x_k`. For a power law (``OBS ~ EXPR``, ``PARAM* ~ EXPR``) the panel
shows the *partial* measurement :math:`z_j = \overline{y}_j / \prod_{o \ne k} x_{o,j}^{\hat b_o}` (the seed-mean
divided by the fitted dependence on the other varied symbols, so that every grid point lies on one line of slope
:math:`\hat b_k`) with its interval, the law's slope :math:`b_k` (solid) and the rejected mutants' slopes
:math:`b_k \pm 1/2, \pm 1` (dashed grey), each anchored by least squares on :math:`\log z` at its own slope. For a
relation (``OBS = / <= / >= EXPR``) it shows :math:`\overline{y}_j / \mathrm{EXPR}_j` with its interval, the
law at 1 and the rejected mutants' ratios :math:`(x_k / x_{k,c})^{\delta}`. Drawn with matplotlib's object API on
the Agg canvas (:func:`~flt_theory.report.figures.new_figure`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_law", "write_law_report"]


def _partial(result: Mapping[str, Any], k: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x_k``, the partial measurement and its interval (2, points) for panel ``k`` (module docstring)."""
    values = result["values"]
    x = np.array([v[k] for v in values], dtype=float)
    if result["relation"] != "~":
        scale = np.array([v["law"] for v in values], dtype=float)
    else:
        scale = np.ones(len(values))
        for o in result["varied"]:
            if o != k:
                scale *= np.array([v[o] for v in values], dtype=float) ** result["measured"][o]["estimate"]
    y = np.array([v["estimate"] for v in values], dtype=float) / scale
    ci = np.array([v["ci"] for v in values], dtype=float).T / scale
    return x, y, ci


def _line(x: np.ndarray, y: np.ndarray, slope: float) -> tuple[np.ndarray, np.ndarray]:
    """The line of ``slope`` in log-log through the points' least-squares anchor, over their range."""
    grid = np.geomspace(x.min(), x.max(), 50)
    log_c = float(np.mean(np.log(y) - slope * np.log(x)))
    return grid, np.exp(log_c + slope * np.log(grid))


def plot_law(result: Mapping[str, Any], path: str | Path | None = None) -> Any:
    """The fit figure of a :class:`~flt_theory.laws_check.verify.LawVerification` (module docstring); the path
    written, or the matplotlib Figure with ``path=None``."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from .figures import new_figure, save_figure

    varied = list(result["varied"])
    limit = [k for k in varied if "effective" in result["measured"].get(k, {})]  # decided in the limit
    fig = new_figure(4.2 * (len(varied) + len(limit)), 3.8)
    panels = fig.subplots(1, len(varied) + len(limit), squeeze=False)[0]
    axes = panels[:len(varied)]
    for ax, k in zip(panels[len(varied):], limit):
        _draw_effective(ax, result, k)
    lhs = f"{result['parameter']}*" if result.get("parameter") else result["observable"]
    relation = result["relation"]
    for ax, k in zip(axes, varied):
        x, y, ci = _partial(result, k)
        ok = (y > 0) & np.all(ci > 0, axis=0)
        ax.errorbar(x[ok], y[ok], yerr=np.abs(ci[:, ok] - y[ok]), fmt="o", color="C0", capsize=3,
                    label=f"measured (mean, {result['confidence']:.0%} CI)")
        for control in result["controls"]:
            if not control["rejected"] or control["exponents"][k] == result["predicted"][k]:
                continue
            shift = control["exponents"][k] - result["predicted"][k]
            if relation == "~":
                gx, gy = _line(x[ok], y[ok], control["exponents"][k])
            else:
                centre = math.exp(float(np.mean(np.log(x))))
                gx = np.geomspace(x.min(), x.max(), 50)
                gy = (gx / centre) ** shift
            ax.plot(gx, gy, "--", color="0.6", lw=1)
        if relation == "~":
            gx, gy = _line(x[ok], y[ok], result["predicted"][k])
            fit = result["measured"][k]
            ax.plot(gx, gy, "-", color="C3", lw=2, label=f"law: slope {result['predicted'][k]:g}")
            ax.set_title(f"{k}: slope {fit['estimate']:.3g} [{fit['ci'][0]:.3g}, {fit['ci'][1]:.3g}]", fontsize=9)
            others = [o for o in varied if o != k]
            ax.set_ylabel(lhs + (f" / fitted power of {', '.join(others)}" if others else ""), fontsize=8)
        else:
            ax.axhline(1.0, color="C3", lw=2, label=f"law ({relation})")
            ax.set_title(f"{k}", fontsize=9)
            ax.set_ylabel(f"{lhs} / law")
        ax.plot([], [], "--", color="0.6", lw=1, label="rejected mutants")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = sorted(set(x.tolist()))
        ax.set_xticks(
            ticks if len(ticks) <= 6 else ticks[::2], [f"{v:g}" for v in (ticks if len(ticks) <= 6 else ticks[::2])]
        )
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}"))
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(k)
        ax.legend(fontsize=7)
    fig.suptitle(f"{result['law']}  ({result['system']}): {result['verdict'].upper()}", fontsize=10)
    return fig if path is None else save_figure(fig, path)


def _draw_effective(ax: Any, result: Mapping[str, Any], k: str) -> None:
    """The effective exponents of ``k`` (each at the geometric middle of its two rungs, with its interval), the law's
    exponent and the limit's interval (clipped to the panel where it is unbounded)."""
    fit = result["measured"][k]
    rungs = fit["effective"]
    mid = np.array([math.sqrt(e["from"] * e["to"]) for e in rungs])
    est = np.array([e["estimate"] for e in rungs])
    err = np.abs(np.array([e["ci"] for e in rungs]).T - est)
    ax.errorbar(mid, est, yerr=err, fmt="s", color="C0", capsize=3, label="effective exponent (95% CI)")
    ax.axhline(result["predicted"][k], color="C3", lw=2, label=f"law: {result['predicted'][k]:g}")
    low, high = fit["ci"]
    span = max(1.0, float(np.max(np.abs(est - result["predicted"][k]))) * 3)
    low, high = max(low, result["predicted"][k] - span), min(high, result["predicted"][k] + span)
    ax.axhspan(low, high, color="C2", alpha=0.15, lw=0, label=f"limit {fit['estimate']:.3g} ({fit['model']})")
    ax.set_xscale("log")
    ax.set_xlabel(k)
    ax.set_ylabel(f"local exponent of {result['parameter'] + '*' if result.get('parameter') else result['observable']}"
                  + (f" / log({k})^{fit['log_power']:g}" if fit.get("log_power") else ""), fontsize=8)
    ax.set_title(f"effective exponents in {k} and their limit", fontsize=9)
    ax.legend(fontsize=7)


def write_law_report(result: Mapping[str, Any], directory: str | Path) -> Path:
    """Write ``DIR/fit.png`` (:func:`plot_law`), ``DIR/result.json`` (the document) and ``DIR/report.md`` (the
    law, grid, exponents, controls and verdict, the figure linked); returns the report's path."""
    from .._files import LAW_REPORT, atomic_write_text, mark_report_folder
    from .._text import json_ready

    directory = Path(directory)
    mark_report_folder(directory, LAW_REPORT)  # a later run knows the folder as an earlier report
    plot_law(result, directory / "fit.png")
    atomic_write_text(directory / "result.json", json.dumps(json_ready(dict(result)), indent=1) + "\n")
    lines = [f"# {result['law']}", "", f"System `{result['system']}`, experiment `{result['experiment']}`"
             + (f", where {result['where']}" if result.get("where") else "") + f": {result['points']} points x "
             f"{result['seeds']} seeds ({result['computed']} runs computed, {result['reused']} reused from the store).",
             "", f"**{result['verdict'].upper()}**: {result['reason']}", "", "![fit](fit.png)", "",
             "| symbol | law | measured | interval |", "|---|---|---|---|"]
    for k, fit in result["measured"].items():
        lines.append(f"| {k} | {result['predicted'][k]:g} | {fit['estimate']:.4g} | [{fit['ci'][0]:.4g}, "
                     f"{fit['ci'][1]:.4g}] |")
    for k, fit in result["measured"].items():
        if "effective" in fit:
            lines += ["", f"Effective exponents of {k} (limit: {fit['model']}):", "", "| from | to | exponent | "
                      "interval |", "|---|---|---|---|"]
            lines += [f"| {e['from']:g} | {e['to']:g} | {e['estimate']:.4g} | [{e['ci'][0]:.4g}, {e['ci'][1]:.4g}] |"
                      for e in fit["effective"]]
    lines += ["", "| control | goal | verdict |", "|---|---|---|"]
    lines += [f"| `{c['law']}` | {'yes' if c['goal'] else 'no'} | {'rejected' if c['rejected'] else 'not rejected'} |"
              for c in result["controls"]]
    if result["outside_hypotheses"]:
        lines += ["", f"{len(result['outside_hypotheses'])} point(s) lie outside the system's stated hypotheses."]
    path = directory / "report.md"
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
