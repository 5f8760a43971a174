r"""The report folder of ``flt check``: ``report.md``, ``report.html``, ``results.json``, ``figures/``.

Per claim: its verdict, the law in LaTeX (``claim.law.latex()``) and in words, status and source,
the check's and the control's one-line messages, and its figures.

Self-contained. ``report.html`` makes no network request: each law's LaTeX is rendered at report
time to SVG by matplotlib's mathtext and embedded as a ``data:`` image (its LaTeX as the ``alt``
text); a formula mathtext cannot parse (``\begin{cases}``, say) is shown as readable plain text
(:func:`~flt_theory.report.figures.plain_text`), never as a broken image. ``report.md`` keeps the
LaTeX between ``$$`` for Markdown viewers that render it.

Every estimate keeps its own interval and label: the tables show each entry of a multi-valued
check as ``label: value [low, high]``; ``results.json`` lists them per claim under ``entries``
(``label``, ``estimate``, ``ci``), and the names, labels, predictions and messages of the
checks it stores are plain text (the LaTeX of each law stays under ``law_latex``).

What the report shows but does not compute is given to :func:`write_report` by the run that writes it
(:func:`flt_theory.checking.check.write_check_report`): the provenance, each claim's declared figures, and the lines
of the recorded calibration and verdicts.
"""

from __future__ import annotations

import base64
import datetime as _dt
import functools
import html
import io
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._display import markdown_cell
from .._files import CHECK_REPORT, atomic_write_text, mark_report_folder
from ..compare.limit import as_rungs
from ..errors import InvalidParameterError
from .figures import (
    carries_information,
    entries,
    new_figure,
    plain_text,
    plot_comparisons,
    plot_ladder,
    save_figure,
    slug,
    wrong_law_drawn,
)
from .scale_record import no_ladder_text
from .table import format_table, measured_text, scope_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..systems.declaration import Claim

__all__ = ["formula_html", "mathtext_source", "prepare_report_dir", "write_report"]

#: LaTeX that mathtext spells differently (applied in order before parsing).
_MATHTEXT_SPELLING = (
    (r"\\(?:textstyle|displaystyle|scriptstyle)(?![A-Za-z])", ""),
    (r"\\[td]frac(?![A-Za-z])", r"\\frac"),
    (r"\\frac\s*([A-Za-z0-9])\s*([A-Za-z0-9])", r"\\frac{\1}{\2}"),
    (r"\\sqrt\s+([A-Za-z0-9])", r"\\sqrt{\1}"),
    (r"\\le(?![A-Za-z])", r"\\leq"),
    (r"\\ge(?![A-Za-z])", r"\\geq"),
    (r"\\ne(?![A-Za-z])", r"\\neq"),
    (r"\\[lr]Vert(?![A-Za-z])", r"\\|"),
    (r"\\textbf\{", r"\\mathbf{"),
    (r"\\sgn(?![A-Za-z])", r"\\mathrm{sgn}"),
    (r"\\(mathcal|mathbb|mathrm|mathbf|mathit|mathsf)\s+([A-Za-z0-9])", r"\\\1{\2}"),
)



def effective_rungs(check: Any) -> tuple[list[dict[str, Any]], str, int, dict[str, Any] | None]:
    """The effective exponents a power-law comparison (or each part of a conjunction) reports in
    ``details["effective"]``: the first such comparison's, as ladder rungs ``{"size": {"size": middle}, "estimate",
    "ci", "predicted"}`` for :func:`~.figures.plot_ladder`, its name, how many comparisons report some, and its
    extrapolated limit (``details["limit"]``, None for a comparison not decided in the limit)."""
    records = [check.to_dict()] if hasattr(check, "to_dict") else [check]
    found: list[tuple[str, list[dict[str, Any]], dict[str, Any] | None]] = []
    while records:
        record = records.pop(0)
        details = record.get("details") or {}
        records += [p for p in details.get("parts", []) if isinstance(p, dict)]
        predicted = record.get("predicted")
        effective = details.get("effective") or []
        if effective:
            found.append((str(record.get("name", "")), as_rungs(
                effective, predicted=float(predicted) if isinstance(predicted, (int, float)) else None),
                details.get("limit")))
    return (found[0][1], found[0][0], len(found), found[0][2]) if found else ([], "", 0, None)


def mathtext_source(latex: str) -> str:
    r"""``latex`` in the dialect of matplotlib's mathtext (``\le`` → ``\leq``, ``\tfrac`` → ``\frac``, ...).

    >>> mathtext_source(r"\tfrac1N \le \mathcal D")
    '\\frac{1}{N} \\leq \\mathcal{D}'
    """
    for pattern, repl in _MATHTEXT_SPELLING:
        latex = re.sub(pattern, repl, latex)
    return latex


