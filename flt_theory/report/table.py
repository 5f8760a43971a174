"""The verdict table of ``flt check`` as aligned plain text (used by the CLI output and the report)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._display import booktabs_longtable, html_table, latex_text, markdown_table, math_html
from ..compare.result import fmt, fmt_ci
from .figures import plain_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["format_table", "measured_text", "scope_text", "verdict_html", "verdict_latex", "verdict_markdown",
           "verdict_summary"]


def measured_text(measured: Any, ci: Any, limit: int | None = None, labels: Sequence[str] | None = None) -> str:
    """``1.02 [0.95, 1.09]``; entries joined by ``; ``, each with its own interval and, given
    ``labels`` (one per entry, ``details["labels"]``), its label (at most ``limit`` shown).

    >>> measured_text(1.0234, [0.95, 1.09]), measured_text([1.0, 2.0], [[0.9, 1.1], [1.8, 2.2]], limit=1)
    ('1.023 [0.95, 1.09]', '1 [0.9, 1.1]; … (+1)')
    >>> measured_text([1.0, 2.0], [[0.9, 1.1], [1.8, 2.2]], labels=["T = 0", "T = 1"])
    'T = 0: 1 [0.9, 1.1]; T = 1: 2 [1.8, 2.2]'
    """
    if measured is None:
        return "—"

    def one(value: Any, interval: Any) -> str:
        shown = fmt(_number(value)) if not isinstance(value, str) else value
        if isinstance(interval, (list, tuple)) and len(interval) == 2 and not isinstance(interval[0], (list, tuple)):
            return f"{shown} {fmt_ci((_number(interval[0]), _number(interval[1])))}"
        return shown

    if isinstance(measured, (list, tuple)):
        cis = list(ci) if isinstance(ci, (list, tuple)) else [None] * len(measured)
        names = (
            [plain_text(x) for x in labels]
            if isinstance(labels, (list, tuple)) and len(labels) == len(measured)
            else None
        )
        parts = [one(m, c) for m, c in zip(measured, cis)]
        if names is not None:
            parts = [f"{name}: {part}" for name, part in zip(names, parts)]
        if limit is not None and len(parts) > limit:
            parts = parts[:limit] + [f"… (+{len(measured) - limit})"]
        return "; ".join(parts)
    return one(measured, ci)


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


#: The hypotheses column (where the points lie), by :meth:`~flt_theory.systems.declaration.Claim.scope`.
_SCOPE = {
    "inside": "inside",
    "partly inside": "partly inside",
    "extrapolation": "EXTRAPOLATION",
    "not stated": "none stated",
}


def scope_text(scope: str) -> str:
    """The hypotheses cell of a verdict row: where its points lie (``EXTRAPOLATION``: none inside)."""
    return _SCOPE.get(scope, scope)


def format_table(frame: pd.DataFrame, *, wide: bool = False) -> str:
    """The verdict table as aligned text: claim, law, predicted, measured [CI], verdict, control.

    Where ``frame`` has a ``labels`` column (one label per entry of a multi-valued ``measured``), every
    entry is shown with its label and its own interval."""
    header = ("claim", "law (in words)", "predicted", "measured [95% CI]", "verdict", "negative control", "hypotheses")
    widths = (None, 58, 30, 44, None, None, None) if not wide else (None,) * 7
    rows: list[tuple[str, ...]] = [header]
    for rec in frame.to_dict("records"):
        measured = measured_text(rec["measured"], rec["ci"], None if wide else 2, rec.get("labels"))
        cells = (rec["claim"], plain_text(rec["law"]), plain_text(rec["predicted"]), measured,
                 rec["verdict"], rec["control"] or "—", scope_text(rec.get("scope", "")))
        rows.append(tuple(_cut(c, w) if w else str(c) for c, w in zip(cells, widths)))
    sizes = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(s) for c, s in zip(r, sizes)).rstrip() for r in rows)


def _extras(frame: pd.DataFrame, key: str) -> dict[str, Any]:
    """Per claim, what the verdict table keeps beside its columns (``attrs``: ``law_latex``, ``labels``)."""
    return dict(frame.attrs.get(key) or {})


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The verdict table's rows with each claim's law LaTeX and measured labels (``attrs``), for the rich forms."""
    latex, labels = _extras(frame, "law_latex"), _extras(frame, "labels")
    return [{**rec, "law_latex": latex.get(rec["claim"], ""), "labels": labels.get(rec["claim"])}
            for rec in frame.to_dict("records")]


