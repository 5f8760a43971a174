"""``flt check --plan`` paced by the verdict record: a claim whose entry measured the same points, seeds and code is
planned at the wall time it took (a declared cost is a polynomial in the sizes, and was off by more than 2x for 43 of
71 paper-scale claims); any other claim at its declared cost, and the plan says which."""

from __future__ import annotations

from flt_theory.checking.power import claim_code_fingerprint, claim_fingerprint
from flt_theory.checking.scale_record import load_verdicts, recorded_seconds
from flt_theory.cli import cli
from flt_theory.systems import get_claim
from flt_theory.systems.declaration import plan

BENIGN, HARMFUL = get_claim("attention/benign"), get_claim("attention/harmful")  # one measurement, two claims


def _entry(claim, **fields):
    return {"claim": claim.key, "scale": "small", "fingerprint": claim_fingerprint(claim, "small"),
            "code_fingerprint": claim_code_fingerprint(claim), "seconds": None, "hardware": {"jobs": 2}, **fields}


def test_a_current_entry_paces_its_claim_and_the_claims_sharing_its_measurement():
    record = {"entries": [_entry(BENIGN, seconds=50.0), _entry(HARMFUL)]}  # HARMFUL's rows were BENIGN's
    assert recorded_seconds(record, [BENIGN, HARMFUL], "small") == {
        BENIGN.key: {"seconds": 50.0, "jobs": 2}, HARMFUL.key: {"seconds": 50.0, "jobs": 2}}
    document = plan([BENIGN, HARMFUL], "small", repeats=3, recorded=recorded_seconds(record, [BENIGN, HARMFUL],
                                                                                     "small"))
    assert [(r["seconds"], r["basis"]) for r in document["claims"]] == [(150.0, "record, 2 jobs")] * 2
    assert document["total"]["seconds"] == 150.0  # the shared measurement counted once


def test_a_stale_or_missing_entry_leaves_the_declared_cost():
    stale_code = {"entries": [_entry(BENIGN, seconds=50.0, code_fingerprint="other code")]}
    other_points = {"entries": [_entry(BENIGN, seconds=50.0, fingerprint="other points")]}
    paper = {"entries": [{**_entry(BENIGN, seconds=50.0), "scale": "paper"}]}
    for record in (stale_code, other_points, paper, {"entries": []}, None):
        assert recorded_seconds(record, [BENIGN], "small") == {}
    row = plan([BENIGN], "small", repeats=3, recorded={})["claims"][0]
    assert row["basis"] == "declared cost" and row["seconds"] == row["declared_seconds"] != 150.0


def test_flt_check_plan_names_the_basis_of_each_estimate(runner):
    """The table's last column; the package's record paces the claim while its entry is current."""
    paced = recorded_seconds(load_verdicts(), [BENIGN], "small").get(BENIGN.key)
    result = runner.invoke(cli, ["check", BENIGN.key, "--plan"])
    assert result.exit_code == 0, result.output
    header, row, _total = result.output.splitlines()
    assert header.split()[-1] == "basis"
    if paced is None:
        assert row.endswith("declared cost")
    else:
        jobs = paced["jobs"]
        assert row.endswith(f"record, {jobs} job{'s' if jobs != 1 else ''}")
        assert row.split()[3] == f"{paced['seconds']:.3g}"
