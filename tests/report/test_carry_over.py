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
    before.write_text(json.dumps({"entries": [{**small, "code_fingerprint": OLD}]}))
    now.write_text(json.dumps({"entries": [small, paper]}))
    result = CliRunner().invoke(cli, ["check", "--restamp-from", str(before), "--record", str(now), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["stale"][0]["carried"] == "yes"
    assert json.loads(now.read_text())["entries"][1]["code_fingerprint"] == code
    refused = CliRunner().invoke(cli, ["check", "giant-step", "--restamp-from", str(before), "--record", str(now)])
    assert refused.exit_code == 2 and "give no PATHS" in refused.output
