"""Re-stamping a calibration over a code change that changed none of its numbers (``flt calibrate
--restamp-from``): only an exact reproduction of the small-scale verdict carries the calibration over."""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner

from flt_theory.checking.calibrate import REPRODUCED, restamp
from flt_theory.cli import cli

OLD, NEW = "0" * 64, "1" * 64


def _verdict(**change):
    entry = {"claim": "a/b", "scale": "small", "fingerprint": "f", "code_fingerprint": OLD, "n_seeds": 8,
             "measured": 0.5, "ci": [0.4, 0.6], "p_check": 0.7, "p_control": 0.0, "message": "m: PASS",
             "control_message": "c: FAIL", "seed_base": 0, "alpha": 0.05, "git_commit": "abc"}
    return {**entry, **change}


def _record(**change):
    return {"scale": "small", "claims": [{"claim": "a/b", "fingerprint": "f", "code_fingerprint": OLD,
                                          "false_rejections": 0, **change}]}


def test_an_exact_reproduction_carries_the_calibration_over_with_its_evidence():
    record, rows = restamp(_record(), {"entries": [_verdict()]}, {"entries": [_verdict(code_fingerprint=NEW)]},
                           current={"a/b": NEW})
    entry = record["claims"][0]
    assert rows == [{"claim": "a/b", "restamped": "yes", "reason": "the small-scale verdict reproduced exactly"}]
    assert entry["code_fingerprint"] == NEW and entry["false_rejections"] == 0
    assert entry["restamped"][0]["from_code_fingerprint"] == OLD


def test_a_paper_record_is_carried_on_the_small_scale_verdict_not_on_the_paper_copy():
    """A paper verdict of now is most often a copy carried over on its small-scale verdict, equal to the one before by
    construction: the paper calibration rests on the small-scale verdict, as the paper verdict does, and on the claim
    at paper being unchanged (its fingerprint there, given by the caller)."""
    paper = {**_record(fingerprint="p"), "scale": "paper"}
    copies = {"entries": [_verdict(scale="paper", fingerprint="p")]}
    now = {"entries": [_verdict(scale="paper", fingerprint="p", code_fingerprint=NEW)]}
    _, rows = restamp(paper, copies, now, scale="paper", current={"a/b": NEW}, fingerprints={"a/b": "p"})
    assert rows[0]["restamped"] == "no" and "no verdict of the claim" in rows[0]["reason"]
    before, after = {"entries": [_verdict()]}, {"entries": [_verdict(code_fingerprint=NEW)]}
    record, rows = restamp(paper, before, after, scale="paper", current={"a/b": NEW}, fingerprints={"a/b": "p"})
    assert rows[0] == {"claim": "a/b", "restamped": "yes", "reason": "the small-scale verdict reproduced exactly"}
    assert record["claims"][0]["restamped"][0]["small"]["measured"] == 0.5
    for fingerprints in ({"a/b": "q"}, None):  # the claim changed at paper, or nobody says it did not
        _, rows = restamp(paper, before, after, scale="paper", current={"a/b": NEW}, fingerprints=fingerprints)
        assert rows[0]["restamped"] == "no" and "the claim itself changed" in rows[0]["reason"]
    _, rows = restamp(paper, before, {"entries": [_verdict(code_fingerprint=NEW, measured=0.51)]}, scale="paper",
                      current={"a/b": NEW}, fingerprints={"a/b": "p"})
    assert rows[0]["restamped"] == "no" and "measured differ" in rows[0]["reason"]


@pytest.mark.parametrize("field", REPRODUCED)
def test_any_reproduced_field_that_differs_refuses(field):
    changed = {"ci": [0.4, 0.61], "message": "m2", "control_message": "c2", "measured": 0.5000001}.get(field, 999)
    record, rows = restamp(_record(), {"entries": [_verdict()]},
                           {"entries": [_verdict(code_fingerprint=NEW, **{field: changed})]}, current={"a/b": NEW})
    assert rows[0]["restamped"] == "no" and field in rows[0]["reason"]
    assert record["claims"][0]["code_fingerprint"] == OLD  # still stale


@pytest.mark.parametrize(("before", "after", "current", "reason"), [
    (_verdict(fingerprint="g"), _verdict(code_fingerprint=NEW), {"a/b": NEW}, "the claim itself changed"),
    (_verdict(code_fingerprint="2" * 64), _verdict(code_fingerprint=NEW), {"a/b": NEW}, "not measured by the code"),
    (_verdict(), _verdict(code_fingerprint="changed during the run"), {"a/b": NEW}, "changed while"),
    (_verdict(), _verdict(code_fingerprint=NEW), {"a/b": "3" * 64}, "not of the code of now"),
    (None, _verdict(code_fingerprint=NEW), {"a/b": NEW}, "no verdict of the claim before"),
])
def test_a_change_it_cannot_vouch_for_stays_stale(before, after, current, reason):
    record, rows = restamp(_record(), {"entries": [before] if before else []}, {"entries": [after]}, current=current)
    assert rows[0]["restamped"] == "no" and reason in rows[0]["reason"]
    assert record["claims"][0]["code_fingerprint"] == OLD


