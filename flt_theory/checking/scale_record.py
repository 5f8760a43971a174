r"""The recorded verdicts of the claims at each scale: what ``flt check --record FILE`` ran, where and when.

A verdict at the ``paper`` scale (each claim at its source's sizes) takes hours on two CPU cores, so, like the
calibration (:mod:`flt_theory.checking.power`), it is *recorded* rather than re-run by every ``flt check``:
:data:`RECORD` holds one entry per claim and scale — the verdict, the measured estimate with its interval, whether the
points lie inside the source's hypotheses, the wall time of the measurement, the hardware and the commit. ``flt check
--record FILE`` merges the claims it ran into the file, so a record is built up over several runs (each resumable
through ``--store``); the catalogue (``CLAIMS.md``) shows the recorded small- and paper-scale verdicts side by side.

Every entry carries the two fingerprints the calibration record carries (:func:`.power.claim_fingerprint` of
the claim at that scale: experiment, points, seeds, law, wrong law, comparison; and the code fingerprint of its
simulation): an entry whose claim or code changed since it was recorded is shown as *stale*, never as a
verdict of the current code. Claims are decided at the family-wise level of the whole catalogue,
:math:`\alpha/K` with :math:`K` the number of registered claims, as a full ``flt check`` run decides them, so a
verdict does not depend on which claims were run together. This module writes and reads the record and decides each
claim's row (:func:`verdict_rows`); :mod:`flt_theory.report.scale_record` writes the rows as the catalogue's table.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._files import atomic_write_text
from ..errors import InvalidParameterError
from ..report.scale_record import verdicts_markdown
from ..runner.provenance import static_provenance
from ..systems import registry
from ..systems.declaration import SCALES, Claim
from .power import claim_code_fingerprint, claim_fingerprint
from .records import VERDICT_RECORD, load_if_present, validate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "RECORD", "check_record_path", "code_fingerprints", "hardware", "load_verdicts", "merge_verdicts",
    "record_markdown", "recorded_seconds", "verdict_entries", "verdict_rows", "write_verdicts",
]

#: The record shipped with the package beside the report that shows it (read by ``CLAIMS.md`` and the report).
RECORD = Path(__file__).parent.parent / "report" / "verdict_record.json"

#: The fields of a verdict-table row (:func:`.check.verdict_frame`) kept in an entry.
_KEPT = ("verdict", "passed", "check", "control", "predicted", "measured", "ci", "n_seeds", "level", "p_check",
         "p_control", "in_hypotheses", "scope", "message", "control_message", "computed", "reused", "effective",
         "limit", "ladder")


#: The integer fields of a row (the record's schema reads them as integers).
_COUNTS = ("n_seeds", "computed", "reused")


def hardware() -> dict[str, Any]:
    """Where a verdict was measured: the processor, the cores this process may use, torch's threads, the device
    (``cuda`` and its name where torch sees a GPU), the host name."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {"cpu": cpu, "cores": cores, "torch_threads": torch.get_num_threads(), "device": "cuda" if gpu else "cpu",
            "gpu": gpu, "host": platform.node()}


def code_fingerprints(claims: list[Claim]) -> dict[str, str]:
    """Claim key -> the code fingerprint of its simulation, read now: taken before a run and compared after it, so
    that a file edited during the run cannot pass for the code that ran."""
    return {c.key: claim_code_fingerprint(c) for c in claims}


