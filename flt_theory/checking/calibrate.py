r"""``flt calibrate``: how often each claim's check rejects its true law, and how far a wrong law must
be from it to be caught.

For ``repeats`` disjoint seed sets (repeat :math:`r` uses seeds :math:`rS .. (r+1)S - 1`, :math:`S` the
claim's seed count), each claim's measurement is run (through the store: resumable after a kill,
parallel with ``jobs``/``scheduler`` like sweeps) and compared with

* its law — decided as ``flt check`` decides it, at the family-wise level :math:`\alpha/K`
  (:mod:`flt_theory.checking.check`): a failure is a **false rejection**; its rate carries an exact Clopper–Pearson
  interval;
* every mutant of the law's **mutation panel** (:meth:`~flt_theory.symbolic.law.Law.mutation_panel`:
  exponents :math:`\pm 0.25, \pm 0.5, \pm 1`, numbers and bounds scaled by 0.8, 1.25, 0.5, 2,
  subspaces rotated by 30° or replaced by a neighbour, one-sided bounds flipped): the fraction of
  repeats that reject it. A mutant whose comparison reads the same prediction as the law's (e.g. an
  exponent of a symbol the measurement holds fixed) is **inert** and left out of the power.

The **power** of a claim, per kind of mutation, is the smallest mutation size rejected in at least
90% of the repeats (``None`` when no size is). Also reported: how many repeats would have failed the
whole ``flt check`` run, i.e. rejected at least one true law.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .._files import atomic_write_text
from .._text import table
from ..compare.count import clopper_pearson
from ..compare.family import per_claim_level
from ..errors import InvalidParameterError
from ..report.power import power_text
from ..runner.executors import shared_backend
from ..runner.provenance import static_provenance
from ..runner.store import ResultStore
from ..runner.sweep import progress_bar, progress_enabled
from ..systems import registry
from ..systems.declaration import Claim, check_scale, plan
from .check import ALPHA, decide, rejects, resolve_claims
from .power import RECORD, claim_code_fingerprint, claim_fingerprint, load_record
from .records import BEFORE_RECORD, load_if_present, load_json_file
from .scale_record import RECORD as VERDICTS, code_fingerprints

if TYPE_CHECKING:  # pragma: no cover
    import os

    from ..compare.result import CheckResult

__all__ = ["POWER_LEVEL", "REPRODUCED", "calibrate", "check_same_options", "is_inert", "mutant_result", "restamp",
           "restamp_refusal", "restamped", "run_calibrate", "run_restamp"]

#: A mutation size is "caught" when at least this fraction of the repeats rejects it.
POWER_LEVEL = 0.9


def mutant_result(claim: Claim, frame: Any, law: Any) -> CheckResult | None:
    r"""The comparison of ``frame`` with a mutant ``law``, or None when the comparison cannot read it (it raises
    :class:`~flt_theory.errors.InvalidParameterError`: the mutant depends on a size the comparison is not given, e.g.
    a rate law moved by :math:`d^{1/2}` where only :math:`\eta, s, \sigma_\xi` are substituted) — left out like an
    inert mutant. The calibration and the contract test read mutants through this one function."""
    try:
        return claim.evaluate(frame, law)
    except InvalidParameterError:
        return None


def is_inert(result: CheckResult, law_result: CheckResult) -> bool:
    """A mutant is inert on a measurement when its comparison predicts what the law's predicts: the comparison does
    not read the mutated symbol (a size the measurement holds fixed), so the mutant says nothing about power."""
    return result.predicted == law_result.predicted


def _claim_calibration(claim: Claim, scale: str, repeats: int, level: float, store: ResultStore,
                       options: dict[str, Any], bar: Any) -> dict[str, Any]:
    seeds = int(claim.measurement.seeds[scale])
    panel = claim.the_law.mutation_panel()
    law_passes: list[bool] = []
    rejected = [0] * len(panel)
    inert = [True] * len(panel)
    start = time.perf_counter()
    code = claim_code_fingerprint(claim)  # read before the runs: an edit during them must not pass for the code run
    for r in range(repeats):
        frame = claim.measurement.run(scale, seed_base=r * seeds, store=store, jobs=options["jobs"],
                                      scheduler=options["scheduler"])
        options["stale"] += int(frame.attrs.get("stale", 0))
        check = claim.evaluate(frame)
        law_passes.append(decide(check.to_dict(), level))
        for i, mutation in enumerate(panel):
            result = mutant_result(claim, frame, mutation.law)
            if result is None:
                continue
            rejected[i] += rejects(result.to_dict(), level)
            inert[i] &= is_inert(result, check)
        bar.update(1)
    false = repeats - sum(law_passes)
    mutants: list[dict[str, Any]] = [
        {
            "kind": m.kind, "size": m.size, "label": m.label, "rejected": rejected[i],
            "fraction": rejected[i] / repeats, "inert": inert[i],
        }
        for i, m in enumerate(panel)
    ]
    power: dict[str, float | None] = {}
    for kind in dict.fromkeys(m["kind"] for m in mutants if not m["inert"]):
        caught = sorted(
            m["size"] for m in mutants if m["kind"] == kind and not m["inert"] and m["fraction"] >= POWER_LEVEL
        )
        power[kind] = caught[0] if caught else None
    return {"claim": claim.key, "fingerprint": claim_fingerprint(claim, scale),
            "code_fingerprint": code if claim_code_fingerprint(claim) == code else "changed during the calibration",
            "repeats": repeats,
            "seeds_per_repeat": seeds, "false_rejections": false,
            "false_rejection_rate": false / repeats, "false_rejection_ci": list(clopper_pearson(false, repeats)),
            "law_passed": law_passes, "mutants": mutants, "power": power,
            "seconds": time.perf_counter() - start}


def calibrate(
    paths: Sequence[str] | None = None,
    *,
    repeats: int = 20,
    scale: str = "small",
    alpha: float = ALPHA,
    store: str | os.PathLike | ResultStore | None = None,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool | None = False,
    family: int | None = None,
) -> dict[str, Any]:
    """Calibrate the claims selected by ``paths`` (module docstring); a JSON-ready document (``stale``: how many
    stored rows were of other code, :attr:`~flt_theory.runner.registry.Experiment.code_fingerprint`, and
    recomputed). Each claim is decided at :math:`\alpha/K` with :math:`K` = ``family`` (default: the number of
    selected claims; a record of the whole catalogue uses the number of registered claims, as a full ``flt check``
    does).

    Examples
    --------
    >>> doc = calibrate(["giant-step/rank-one-update"], repeats=2)
    >>> entry = doc["claims"][0]
    >>> entry["claim"], entry["repeats"], entry["false_rejections"], sorted(entry["power"])
    ('giant-step/rank-one-update', 2, 0, ['subspace neighbour', 'subspace rotation'])
    """
    scale = check_scale(scale)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InvalidParameterError(f"The 'repeats' parameter must be an int ≥ 1. Got {repeats!r} instead.")
    claims = resolve_claims(paths)
    plan(claims, scale, repeats=repeats, option="--repeats")  # refuse an oversized request before anything runs
    level = per_claim_level(alpha, max(1, family or len(claims)))
    own = not isinstance(store, ResultStore)
    st = store if isinstance(store, ResultStore) else ResultStore(":memory:" if store is None else store)
    try:
        with (shared_backend(jobs, scheduler) as backend,  # one pool (or Dask client) for the whole calibration
              progress_bar(len(claims) * repeats, desc=f"flt calibrate ({scale})", unit="run",
                           enabled=progress_enabled(progress)) as bar):
            options = {"jobs": jobs, "scheduler": backend, "stale": 0}  # stale: stored rows of other code, recomputed
            entries = [_claim_calibration(c, scale, repeats, level, st, options, bar) for c in claims]
    finally:
        if own:
            st.close()
    any_rejected = sum(not all(e["law_passed"][r] for e in entries) for r in range(repeats))
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return {"scale": scale, "repeats": repeats, "alpha": alpha, "level": level, "power_level": POWER_LEVEL,
            "created": created, "git_commit": static_provenance().get("git_commit"),
            "runs_rejecting_a_true_law": any_rejected, "stale": options["stale"], "claims": entries}


def check_same_options(record: dict[str, Any], scale: str, repeats: int, alpha: float) -> None:
    """Refuse to merge a calibration at ``scale``, ``repeats``, ``alpha`` into a ``record`` calibrated otherwise."""
    if (record["scale"], record["repeats"], record["alpha"]) != (scale, repeats, alpha):
        raise InvalidParameterError(
            f"the record was calibrated at scale {record['scale']!r}, {record['repeats']} repeats, alpha "
            f"{record['alpha']:g}; this run at {scale!r}, {repeats}, {alpha:g}: use the same options")


def merge_record(record: dict[str, Any] | None, document: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the claims of ``document`` replaced or added (registry order kept, new claims last) and the
    whole-run count recomputed over all its claims; ``document``'s date, commit and levels."""
    if record is not None:
        check_same_options(record, document["scale"], document["repeats"], document["alpha"])
    entries = {e["claim"]: e for e in (record or {}).get("claims", [])}
    entries.update({e["claim"]: e for e in document["claims"]})
    claims = list(entries.values())
    repeats = document["repeats"]
    any_rejected = sum(not all(e["law_passed"][r] for e in claims) for r in range(repeats))
    return {**document, "claims": claims, "runs_rejecting_a_true_law": any_rejected}


