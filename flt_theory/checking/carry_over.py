r"""Carry recorded verdicts over a change that changed none of their numbers (``flt check --restamp-from``).

A recorded verdict (:mod:`flt_theory.checking.scale_record`) turns stale in two ways that need not mean re-running it:

1. **Its simulation's code changed** (the code fingerprint hashes whole files: a refactor, a docstring). A
   ``paper``-scale verdict costs minutes to hours; the change is shown not to alter the simulation's numbers by
   the claim's ``small``-scale verdict: when it reproduces **exactly** (:data:`.calibrate.REPRODUCED`: estimate,
   interval, both p-values, both messages, seeds, seed base, level) between ``BEFORE`` — a verdict record written
   by the code the paper verdict ran on — and the record of now, and the claim is unchanged at both scales, the
   paper verdict gets the code fingerprint of now and keeps the evidence (``restamped``), as a calibration does
   (:func:`.calibrate.restamp`, the same refusal rules). The inference is the calibration's: the same code path,
   bit for bit at the small sizes, run at the paper sizes.
2. **The catalogue's size K changed** (a claim added or removed): claims are decided at :math:`\alpha/K`. A verdict
   decided by p-values is re-decided without re-running when neither p-value crosses between the old level
   :math:`\alpha/K_{old}` and the new one :math:`\alpha/K`: then every comparison is decided as before (a
   comparison without a p-value is decided by its own confidence, not by the level), so the verdict, its
   messages and its numbers are the same; the entry gets the new family and level and keeps ``redecided``. A
   p-value between the two levels leaves the entry stale: re-run it.
3. **The law's hypotheses changed** (a hypothesis stated, a reading sharpened): where a verdict's points lie with
   respect to them (``in_hypotheses``, ``scope``) is a function of the declared points and the law of now, not a
   measurement, so every entry of a registered claim is re-classified (:func:`reclassify`); a changed label is a
   row of its own.

What a carry-over rests on is named in its evidence (:func:`.calibrate.restamped`): the small-scale verdict that
reproduced (``small``) and the BEFORE file it came from, by the SHA-256 of its bytes (``source_sha256``) and the commit
BEFORE states (``source_git_commit``). Both BEFORE and the record of now are files a hand can edit; the half that
concerns the code of now is checked by re-running it (``flt check --verify-record``, :mod:`.verify_record`), the
half that concerns the old code is as good as the file the hash names. Both files are read through their schemas
(:mod:`.records`) before anything else, so a corrupted file is one error naming the file and the field.

Nothing here runs a simulation.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
from pathlib import Path
from typing import IO, Any

from .._files import atomic_write_text
from .._text import table
from ..errors import InvalidParameterError
from ..runner.provenance import static_provenance
from ..systems import registry
from .calibrate import restamp_refusal, restamped
from .check import hypotheses_of
from .power import claim_fingerprint
from .records import BEFORE_RECORD, load_json_file
from .scale_record import RECORD, code_fingerprints, load_verdicts

__all__ = ["carry_over", "redecide_refusal", "run_carry_over"]


def redecide_refusal(entry: dict[str, Any], family: int) -> str | None:
    """Why ``entry`` (decided among ``entry["family"]`` claims) cannot be re-decided among ``family`` claims
    without re-running it; None if it can (module docstring, 2).

    >>> e = {"alpha": 0.05, "family": 78, "p_check": 0.4, "p_control": 0.0}
    >>> redecide_refusal(e, 80) is None
    True
    >>> redecide_refusal({**e, "p_check": 0.000635}, 80)
    'p_check = 0.000635 lies between the levels 0.05/78 and 0.05/80: re-run it'
    """
    alpha, old = entry.get("alpha"), entry.get("family")
    if alpha is None or old is None:
        return "the record does not say at which level it was decided"
    low, high = sorted((alpha / old, alpha / family))
    for name in ("p_check", "p_control"):
        p = entry.get(name)
        if p is not None and low <= p < high:
            return f"{name} = {p:g} lies between the levels {alpha:g}/{old} and {alpha:g}/{family}: re-run it"
    return None


def carry_over(record: dict[str, Any], before: dict[str, Any] | None, *, current: dict[str, str],
               fingerprints: dict[tuple[str, str], str], family: int, commit: str | None = None,
               source_sha256: str | None = None) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Re-stamp and re-decide the stale entries of the verdict ``record`` (module docstring).

    ``before``: a verdict record written by the code the stale entries ran on (None: re-decide only);
    ``current``: claim -> code fingerprint of now (:func:`.scale_record.code_fingerprints`); ``fingerprints``:
    (claim, scale) -> the claim's fingerprint at that scale now (:func:`.power.claim_fingerprint`); ``family``:
    the number of claims of the catalogue now; ``source_sha256``: the SHA-256 of the bytes of the file ``before``
    was read from, kept in each carried entry's evidence with the commit ``before`` states
    (:func:`.calibrate.restamped`). Entries of claims no longer registered are left as they are.
    Returns the new record and one row per entry that was stale: ``{claim, scale, carried: yes|no, reason}``.

    >>> small = {"claim": "a/b", "scale": "small", "fingerprint": "s", "code_fingerprint": "old", "measured": 1.0,
    ...          "alpha": 0.05, "family": 2, "p_check": 0.5, "p_control": 0.0}
    >>> paper = {**small, "scale": "paper", "fingerprint": "p", "measured": 1.1}
    >>> now = {"entries": [{**small, "code_fingerprint": "new"}, paper]}
    >>> record, rows = carry_over(now, {"entries": [small]}, current={"a/b": "new"},
    ...                           fingerprints={("a/b", "small"): "s", ("a/b", "paper"): "p"}, family=2)
    >>> rows
    [{'claim': 'a/b', 'scale': 'paper', 'carried': 'yes', 'reason': 'the small-scale verdict reproduced exactly'}]
    >>> record["entries"][1]["code_fingerprint"], record["entries"][1]["measured"]
    ('new', 1.1)
    """
    date = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    smalls_before = {e["claim"]: e for e in (before or {}).get("entries", []) if e["scale"] == "small"}
    smalls_now = {e["claim"]: e for e in record.get("entries", []) if e["scale"] == "small"}
    entries, rows = [], []
    for entry in record.get("entries", []):
        key, scale = entry["claim"], entry["scale"]
        if key not in current:
            entries.append(entry)
            continue
        reasons = []
        if entry["code_fingerprint"] != current[key]:
            refusal = ("a small-scale verdict is re-run, not re-stamped" if scale == "small" else
                       "no verdict record before the change was given" if before is None else
                       restamp_refusal(entry, smalls_before.get(key), smalls_now.get(key), current,
                                       same_claim=entry["fingerprint"] == fingerprints.get((key, scale))))
            if refusal is None:
                entry = restamped(entry, smalls_now[key], scale="small", commit=commit, date=date,
                                  before=smalls_before.get(key), source_sha256=source_sha256)
                reasons.append("the small-scale verdict reproduced exactly")
            else:
                reasons.append(refusal)
        if entry["code_fingerprint"] == current[key] and entry.get("family", family) != family:
            refusal = redecide_refusal(entry, family)
            if refusal is None:
                evidence = {"from_family": entry["family"], "date": date,
                            "unchanged": "no p-value lies between the two levels"}
                entry = {**entry, "family": family, "level": entry["alpha"] / family,
                         "redecided": [*entry.get("redecided", []), evidence]}
                reasons.append(f"re-decided among {family} claims (was {evidence['from_family']}): no p-value "
                               "between the two levels")
            else:
                reasons.append(refusal)
        if reasons:
            stale = entry["code_fingerprint"] != current[key] or entry.get("family", family) != family
            rows.append(
                {"claim": key, "scale": scale, "carried": "no" if stale else "yes", "reason": "; ".join(reasons)}
            )
        entries.append(entry)
    return {**record, "entries": entries}, rows