def verdict_entries(
    frame: pd.DataFrame, claims: list[Claim], scale: str, *, jobs: int = 1, before: dict[str, str] | None = None,
    decided: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One record entry per claim of the verdict table ``frame`` (:func:`.check.check` at ``scale``).

    ``seconds`` is the wall time of the claim's measurement and comparison in this run; where every row came from
    the store (``computed`` 0) the time is not a measurement of the run, and ``seconds`` is None (a merge keeps
    the time of the run that computed them). ``before``: the code fingerprints taken before the run
    (:func:`code_fingerprints`); a claim whose code changed during the run is recorded as such (stale).
    ``decided``: how the verdicts were decided (``alpha``, ``seed_base``, ``family``), stored with each entry."""
    date = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    where = {**hardware(), "jobs": jobs}
    commit = static_provenance().get("git_commit")
    by_key = {c.key: c for c in claims}
    entries = []
    for row in json.loads(frame.to_json(orient="records")):
        claim = by_key[row["claim"]]
        for count in _COUNTS:  # a column holding one None (a claim that raised) is read back as floats
            if isinstance(row.get(count), float) and row[count].is_integer():
                row[count] = int(row[count])
        entries.append({
            "claim": claim.key, "scale": scale, **{k: row.get(k) for k in _KEPT},
            "no_ladder": claim.no_ladder or None,  # why no size ladder applies, where the claim declares none
            "seconds": row["seconds"] if row.get("computed") else None,
            "fingerprint": claim_fingerprint(claim, scale), "code_fingerprint": _code_of(claim, before),
            **dict(decided or {}),
            "created": date, "git_commit": commit, "hardware": where,
        })
    return entries


def _code_of(claim: Claim, before: dict[str, str] | None) -> str:
    now = claim_code_fingerprint(claim)
    return now if before is None or before.get(claim.key) == now else "changed during the run"


def load_verdicts(path: str | Path | None = None, *, option: str = "--record") -> dict[str, Any] | None:
    """The recorded verdicts (``{"entries": [...]}``), or None when there is no record; a file that is not a
    verdict record (:data:`.records.VERDICT_RECORD`) raises :class:`.records.RecordFileError` naming ``option``, the
    file and the field."""
    return load_if_present(Path(path) if path is not None else RECORD, VERDICT_RECORD, option)


def merge_verdicts(record: dict[str, Any] | None, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """``record`` with ``entries`` replacing those of the same claim and scale (order: the record's, new ones last).

    An entry without a measured time (its rows all came from the store) keeps the time of the entry it replaces (with
    its ``seconds_note`` and hardware) when that one measured the same claim and code. Where that time was itself
    carried over a change of code (the replaced entry was ``restamped``, or kept such a time), the new entry says so
    with ``seconds_carried``: its verdict was decided by the code of now, its time measured on the code before
    (:func:`recorded_seconds` reads it; the catalogue's † reads ``restamped`` alone)."""
    old = {(e["claim"], e["scale"]): e for e in (record or {}).get("entries", [])}
    merged = dict(old)
    for entry in entries:
        key = (entry["claim"], entry["scale"])
        before = old.get(key)
        if (
            entry["seconds"] is None
            and before is not None
            and (before["fingerprint"], before["code_fingerprint"]) == (entry["fingerprint"], entry["code_fingerprint"])
        ):
            kept = {k: before[k] for k in ("seconds", "seconds_note", "hardware") if k in before}
            if before.get("restamped") or before.get("seconds_carried"):
                kept["seconds_carried"] = True
            entry = {**entry, **kept}
        merged[key] = entry
    return {"entries": list(merged.values())}


def check_record_path(path: str | os.PathLike[str]) -> None:
    """Refuse, before anything runs, a record that could not be written or read afterwards (``--record``)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if (
        path.is_dir()
        or not folder.is_dir()
        or not os.access(folder, os.W_OK)
        or (path.exists() and not os.access(path, os.W_OK))
    ):
        raise InvalidParameterError(f"--record: cannot write {str(path)!r}: its folder does not exist or is not "
                                    "writable")
    load_verdicts(path, option="--record")  # a file there must be a verdict record (.records.VERDICT_RECORD)


def write_verdicts(path: str | os.PathLike[str], frame: pd.DataFrame, claims: list[Claim], scale: str, *, jobs: int = 1,
                   before: dict[str, str] | None = None, decided: dict[str, Any] | None = None) -> dict[str, Any]:
    """Merge the verdicts of ``frame`` into the record at ``path`` (created when absent); returns the record.

    Each new entry is checked against the record's schema first (:data:`.records.VERDICT_RECORD`): an entry the next
    ``--record`` could not read back (e.g. a plugin claim's ladder with a size that is not a number) raises
    :class:`.records.RecordFileError` naming the claim and the field, and nothing is written."""
    path = Path(path)
    entries = verdict_entries(frame, claims, scale, jobs=jobs, before=before, decided=decided)
    for entry in entries:
        validate({"entries": [entry]}, VERDICT_RECORD, f"--record: {path}: the verdict of {entry['claim']} ({scale})")
    record = merge_verdicts(load_verdicts(path), entries)
    atomic_write_text(path, json.dumps(record, indent=1) + "\n")
    return record


def verdict_rows(record: dict[str, Any] | None, claims: list[Claim], scale: str) -> list[dict[str, Any]]:
    """Per claim, its recorded verdict at ``scale``: ``status`` is ``recorded`` (with the entry), ``stale`` (with
    the reason) or ``not run``; ``no_ladder``: why no size ladder applies to the claim as declared now
    (:attr:`Claim.no_ladder <flt_theory.systems.declaration.Claim.no_ladder>`, ``""`` where one does), shown where its
    ladder would be, also beside an entry recorded before the reason was declared."""
    entries = {e["claim"]: e for e in (record or {}).get("entries", []) if e["scale"] == scale}
    family = sum(len(system.claims) for system in registry.systems())
    rows = []
    for claim in claims:
        entry = entries.get(claim.key)
        if entry is None:
            row = {"claim": claim.key, "status": "not run"}
        elif entry["fingerprint"] != claim_fingerprint(claim, scale):
            row = {"claim": claim.key, "status": "stale", "reason": "the claim changed", "entry": entry}
        elif entry["code_fingerprint"] != claim_code_fingerprint(claim):
            row = {"claim": claim.key, "status": "stale", "reason": "its simulation's code changed", "entry": entry}
        elif entry.get("family", family) != family:
            row = {"claim": claim.key, "status": "stale", "entry": entry,
                   "reason": f"decided among {entry['family']} claims, the catalogue now has {family}"}
        else:
            row = {"claim": claim.key, "status": "recorded", "entry": entry}
        rows.append({**row, "no_ladder": claim.no_ladder})
    return rows


def recorded_seconds(record: dict[str, Any] | None, claims: Sequence[Claim], scale: str) -> dict[str, dict[str, Any]]:
    """Claim key -> ``{"seconds", "jobs", "carried", "partial"}``: the wall time ``record`` holds for the claim's
    measurement at ``scale``, for the measurements (experiment, points, seeds) of which some claim's entry is current
    (its claim fingerprint — experiment, points, seeds, laws, comparison — and its simulation code are those of now)
    and carries a time; every claim of that measurement takes the longest such time. ``jobs``: the workers it ran on
    (None where the entry does not say); ``carried``: the entry was carried over a change of code (``flt check
    --restamp-from``: its verdict reproduced; the time was measured on the code before); ``partial``: the run reused
    some stored rows, so it timed only part of the work (a lower bound). What
    :func:`~flt_theory.systems.declaration.plan` paces a plan by; a stale entry measured other code or other points
    and is left out."""
    entries = {e["claim"]: e for e in (record or {}).get("entries", []) if e["scale"] == scale}

    timed: dict[tuple[str, str, int], dict[str, Any]] = {}
    for claim in claims:
        entry = entries.get(claim.key)
        if (entry is None or entry.get("seconds") is None or entry["fingerprint"] != claim_fingerprint(claim, scale)
                or entry["code_fingerprint"] != claim_code_fingerprint(claim)):
            continue
        jobs = (entry.get("hardware") or {}).get("jobs")
        found = {"seconds": float(entry["seconds"]), "jobs": None if jobs is None else int(jobs),
                 "carried": bool(entry.get("restamped") or entry.get("seconds_carried")),
                 "partial": bool(entry.get("computed")) and bool(entry.get("reused"))}
        key = claim.measurement.identity(scale)
        if key not in timed or found["seconds"] > timed[key]["seconds"]:
            timed[key] = found
    return {c.key: timed[c.measurement.identity(scale)] for c in claims if c.measurement.identity(scale) in timed}


def record_markdown(record: dict[str, Any] | None, claims: list[Claim]) -> list[str]:
    """Markdown lines: per claim, its recorded small- and paper-scale verdicts side by side (the rows of
    :func:`verdict_rows` at every scale, written by :func:`flt_theory.report.scale_record.verdicts_markdown`)."""
    by_scale = {} if record is None else {scale: verdict_rows(record, claims, scale) for scale in SCALES}
    return verdicts_markdown(record, claims, by_scale)