def test_an_entry_of_the_code_of_now_is_left_alone():
    record, rows = restamp(_record(), {"entries": [_verdict()]}, {"entries": [_verdict()]}, current={"a/b": OLD})
    assert rows == [] and "restamped" not in record["claims"][0]


def test_the_command_writes_the_record_and_exits_1_while_an_entry_stays_stale(tmp_path):
    import flt_theory.systems  # noqa: F401  (registers the systems)
    from flt_theory.checking.power import claim_code_fingerprint
    from flt_theory.systems import registry

    claim = next(c for s in registry.systems() for c in s.claims if c.key == "giant-step/rank-one-update")
    now = claim_code_fingerprint(claim)
    cal = {"scale": "small", "repeats": 2, "alpha": 0.05, "runs_rejecting_a_true_law": 0, "claims": [
        {"claim": claim.key, "fingerprint": "f", "code_fingerprint": OLD, "repeats": 2, "false_rejections": 0,
         "false_rejection_ci": [0.0, 0.84], "law_passed": [True, True], "mutants": [], "power": {}}]}
    before = {"entries": [_verdict(claim=claim.key)]}
    paths = {name: tmp_path / f"{name}.json" for name in ("cal", "before", "after")}
    for name, doc in (("cal", cal), ("before", before), ("after", {"entries": [_verdict(claim=claim.key,
                                                                                        code_fingerprint=now)]})):
        paths[name].write_text(json.dumps(doc))
    from flt_theory.checking.calibrate import run_restamp

    assert run_restamp(str(paths["before"]), record=str(paths["cal"]), verdicts=str(paths["after"]),
                       out=io.StringIO()) == 0
    assert json.loads(paths["cal"].read_text())["claims"][0]["code_fingerprint"] == now
    paths["cal"].write_text(json.dumps(cal))
    paths["after"].write_text(json.dumps({"entries": [_verdict(claim=claim.key, code_fingerprint=now, measured=9)]}))
    result = CliRunner().invoke(cli, ["calibrate", "--restamp-from", str(paths["before"]), "--record",
                                       str(paths["cal"]), "--json"], catch_exceptions=False)
    # without a verdict record of now given, the package's is read: it has no entry of this claim's test code
    assert result.exit_code == 1 and json.loads(result.output)["stale"][0]["restamped"] == "no"


def test_a_record_from_before_seed_bases_were_kept_reads_as_flt_checks_defaults():
    old = {k: v for k, v in _verdict().items() if k not in ("seed_base", "alpha")}
    record, rows = restamp(_record(), {"entries": [old]}, {"entries": [_verdict(code_fingerprint=NEW)]},
                           current={"a/b": NEW})
    assert rows[0]["restamped"] == "yes"
    record, rows = restamp(_record(), {"entries": [old]}, {"entries": [_verdict(code_fingerprint=NEW, seed_base=7)]},
                           current={"a/b": NEW})
    assert rows[0]["restamped"] == "no" and "seed_base" in rows[0]["reason"]


def test_a_restamped_calibration_names_the_before_file_by_its_hash_and_commit(tmp_path):
    import hashlib

    import flt_theory.systems  # noqa: F401  (registers the systems)
    from flt_theory.checking.calibrate import run_restamp
    from flt_theory.checking.power import claim_code_fingerprint, load_record
    from flt_theory.systems.registry import get_claim

    claim = get_claim("giant-step/rank-one-update")
    now = claim_code_fingerprint(claim)
    cal = {"scale": "small", "repeats": 1, "alpha": 0.05, "runs_rejecting_a_true_law": 0, "claims": [
        {"claim": claim.key, "fingerprint": "f", "code_fingerprint": OLD, "repeats": 1, "false_rejections": 0,
         "false_rejection_ci": [0.0, 0.97], "law_passed": [True], "mutants": [], "power": {}}]}
    paths = {name: tmp_path / f"{name}.json" for name in ("cal", "before", "after")}
    paths["cal"].write_text(json.dumps(cal))
    paths["before"].write_text(json.dumps({"entries": [_verdict(claim=claim.key, git_commit="0ld")]}))
    paths["after"].write_text(json.dumps({"entries": [_verdict(claim=claim.key, code_fingerprint=now)]}))
    assert run_restamp(str(paths["before"]), record=str(paths["cal"]), verdicts=str(paths["after"]),
                       out=io.StringIO()) == 0
    record = load_record(paths["cal"])  # still a calibration record (its schema)
    assert record is not None
    evidence = record["claims"][0]["restamped"][-1]
    assert evidence["source_sha256"] == hashlib.sha256(paths["before"].read_bytes()).hexdigest()
    assert evidence["source_git_commit"] == "0ld" and evidence["small"]["measured"] == 0.5
