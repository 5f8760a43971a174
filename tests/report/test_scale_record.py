"""The recorded verdicts per scale: entries, merging, staleness and the catalogue's side-by-side table."""

import json

import pytest

from flt_theory.checking.check import check
from flt_theory.checking.scale_record import (
    load_verdicts,
    merge_verdicts,
    record_markdown,
    verdict_entries,
    verdict_rows,
    write_verdicts,
)
from flt_theory.systems import get_claim

KEY = "giant-step/rank-one-update"


@pytest.fixture(scope="module")
def frame():
    return check([KEY], scale="small", report_dir=None)


def test_entries_carry_the_verdict_its_interval_and_where_it_ran(frame):
    claim = get_claim(KEY)
    (entry,) = verdict_entries(frame, [claim], "small")
    row = frame.to_dict("records")[0]
    assert (entry["claim"], entry["scale"], entry["verdict"], entry["passed"]) == (
        KEY,
        "small",
        row["verdict"],
        row["passed"],
    )
    assert entry["ci"] == json.loads(frame.to_json(orient="records"))[0]["ci"]
    assert entry["seconds"] is not None and entry["seconds"] > 0 and entry["computed"] > 0
    assert entry["hardware"]["cores"] >= 1 and entry["hardware"]["device"] in ("cpu", "cuda")
    assert len(entry["fingerprint"]) == 16 and len(entry["code_fingerprint"]) == 64


def test_a_run_with_a_claim_that_raised_still_records_integer_counts(frame):
    """A claim that raised has no ``n_seeds``: the column then holds None and pandas reads the others back as floats
    (256.0), which the record's schema refuses at the next ``--record``; the entries keep integers."""
    from flt_theory.checking.records import VERDICT_RECORD, validate

    claim = get_claim(KEY)
    broken = frame.copy()
    broken.loc[len(broken)] = {**frame.iloc[0].to_dict(), "claim": "giant-step/norm-law", "n_seeds": None}
    entries = verdict_entries(broken, [claim, get_claim("giant-step/norm-law")], "small")
    assert isinstance(entries[0]["n_seeds"], int) and entries[1]["n_seeds"] is None
    validate({"entries": entries}, VERDICT_RECORD, "--record")


def test_an_entry_the_record_could_not_read_back_is_refused_before_writing(frame, tmp_path):
    """A ladder rung whose size is not a number (a plugin claim's ladder, say) would make the next ``--record``
    refuse the file: it is refused when written, naming the claim and the field, and nothing is written."""
    from flt_theory.checking.records import RecordFileError

    bad = frame.copy()
    bad["ladder"] = [[{"size": {"activation": "tanh"}, "estimate": 1.0, "ci": [0.9, 1.1]}]]
    path = tmp_path / "record.json"
    with pytest.raises(RecordFileError, match=rf"the verdict of {KEY} \(small\): entries\[0\]\.ladder\[0\]\.size\."
                                              r"activation: expected a number, got a string"):
        write_verdicts(path, bad, [get_claim(KEY)], "small")
    assert not path.exists()
    write_verdicts(path, frame, [get_claim(KEY)], "small")  # the claim's own ladder is written
    assert json.loads(path.read_text())["entries"][0]["claim"] == KEY


def test_a_reused_entry_keeps_the_measured_time_and_its_note(frame):
    (entry,) = verdict_entries(frame, [get_claim(KEY)], "small")
    before = {**entry, "seconds": 12.5, "seconds_note": "wall time of the run that computed these rows"}
    merged = merge_verdicts({"entries": [before]}, [{**entry, "seconds": None}])
    (kept,) = merged["entries"]
    assert (kept["seconds"], kept["seconds_note"]) == (12.5, "wall time of the run that computed these rows")


