r"""The recorded calibration of the claims: false rejections and power, for the report and ``CLAIMS.md``.

``flt calibrate --repeats 20 --record FILE`` measures, per claim, how often its check rejects its true law on disjoint
seed sets and which mutants of the law it rejects (:mod:`.calibrate`). That run takes tens of minutes, so it is
*recorded* (:data:`RECORD`, the JSON document of one run, with its date, scale and commit) rather than re-run
by every ``flt check``; the report and the catalogue show the record, and say so.

Each claim's entry carries a **fingerprint** of what was calibrated (experiment, points and seeds at the
scale, the law and the wrong law, the comparison) and the **code fingerprint** of its experiment
(:attr:`~flt_theory.runner.registry.Experiment.code_fingerprint`: the source of the simulation that produced the
numbers, its seed streams included): a claim whose fingerprint or code differs from the record — or whose entry
predates code fingerprints — is shown as *stale — recalibrate*, never with numbers measured on something else.

Summary per claim: false rejections :math:`k/R` with the exact 95% interval; the **goal mutants** rejected in at
least 95% of the repeats (:data:`GOAL_LEVEL`: every exponent :math:`\pm 0.5` and :math:`\pm 1` — a threshold
:math:`n^* \asymp d^{\kappa^*}` is an exponent, so its :math:`\pm 0.5` is stricter than a threshold :math:`\pm 1` —,
a threshold at 0 moved by 1, every subspace mutant); the **large mutants** rejected in at least 90% (the goal
mutants and values or bounds :math:`\times 2` or :math:`\times 0.5`, a flipped side); the power (smallest
mutation caught, per kind); and the claim's ``power_note`` where it has one: why a mutant is missed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..systems.declaration import Claim

__all__ = [
    "GOAL", "GOAL_LEVEL", "LARGE", "RECORD", "claim_code_fingerprint", "claim_fingerprint", "is_goal", "is_large",
    "load_record", "power_markdown", "power_rows", "power_text",
]

#: The recorded calibration at scale ``small`` (``flt calibrate --repeats 20 --record RECORD``).
RECORD = Path(__file__).with_name("calibration_small.json")
#: The smallest size of a mutant counted as large, per kind (``log 2`` for scalings).
LARGE = {"exponent": 0.5, "value scale": math.log(2) - 1e-9, "bound scale": math.log(2) - 1e-9, "value shift": 1.0,
         "bound side": 1.0, "subspace rotation": 30.0, "subspace neighbour": 1.0}


#: The mutants every claim's check should reject in at least :data:`GOAL_LEVEL` of the repeats: the smallest size
#: per kind (exponents ±0.5 and larger, a zero threshold moved by 1, every subspace mutant).
GOAL = {"exponent": 0.5, "value shift": 1.0, "subspace rotation": 30.0, "subspace neighbour": 1.0}
#: The fraction of the repeats in which a check should reject each goal mutant.
GOAL_LEVEL = 0.95


def is_goal(kind: str, size: float) -> bool:
    """Whether a mutant of ``kind`` and ``size`` is one of the goal mutants (module docstring).

    >>> is_goal("exponent of d", 0.5), is_goal("exponent of d", 0.25), is_goal("bound scale", math.log(2))
    (True, False, False)
    """
    key = "exponent" if kind.startswith("exponent") else kind
    return size >= GOAL.get(key, math.inf)


def is_large(kind: str, size: float) -> bool:
    """Whether a mutant of ``kind`` and ``size`` is large (module docstring).

    >>> is_large("exponent of d", 0.5), is_large("exponent of d", 0.25), is_large("value scale", math.log(1.25))
    (True, False, False)
    """
    key = "exponent" if kind.startswith("exponent") else kind
    return size >= LARGE.get(key, math.inf)


def _describe(value: Any) -> Any:
    if isinstance(value, functools.partial):
        return [_describe(value.func), sorted((k, repr(v)) for k, v in value.keywords.items())]
    return getattr(value, "__qualname__", repr(value))


def claim_fingerprint(claim: Claim, scale: str) -> str:
    """A short hash of what a calibration of ``claim`` at ``scale`` measured and compared."""
    m = claim.measurement
    text = json.dumps([claim.key, m.experiment, m.points[scale], m.seeds[scale], claim.the_law.text(),
                       claim.the_wrong_law.text(), _describe(claim.compare)], sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def claim_code_fingerprint(claim: Claim) -> str:
    """The code fingerprint of the experiment ``claim`` measures: it changes whenever the simulation's source does."""
    from ..runner.registry import get_experiment

    return get_experiment(claim.measurement.experiment).code_fingerprint


