r"""The catalogue's table of recorded verdicts: per claim, its verdict at each scale side by side.

Written from the rows :mod:`flt_theory.checking.scale_record` decides from the record of ``flt check --record FILE``
(recorded, stale with the reason, or not run). A recorded cell shows the verdict, the estimate with its interval,
the effective exponents along the ladder (and the extrapolated limit of a claim decided in the limit) or, for a claim
to which no size ladder applies, why (:func:`no_ladder_text`, from the claim as declared now), whether the points lie
inside the source's hypotheses, the wall time and where it was measured; † marks a verdict carried over a change of
code that changed none of its numbers, ‡ one re-decided among the catalogue's present number of claims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._display import markdown_cell
from .table import measured_text

__all__ = ["effective_text", "no_ladder_text", "verdicts_markdown"]


def _measured_text(entry: dict[str, Any]) -> str:
    """The estimate with its interval, as the verdict table prints it (a number is a measurement)."""
    return measured_text(entry.get("measured"), entry.get("ci"))


def effective_text(entry: Mapping[str, Any]) -> str:
    """The effective exponents of a recorded verdict, rung by rung, and the extrapolated limit where the claim is
    decided in the limit; where its comparison gives none, the claim's own size ladder (:attr:`Claim.ladder
    <flt_theory.systems.declaration.Claim.ladder>`: per rung the measured quantity with its interval, and the literal
    statement's value where the ladder states one); ``""`` for a claim without either.

    >>> effective_text({"effective": [{"from": 64, "to": 128, "estimate": 1.05, "ci": [0.98, 1.1]}],
    ...                 "limit": {"estimate": 1.0, "ci": [0.9, 1.1], "model": "no correction"}})
    'effective exponents 1.05 [0.98, 1.1] (64→128); limit 1 [0.9, 1.1] (no correction)'
    >>> effective_text({"ladder": [{"size": {"n": 8}, "estimate": 1.2, "ci": [1.1, 1.3], "literal": 0.0},
    ...                            {"size": {"n": 16}, "estimate": 1.25, "ci": [1.2, 1.3], "literal": 0.0}]})
    'ladder 1.2 [1.1, 1.3] (n = 8), 1.25 [1.2, 1.3] (n = 16); literal statement 0'
    """
    rungs = entry.get("effective") or []
    if not rungs:
        return _ladder_text(entry.get("ladder") or [])
    text = "effective exponents " + ", ".join(
        f"{measured_text(r['estimate'], r['ci'])} ({r['from']:g}→{r['to']:g})" for r in rungs)
    limit = entry.get("limit")
    if limit:
        text += f"; limit {measured_text(limit['estimate'], limit['ci'])} ({limit['model']})"
    return text


def _ladder_text(rungs: list[Mapping[str, Any]]) -> str:
    """A claim's size ladder as text (:func:`effective_text`): the rungs, then the law's and the literal statement's
    values where the ladder gives them at every rung (one number where they are the same at every rung)."""
    if not rungs:
        return ""
    text = "ladder " + ", ".join(f"{measured_text(r['estimate'], r['ci'])} ({_size_text(r['size'])})" for r in rungs)
    for key, label in (("predicted", "law"), ("literal", "literal statement")):
        values = [r.get(key) for r in rungs]
        if all(v is not None for v in values):
            shown = [f"{v:.4g}" for v in values]
            text += f"; {label} " + (shown[0] if len(set(shown)) == 1 else ", ".join(shown))
    return text


def no_ladder_text(reason: str | None) -> str:
    """Where a claim declares no size ladder, the reason none applies as the catalogue shows it in the ladder's place;
    ``""`` without one.

    >>> no_ladder_text("an exact inequality at a point")
    'no size ladder: an exact inequality at a point'
    >>> no_ladder_text("")
    ''
    """
    return f"no size ladder: {reason.strip()}" if reason and reason.strip() else ""


def _size_text(size: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in size.items())


def _cell(row: dict[str, Any]) -> str:
    if row["status"] == "not run":
        return "not run"
    entry = row["entry"]
    if row["status"] == "stale":
        return f"stale — re-run ({row['reason']}; was {entry['verdict']})"
    hw = entry["hardware"]
    time = "time not measured" if entry["seconds"] is None else f"{entry['seconds']:.0f} s"
    where = (
        f"{hw['device']}: {hw['gpu']}"
        if hw.get("gpu")
        else f"{hw['cores']} cores, {hw['torch_threads']} torch thread(s)"
    )
    inside = entry.get("in_hypotheses") or "not stated"
    marks = ("†" if entry.get("restamped") else "") + ("‡" if entry.get("redecided") else "")
    ladder = effective_text(entry) or markdown_cell(no_ladder_text(row.get("no_ladder")))  # a reason is free text
    return (f"**{entry['verdict']}**{marks} {_measured_text(entry)}; " + (f"{ladder}; " if ladder else "")
            + f"points inside the hypotheses: {inside}; {time} ({where}, {entry['created'][:10]})")


def verdicts_markdown(record: dict[str, Any] | None, claims: Sequence[Any],
                      by_scale: Mapping[str, Sequence[dict[str, Any]]]) -> list[str]:
    """Markdown lines: per claim, its recorded verdicts at each scale side by side, from ``by_scale`` (scale -> one
    row per claim of ``claims``, in order: :func:`flt_theory.checking.scale_record.verdict_rows`)."""
    head = ["Recorded by `flt check PATHS --scale SCALE --record flt_theory/report/verdict_record.json` (decided at "
            "the family-wise level of the whole catalogue). A verdict whose claim or simulation changed since it was "
            "recorded is marked stale; 'not run' means no run at that scale has been recorded. † carried over a change "
            "of the simulation's code that changed none of its numbers (its small-scale verdict reproduced exactly: "
            "`flt check --restamp-from`); ‡ re-decided among the catalogue's present number of claims without "
            "re-running (no p-value between the old and the new level).", ""]
    if record is None:
        return head + ["No verdict is recorded yet."]
    lines = head + ["| claim | " + " | ".join(f"{scale} scale" for scale in by_scale) + " |",
                    "|---|" + "---|" * len(by_scale)]
    for i, claim in enumerate(claims):
        lines.append(f"| `{claim.key}` | " + " | ".join(_cell(rows[i]) for rows in by_scale.values()) + " |")
    recorded = {scale: sum(r["status"] == "recorded" for r in rows) for scale, rows in by_scale.items()}
    lines += [
        "",
        "Recorded and current: "
        + ", ".join(f"{n}/{len(claims)} at {scale} scale" for scale, n in recorded.items())
        + ".",
    ]
    return lines
