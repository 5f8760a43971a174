r"""The catalogue's table of recorded verdicts: per claim, its verdict at each scale side by side.

Written from the rows :mod:`flt_theory.checking.scale_record` decides from the record of ``flt check --record FILE``
(recorded, stale with the reason, or not run). A recorded cell shows the verdict, the estimate with its interval,
whether the points lie inside the source's hypotheses, the wall time and where it was measured; † marks a verdict
carried over a change of code that changed none of its numbers, ‡ one re-decided among the catalogue's present
number of claims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .table import measured_text

__all__ = ["verdicts_markdown"]


def _measured_text(entry: dict[str, Any]) -> str:
    """The estimate with its interval, as the verdict table prints it (a number is a measurement)."""
    return measured_text(entry.get("measured"), entry.get("ci"))


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
    return (f"**{entry['verdict']}**{marks} {_measured_text(entry)}; points inside the hypotheses: {inside}; "
            f"{time} ({where}, {entry['created'][:10]})")


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