def test_rows_are_recorded_stale_or_not_run(frame, tmp_path):
    claims = [get_claim(KEY), get_claim("giant-step/norm-law")]
    path = tmp_path / "record.json"
    record = write_verdicts(path, frame, claims[:1], "small")
    assert load_verdicts(path) == record and load_verdicts(tmp_path / "absent.json") is None
    assert [r["status"] for r in verdict_rows(record, claims, "small")] == ["recorded", "not run"]
    assert [r["status"] for r in verdict_rows(record, claims, "paper")] == ["not run", "not run"]
    changed = json.loads(json.dumps(record))
    changed["entries"][0]["code_fingerprint"] = "0" * 64
    assert verdict_rows(changed, claims, "small")[0]["reason"] == "its simulation's code changed"
    changed["entries"][0]["fingerprint"] = "0" * 16
    assert verdict_rows(changed, claims, "small")[0]["reason"] == "the claim changed"
    text = "\n".join(record_markdown(changed, claims))
    assert "stale — re-run (the claim changed" in text and "| `giant-step/norm-law` | not run | not run |" in text
    assert "0/2 at small scale" in text
    current = "\n".join(record_markdown(record, claims))
    assert f"**{record['entries'][0]['verdict']}**" in current and "1/2 at small scale" in current


def test_a_merge_replaces_the_same_claim_and_scale_and_keeps_a_measured_time(frame):
    (entry,) = verdict_entries(frame, [get_claim(KEY)], "small")
    paper = {**entry, "scale": "paper"}
    record = merge_verdicts(None, [entry, paper])
    assert [(e["claim"], e["scale"]) for e in record["entries"]] == [(KEY, "small"), (KEY, "paper")]
    reused = {**entry, "seconds": None, "verdict": "FAIL"}
    merged = merge_verdicts(record, [reused])
    assert merged["entries"][0]["verdict"] == "FAIL" and merged["entries"][0]["seconds"] == entry["seconds"]
    other_code = {**reused, "code_fingerprint": "1" * 64}
    assert merge_verdicts(record, [other_code])["entries"][0]["seconds"] is None
    assert "seconds_carried" not in merged["entries"][0]  # a time measured on this code
    # a time carried over a change of code stays marked as such when a later entry keeps it (not as a † verdict)
    restamped = merge_verdicts(None, [{**entry, "restamped": [{"date": "2026-12-07"}]}])
    kept = merge_verdicts(restamped, [reused])["entries"][0]
    assert kept["seconds"] == entry["seconds"] and kept["seconds_carried"] and "restamped" not in kept
    again = merge_verdicts({"entries": [kept]}, [reused])["entries"][0]
    assert again["seconds_carried"]
    from flt_theory.checking.scale_record import recorded_seconds

    assert recorded_seconds({"entries": [kept]}, [get_claim(KEY)], "small")[KEY]["carried"]
    assert not recorded_seconds(merged, [get_claim(KEY)], "small")[KEY]["carried"]


def test_flt_check_record_decides_at_the_catalogue_level_and_merges(tmp_path):
    from click.testing import CliRunner

    from flt_theory.checking.records import VERDICT_RECORD, load_json_file
    from flt_theory.cli import cli
    from flt_theory.systems import registered_claims

    path = tmp_path / "verdicts.json"
    result = CliRunner().invoke(cli, ["check", KEY, "--no-report", "--record", str(path)])
    assert result.exit_code == 0, result.output
    load_json_file(path, VERDICT_RECORD, "--record")  # what flt check --record writes is a verdict record
    (entry,) = load_verdicts(path)["entries"]
    assert entry["claim"] == KEY and entry["verdict"] == "PASS"
    assert entry["level"] is None or abs(entry["level"] - 0.05 / len(registered_claims())) < 1e-15
    again = CliRunner().invoke(cli, ["check", KEY, "--no-report", "--record", str(path), "--scale", "paper"])
    assert again.exit_code == 0 and [e["scale"] for e in load_verdicts(path)["entries"]] == ["small", "paper"]