#: What a verdict entry must reproduce exactly for :func:`restamp` to carry a calibration over to new code.
REPRODUCED = ("n_seeds", "measured", "ci", "p_check", "p_control", "message", "control_message", "seed_base", "alpha")
#: The values of fields that records written before they were kept had: ``flt check``'s defaults.
_UNRECORDED = {"seed_base": 0, "alpha": ALPHA}


def restamp_refusal(entry: dict[str, Any], before: dict[str, Any] | None, after: dict[str, Any] | None,
                    current: dict[str, str] | None, *, same_claim: bool | None = None) -> str | None:
    """Why ``entry`` (a calibration entry, or a verdict at another scale) cannot be re-stamped from the verdicts
    ``before`` and ``after`` of the same claim; None if it can. ``same_claim``: whether the claim of ``entry`` is
    unchanged (default: its fingerprint equals both verdicts'; an entry at another scale than the verdicts has
    another fingerprint, and its caller decides)."""
    if after is None or before is None:
        return "no verdict of the claim " + ("after" if after is None else "before") + " the change"
    if after["code_fingerprint"].startswith("changed"):
        return "the code changed while the verdict after the change was measured"
    if current is not None and current.get(entry["claim"]) != after["code_fingerprint"]:
        return "the verdict after the change is not of the code of now (re-run flt check --record)"
    if after["code_fingerprint"] == entry.get("code_fingerprint"):
        return "its code did not change"
    if same_claim is None:
        same_claim = entry.get("fingerprint") == before["fingerprint"]
    if not (same_claim and before["fingerprint"] == after["fingerprint"]):
        return "the claim itself changed (points, seeds, law, wrong law or comparison)"
    if before["code_fingerprint"] != entry.get("code_fingerprint"):
        return "the verdict before the change was not measured by the code that was calibrated"
    differ = [key for key in REPRODUCED
              if before.get(key, _UNRECORDED.get(key)) != after.get(key, _UNRECORDED.get(key))]
    return f"the verdict did not reproduce exactly ({', '.join(differ)} differ)" if differ else None


