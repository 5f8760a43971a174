"""Carrying recorded verdicts over (``flt check --restamp-from``): a paper-scale verdict follows a code change only
when the claim's small-scale verdict reproduces exactly; a change of the catalogue's size re-decides a verdict only
when no p-value lies between the two levels."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flt_theory.checking.calibrate import REPRODUCED
from flt_theory.checking.carry_over import carry_over
from flt_theory.cli import cli

OLD, NEW = "0" * 64, "1" * 64
FINGERPRINTS = {("a/b", "small"): "s", ("a/b", "paper"): "p"}


def _small(**changes):
    entry = {
        "claim": "a/b",
        "scale": "small",
        "fingerprint": "s",
        "code_fingerprint": OLD,
        "n_seeds": 8,
        "measured": 1.0,
        "ci": [0.9, 1.1],
        "p_check": 0.5,
        "p_control": 0.0,
        "message": "m",
        "control_message": "c",
        "seed_base": 0,
        "alpha": 0.05,
        "family": 2,
        "level": 0.025,
        "verdict": "PASS",
        "seconds": 1.0,
        "created": "2026-01-01T00:00:00+00:00",
        "hardware": {"device": "cpu", "cores": 2, "torch_threads": 1, "gpu": None},
    }
    return {**entry, **changes}


def _paper(**changes):
    return _small(**{"scale": "paper", "fingerprint": "p", "measured": 1.05, "ci": [1.0, 1.1], **changes})


def _carry(paper, before_small, now_small, family=2, current=NEW):
    return carry_over({"entries": [now_small, paper]}, {"entries": [before_small] if before_small else []},
                      current={"a/b": current}, fingerprints=FINGERPRINTS, family=family, commit="abc")


def test_paper_verdict_follows_an_exact_reproduction():
    record, rows = _carry(_paper(), _small(), _small(code_fingerprint=NEW))
    paper = record["entries"][1]
    assert rows == [{"claim": "a/b", "scale": "paper", "carried": "yes",
                     "reason": "the small-scale verdict reproduced exactly"}]
    assert paper["code_fingerprint"] == NEW and paper["measured"] == 1.05
    assert paper["restamped"][0]["from_code_fingerprint"] == OLD and paper["restamped"][0]["git_commit"] == "abc"


@pytest.mark.parametrize("field", REPRODUCED)
def test_any_reproduced_field_that_differs_refuses(field):
    value = _small()[field]
    changed = [value[0], value[1] + 1e-12] if isinstance(value, list) else (
        value + "!" if isinstance(value, str) else value + 1e-9 if isinstance(value, float) else value + 1)
    record, rows = _carry(_paper(), _small(), _small(code_fingerprint=NEW, **{field: changed}))
    assert rows[0]["carried"] == "no" and field in rows[0]["reason"]
    assert record["entries"][1]["code_fingerprint"] == OLD


@pytest.mark.parametrize(("paper", "before", "now", "reason"), [
    (_paper(fingerprint="p-old"), _small(), _small(code_fingerprint=NEW), "the claim itself changed"),
    (_paper(), _small(fingerprint="s-old"), _small(code_fingerprint=NEW), "the claim itself changed"),
    (_paper(), _small(code_fingerprint="2" * 64), _small(code_fingerprint=NEW), "not measured by the code"),
    (_paper(), _small(), _small(code_fingerprint="3" * 64), "not of the code of now"),
    (_paper(), None, _small(code_fingerprint=NEW), "no verdict of the claim before"),
])
def test_refusals(paper, before, now, reason):
    record, rows = _carry(paper, before, now)
    row = next(r for r in rows if r["scale"] == "paper")
    assert row["carried"] == "no" and reason in row["reason"]
    assert record["entries"][1]["code_fingerprint"] == OLD


def test_a_stale_small_verdict_is_rerun_not_carried():
    record, rows = carry_over({"entries": [_small()]}, {"entries": [_small()]}, current={"a/b": NEW},
                              fingerprints=FINGERPRINTS, family=2)
    assert rows[0]["carried"] == "no" and "re-run" in rows[0]["reason"]


def test_redecided_among_more_claims_when_no_p_value_crosses():
    record, rows = _carry(_paper(code_fingerprint=NEW), None, _small(code_fingerprint=NEW), family=3)
    assert [r["carried"] for r in rows] == ["yes", "yes"]
    for entry in record["entries"]:
        assert entry["family"] == 3 and entry["level"] == pytest.approx(0.05 / 3)
        assert entry["redecided"][0]["from_family"] == 2 and entry["verdict"] == "PASS"


@pytest.mark.parametrize("p", [0.02, 0.0166667])  # between 0.05/3 and 0.05/2: the decision may change
def test_a_p_value_between_the_levels_leaves_the_verdict_stale(p):
    record, rows = _carry(_paper(code_fingerprint=NEW, p_check=p), None, _small(code_fingerprint=NEW), family=3)
    paper = next(r for r in rows if r["scale"] == "paper")
    assert paper["carried"] == "no" and "p_check" in paper["reason"]
    assert record["entries"][1]["family"] == 2


def test_cli_carries_over_the_record_it_is_given(tmp_path):
    from flt_theory.checking.power import claim_code_fingerprint

    claim, before, now, _ = _claim_files(tmp_path, now_small={}, before_small={})
    code = claim_code_fingerprint(claim)
    result = CliRunner().invoke(cli, ["check", "--restamp-from", str(before), "--record", str(now), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["stale"][0]["carried"] == "yes"
    assert json.loads(now.read_text())["entries"][1]["code_fingerprint"] == code
    refused = CliRunner().invoke(cli, ["check", "giant-step", "--restamp-from", str(before), "--record", str(now)])
    assert refused.exit_code == 2 and "give no PATHS" in refused.output


def test_a_carry_over_reclassifies_every_entry_against_the_hypotheses_of_now(tmp_path):
    """Where the points lie with respect to the law's hypotheses is not a measurement: a carry-over re-derives it
    for every entry (carried or not) and says so in a row of its own."""
    claim, before, now, _ = _claim_files(tmp_path, now_small={}, before_small={})
    record = json.loads(now.read_text())
    record["entries"][1] = {**record["entries"][1], "in_hypotheses": "not stated", "scope": "not stated"}
    now.write_text(json.dumps(record))
    result = CliRunner().invoke(cli, ["check", "--restamp-from", str(before), "--record", str(now), "--json"])
    assert result.exit_code == 0, result.output
    paper = json.loads(now.read_text())["entries"][1]
    assert (paper["in_hypotheses"], paper["scope"]) == (claim.in_hypotheses("paper"), claim.scope("paper"))
    assert paper["in_hypotheses"] != "not stated"
    rows = json.loads(result.output)["stale"]
    assert {"claim": claim.key, "scale": "paper", "carried": "yes",
            "reason": f"points re-classified against the hypotheses of now: not stated -> {paper['in_hypotheses']}"
            } in rows


def test_a_carry_over_names_the_before_file_by_its_hash_and_commit_and_keeps_the_verdict_it_relied_on():
    before = _small(git_commit="0ld")
    record, rows = carry_over({"entries": [_small(code_fingerprint=NEW), _paper()]}, {"entries": [before]},
                              current={"a/b": NEW}, fingerprints=FINGERPRINTS, family=2, commit="abc",
                              source_sha256="ab" * 32)
    evidence = record["entries"][1]["restamped"][-1]
    assert rows[0]["carried"] == "yes"
    assert evidence["source_sha256"] == "ab" * 32 and evidence["source_git_commit"] == "0ld"
    assert evidence["git_commit"] == "abc"  # the commit the carry-over ran at
    assert evidence["small"] == {k: _small()[k] for k in (*REPRODUCED, "verdict", "family", "fingerprint")}
    record, _ = _carry(_paper(), _small(), _small(code_fingerprint=NEW))  # nothing states a commit, no file hashed
    assert "source_sha256" not in record["entries"][1]["restamped"][-1]
    assert "source_git_commit" not in record["entries"][1]["restamped"][-1]


def _claim_files(tmp_path, now_small, before_small):
    """A record of now (its small verdict ``now_small`` of the code of now, a paper PASS of older code) and a BEFORE
    file (``before_small`` of the older code) for the registered claim giant-step/norm-law."""
    from flt_theory.checking.power import claim_code_fingerprint, claim_fingerprint
    from flt_theory.systems.registry import get_claim, registered_claims

    claim = get_claim("giant-step/norm-law")
    family = len(registered_claims())
    code = claim_code_fingerprint(claim)
    small = {**_small(claim=claim.key, fingerprint=claim_fingerprint(claim, "small"), code_fingerprint=code),
             "family": family}
    paper = {**_paper(claim=claim.key, fingerprint=claim_fingerprint(claim, "paper"), code_fingerprint=OLD),
             "family": family}
    before, now = tmp_path / "before.json", tmp_path / "now.json"
    before.write_text(json.dumps({"entries": [{**small, **before_small, "code_fingerprint": OLD}]}))
    now.write_text(json.dumps({"entries": [{**small, **now_small}, paper]}))
    return claim, before, now, {**small, **now_small}


FAIL = {"verdict": "FAIL", "p_check": 1e-9, "measured": 2.0, "message": "m: FAIL"}


def test_a_forged_before_that_the_code_of_now_does_not_reproduce_carries_nothing(tmp_path):
    """Issue 38, failure 7, first half: the code of now's small-scale verdict is FAIL (in the record of now); a
    hand-forged BEFORE says the old code measured a PASS: the paper PASS is not carried over."""
    _, before, now, _ = _claim_files(tmp_path, now_small=FAIL, before_small={})
    result = CliRunner().invoke(cli, ["check", "--restamp-from", str(before), "--record", str(now), "--json"])
    assert result.exit_code == 1, result.output
    assert "did not reproduce exactly" in json.loads(result.stdout)["stale"][0]["reason"]
    assert json.loads(now.read_text())["entries"][1]["code_fingerprint"] == OLD


def test_a_forged_pair_of_records_is_caught_by_verify_record(tmp_path, monkeypatch):
    """Issue 38, failure 7: a forged BEFORE and a record of now edited to agree with it put a paper PASS on code
    whose small-scale verdict is FAIL; the carry-over names the forged file by its hash, and ``--verify-record``
    re-runs the small-scale verdict with the code of now (here a FAIL, measurement replaced for speed), exits 1 and
    names the claim."""
    import hashlib

    import flt_theory.checking.verify_record as verify

    claim, before, now, small = _claim_files(tmp_path, now_small={}, before_small={})
    result = CliRunner().invoke(cli, ["check", "--restamp-from", str(before), "--record", str(now), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["stale"][0]["carried"] == "yes"
    evidence = json.loads(now.read_text())["entries"][1]["restamped"][-1]
    assert evidence["source_sha256"] == hashlib.sha256(before.read_bytes()).hexdigest()
    runs = []

    def measured_now(claim_, seed_base, alpha, family):
        runs.append((claim_.key, seed_base, alpha, family))
        return {**small, **FAIL}  # what the code of now measures

    monkeypatch.setattr(verify, "fresh_small_verdict", measured_now)
    result = CliRunner().invoke(cli, ["check", "--verify-record", "--record", str(now), claim.key])
    assert result.exit_code == 1, result.output
    assert f"MISMATCH {claim.key} (paper)" in result.stdout and "measured, p_check, message, verdict" in result.stdout
    assert runs == [(claim.key, 0, 0.05, small["family"])]
    monkeypatch.setattr(verify, "fresh_small_verdict", lambda *args: dict(small))  # the genuine small verdict
    result = CliRunner().invoke(cli, ["check", "--verify-record", "--record", str(now), "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["carried"]
    assert row["status"] == "reproduced" and row["source"].startswith(f"sha256 {evidence['source_sha256'][:12]}")


def test_verify_record_shows_unhashed_carry_overs_and_checks_them_against_the_record(tmp_path, monkeypatch):
    import flt_theory.checking.verify_record as verify

    claim, _, now, small = _claim_files(tmp_path, now_small={}, before_small={})
    document = json.loads(now.read_text())
    legacy = {"from_code_fingerprint": OLD, "date": "d", "git_commit": "abc", "reproduced": "the small-scale verdict"}
    document["entries"][1] = {**document["entries"][1], "code_fingerprint": small["code_fingerprint"],
                              "restamped": [legacy]}  # carried before the hash was kept
    now.write_text(json.dumps(document))
    monkeypatch.setattr(verify, "fresh_small_verdict", lambda *args: {**small, **FAIL})
    result = CliRunner().invoke(cli, ["check", "--verify-record", "--record", str(now), "--sample", "5", claim.key])
    assert result.exit_code == 1 and "carried over, source not hashed" in result.stdout
    assert f"MISMATCH {claim.key} (paper)" in result.stdout
    document["entries"] = document["entries"][1:]  # no small verdict recorded: nothing to check it against
    now.write_text(json.dumps(document))
    result = CliRunner().invoke(cli, ["check", "--verify-record", "--record", str(now), claim.key])
    assert result.exit_code == 1 and f"unverifiable {claim.key}" in result.stdout
    document["entries"][0]["code_fingerprint"] = "2" * 64  # stale: not a verdict of the code of now, not checked
    now.write_text(json.dumps(document))
    result = CliRunner().invoke(cli, ["check", "--verify-record", "--record", str(now), claim.key])
    assert result.exit_code == 0 and "stale" in result.stdout
    refused = CliRunner().invoke(cli, ["check", "--sample", "2"])
    assert refused.exit_code == 2 and "--sample: only with --verify-record" in refused.stderr