@functools.lru_cache(maxsize=512)
def _svg(latex: str) -> str | None:
    """The SVG of ``latex`` rendered by mathtext, or None where mathtext cannot parse it."""
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import math_to_image

    buffer = io.BytesIO()
    try:
        with matplotlib.rc_context({"svg.fonttype": "path", "mathtext.fontset": "dejavusans"}):
            math_to_image(f"${mathtext_source(latex)}$", buffer, prop=FontProperties(size=15), format="svg")
    except Exception:  # noqa: BLE001 - mathtext's parse errors have no common class: fall back to text
        return None
    return buffer.getvalue().decode("utf-8")


def formula_html(latex: str) -> str:
    r"""The law's LaTeX as HTML with no network request: an SVG ``<img>`` (mathtext) where mathtext
    parses it, else readable plain text.

    >>> formula_html(r"n^{*} \asymp d").startswith("<img class='law' src='data:image/svg+xml;base64,")
    True
    >>> formula_html(r"x \begin{cases} 1 & y \end{cases}")
    "<span class='law law-text' title='x \\begin{cases} 1 &amp; y \\end{cases}'>x 1 y</span>"
    """
    e = html.escape
    svg = _svg(latex)
    if svg is None:
        return f"<span class='law law-text' title='{e(latex)}'>{e(plain_text(latex))}</span>"
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f"<img class='law' src='data:image/svg+xml;base64,{data}' alt='{e(latex)}'>"


def _seeds_text(seeds: Sequence[int]) -> str:
    """``8 (0..7)`` for a contiguous range, else the list."""
    seeds = list(seeds)
    if not seeds:
        return "none"
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{len(seeds)} ({seeds[0]}..{seeds[-1]})"
    return f"{len(seeds)} ({', '.join(map(str, seeds))})"


def _md_cell(text: Any) -> str:
    """A table cell of report.md: no doubled backslash in math (:func:`flt_theory._display.markdown_cell`)."""
    return markdown_cell(text)


def _figures(directory: Path, claim: Claim, run: dict[str, Any], row: dict[str, Any],
             figures_of: Callable[[Claim], Sequence[Any]]) -> list[tuple[str, str]]:
    """Draw the claim's figures (the generic comparison, then the ones its system declares, ``figures_of``, from the
    measured frame); ``[(caption, relative path)]``. The generic figure is left out where it would
    carry nothing beyond the table (every entry exact); its caption names the wrong law only
    where the figure draws it."""
    if run["check"] is None:
        return []
    name = slug(claim.key)
    out = []
    if carries_information(run["check"]):
        generic = directory / "figures" / f"{name}.png"
        plot_comparisons(claim.key, run["check"], run["control"], generic,
                         title=f"{claim.key}: {row['verdict']} — {plain_text(claim.words)}")
        caption = ("each estimate with its 95% CI (blue) against the law (orange: bound or prediction, slack and "
                   "tolerance drawn)")
        if wrong_law_drawn(run["check"], run["control"]):
            caption += "; the negative control's wrong law in grey, in the same unit"
        else:
            caption += f"; the wrong law ({plain_text(row['wrong_law'])}) has no value on these axes"
        out.append((caption, f"figures/{generic.name}"))
    effective, part, count, limit = effective_rungs(run["check"])
    if effective:
        path = directory / "figures" / f"{name}-effective.png"
        plot_ladder(effective, path, title=f"{claim.key}: effective exponents ({part})", ylabel="effective exponent",
                    xlabel="size (geometric middle of each rung)", limit=limit)
        out.append(("effective exponents: the local log-log slope between consecutive sizes with its paired-seed 95% "
                    "CI (blue), at the sizes' geometric middle, against the law's exponent (orange)"
                    + (f"; the first of {count} comparisons that report them (all are in results.json)"
                       if count > 1 else "")
                    + ("; the band is the extrapolated limit's 95% set, which decides the claim" if limit
                       else "; the verdict is the registered comparison's"), f"figures/{path.name}"))
    ladder = (run.get("ladder") or {}).get("rungs")
    if ladder:
        path = directory / "figures" / f"{name}-ladder.png"
        plot_ladder(ladder, path, title=f"{claim.key}: estimate along growing sizes")
        out.append(("size ladder: the estimate with its 95% CI at each size (blue) against the law's prediction "
                    "(orange line) and, for a finding, the literal statement (grey dashed)", f"figures/{path.name}"))
    elif run.get("ladder"):
        out.append((f"size ladder not drawn: {run['ladder'].get('error')}", ""))
    elif claim.no_ladder:
        out.append((no_ladder_text(claim.no_ladder), ""))
    for spec in figures_of(claim):
        path = directory / "figures" / f"{name}-{spec.name}.png"
        try:
            fig = new_figure(spec.width, spec.height)
            spec.draw(fig, run["frame"], claim.the_law, claim.the_wrong_law, run["check"], run["control"])
            save_figure(fig, path)
        except Exception as exc:  # noqa: BLE001 - a figure must not sink the report
            out.append((f"figure {spec.name!r} could not be drawn: {type(exc).__name__}: {exc}", ""))
            continue
        out.append((spec.caption, f"figures/{path.name}"))
    return out