def load_record(path: str | Path | None = None) -> dict[str, Any] | None:
    """The recorded calibration document, or None when there is none."""
    path = Path(path) if path is not None else RECORD
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def power_text(power: dict[str, float | None]) -> str:
    """The power of a claim per kind of mutation, in words (``not caught`` where no size reaches 90%)."""
    parts = []
    for kind, size in power.items():
        unit = "°" if "rotation" in kind else ""
        parts.append(f"{kind}: {'not caught' if size is None else f'{size:.3g}{unit}'}")
    return "; ".join(parts) or "no mutants (a named object, or bounds in symbols other than d, n, p, eta)"


def power_rows(record: dict[str, Any] | None, claims: list[Claim]) -> list[dict[str, Any]]:
    """Per claim, its calibration summary from ``record``: ``status`` is ``calibrated``, ``stale`` or
    ``not calibrated``."""
    scale = (record or {}).get("scale", "small")
    entries = {e["claim"]: e for e in (record or {}).get("claims", [])}
    rows = []
    for claim in claims:
        entry = entries.get(claim.key)
        if entry is None:
            rows.append({"claim": claim.key, "status": "not calibrated"})
            continue
        if entry.get("fingerprint") != claim_fingerprint(claim, scale):
            rows.append({"claim": claim.key, "status": "stale", "reason": "the claim changed"})
            continue
        if entry.get("code_fingerprint") != claim_code_fingerprint(claim):
            rows.append({"claim": claim.key, "status": "stale", "reason": "its simulation's code changed"
                         if "code_fingerprint" in entry else "the record predates code fingerprints"})
            continue
        active = [m for m in entry["mutants"] if not m["inert"]]
        large = [m for m in active if is_large(m["kind"], m["size"])]
        goal = [m for m in active if is_goal(m["kind"], m["size"])]
        rows.append({"claim": claim.key, "status": "calibrated", "false_rejections": entry["false_rejections"],
                     "repeats": entry["repeats"], "ci": entry["false_rejection_ci"],
                     "goal_caught": sum(m["fraction"] >= GOAL_LEVEL for m in goal), "goal": len(goal),
                     "goal_missed": [f"{m['label']} ({m['fraction']:.0%})" for m in goal if m["fraction"] < GOAL_LEVEL],
                     "large_caught": sum(m["fraction"] >= record.get("power_level", 0.9) for m in large),
                     "large": len(large), "inert": sum(m["inert"] for m in entry["mutants"]), "power": entry["power"],
                     "note": claim.power_note, "restamped": bool(entry.get("restamped"))})
    return rows


def power_markdown(record: dict[str, Any] | None, claims: list[Claim]) -> list[str]:
    """Markdown lines: the recorded calibration table (or a line saying there is none)."""
    if record is None:
        return ["No calibration is recorded (`flt calibrate --repeats 20 --record "
                "flt_theory/report/calibration_small.json`)."]
    lines = [f"Recorded by `flt calibrate --repeats {record['repeats']} --record FILE` at scale `{record['scale']}` "
             f"({record.get('created', 'date not recorded')}, git {record.get('git_commit') or 'unknown'}): "
             f"{record['runs_rejecting_a_true_law']}/{record['repeats']} seed sets would have failed a whole "
             f"`flt check` run (family-wise level {record['alpha']:g}). Per claim: false rejections of the true law "
             f"(count of {record['repeats']}, exact 95% interval); goal mutants (exponent ±0.5 and ±1, a zero "
             f"threshold moved by 1, every subspace mutant) rejected in ≥ {GOAL_LEVEL:.0%} of the repeats, with those "
             "missed; large mutants (the goal mutants, value ×2 or ×½, flipped side) rejected in ≥ 90%; power = the "
             "smallest mutation of each kind rejected in ≥ 90%. Inert mutants (a symbol the measurement holds fixed) "
             "are left out. A bound mutant that is missed is often still a true statement of the data (a test error of "
             "0 also satisfies the bound ≤ 0.05 × ½, a test error of 0.5 also clears ≥ 0.1 × 2): no check can reject "
             "it. A claim changed since the record is marked stale; why a claim misses a goal mutant is noted below "
             "the table. Re-stamped (†): the claim's code changed after its calibration, and `flt calibrate "
             "--restamp-from` carried the calibration over because its small-scale verdict reproduced exactly "
             "(estimate, interval, "
             f"p-values and messages at the same seeds); the entry keeps that evidence.", "",
             "| claim | false rejections [95% CI] | goal mutants ≥ 95% | large mutants ≥ 90% | power (smallest caught) "
             "|",
             "|---|---|---|---|---|"]
    notes = []
    for row in power_rows(record, claims):
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
        if row["note"]:
            notes.append(f"- `{row['claim']}`: {row['note']}")
    if notes:
        lines += ["", "Why mutants are missed:", ""] + notes
    return lines