def restamped(
    entry: dict[str, Any], after: dict[str, Any], *, scale: str, commit: str | None, date: str,
    before: dict[str, Any] | None = None, source_sha256: str | None = None,
) -> dict[str, Any]:
    """``entry`` carried over to the code of the verdict ``after`` (which reproduced the ``scale``-scale verdict
    ``before`` of the code of ``entry``), with the evidence appended to its ``restamped`` list: the old code
    fingerprint, the date, the commit, the verdict that reproduced (``small``: the fields :data:`REPRODUCED`, the
    verdict and its family, which ``flt check --verify-record`` recomputes with the code of now, and the fingerprint
    of the claim it measured, by which that check tells a claim changed since) and the BEFORE file it came from:
    ``source_sha256``, the SHA-256 of its bytes, and ``source_git_commit``, the commit ``before`` states it was
    measured at (where it states one)."""
    evidence = {"from_code_fingerprint": entry["code_fingerprint"], "date": date,
                "git_commit": commit if commit is not None else after.get("git_commit"),
                "reproduced": f"the {scale}-scale verdict at seed base {after.get('seed_base')}: "
                              + ", ".join(REPRODUCED) + " equal before and after the change"}
    if source_sha256 is not None:
        evidence["source_sha256"] = source_sha256
    if before is not None and before.get("git_commit"):
        evidence["source_git_commit"] = before["git_commit"]
    evidence["small"] = {key: after.get(key, _UNRECORDED.get(key))
                         for key in (*REPRODUCED, "verdict", "family", "fingerprint")
                         if key in after or key in _UNRECORDED}
    return {
        **entry,
        "code_fingerprint": after["code_fingerprint"],
        "restamped": [*entry.get("restamped", []), evidence],
    }


