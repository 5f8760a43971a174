r"""``flt check --verify-record``: recompute the small-scale verdicts that carried-over verdicts relied on.

A verdict carried over a change of code (:mod:`.carry_over`, ``flt check --restamp-from BEFORE``) rests on two
small-scale verdicts being equal: the one in ``BEFORE`` (what the old code measured) and the one in the record of now
(what the code of now measures). Both come from files, and files can be edited: a record of now whose small-scale
verdict was made to match a forged ``BEFORE`` would put a paper-scale PASS on code whose small-scale verdict is
FAIL. So each carry-over keeps what it relied on (:func:`.calibrate.restamped`): the small-scale verdict that
reproduced (``small``: :data:`.calibrate.REPRODUCED`, the verdict, its family) and the file it came from
(``source_sha256``, the SHA-256 of the bytes of ``BEFORE``; ``source_git_commit``, the commit ``BEFORE`` states).

This module checks the half that can be checked now: for a sample of the carried entries of the code of now it
re-runs the claim at the small scale (the seed base, level and family of the verdict relied on, an in-memory store)
and compares every field of :data:`.calibrate.REPRODUCED` and the verdict with what the carry-over relied on; a
difference names the claim and the fields (exit code 1). Carry-overs made before the evidence was kept have no
``small`` and no hash: they are shown as "carried over, source not hashed", and what they relied on is the record's
small-scale verdict of the same claim and code, which is recomputed the same way. The other half — that ``BEFORE``
holds what the old code measured — is as good as the file the hash names (kept in git, ``git show
REV:flt_theory/report/verdict_record.json`` reproduces it byte for byte); it is named, not re-run.

The sample is drawn afresh on every call (:class:`random.SystemRandom`), so a record cannot be made to steer it;
``sample`` at least the number of carried entries checks them all. Entries whose code changed since their
carry-over are stale and are not checked (they are not shown as verdicts of the code of now).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from .._text import table
from ..errors import InvalidParameterError
from ..systems import registry
from ..systems.declaration import Claim
from .calibrate import _UNRECORDED, REPRODUCED
from .check import check, resolve_claims
from .power import claim_fingerprint
from .records import VERDICT_RECORD, load_json_file
from .scale_record import RECORD, code_fingerprints, verdict_entries

__all__ = ["COMPARED", "carried_rows", "fresh_small_verdict", "run_verify_record", "verify_record"]

#: What a fresh small-scale run must reproduce of the verdict a carry-over relied on.
COMPARED = (*REPRODUCED, "verdict")

#: ``(claim, seed_base, alpha, family)`` -> the small-scale verdict entry of the code of now.
Measure = Callable[[Claim, int, float, int], dict[str, Any]]


def fresh_small_verdict(claim: Claim, seed_base: int, alpha: float, family: int) -> dict[str, Any]:
    """The small-scale verdict entry of ``claim`` measured now (an in-memory store: nothing stored is reused), as
    ``flt check --scale small --record`` writes it (:func:`.scale_record.verdict_entries`)."""
    decided = {"alpha": alpha, "seed_base": seed_base, "family": family}
    before = code_fingerprints([claim])
    frame = check([claim.key], scale="small", seed_base=seed_base, alpha=alpha, family=family, progress=False)
    (entry,) = verdict_entries(frame, [claim], "small", before=before, decided=decided)
    return entry


def source_text(evidence: dict[str, Any]) -> str:
    """Where a carry-over came from, as the table shows it.

    >>> source_text({"source_sha256": "ab" * 32, "source_git_commit": "c0ffee"})
    'sha256 abababababab…, commit c0ffee'
    >>> source_text({})
    'carried over, source not hashed'
    """
    sha = evidence.get("source_sha256")
    if not sha:
        return "carried over, source not hashed"
    commit = evidence.get("source_git_commit")
    return f"sha256 {sha[:12]}…" + (f", commit {commit}" if commit else ", commit not stated")


def carried_rows(record: dict[str, Any], claims: Sequence[Claim], current: dict[str, str]) -> list[dict[str, Any]]:
    """One row per carried-over entry (its last ``restamped`` evidence) of ``claims`` in the verdict ``record``:
    ``claim``, ``scale``, ``source`` (:func:`source_text`), ``relied`` (the small-scale verdict it relied on, or
    None) and ``status``: ``to check``, ``stale`` (its code changed since: not a verdict of the code of now),
    ``unverifiable`` (nothing records the small-scale verdict it relied on) or ``superseded`` (the small-scale claim
    it relied on changed since — its points, seeds, laws or comparison, told by the fingerprint the evidence keeps —,
    so no run of now can reproduce that verdict: the entry is re-run, not checked)."""
    by_key = {c.key: c for c in claims}
    keys = set(by_key)
    smalls = {e["claim"]: e for e in record["entries"] if e["scale"] == "small"}
    rows = []
    for entry in record["entries"]:
        if entry["claim"] not in keys or not entry.get("restamped"):
            continue
        evidence = entry["restamped"][-1]
        relied = evidence.get("small")
        if relied is None:  # carried before the evidence was kept: the record's small verdict of the same code
            small = smalls.get(entry["claim"])
            if small is not None and small["code_fingerprint"] == entry["code_fingerprint"]:
                relied = {k: small.get(k, _UNRECORDED.get(k)) for k in (*COMPARED, "family")
                          if k in small or k in _UNRECORDED}
        small_now = claim_fingerprint(by_key[entry["claim"]], "small")
        changed = relied is not None and relied.get("fingerprint", small_now) != small_now
        status = ("stale" if entry["code_fingerprint"] != current[entry["claim"]] else
                  "unverifiable" if relied is None else "superseded" if changed else "to check")
        rows.append({"claim": entry["claim"], "scale": entry["scale"], "source": source_text(evidence),
                     "relied": relied, "status": status})
    return rows


def verify_record(record: dict[str, Any], claims: Sequence[Claim], *, sample: int = 3,
                  measure: Measure | None = None, rng: random.Random | None = None) -> list[dict[str, Any]]:
    """The rows of :func:`carried_rows`, with a sample of ``sample`` of those to check re-run at the small scale by
    ``measure`` (default :func:`fresh_small_verdict`; module docstring): their ``status`` becomes ``reproduced`` or
    ``MISMATCH`` (``differ``: the fields that differ); the others are ``not sampled``."""
    measure = measure or fresh_small_verdict
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
        raise InvalidParameterError(f"--sample: expected an int ≥ 1. Got {sample!r} instead.")
    by_key = {c.key: c for c in claims}
    rows = carried_rows(record, claims, code_fingerprints(list(claims)))
    family = sum(len(system.claims) for system in registry.systems())
    candidates = [r for r in rows if r["status"] == "to check"]
    chosen = {id(r) for r in (rng or random.SystemRandom()).sample(candidates, min(sample, len(candidates)))}
    runs: dict[tuple[str, int, float, int], dict[str, Any]] = {}
    for row in rows:
        if row["status"] != "to check":
            continue
        if id(row) not in chosen:
            row["status"] = "not sampled"
            continue
        relied = row["relied"]
        key = (row["claim"], relied.get("seed_base", 0), relied.get("alpha", _UNRECORDED["alpha"]),
               relied.get("family", family))
        if key not in runs:
            runs[key] = measure(by_key[row["claim"]], *key[1:])
        fresh = runs[key]
        differ = [k for k in COMPARED if k in relied and fresh.get(k, _UNRECORDED.get(k)) != relied[k]]
        if fresh["code_fingerprint"] != code_fingerprints([by_key[row["claim"]]])[row["claim"]]:
            differ.append("code_fingerprint")
        row["status"], row["differ"] = ("MISMATCH", differ) if differ else ("reproduced", [])
    return rows


def run_verify_record(paths: Sequence[str] | None = None, *, record: str | None = None, sample: int = 3,
                      as_json: bool = False, out: IO[str] | None = None, measure: Measure | None = None) -> int:
    """What ``flt check --verify-record [PATHS] [--sample K]`` does (:func:`verify_record` on ``record``, default
    :data:`.scale_record.RECORD`, for the claims PATHS select, default all): print one row per carried entry. Exit
    code 0 when every sampled entry reproduced and none is unverifiable or superseded, else 1."""
    out = out or sys.stdout
    path = Path(record) if record is not None else RECORD
    if not path.exists():
        raise InvalidParameterError(f"--record: no verdict record at {str(path)!r}")
    document, sha256 = load_json_file(path, VERDICT_RECORD, "--record")
    rows = verify_record(document, resolve_claims(list(paths or [])), sample=sample, measure=measure)
    failed = [r for r in rows if r["status"] in ("MISMATCH", "unverifiable", "superseded")]
    checked = [r for r in rows if r["status"] in ("MISMATCH", "reproduced")]
    if as_json:
        out.write(json.dumps({"record": str(path), "record_sha256": sha256, "carried": [
            {k: v for k, v in r.items() if k != "relied"} for r in rows]}) + "\n")
    else:
        def check_text(row: dict[str, Any]) -> str:
            if row["status"] == "MISMATCH":
                return f"MISMATCH: {', '.join(row['differ'])} differ from a fresh small-scale run"
            return {"reproduced": "reproduced by a fresh small-scale run",
                    "stale": "stale (its code changed since): not checked",
                    "unverifiable": "FAILED: no small-scale verdict recorded to check it against",
                    "superseded": "FAILED: the small-scale claim it relied on changed since (points, seeds, laws or "
                                  "comparison): re-run this verdict"}.get(
                row["status"], row["status"])

        out.write(table([("claim", "scale", "carried over from", "check"),
                         *((r["claim"], r["scale"], r["source"], check_text(r)) for r in rows)]) + "\n\n")
        unhashed = sum(r["source"].startswith("carried over, source not hashed") for r in rows)
        out.write(f"{len(checked)} of {len(rows)} carried entries in {path} recomputed at the small scale: "
                  f"{sum(r['status'] == 'reproduced' for r in checked)} reproduced, "
                  f"{sum(r['status'] == 'MISMATCH' for r in checked)} mismatched; {unhashed} with the source not "
                  "hashed (carried before the BEFORE file's hash was kept).\n")
        for row in failed:
            out.write(f"  {row['status']} {row['claim']} ({row['scale']}): {check_text(row)}\n")
    out.flush()
    return 1 if failed else 0
