r"""Figures of ``flt check``: one generic figure per claim (system-specific figures are declared by
each system, :class:`~flt_theory.systems.declaration.Figure`, and drawn on a figure made here).

Generic figure. Every :class:`~flt_theory.compare.result.CheckResult` is read into
:class:`Comparison` rows — measured value with its CI against the predicted value (an equality,
drawn with its tolerance band) or bound (drawn with the side the law excludes shaded) — one panel per
row, the parts of a conjunction one panel each. The negative control's prediction on the same
measurement (the wrong law) is drawn in grey where it lines up. What each check puts in
``details`` (see :mod:`flt_theory.compare`): ``threshold`` (subspace learned), ``bound``
(inequalities), ``max_ratio`` (not learned), ``tolerance`` (power laws, transitions), ``parts``
(conjunctions).

Drawing uses matplotlib's object API on the Agg canvas — no pyplot, no global backend switch.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Comparison",
    "comparisons",
    "new_figure",
    "plain_text",
    "plot_comparisons",
    "save_figure",
    "slug",
]

MEASURED = "#1f4e9c"  # blue: what was measured
PREDICTED = "#d9480f"  # orange: what the law predicts
CONTROL = "#7a7a7a"  # grey: the wrong law of the negative control


@dataclass(frozen=True)
class Comparison:
    """One measured quantity against its prediction.

    ``relation`` is ``"="`` (equality, ± ``tolerance``), ``">="``/``"<="``/``">"`` (a bound) or
    ``""`` (nothing numeric to compare with).
    """

    label: str
    measured: float
    low: float
    high: float
    predicted: float | None
    relation: str
    tolerance: float = 0.0
    passed: bool | None = None


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _as_dict(result: Any) -> dict[str, Any]:
    return result.to_dict() if hasattr(result, "to_dict") else dict(result)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def comparisons(result: Any) -> list[Comparison]:
    """The :class:`Comparison` rows of a CheckResult (or its ``to_dict()``), parts flattened.

    >>> from flt_theory.compare.result import CheckResult
    >>> r = CheckResult("slope", True, 1.0, 1.1, (0.9, 1.3), 8, "m", {"tolerance": 0.1})
    >>> comparisons(r)[0].relation, comparisons(r)[0].predicted, comparisons(r)[0].tolerance
    ('=', 1.0, 0.1)
    """
    r = _as_dict(result)
    details = r.get("details") or {}
    if details.get("parts"):
        return [c for part in details["parts"] for c in comparisons(part)]
    name, measured, ci, predicted = r.get("name", ""), r.get("measured"), r.get("ci"), r.get("predicted")
    passed = r.get("passed")
    tolerance = _num(details.get("tolerance", 0.0)) or 0.0
    if isinstance(measured, (list, tuple)):
        cis = list(ci) if isinstance(ci, (list, tuple)) else []
        out = []
        for i, value in enumerate(measured):
            low, high = (cis[i] if i < len(cis) and isinstance(cis[i], (list, tuple)) else (math.nan, math.nan))[:2]
            if isinstance(predicted, (list, tuple)) and len(predicted) == len(measured) and _is_number(predicted[i]):
                pred, rel, label = float(predicted[i]), "=", f"{name} [{i + 1}]"
            elif predicted == "strictly decreasing":
                pred, rel, label = 0.0, ">", f"{name}: gap {i + 1}"
            else:
                pred, rel, label = None, "", f"{name} [{i + 1}]"
            out.append(Comparison(label, _num(value), _num(low), _num(high), pred, rel, tolerance, passed))
        return out
    low, high = (list(ci)[:2] if isinstance(ci, (list, tuple)) and len(ci) >= 2 else (math.nan, math.nan))
    pred: float | None
    if _is_number(predicted):
        pred, rel = float(predicted), "="
    elif "threshold" in details:
        pred, rel = _num(details["threshold"]), ">="
    elif "bound" in details:
        pred, rel = _num(details["bound"]), ("<=" if str(predicted).lstrip().startswith("<") else ">=")
    elif "max_ratio" in details:
        pred, rel = _num(details["max_ratio"]), "<="
    else:
        pred, rel = None, ""
    return [Comparison(name, _num(measured), _num(low), _num(high), pred, rel, tolerance, passed)]


_LATEX = [
    (r"\\mathrm\{span\}\\\{", "span{"),
    (r"\\\}", "}"),
    (r"\\\{", "{"),
    (r"w\^\*_\{(\d+)\}", r"w\1"),
    (r"\\ominus", "⊖"),
    (r"\\subset", "⊂"),
    (r"\\le", "≤"),
    (r"\\ge", "≥"),
    (r"\\,", " "),
]


def plain_text(text: Any) -> str:
    r"""A short plain-text form of a prediction (LaTeX of subspaces made readable).

    >>> plain_text(r"\mathrm{span}\{w^*_{1} + w^*_{2}\} ⊂ \mathrm{span}\{w^*_{1}, w^*_{2}\}")
    'span{w1 + w2} ⊂ span{w1, w2}'
    >>> plain_text((1.0, -1.0)), plain_text(2.0), plain_text([">= 2", ">= 1"])
    ('(1, -1)', '2', '(>= 2, >= 1)')
    """
    if isinstance(text, (list, tuple)):
        return "(" + ", ".join(plain_text(t) for t in text) + ")"
    if _is_number(text):
        return f"{float(text):.4g}"
    out = str(text)
    for pattern, repl in _LATEX:
        out = re.sub(pattern, repl, out)
    return out


def slug(key: str) -> str:
    """A file-name-safe form of a claim key.

    >>> slug("giant-step/norm-law")
    'giant-step--norm-law'
    """
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", key.replace("/", "--")).strip("-")


def new_figure(width: float, height: float):
    """A matplotlib Figure on an Agg canvas (no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path: str | Path) -> Path:
    """Write ``fig`` as PNG to ``path`` (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def plot_comparisons(
    key: str,
    check: Any,
    control: Any | None,
    path: str | Path,
    *,
    title: str = "",
) -> Path:
    """The generic figure of a claim: one panel per :class:`Comparison` of ``check``; the
    control's predicted values (same positions) in grey. Returns the path written."""
    rows = comparisons(check)
    wrong = comparisons(control) if control is not None else []
    if len(wrong) != len(rows):
        wrong = []
    n = max(1, len(rows))
    ncols = min(n, 4)
    nrows = math.ceil(n / ncols)
    fig = new_figure(3.4 * ncols, 3.1 * nrows + 1.2)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(rows) :]:
        ax.set_visible(False)
    for ax, row, bad in zip(axes, rows, wrong or [None] * len(rows)):
        _panel(ax, row, bad)
    if not rows:
        axes[0].text(0.5, 0.5, "no numbers to plot", ha="center", va="center", transform=axes[0].transAxes)
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    width = 3.4 * ncols
    if handles:
        per_row = max(1, min(len(labels), int(width // 2.3)))
        fig.legend(handles, labels, loc="outside lower center", ncols=per_row, fontsize=8, frameon=False)
    fig.suptitle(_wrap(title or key, int(width * 11)), fontsize=10)
    return save_figure(fig, path)


def _panel(ax, row: Comparison, wrong: Comparison | None) -> None:
    values = [row.measured, row.low, row.high]
    if row.predicted is not None:
        values += [row.predicted - row.tolerance, row.predicted + row.tolerance]
    if wrong is not None and wrong.predicted is not None and wrong.predicted != row.predicted:
        values.append(wrong.predicted)
    finite = [v for v in values if math.isfinite(v)]
    span = (max(finite) - min(finite)) if finite else 1.0
    pad = 0.25 * span if span > 0 else 0.5 * max(1.0, abs(finite[0]) if finite else 1.0)
    lo, hi = (min(finite) - pad, max(finite) + pad) if finite else (-1.0, 1.0)
    if row.predicted is not None and math.isfinite(row.predicted):
        p = row.predicted
        if row.relation == "=":
            if row.tolerance > 0:
                ax.axhspan(p - row.tolerance, p + row.tolerance, color=PREDICTED, alpha=0.15, label="predicted ± tolerance")
            ax.axhline(p, color=PREDICTED, lw=2, ls="--", label="predicted (law)")
        else:
            excluded = (lo, p) if row.relation.startswith(">") else (p, hi)
            ax.axhspan(*excluded, color=PREDICTED, alpha=0.10, hatch="//", label="excluded by the law")
            ax.axhline(p, color=PREDICTED, lw=2, ls="--", label="predicted bound (law)")
    if wrong is not None and wrong.predicted is not None and math.isfinite(wrong.predicted) and wrong.predicted != row.predicted:
        ax.axhline(wrong.predicted, color=CONTROL, lw=1.5, ls=":", label="wrong law (negative control)")
    if math.isfinite(row.measured):
        err = None
        if math.isfinite(row.low) and math.isfinite(row.high):
            err = [[max(0.0, row.measured - row.low)], [max(0.0, row.high - row.measured)]]
        ax.errorbar([0.0], [row.measured], yerr=err, fmt="o", color=MEASURED, ms=7, capsize=6, lw=2,
                    label="measured (95% CI over seeds)")
    else:
        ax.text(0.5, 0.5, "measured: not finite", ha="center", va="center", transform=ax.transAxes, color=MEASURED)
    ax.set_ylim(lo, hi)
    ax.set_xlim(-1, 1)
    ax.set_xticks([])
    relation = {"=": "=", ">=": "≥", "<=": "≤", ">": ">"}.get(row.relation, "")
    rel_text = f"predicted {relation} {row.predicted:.4g}" if row.predicted is not None and relation else "no numeric prediction"
    verdict = "" if row.passed is None else (" — PASS" if row.passed else " — FAIL")
    ax.set_xlabel(rel_text + verdict, fontsize=8)
    ax.set_ylabel("value", fontsize=8)
    ax.set_title(_wrap(plain_text(row.label), 38), fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(axis="y", alpha=0.3)
