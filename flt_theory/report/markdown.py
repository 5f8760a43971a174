r"""The report folder of ``flt check``: ``report.md``, ``report.html``, ``results.json``, ``figures/``.

Per claim: its verdict, the law in LaTeX (``claim.law.latex()``) and in words, status and source,
the check's and the control's one-line messages, and its figures. The HTML page renders the LaTeX
with MathJax when it can load it, and shows the LaTeX source otherwise.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterError
from ..runner.provenance import static_provenance, worker_provenance
from .figures import new_figure, plain_text, plot_comparisons, save_figure, slug
from .table import format_table, measured_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..systems.declaration import Claim

__all__ = ["write_report"]

_MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"


def _seeds_text(seeds: Sequence[int]) -> str:
    """``8 (0..7)`` for a contiguous range, else the list."""
    seeds = list(seeds)
    if not seeds:
        return "none"
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{len(seeds)} ({seeds[0]}..{seeds[-1]})"
    return f"{len(seeds)} ({', '.join(map(str, seeds))})"


def _md_cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _declared_figures(claim: Claim) -> list:
    from ..systems import registry

    try:
        return registry.get_system(claim.system).figures_of(claim.name)
    except InvalidParameterError:  # a claim of the user's own file: no declared figures
        return []


def _figures(directory: Path, claim: Claim, run: dict[str, Any], row: dict[str, Any]) -> list[tuple[str, str]]:
    """Draw the claim's figures (the generic comparison, then the system's declared ones from the
    measured frame); ``[(caption, relative path)]``."""
    if run["check"] is None:
        return []
    name = slug(claim.key)
    out = []
    generic = directory / "figures" / f"{name}.png"
    plot_comparisons(claim.key, run["check"], run["control"], generic,
                     title=f"{claim.key}: {row['verdict']} — {claim.words}")
    out.append(("measured vs predicted (95% CI); negative control's wrong law in grey", f"figures/{generic.name}"))
    for spec in _declared_figures(claim):
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


def write_report(
    report_dir: str | os.PathLike,
    claims: Sequence[Claim],
    runs: Sequence[dict[str, Any]],
    frame: pd.DataFrame,
    scale: str,
    *,
    seed_base: int = 0,
) -> Path:
    """Write the report folder; return the path of ``report.md``."""
    directory = Path(report_dir)
    if directory.exists() and not directory.is_dir():
        raise InvalidParameterError(f"The report folder {str(directory)!r} exists and is not a folder.")
    (directory / "figures").mkdir(parents=True, exist_ok=True)
    for stale in (directory / "figures").glob("*.png"):
        stale.unlink()
    rows = frame.to_dict("records")
    figures = [_figures(directory, c, r, row) for c, r, row in zip(claims, runs, rows)]
    prov = {**static_provenance(), **worker_provenance({})}
    when = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    n_pass = sum(bool(r["passed"]) for r in rows)
    total = sum(float(r["seconds"]) for r in rows)
    header = (
        f"flt_theory {prov['flt_version']} (git {prov['git_commit'] or 'unknown'}), torch {prov['torch_version']}, "
        f"sympy {prov['sympy_version']}, numpy {prov['numpy_version']}, Python {prov['python_version']}, "
        f"device {prov['device']}, host {prov['host']}; {when}; {total:.1f} s of claims."
    )
    rule = ("A claim passes when its law's check passes AND its negative control — the same measurement "
            "compared with a deliberately wrong law — fails.")

    md = [f"# flt check — scale `{scale}`, seeds from {seed_base}", "", header, "",
          f"**{n_pass}/{len(rows)} claims pass.** {rule}", "",
          "| claim | law (in words) | predicted | measured [95% CI] | verdict | negative control |",
          "|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| " + " | ".join(_md_cell(x) for x in (
            f"[{r['claim']}](#{slug(r['claim'])})", plain_text(r["law"]), r["predicted"], measured_text(r["measured"], r["ci"]),
            f"**{r['verdict']}**", r["control"] or "—")) + " |")
    md.append("")
    for claim, r, figs in zip(claims, rows, figures):
        md += [f'<a id="{slug(claim.key)}"></a>', f"## {claim.key} — {r['verdict']}", "",
               f"*{claim.the_law.name}* ({claim.the_law.status}; source: {claim.the_law.source.cite()})", "",
               "$$", claim.the_law.latex(), "$$", "", f"In words: {claim.words}", "",
               f"- **Check** ({r['check']}): {r['message']}",
               (f"- **Negative control** — wrong law: {r['wrong_law']} — {r['control'] or 'not run'}: "
                f"{r['control_message'] or '—'}"),
               f"- Seeds: {_seeds_text(r['seeds'])}; time {r['seconds']:.2f} s "
               f"({r['computed']} points computed, {r['reused']} read from the store)", ""]
        for caption, rel in figs:
            md += [f"![{caption}]({rel})" if rel else f"*{caption}*", ""]
    md += ["## Plain-text table", "", "```", format_table(frame, wide=True), "```", ""]
    report = directory / "report.md"
    report.write_text("\n".join(md), encoding="utf-8")

    e = html.escape
    body = [f"<h1>flt check — scale <code>{e(scale)}</code></h1>", f"<p>{e(header)}</p>",
            f"<p><strong>{n_pass}/{len(rows)} claims pass.</strong> {e(rule)}</p>",
            ("<table><tr><th>claim</th><th>law (in words)</th><th>predicted</th><th>measured [95% CI]</th>"
             "<th>verdict</th><th>negative control</th></tr>")]
    for r in rows:
        cls = "pass" if r["passed"] else "fail"
        body.append(
            f"<tr><td><a href='#{slug(r['claim'])}'>{e(r['claim'])}</a></td><td>{e(plain_text(r['law']))}</td>"
            f"<td>{e(r['predicted'])}</td><td>{e(measured_text(r['measured'], r['ci']))}</td>"
            f"<td class='{cls}'>{e(r['verdict'])}</td><td>{e(r['control'] or '—')}</td></tr>"
        )
    body.append("</table>")
    for claim, r, figs in zip(claims, rows, figures):
        body += [(f"<h2 id='{slug(claim.key)}'>{e(claim.key)} — <span class='{'pass' if r['passed'] else 'fail'}'>"
                  f"{e(r['verdict'])}</span></h2>"),
                 f"<p><em>{e(claim.the_law.name)}</em> ({e(claim.the_law.status)}; source: {e(claim.the_law.source.cite())})</p>",
                 f"<p class='law'>\\[{e(claim.the_law.latex())}\\]</p>", f"<p>In words: {e(claim.words)}</p>",
                 (f"<ul><li><strong>Check</strong> ({e(r['check'])}): {e(r['message'])}</li>"
                  f"<li><strong>Negative control</strong> — wrong law: {e(r['wrong_law'])} — "
                  f"{e(r['control'] or 'not run')}: {e(r['control_message'] or '—')}</li></ul>")]
        for caption, rel in figs:
            body.append(f"<figure><img src='{e(rel)}' alt='{e(caption)}'><figcaption>{e(caption)}</figcaption></figure>"
                        if rel else f"<p><em>{e(caption)}</em></p>")
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>flt check report</title>"
        f"<script async src='{_MATHJAX}'></script><style>"
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:0.9em;vertical-align:top}"
        ".pass{color:#2b8a3e;font-weight:bold}.fail{color:#c92a2a;font-weight:bold}img{max-width:100%}"
        "</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
    (directory / "report.html").write_text(page, encoding="utf-8")
    results = {"scale": scale, "seed_base": seed_base, "provenance": {**prov, "finished_at": when},
               "claims": [{**{k: v for k, v in r.items() if k not in ("measured", "ci")},
                           "check": run["check"], "control": run["control"], "error": run["error"]}
                          for r, run in zip(rows, runs)]}
    (directory / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    return report