def reclassify(record: dict[str, Any], hypotheses: dict[tuple[str, str], dict[str, Any]]
               ) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Every entry of ``record`` whose (claim, scale) is in ``hypotheses`` gets its ``in_hypotheses`` and ``scope``
    from there (:func:`.check.hypotheses_of` of the code of now: the points and the law, no measurement); one row
    per entry whose label changed.

    >>> entry = {"claim": "a/b", "scale": "paper", "in_hypotheses": "not stated", "scope": "not stated"}
    >>> record, rows = reclassify({"entries": [entry]}, {("a/b", "paper"): {"in_hypotheses": "all",
    ...                                                                    "scope": "inside"}})
    >>> record["entries"][0]["in_hypotheses"], rows[0]["reason"]
    ('all', 'points re-classified against the hypotheses of now: not stated -> all')
    """
    entries, rows = [], []
    for entry in record.get("entries", []):
        now = hypotheses.get((entry["claim"], entry["scale"]))
        if now is not None and (entry.get("in_hypotheses"), entry.get("scope")) != (now["in_hypotheses"],
                                                                                   now["scope"]):
            before = entry.get("in_hypotheses", "not stated")
            entry = {**entry, "in_hypotheses": now["in_hypotheses"], "scope": now["scope"]}
            if before != now["in_hypotheses"]:
                rows.append({"claim": entry["claim"], "scale": entry["scale"], "carried": "yes",
                             "reason": f"points re-classified against the hypotheses of now: {before} -> "
                                       f"{now['in_hypotheses']}"})
        entries.append(entry)
    return {**record, "entries": entries}, rows


def run_carry_over(before: str, *, record: str | None = None, as_json: bool = False, out: IO[str] | None = None) -> int:
    """What ``flt check --restamp-from BEFORE`` does (:func:`carry_over` on ``record``, default
    :data:`.scale_record.RECORD`, which must already hold the small-scale verdicts of the code of now): write the
    record back, print one row per stale entry. Runs nothing. Exit code 0 when no entry is left stale, else 1."""
    out = out or sys.stdout
    path = Path(record) if record is not None else RECORD
    old, source_sha256 = load_json_file(before, BEFORE_RECORD, "--restamp-from")  # both checked before anything else
    now = load_verdicts(path, option="--record")
    if now is None:
        raise InvalidParameterError(f"--record: no verdict record at {str(path)!r}")
    claims = [claim for system in registry.systems() for claim in system.claims]
    scales = {e["scale"] for e in now.get("entries", [])}
    document, rows = carry_over(now, old, current=code_fingerprints(claims), family=len(claims),
                                fingerprints={(c.key, s): claim_fingerprint(c, s) for c in claims for s in scales},
                                commit=static_provenance().get("git_commit"), source_sha256=source_sha256)
    present = {(e["claim"], e["scale"]) for e in document.get("entries", [])}  # reclassify reads only these
    document, reclassified = reclassify(document, {(c.key, s): hypotheses_of(c, s) for c in claims for s in scales
                                                   if (c.key, s) in present})
    stale, rows = rows, rows + reclassified
    atomic_write_text(path, json.dumps(document, indent=1) + "\n")
    if as_json:
        out.write(json.dumps({"record": str(path), "stale": rows}) + "\n")
    else:
        out.write(table([("claim", "scale", "carried over", "why"),
                         *((r["claim"], r["scale"], r["carried"], r["reason"]) for r in rows)])
                  + f"\n\n{sum(r['carried'] == 'yes' for r in stale)}/{len(stale)} stale entries carried over"
                    + (f", {len(reclassified)} re-classified" if reclassified else "") + f" in {path}.\n")
    out.flush()
    return 0 if all(r["carried"] == "yes" for r in rows) else 1
