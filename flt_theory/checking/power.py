r"""The recorded calibration of the claims: false rejections and power, for the report and ``CLAIMS.md``.

``flt calibrate --repeats 20 --record FILE`` measures, per claim, how often its check rejects its true law on disjoint
seed sets and which mutants of the law it rejects (:mod:`flt_theory.checking.calibrate`). That run takes tens of
minutes, so it is *recorded* (:data:`RECORD`, the JSON document of one run, with its date, scale and commit) rather than
re-run by every ``flt check``; the report and the catalogue show the record, and say so.

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
mutation caught, per kind); and the claim's ``power_note`` where it has one: why a mutant is missed. This module
reads the record and decides each claim's row (:func:`power_rows`); :mod:`flt_theory.report.power` writes the rows as
the table.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from pathlib import Path
from typing import Any

from ..errors import InvalidParameterError
from ..report.power import calibration_markdown
from ..runner.registry import get_experiment
from ..systems.declaration import Claim
from .records import CALIBRATION_RECORD, load_if_present

__all__ = [
    "GOAL", "GOAL_LEVEL", "LARGE", "PAPER_RECORD", "RECORD", "claim_code_fingerprint", "claim_fingerprint", "is_goal",
    "is_large", "load_record", "power_markdown", "power_rows", "recorded_calibration",
]

#: The recorded calibration at scale ``small`` (``flt calibrate --repeats 20 --record RECORD``), shipped with the
#: package beside the report that shows it: every claim of the catalogue.
RECORD = Path(__file__).parent.parent / "report" / "calibration_small.json"
#: The recorded calibration at scale ``paper`` (``flt calibrate --scale paper --repeats 20 --record PAPER_RECORD``):
#: the claims calibrated there, the limit decisions whose paper ladder is affordable 20 times (a paper decision can be
#: much weaker than its small one: the norm law's was, at 96 seeds). Shown below the small table.
PAPER_RECORD = RECORD.with_name("calibration_paper.json")
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
    return get_experiment(claim.measurement.experiment).code_fingerprint


def load_record(path: str | Path | None = None, *, option: str = "--record") -> dict[str, Any] | None:
    """The recorded calibration document, or None when there is none; a file that is not a calibration record
    (:data:`.records.CALIBRATION_RECORD`) raises :class:`.records.RecordFileError` naming ``option``, the file and
    the field."""
    return load_if_present(Path(path) if path is not None else RECORD, CALIBRATION_RECORD, option)


def power_rows(record: dict[str, Any] | None, claims: list[Claim]) -> list[dict[str, Any]]:
    """Per claim, its calibration summary from ``record``: ``status`` is ``calibrated``, ``stale`` or
    ``not calibrated``."""
    scale = (record or {}).get("scale", "small")
    entries = {e["claim"]: e for e in (record or {}).get("claims", [])}
    rows: list[dict[str, Any]] = []
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
        assert record is not None  # it holds the entry
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


def power_markdown(record: dict[str, Any] | None, claims: list[Claim], *, listed_only: bool = False) -> list[str]:
    """Markdown lines: the recorded calibration table of ``claims`` (or a line saying there is none), their rows
    decided by :func:`power_rows` and written by :func:`flt_theory.report.power.calibration_markdown`; with
    ``listed_only`` (a record of some claims: :data:`PAPER_RECORD`), the rows of the claims the record holds."""
    rows = power_rows(record, claims) if record is not None else []
    if listed_only:
        rows = [row for row in rows if row["status"] != "not calibrated"]
    return calibration_markdown(record, rows, goal_level=GOAL_LEVEL)


def recorded_calibration(claims: list[Claim]) -> list[str]:
    """The calibration section of the report and ``CLAIMS.md``: the small-scale table of every claim
    (:data:`RECORD`), then, where :data:`PAPER_RECORD` holds some of ``claims``, the paper-scale table of those."""
    lines = power_markdown(load_record(), claims)
    paper = load_record(PAPER_RECORD)
    held = {entry["claim"] for entry in (paper or {}).get("claims", [])}
    if paper is not None and paper["scale"] != "paper":
        raise InvalidParameterError(f"{PAPER_RECORD}: a calibration record at scale {paper['scale']!r} where the "
                                    "paper-scale record belongs (flt calibrate --scale paper --record FILE)")
    if paper is not None and any(claim.key in held for claim in claims):
        lines += ["", "### At paper scale (the claims calibrated there)", "",
                  *power_markdown(paper, claims, listed_only=True)]
    return lines