def _labels(check: dict[str, Any] | None) -> list[str] | None:
    """Plain-text labels of a multi-valued check's entries (None for a single value)."""
    if not check or not isinstance(check.get("measured"), (list, tuple)):
        return None
    return [e["label"] for e in entries(check)]


_READABLE_KEYS = ("name", "message", "predicted")
_READABLE_ROW = ("law", "predicted", "message", "control_message", "wrong_law")


def _readable(result: Any) -> Any:
    """A check's dict with plain-text names, labels, predictions and messages (parts too)."""
    if not isinstance(result, dict):
        return result
    out = {k: (plain_text(v) if k in _READABLE_KEYS and isinstance(v, str) else v) for k, v in result.items()}
    details = out.get("details")
    if isinstance(details, dict):
        details = dict(details)
        if isinstance(details.get("labels"), list):
            details["labels"] = [plain_text(x) for x in details["labels"]]
        if isinstance(details.get("parts"), list):
            details["parts"] = [_readable(p) for p in details["parts"]]
        out["details"] = details
    return out


def _markdown_table_html(lines: Sequence[str]) -> str:
    """The lines of :func:`flt_theory.report.power.calibration_markdown` as HTML, in their order: paragraphs, the pipe
    table, bullet lists, ``###`` headings (:func:`flt_theory.checking.power.recorded_calibration`'s paper table)
    (backticks as code)."""
    e = html.escape

    def inline(text: str) -> str:
        parts = e(text).split("`")
        return "".join(f"<code>{p}</code>" if k % 2 else p for k, p in enumerate(parts))

    out: list[str] = []
    rows: list[list[str]] = []
    items: list[str] = []

    def flush() -> None:
        if rows:
            head, *rest = rows
            out.append(
                "<table><tr>"
                + "".join(f"<th>{inline(c)}</th>" for c in head)
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rest)
                + "</table>"
            )
            rows.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in lines:
        if line.startswith("|---"):
            continue
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
        elif line.startswith("- "):
            items.append(line[2:])
        elif line.startswith("### "):
            flush()
            out.append(f"<h3>{inline(line[4:])}</h3>")
        elif line:
            flush()
            out.append(f"<p>{inline(line)}</p>")
    flush()
    return "\n".join(out)


def hypotheses_lines(claim: Claim, run: dict[str, Any]) -> list[str]:
    """Plain-text lines on a claim's hypotheses: each condition with where it is stated, how it is read, and
    where the points run lie (how many inside; the conditions that fail at the others)."""
    law = claim.the_law
    if not law.hypotheses:
        return [f"Hypotheses: none stated ({law.hypotheses_reading or 'the law carries none'})."]
    conditions = "; ".join(f"{h.text} [{h.where}]" for h in law.hypotheses)
    points = run.get("hypothesis_points") or []
    inside = sum(bool(p["inside"]) for p in points)
    failed = sorted({f for p in points for f in p["failed"]})
    lines = [f"Hypotheses ({law.hypotheses_reading}): {conditions}.",
             f"Points inside the hypotheses: {inside} of {len(points)} ({scope_text(run.get('scope', ''))})"
             + (f"; failing elsewhere: {'; '.join(failed)}." if failed else ".")]
    if run.get("scope") == "extrapolation":
        lines.append("This verdict is an extrapolation, not a check of the theorem"
                     + (f": {claim.extrapolation_note}" if claim.extrapolation_note else "."))
    return lines


def prepare_report_dir(report_dir: str | os.PathLike) -> Path:
    """Create the report folder and make sure a file can be written there, BEFORE any claim runs: a folder that
    is a file, read-only or full is bad input, said at once, not after the run. Raises
    :class:`InvalidParameterError` naming the folder and why."""
    directory = Path(report_dir)
    if directory.exists() and not directory.is_dir():
        raise InvalidParameterError(f"--report: {str(directory)!r} exists and is not a folder.")
    try:
        (directory / "figures").mkdir(parents=True, exist_ok=True)
        probe = directory / ".flt-write-probe"
        probe.write_bytes(b"0" * 4096)
        probe.unlink()
        mark_report_folder(directory, CHECK_REPORT)  # a later run knows the folder as an earlier report
    except OSError as exc:
        raise InvalidParameterError(
            f"--report: cannot write in {str(directory)!r} ({exc.strerror or type(exc).__name__}); give a writable "
            "folder or --no-report."
        ) from exc
    return directory


