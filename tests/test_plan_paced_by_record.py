"""``flt check --plan`` paced by the verdict record: a claim whose measurement (points, seeds, code) the record timed
is planned at that wall time, in CPU seconds (times the workers its run kept busy; a declared cost is a polynomial in
the sizes and can be far off); any other claim at its declared cost, and the plan says which. A run's refusal still
reads the declared total, which the plan's total row shows."""

from __future__ import annotations

import pytest

from flt_theory.checking.power import claim_code_fingerprint, claim_fingerprint
from flt_theory.checking.scale_record import recorded_seconds
from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.systems import get_claim
from flt_theory.systems.declaration import plan

BENIGN, HARMFUL = get_claim("attention/benign"), get_claim("attention/harmful")  # one measurement, two claims


def _entry(claim, **fields):
    return {"claim": claim.key, "scale": "small", "fingerprint": claim_fingerprint(claim, "small"),
            "code_fingerprint": claim_code_fingerprint(claim), "seconds": None, "hardware": {"jobs": 2}, **fields}


def test_a_current_entry_paces_its_claim_and_the_claims_sharing_its_measurement():
    record = {"entries": [_entry(BENIGN, seconds=50.0), _entry(HARMFUL)]}  # HARMFUL's rows were BENIGN's
    paced = recorded_seconds(record, [BENIGN, HARMFUL], "small")
    timed = {"seconds": 50.0, "jobs": 2, "carried": False, "partial": False}
    assert paced == {BENIGN.key: timed, HARMFUL.key: timed}
    document = plan([BENIGN, HARMFUL], "small", repeats=3, recorded=paced)
    busy = BENIGN.measurement.busy_workers("small", 2)
    assert busy == 2 and BENIGN.measurement.busy_workers("small", None) == 1  # several points: both workers busy
    assert [(r["seconds"], r["basis"]) for r in document["claims"]] == [(300.0, "record, 2 jobs")] * 2  # 3 x 50 x 2
    assert document["total"]["seconds"] == 300.0  # the shared measurement counted once
    assert document["total"]["declared_seconds"] == document["claims"][0]["declared_seconds"] != 300.0
    # a sibling whose own law changed (its entry stale) still shares the measurement's time; the longest time wins
    record = {"entries": [_entry(BENIGN, seconds=50.0), _entry(HARMFUL, seconds=70.0, fingerprint="other law")]}
    assert {k: v["seconds"] for k, v in recorded_seconds(record, [BENIGN, HARMFUL], "small").items()} == {
        BENIGN.key: 50.0, HARMFUL.key: 50.0}
    record = {"entries": [_entry(BENIGN, seconds=50.0), _entry(HARMFUL, seconds=70.0)]}
    assert {v["seconds"] for v in recorded_seconds(record, [BENIGN, HARMFUL], "small").values()} == {70.0}


def test_the_basis_says_what_the_recorded_time_is():
    carried = _entry(BENIGN, seconds=5.0, restamped=[{"from": "before"}], hardware={"jobs": 1})
    partial = _entry(BENIGN, seconds=5.0, computed=12, reused=12, hardware={})
    bases = [plan([BENIGN], "small", recorded=recorded_seconds({"entries": [e]}, [BENIGN], "small"))["claims"][0]
             ["basis"] for e in (carried, partial)]
    assert bases == ["record (carried over), 1 job", "record (rows partly reused: at least)"]


def test_a_stale_or_missing_entry_leaves_the_declared_cost():
    stale_code = {"entries": [_entry(BENIGN, seconds=50.0, code_fingerprint="other code")]}
    other_points = {"entries": [_entry(BENIGN, seconds=50.0, fingerprint="other points")]}
    paper = {"entries": [{**_entry(BENIGN, seconds=50.0), "scale": "paper"}]}
    for record in (stale_code, other_points, paper, {"entries": []}, None):
        assert recorded_seconds(record, [BENIGN], "small") == {}
    row = plan([BENIGN], "small", repeats=3, recorded={})["claims"][0]
    assert row["basis"] == "declared cost" and row["seconds"] == row["declared_seconds"] != 150.0


def test_the_refusal_reads_the_declared_total(monkeypatch):
    """What ``flt check`` refuses a run by: a recorded time under the limit does not let a declared total over it
    through, and the message says which total it read."""
    declared = plan([BENIGN], "small")["total"]["declared_seconds"]
    record = {"entries": [_entry(BENIGN, seconds=declared / 4)]}
    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", str(declared / 2))
    with pytest.raises(InvalidParameterError, match=r"about .* s by their declared costs, over the limit"):
        plan([BENIGN], "small", recorded=recorded_seconds(record, [BENIGN], "small"))


def test_flt_check_plan_names_the_basis_of_each_estimate(runner, monkeypatch):
    """The table's last column: the record paces a claim whose entry is current, in CPU seconds (a 1-point measurement
    keeps one of two workers busy); with no record, the declared cost."""
    from flt_theory.checking import scale_record

    one_point = get_claim("giant-step/rank-one-update")
    assert one_point.measurement.busy_workers("small", 2) == 1
    for claim, seconds in ((BENIGN, 40.0), (one_point, 40.0)):
        record = {"entries": [_entry(claim, seconds=seconds)]}
        monkeypatch.setattr(scale_record, "load_verdicts", lambda *a, record=record, **k: record)
        result = runner.invoke(cli, ["check", claim.key, "--plan"])
        assert result.exit_code == 0, result.output
        header, row, total = result.output.splitlines()
        assert header.split()[-1] == "basis" and row.endswith("record, 2 jobs")
        assert row.split()[3] == f"{seconds * claim.measurement.busy_workers('small', 2):.3g}"
        assert total.endswith(f"(declared costs: {plan([claim], 'small')['total']['declared_seconds']:.3g} s)")
    monkeypatch.setattr(scale_record, "load_verdicts", lambda *a, **k: None)
    result = runner.invoke(cli, ["check", BENIGN.key, "--plan"])
    assert result.output.splitlines()[1].endswith("declared cost")
