r"""The calibration table of the report and ``CLAIMS.md``: false rejections and power, written from the rows
:mod:`flt_theory.checking.power` decides from the recorded calibration (``flt calibrate --record``).

Per claim: false rejections :math:`k/R` with the exact 95% interval; the goal mutants rejected in at least the goal
level of the repeats, with those missed; the large mutants rejected in at least 90%; the power (the smallest mutation
caught, per kind); and the claim's ``power_note`` where it has one. A stale or uncalibrated claim is shown as such,
never with numbers.

>>> power_text({"exponent of d": 0.5, "subspace rotation": None})
'exponent of d: 0.5; subspace rotation: not caught'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["calibration_markdown", "power_text"]


def power_text(power: dict[str, float | None]) -> str:
    """The power of a claim per kind of mutation, in words (``not caught`` where no size reaches 90%)."""
    parts = []
    for kind, size in power.items():
        unit = "°" if "rotation" in kind else ""
        parts.append(f"{kind}: {'not caught' if size is None else f'{size:.3g}{unit}'}")
    return "; ".join(parts) or "no mutants (a named object, or bounds in symbols other than d, n, p, eta)"


def calibration_markdown(record: dict[str, Any] | None, rows: Sequence[dict[str, Any]], *,
                         goal_level: float) -> list[str]:
    """Markdown lines: the recorded calibration table (or a line saying there is none) of the claims' ``rows``
    (:func:`flt_theory.checking.power.power_rows`), the goal mutants counted at ``goal_level``."""
    if record is None:
        return ["No calibration is recorded (`flt calibrate --repeats 20 --record "
                "flt_theory/report/calibration_small.json`)."]
    scale = record["scale"]
    whole = ("a whole `flt check` run" if scale == "small" else
             f"a `flt check --scale {scale}` run of the {len(record.get('claims', []))} claims calibrated there")
    lines = [f"Recorded by `flt calibrate --repeats {record['repeats']} --record FILE` at scale `{scale}` "
             f"({record.get('created', 'date not recorded')}, git {record.get('git_commit') or 'unknown'}): "
             f"{record['runs_rejecting_a_true_law']}/{record['repeats']} seed sets would have failed {whole} by "
             f"rejecting a true law (family-wise level {record['alpha']:g}, each claim decided at the catalogue's "
             "level; a negative control left unrejected, INCONCLUSIVE, is not counted). Per claim: false "
             "rejections of the true law "
             f"(count of {record['repeats']}, exact 95% interval); goal mutants (exponent ±0.5 and ±1, a zero "
             f"threshold moved by 1, every subspace mutant) rejected in ≥ {goal_level:.0%} of the repeats, with those "
             "missed; large mutants (the goal mutants, value ×2 or ×½, flipped side) rejected in ≥ 90%; power = the "
             "smallest mutation of each kind rejected in ≥ 90%. Inert mutants (a symbol the measurement holds fixed) "
             "are left out. A bound mutant that is missed is often still a true statement of the data (a test error of "
             "0 also satisfies the bound ≤ 0.05 × ½, a test error of 0.5 also clears ≥ 0.1 × 2): no check can reject "
             "it. A claim changed since the record is marked stale" + (
                 "; why a claim misses a goal mutant is noted below the table" if scale == "small" else "") +
             ". Re-stamped (†): the claim's code changed after its calibration, and `flt calibrate "
             "--restamp-from` carried the calibration over because its small-scale verdict reproduced exactly "
             "(estimate, interval, "
             "p-values and messages at the same seeds); the entry keeps that evidence.", "",
             "| claim | false rejections [95% CI] | goal mutants ≥ 95% | large mutants ≥ 90% | power (smallest caught) "
             "|",
             "|---|---|---|---|---|"]
    notes = []
    for row in rows:
        if row["status"] != "calibrated":
            text = f"stale — recalibrate ({row['reason']})" if row["status"] == "stale" else "not calibrated"
            lines.append(f"| `{row['claim']}` | {text} | — | — | — |")
            continue
        low, high = row["ci"]
        if row["goal"]:
            goal = f"{row['goal_caught']}/{row['goal']}" + (
                f" (missed: {', '.join(row['goal_missed'])})" if row["goal_missed"] else ""
            )
        else:
            goal = "— (none)" if row["large"] or row["inert"] else "— (no mutants)"
        large = f"{row['large_caught']}/{row['large']}" if row["large"] else "—"
        mark = " †" if row["restamped"] else ""
        lines.append(f"| `{row['claim']}`{mark} | {row['false_rejections']}/{row['repeats']} [{low:.2f}, {high:.2f}] | "
                     f"{goal} | {large} | {power_text(row['power'])} |")
        if row["note"] and scale == "small":  # the claims' notes speak of their small-scale calibration
            notes.append(f"- `{row['claim']}`: {row['note']}")
    if notes:
        lines += ["", "Why mutants are missed:", ""] + notes
    return lines
