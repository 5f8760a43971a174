"""The recorded calibration: fingerprints, stale claims, merging, and the power table of the report and CLAIMS.md."""

import json
import math

import pytest

from flt_theory.checking.calibrate import calibrate, merge_record
from flt_theory.checking.power import (
    claim_code_fingerprint,
    claim_fingerprint,
    is_large,
    load_record,
    power_markdown,
    power_rows,
)
from flt_theory.errors import FLTError
from flt_theory.systems import get_claim

KEY = "giant-step/rank-one-update"

pytestmark = pytest.mark.xdist_group("power")  # one worker calibrates the module's document once


@pytest.fixture(scope="module")
def document():
    return calibrate([KEY], repeats=2)


def test_fingerprint_names_what_was_calibrated(document):
    claim = get_claim(KEY)
    entry = document["claims"][0]
    assert entry["fingerprint"] == claim_fingerprint(claim, "small") != claim_fingerprint(claim, "paper")
    changed = claim.__class__(
        **{
            **{f: getattr(claim, f) for f in ("name", "words", "measurement", "compare", "system")},
            "law": claim.law,
            "wrong_law": get_claim("giant-step/leap2-threshold").wrong_law,
        }
    )
    assert claim_fingerprint(changed, "small") != entry["fingerprint"]
    assert document["created"] and "git_commit" in document


def test_power_rows_mark_calibrated_stale_and_missing(document):
    stale = json.loads(json.dumps(document))
    stale["claims"][0]["fingerprint"] = "0" * 16
    claims = [get_claim(KEY), get_claim("giant-step/norm-law")]
    assert [r["status"] for r in power_rows(document, claims)] == ["calibrated", "not calibrated"]
    assert [r["status"] for r in power_rows(stale, claims)] == ["stale", "not calibrated"]
    row = power_rows(document, claims)[0]
    assert row["repeats"] == 2 and 0 <= row["large_caught"] <= row["large"] and 0 <= row["ci"][0] <= row["ci"][1] <= 1
    code_changed = json.loads(json.dumps(document))
    code_changed["claims"][0]["code_fingerprint"] = "0" * 64
    predates = json.loads(json.dumps(document))
    del predates["claims"][0]["code_fingerprint"]
    assert power_rows(code_changed, claims)[0] == {"claim": KEY, "status": "stale",
                                                   "reason": "its simulation's code changed"}
    assert power_rows(predates, claims)[0]["reason"] == "the record predates code fingerprints"
    assert document["claims"][0]["code_fingerprint"] == claim_code_fingerprint(get_claim(KEY))
    text = "\n".join(power_markdown(stale, claims))
    assert "stale — recalibrate (the claim changed)" in text and "not calibrated" in text
    assert (
        power_markdown(None, claims) == [power_markdown(None, claims)[0]]
        and "No calibration" in power_markdown(None, claims)[0]
    )


def test_merge_replaces_entries_and_recounts_whole_runs(document, tmp_path):
    failing = json.loads(json.dumps(document))
    failing["claims"][0]["claim"] = "other/claim"
    failing["claims"][0]["law_passed"] = [True, False]
    merged = merge_record(failing, document)
    assert [e["claim"] for e in merged["claims"]] == ["other/claim", KEY] and merged["runs_rejecting_a_true_law"] == 1
    with pytest.raises(FLTError, match="same options"):
        merge_record({**document, "repeats": 3}, document)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(merged))
    assert load_record(path)["runs_rejecting_a_true_law"] == 1 and load_record(tmp_path / "absent.json") is None


def test_large_mutants():
    assert is_large("exponent of n", 1.0) and is_large("subspace rotation", 30.0) and is_large("bound side", 1.0)
    assert not is_large("bound scale", math.log(1.25)) and is_large("bound scale", math.log(2))


def test_goal_mutants_and_notes_are_shown(document):
    import dataclasses

    claim = dataclasses.replace(get_claim(KEY), power_note="the second direction is a bulk one")
    row = power_rows(document, [claim])[0]
    assert row["goal"] == 3 and 0 <= row["goal_caught"] <= 3 and row["note"] == "the second direction is a bulk one"
    text = "\n".join(power_markdown(document, [claim]))
    assert "| goal mutants ≥ 95% |" in text and f"- `{KEY}`: the second direction is a bulk one" in text
    missed = json.loads(json.dumps(document))
    missed["claims"][0]["mutants"][0]["fraction"] = 0.5
    assert "(missed: rotated 30° (50%))" in "\n".join(power_markdown(missed, [get_claim(KEY)]))


def test_paper_record_lists_only_its_claims_below_the_small_table(document, tmp_path, monkeypatch):
    """A record of some claims at another scale (the package's paper calibration) shows those claims only, under its
    own heading, with its scale named; the small table keeps every claim."""
    import flt_theory.checking.power as power

    claims = [get_claim(KEY), get_claim("giant-step/norm-law")]
    paper = {**json.loads(json.dumps(document)), "scale": "paper"}
    paper["claims"][0]["fingerprint"] = claim_fingerprint(get_claim(KEY), "paper")
    path = tmp_path / "calibration_paper.json"
    path.write_text(json.dumps(paper))
    monkeypatch.setattr(power, "PAPER_RECORD", path)
    lines = power.recorded_calibration(claims)
    heading = lines.index("### At paper scale (the claims calibrated there)")
    small, at_paper = "\n".join(lines[:heading]), "\n".join(lines[heading:])
    assert "`giant-step/norm-law`" in small and "`giant-step/norm-law`" not in at_paper
    assert f"| `{KEY}` | {paper['claims'][0]['false_rejections']}/2 [" in at_paper
    assert "at scale `paper`" in at_paper and "small-scale verdict reproduced" in at_paper
    assert "run of the 1 claims calibrated there" in at_paper
    from flt_theory.report.markdown import _markdown_table_html

    assert "<h3>At paper scale (the claims calibrated there)</h3>" in _markdown_table_html(lines)
    monkeypatch.setattr(power, "PAPER_RECORD", tmp_path / "absent.json")
    assert not any(line.startswith("### At paper scale") for line in power.recorded_calibration(claims))