def restamp(record: dict[str, Any], before: dict[str, Any], after: dict[str, Any], *, scale: str = "small",
            commit: str | None = None, current: dict[str, str] | None = None, source_sha256: str | None = None,
            fingerprints: dict[str, str] | None = None) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Carry the calibration of a claim over a change of its code that changed none of its numbers.

    ``record`` is a calibration record (:func:`merge_record`); ``before`` and ``after`` are verdict records
    (:mod:`flt_theory.checking.scale_record`, ``flt check --record``) written by the code the calibration ran and by the
    code of now. A stale entry (its :func:`~.power.claim_code_fingerprint` changed) gets the new code fingerprint when
    its claim is unchanged and its small-scale verdict reproduces **exactly** — the fields :data:`REPRODUCED`: the
    estimate, its interval, both p-values, both comparison messages, the seeds, the seed base and the level — which a
    change of the simulation, its seed streams or the comparison would alter. Each re-stamped entry keeps the evidence
    (``restamped``: the old fingerprint, the commit, the fields compared and, given ``source_sha256`` — the SHA-256
    of the bytes of the file ``before`` was read from —, the file it came from: :func:`restamped`); anything else
    stays stale and needs ``flt calibrate``.
    Returns the new record and one row per stale entry ``{claim, restamped: yes|no, reason}``. ``current``
    (claim -> code fingerprint of now, :func:`.scale_record.code_fingerprints`): where given, only an ``after`` verdict
    of the code of now counts.

    A record at another ``scale`` (the paper calibration) is carried on the same evidence as the paper verdicts
    (:mod:`.carry_over`): the claim's small-scale verdict, since a paper verdict of now is itself most often a copy
    carried over on it, which would "reproduce" by construction. ``fingerprints`` (claim -> its fingerprint at
    ``scale`` now, :func:`~.power.claim_fingerprint`) then says whether the claim at ``scale`` is unchanged; without
    it such an entry is refused.

    >>> cal = {"claims": [{"claim": "a/b", "fingerprint": "f", "code_fingerprint": "0" * 64}]}
    >>> old = {"claim": "a/b", "scale": "small", "fingerprint": "f", "code_fingerprint": "0" * 64, "measured": 1.0}
    >>> new = {**old, "code_fingerprint": "1" * 64}
    >>> record, rows = restamp(cal, {"entries": [old]}, {"entries": [new]}, commit="abc")
    >>> record["claims"][0]["code_fingerprint"] == "1" * 64, rows[0]["restamped"]
    (True, 'yes')
    >>> record, rows = restamp(cal, {"entries": [old]}, {"entries": [{**new, "measured": 1.0000001}]})
    >>> rows[0]["reason"]
    'the verdict did not reproduce exactly (measured differ)'
    """
    date = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    before_entries = {e["claim"]: e for e in before.get("entries", []) if e["scale"] == "small"}
    after_entries = {e["claim"]: e for e in after.get("entries", []) if e["scale"] == "small"}
    claims, rows = [], []
    for entry in record.get("claims", []):
        old, new = before_entries.get(entry["claim"]), after_entries.get(entry["claim"])
        now = (current or {}).get(entry["claim"]) or (new or {}).get("code_fingerprint")
        if now == entry.get("code_fingerprint"):  # not stale
            claims.append(entry)
            continue
        same_claim = None if scale == "small" else entry.get("fingerprint") == (fingerprints or {}).get(entry["claim"])
        refusal = restamp_refusal(entry, old, new, current, same_claim=same_claim)
        if refusal is None:
            assert new is not None  # restamp_refusal refuses a claim without a verdict after the change
            entry = restamped(entry, new, scale="small", commit=commit, date=date, before=old,
                              source_sha256=source_sha256)
        rows.append({"claim": entry["claim"], "restamped": "no" if refusal else "yes",
                     "reason": refusal or "the small-scale verdict reproduced exactly"})
        claims.append(entry)
    return {**record, "claims": claims}, rows


def run_restamp(before: str, *, record: str | None = None, verdicts: str | None = None, as_json: bool = False,
                out: IO[str] | None = None) -> int:
    """What ``flt calibrate --restamp-from BEFORE`` does (:func:`restamp`): re-stamp the stale entries of the
    calibration ``record`` (default :data:`.power.RECORD`) whose small-scale verdict in ``verdicts`` (default
    :data:`.scale_record.RECORD`, written by ``flt check --record`` with the code of now) reproduces the one in the
    verdict record ``before`` exactly; write the record back and print one row per stale entry. Runs nothing.
    Exit code 0 when every stale entry was re-stamped, 1 when some still need ``flt calibrate``."""
    out = out or sys.stdout
    path = Path(record) if record is not None else RECORD
    old, source_sha256 = load_json_file(before, BEFORE_RECORD, "--restamp-from")  # checked before anything else
    documents = {"calibration record": load_record(path, option="--record"),
                 "verdict record of now": load_if_present(verdicts if verdicts is not None else VERDICTS,
                                                          BEFORE_RECORD, "verdict record of now")}
    missing = [
        f"{what} ({where})"
        for (what, doc), where in zip(documents.items(), (path, verdicts or "default"))
        if doc is None
    ]
    if missing:
        raise InvalidParameterError("cannot re-stamp: no " + "; no ".join(missing))
    calibration, new = documents.values()
    assert calibration is not None and new is not None  # refused above when one is missing
    claims = [claim for system in registry.systems() for claim in system.claims]
    scale = calibration["scale"]
    document, rows = restamp(calibration, old, new, scale=scale, current=code_fingerprints(claims),
                             commit=static_provenance().get("git_commit"), source_sha256=source_sha256,
                             fingerprints={claim.key: claim_fingerprint(claim, scale) for claim in claims})
    atomic_write_text(path, json.dumps(document, indent=1) + "\n")
    if as_json:
        out.write(json.dumps({"record": str(path), "stale": rows}) + "\n")
    else:
        out.write(table([("claim", "re-stamped", "why"), *((r["claim"], r["restamped"], r["reason"]) for r in rows)])
                  + f"\n\n{sum(r['restamped'] == 'yes' for r in rows)}/{len(rows)} stale entries re-stamped in "
                    f"{path}.\n")
    out.flush()
    return 0 if all(r["restamped"] == "yes" for r in rows) else 1


def run_calibrate(paths: Sequence[str] | None = None, *, as_json: bool = False, out: IO[str] | None = None,
                  record: str | None = None, **options: Any) -> int:
    """What ``flt calibrate`` does; the exit code is 0 (it measures, it does not judge). With ``record`` (a JSON
    file, e.g. :data:`.power.RECORD`) the claims are decided at the level of the whole registered catalogue and
    their entries are merged into the file."""
    out = out or sys.stdout
    if record is not None:
        existing = load_record(record, option="--record")  # a file there must be a calibration record: checked first
        if existing is not None:  # and calibrated with these options (merge_record refuses others after the run)
            check_same_options(existing, options.get("scale", "small"), options.get("repeats", 20),
                               options.get("alpha", ALPHA))
        options["family"] = sum(len(system.claims) for system in registry.systems())
    document = calibrate(paths, progress=False if as_json else options.pop("progress", None), **options)
    if record is not None:
        document = merge_record(load_record(record), document)
        atomic_write_text(record, json.dumps({k: v for k, v in document.items() if k != "stale"}, indent=1)
                          + "\n")  # "stale" describes this run's store, not the calibration
    if as_json:
        out.write(json.dumps(document) + "\n")
        return 0
    rows = [("claim", "false rejections [95% CI]", "mutants rejected ≥ 90%", "power (smallest size caught)")]
    for e in document["claims"]:
        active = [m for m in e["mutants"] if not m["inert"]]
        caught = sum(m["fraction"] >= POWER_LEVEL for m in active)
        low, high = e["false_rejection_ci"]
        rows.append((e["claim"], f"{e['false_rejections']}/{e['repeats']} [{low:.2f}, {high:.2f}]",
                     f"{caught}/{len(active)}",
                     power_text(e["power"]) if active or not e["mutants"] else "every mutant inert (not read by the "
                                                                               "comparison)"))
    out.write(table(rows) + "\n\n")
    out.write(f"{document['runs_rejecting_a_true_law']}/{document['repeats']} repeats would have failed a whole flt "
              f"check run (family-wise level {document['alpha']:g}, per claim {document['level']:.2g}).\n")
    if document.get("stale"):
        out.write(f"{document['stale']} stored measurement rows were stale (computed by other code) and were "
                  "recomputed.\n")
    out.flush()
    return 0