def test_record_checks_its_path_first_and_keeps_how_it_decided(tmp_path, frame):
    from flt_theory.checking.scale_record import check_record_path
    from flt_theory.errors import InvalidParameterError

    for bad in (tmp_path / "nope" / "r.json", tmp_path):
        with pytest.raises(InvalidParameterError, match="--record: cannot write"):
            check_record_path(bad)
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    with pytest.raises(InvalidParameterError, match="--record: .*corrupt.json: not valid JSON at line 1, column 2"):
        check_record_path(corrupt)
    claim = get_claim(KEY)
    (entry,) = verdict_entries(frame, [claim], "small", before={KEY: "0" * 64}, decided={"alpha": 0.05, "family": 3})
    assert entry["code_fingerprint"] == "changed during the run" and entry["family"] == 3
    record = {"entries": [entry]}
    assert verdict_rows(record, [claim], "small")[0]["status"] == "stale"
    (fresh,) = verdict_entries(frame, [claim], "small", decided={"alpha": 0.05, "family": 3})
    assert "decided among 3 claims" in verdict_rows({"entries": [fresh]}, [claim], "small")[0]["reason"]


def test_verify_record_reproduces_a_genuine_carried_verdict_and_catches_an_edited_one(frame):
    """``flt check --verify-record`` re-runs the small-scale verdict a carry-over relied on with the code of now
    (one real run of a seconds-long claim): the genuine one reproduces bit for bit, one edited by 1e-9 does not."""
    from flt_theory.checking.verify_record import COMPARED, fresh_small_verdict, verify_record

    claim = get_claim(KEY)
    (small,) = verdict_entries(frame, [claim], "small", decided={"alpha": 0.05, "seed_base": 0, "family": 1})
    relied = {k: small[k] for k in (*COMPARED, "family")}
    paper = {**small, "scale": "paper", "restamped": [{"from_code_fingerprint": "0" * 64, "small": relied}]}
    runs = []

    def measure(*args):
        runs.append(args)
        return fresh_small_verdict(*args)

    (row,) = verify_record({"entries": [small, paper]}, [claim], measure=measure)
    assert row["status"] == "reproduced", row
    assert runs == [(claim, 0, 0.05, 1)]
    edited = json.loads(json.dumps(paper))

    def nudged(value):
        return [nudged(value[0]), *value[1:]] if isinstance(value, list) else value + 1e-9

    edited["restamped"][0]["small"]["measured"] = nudged(relied["measured"])
    (row,) = verify_record({"entries": [small, edited]}, [claim], measure=lambda *args: {**small})  # the run above
    assert row["status"] == "MISMATCH" and row["differ"] == ["measured"]


def test_verify_record_does_not_rerun_evidence_of_a_small_claim_changed_since(frame):
    """A carry-over keeps the fingerprint of the small-scale claim it relied on; once that claim changes (its seeds
    raised, say) no run of now can reproduce the evidence, so the entry is ``superseded`` — re-run, not checked —
    and ``flt check --verify-record`` fails on it rather than report a mismatch of the claim's own verdict."""
    from flt_theory.checking.calibrate import restamped
    from flt_theory.checking.power import claim_fingerprint
    from flt_theory.checking.verify_record import verify_record

    claim = get_claim(KEY)
    (small,) = verdict_entries(frame, [claim], "small", decided={"alpha": 0.05, "seed_base": 0, "family": 1})
    paper = restamped({**small, "scale": "paper", "code_fingerprint": "0" * 64}, small, scale="small", commit=None,
                      date="2026-12-07")
    assert paper["restamped"][-1]["small"]["fingerprint"] == small["fingerprint"] == claim_fingerprint(claim, "small")

    def never(*args):
        raise AssertionError("a superseded entry is not re-run")

    (row,) = verify_record({"entries": [small, paper]}, [claim], measure=lambda *args: {**small})
    assert row["status"] == "reproduced"
    paper["restamped"][-1]["small"]["fingerprint"] = "0" * 16  # the small claim it relied on, as it was then
    (row,) = verify_record({"entries": [small, paper]}, [claim], measure=never)
    assert row["status"] == "superseded"