def verdict_summary(frame: pd.DataFrame) -> str:
    passed = int(frame["passed"].sum()) if len(frame) else 0
    text = f"flt check: {passed}/{len(frame)} claims pass"
    if "scale" in frame.attrs:
        text += f" at scale {frame.attrs['scale']!r}, seeds from {frame.attrs.get('seed_base', 0)}"
    if frame.attrs.get("level") is not None:
        text += (f"; family-wise level {frame.attrs.get('alpha', 0.05):g}, comparisons with a p-value decided at "
                 f"{frame.attrs['level']:.2g}")
    return text + "; a claim passes when its law's check passes AND its negative control is rejected"


_RICH_HEADER = ("claim", "law", "measured [95% CI]", "verdict", "negative control", "hypotheses")


def verdict_html(frame: pd.DataFrame) -> str:
    """The verdict table as HTML (a notebook's display of ``flt_theory.check``): one ``<tr>`` per claim, the law
    typeset from its LaTeX, every measured value with its label and 95% interval."""
    import html

    def esc(text: Any) -> str:
        return html.escape(str(text), quote=False)

    rows = [
        (
            esc(r["claim"]),
            (math_html(r["law_latex"]) + "<br>" if r["law_latex"] else "") + f"<small>{esc(r['law'])}</small>",
            esc(measured_text(r["measured"], r["ci"], None, r["labels"])).replace("; ", "<br>"),
            esc(r["verdict"]),
            esc(r["control"] or "—"),
            esc(scope_text(r.get("scope", ""))),
        )
        for r in _rows(frame)
    ]
    return html_table(_RICH_HEADER, rows, caption=verdict_summary(frame), escaped=True)


def verdict_markdown(frame: pd.DataFrame) -> str:
    """The verdict table as Markdown, laws as ``$...$``."""
    rows = [(f"`{r['claim']}`", f"${r['law_latex']}$" if r["law_latex"] else r["law"],
             measured_text(r["measured"], r["ci"], None, r["labels"]), r["verdict"], r["control"] or "—",
             scope_text(r.get("scope", ""))) for r in _rows(frame)]
    return verdict_summary(frame) + "\n\n" + markdown_table(_RICH_HEADER, rows)


def verdict_latex(frame: pd.DataFrame) -> str:
    r"""The verdict table as a booktabs ``longtable`` (claim, law, measured with its 95% CI, verdict, negative
    control), every text cell escaped for LaTeX (:func:`flt_theory._display.latex_text`; claim keys included).
    :func:`flt_theory._display.latex_document` turns it into a file that compiles alone and can be ``\input``
    into a paper (``flt check --latex FILE``)."""
    def key(text: str) -> str:
        return latex_text(text).replace("/", r"/\allowbreak{}")

    rows = [
        (
            key(r["claim"]),
            f"${r['law_latex']}$" if r["law_latex"] else latex_text(r["law"]),
            r" \newline ".join(
                latex_text(x) for x in measured_text(r["measured"], r["ci"], None, r["labels"]).split("; ")
            ),
            latex_text(r["verdict"]),
            latex_text(r["control"] or "---"),
        )
        for r in _rows(frame)
    ]
    return booktabs_longtable(("claim", "law", "measured [95\\% CI]", "verdict", "negative control"), rows,
                              # fits a page and a paper
                              r"p{0.14\linewidth}p{0.30\linewidth}p{0.26\linewidth}lp{0.09\linewidth}",
                              caption=latex_text(verdict_summary(frame)))