def _verdict_class(row: dict) -> str:
    """The CSS class of a verdict cell: ``pass``, ``inconclusive`` (neither a pass nor excluded) or ``fail``."""
    return "pass" if row["passed"] else "inconclusive" if row["verdict"] == "INCONCLUSIVE" else "fail"


def write_report(
    report_dir: str | os.PathLike,
    claims: Sequence[Claim],
    runs: Sequence[dict[str, Any]],
    frame: pd.DataFrame,
    scale: str,
    *,
    seed_base: int = 0,
    provenance: Mapping[str, Any],
    figures_of: Callable[[Claim], Sequence[Any]],
    calibration: Sequence[str],
    recorded: Sequence[str],
) -> Path:
    """Write the report folder; return the path of ``report.md``.

    ``provenance``: where and with what the run happened (``flt_version``, ``git_commit``, the library versions,
    ``python_version``, ``device``, ``host``: :mod:`flt_theory.runner.provenance`); ``figures_of``: a claim's declared
    figures (:class:`~flt_theory.systems.declaration.Figure`), drawn from its measured frame; ``calibration`` and
    ``recorded``: the Markdown lines of the recorded calibration and verdicts, shown as recorded, not measured by this
    run."""
    directory = prepare_report_dir(report_dir)
    for stale in (directory / "figures").glob("*.png"):
        stale.unlink()
    frame = frame.copy()
    frame["labels"] = [_labels(run["check"]) for run in runs]
    rows = frame.to_dict("records")
    figures = [_figures(directory, c, r, row, figures_of) for c, r, row in zip(claims, runs, rows)]
    prov = dict(provenance)
    when = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    n_pass = sum(bool(r["passed"]) for r in rows)
    total = sum(float(r["seconds"]) for r in rows)
    header = (
        f"flt_theory {prov['flt_version']} (git {prov['git_commit'] or 'unknown'}), torch {prov['torch_version']}, "
        f"sympy {prov['sympy_version']}, numpy {prov['numpy_version']}, Python {prov['python_version']}, "
        f"device {prov['device']}, host {prov['host']}; {when}; {total:.1f} s of claims."
    )
    rule = ("A claim passes when its law's check passes AND its negative control — the same measurement "
            "compared with a deliberately wrong law — is rejected; it is INCONCLUSIVE when its law's interval "
            "straddles its bound or its wrong law passes too, and FAILS when the data exclude its law.")

    def measured(r: dict[str, Any]) -> str:
        return measured_text(r["measured"], r["ci"], labels=r["labels"])

    md = [f"# flt check — scale `{scale}`, seeds from {seed_base}", "", header, "",
          f"**{n_pass}/{len(rows)} claims pass.** {rule}", "",
          "| claim | law (in words) | predicted | measured [95% CI] | verdict | negative control | hypotheses |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| " + " | ".join(_md_cell(x) for x in (
            f"[{r['claim']}](#{slug(r['claim'])})", plain_text(r["law"]), plain_text(r["predicted"]), measured(r),
            f"**{r['verdict']}**", r["control"] or "—", scope_text(r["scope"]))) + " |")
    md.append("")
    for claim, r, run, figs in zip(claims, rows, runs, figures):
        md += [f'<a id="{slug(claim.key)}"></a>', f"## {claim.key} — {r['verdict']}", "",
               f"*{claim.the_law.name}* ({claim.the_law.status}; source: {claim.the_law.source.cite()})", "",
               "$$", claim.the_law.latex(), "$$", "", f"In words: {plain_text(claim.words)}", "",
               *[f"- {line}" for line in hypotheses_lines(claim, run)],
               f"- **Check** ({r['check']}): {plain_text(r['message'])}",
               (f"- **Negative control** — wrong law: {plain_text(r['wrong_law'])} — {r['control'] or 'not run'}: "
                f"{plain_text(r['control_message'] or '—')}"),
               f"- Seeds: {_seeds_text(r['seeds'])}; time {r['seconds']:.2f} s "
               f"({r['computed']} points computed, {r['reused']} read from the store)", ""]
        for caption, rel in figs:
            md += [f"![{caption}]({rel})" if rel else f"*{caption}*", ""]
    md += ["## Calibration (recorded, not measured by this run)", ""] + list(calibration) + [""]
    md += ["## Verdicts recorded at each scale (not measured by this run)", ""] + list(recorded) + [""]
    md += ["## Plain-text table", "", "```", format_table(frame, wide=True), "```", ""]
    report = directory / "report.md"
    atomic_write_text(report, "\n".join(md))

    e = html.escape
    body = [f"<h1>flt check — scale <code>{e(scale)}</code></h1>", f"<p>{e(header)}</p>",
            f"<p><strong>{n_pass}/{len(rows)} claims pass.</strong> {e(rule)}</p>",
            ("<table><tr><th>claim</th><th>law (in words)</th><th>predicted</th><th>measured [95% CI]</th>"
             "<th>verdict</th><th>negative control</th><th>hypotheses</th></tr>")]
    for r in rows:
        cls = _verdict_class(r)
        cells = "<br>".join(e(part) for part in measured(r).split("; "))
        body.append(
            f"<tr><td><a href='#{slug(r['claim'])}'>{e(r['claim'])}</a></td><td>{e(plain_text(r['law']))}</td>"
            f"<td>{e(plain_text(r['predicted']))}</td><td>{cells}</td>"
            f"<td class='{cls}'>{e(r['verdict'])}</td><td>{e(r['control'] or '—')}</td>"
            f"<td>{e(scope_text(r['scope']))}</td></tr>"
        )
    body.append("</table>")
    for claim, r, run, figs in zip(claims, rows, runs, figures):
        body += [(f"<h2 id='{slug(claim.key)}'>{e(claim.key)} — <span class='{_verdict_class(r)}'>"
                  f"{e(r['verdict'])}</span></h2>"),
                 f"<p><em>{e(claim.the_law.name)}</em> ({e(claim.the_law.status)}; source: "
                 f"{e(claim.the_law.source.cite())})</p>",
                 f"<p class='formula'>{formula_html(claim.the_law.latex())}</p>",
                 f"<p>In words: {e(plain_text(claim.words))}</p>",
                 (f"<ul>{''.join(f'<li>{e(line)}</li>' for line in hypotheses_lines(claim, run))}"
                  f"<li><strong>Check</strong> ({e(r['check'])}): {e(plain_text(r['message']))}</li>"
                  f"<li><strong>Negative control</strong> — wrong law: {e(plain_text(r['wrong_law']))} — "
                  f"{e(r['control'] or 'not run')}: {e(plain_text(r['control_message'] or '—'))}</li></ul>")]
        for caption, rel in figs:
            body.append(f"<figure><img src='{e(rel)}' alt='{e(caption)}'><figcaption>{e(caption)}</figcaption></figure>"
                        if rel else f"<p><em>{e(caption)}</em></p>")
    body.append("<h2>Calibration (recorded, not measured by this run)</h2>")
    body.append(_markdown_table_html(calibration))
    body.append("<h2>Verdicts recorded at each scale (not measured by this run)</h2>")
    body.append(_markdown_table_html(recorded))
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>flt check report</title><style>"
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:0.9em;vertical-align:top}"
        ".pass{color:#2b8a3e;font-weight:bold}.fail{color:#c92a2a;font-weight:bold}.inconclusive{color:#b35c00;font-weight:bold}img{max-width:100%}"
        ".formula{margin:1em 0 1em 1.5em}.law-text{font-family:serif;font-size:1.15em}" "</style></head><body>" +
        "\n".join(body) + "</body></html>\n"
    )
    atomic_write_text(directory / "report.html", page)
    results = {"scale": scale, "seed_base": seed_base, "provenance": {**prov, "finished_at": when},
               "claims": [{**{k: (plain_text(v) if k in _READABLE_ROW and isinstance(v, str) else v)
                              for k, v in r.items() if k not in ("measured", "ci", "labels")},
                           "law_latex": claim.the_law.latex(),
                           "hypotheses": [h.to_dict() for h in claim.the_law.hypotheses],
                           "hypotheses_reading": claim.the_law.hypotheses_reading,
                           "hypothesis_points": run.get("hypothesis_points", []),
                           "extrapolation_note": claim.extrapolation_note,
                           "ladder": (run.get("ladder") or {}).get("rungs"),
                           "no_ladder": claim.no_ladder or None,
                           "entries": entries(run["check"]) if run["check"] else [],
                           "check": _readable(run["check"]), "control": _readable(run["control"]),
                           "error": run["error"]}
                          for claim, r, run in zip(claims, rows, runs)]}
    atomic_write_text(directory / "results.json", json.dumps(results, indent=1, default=str) + "\n")
    return report
