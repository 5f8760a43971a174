"""The catalogue: ``flt claims`` from the registry, and the repository's ``CLAIMS.md`` generated from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from flt_theory.checking.catalogue import catalogue, catalogue_markdown
from flt_theory.cli import cli
from flt_theory.systems import registered_claims

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.xdist_group("catalogue")  # one worker computes the module's CLAIMS.md once


@pytest.fixture(scope="module")
def markdown() -> str:
    """:func:`catalogue_markdown`, computed once per module (about a second)."""
    return catalogue_markdown()


def test_claims_md_is_current(markdown):
    """Regenerate with: flt claims --markdown > CLAIMS.md"""
    assert (ROOT / "CLAIMS.md").read_text(encoding="utf-8") == markdown


def test_every_claim_is_catalogued_with_its_source_and_control():
    entries = {e["key"]: e for e in catalogue()}
    assert set(entries) == {c.key for c in registered_claims()}
    for entry in entries.values():
        assert entry["status"] in ("theorem", "conjecture", "derived", "finding")
        assert entry["source"]["authors"] and entry["source"]["year"] and entry["wrong_law"]
        assert entry["latex"] and entry["wrong_law_latex"] != entry["latex"]


def test_flt_claims_json_and_markdown(markdown):
    runner = CliRunner()
    document = json.loads(runner.invoke(cli, ["claims", "--json"]).output)
    assert [e["key"] for e in document] == [c.key for c in registered_claims()]
    assert runner.invoke(cli, ["claims", "--markdown"]).output == markdown
    assert runner.invoke(cli, ["claims", "--json", "--markdown"]).exit_code == 2


def test_no_source_file_numbers_or_outside_catalogue_cited():
    """Papers are cited by authors, year and arXiv id; the slides' file numbers mean nothing to users."""
    import re

    pattern = re.compile(r"seed[\s`]*0\d\d|CLAIMS\.md §|DKLPS '23")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "flt_theory").rglob("*.py")
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_shipped_records_are_current():
    """The package's records describe the code of now: every claim calibrated and with a small-scale verdict, no
    recorded verdict (small or paper) or calibration stale. After a change: ``flt check --scale small --record
    flt_theory/report/verdict_record.json``, then ``flt check --restamp-from BEFORE.json`` and ``flt calibrate
    --restamp-from BEFORE.json`` (docs/guide/checking.md: the calibration and the paper record; the paper calibration
    with ``--record flt_theory/report/calibration_paper.json``), and re-run what stays stale."""
    from flt_theory.checking.power import PAPER_RECORD, load_record, power_rows
    from flt_theory.checking.scale_record import load_verdicts, verdict_rows

    claims = registered_claims()
    verdicts = load_verdicts()
    small = {r["claim"]: r["status"] for r in verdict_rows(verdicts, claims, "small")}
    paper = {r["claim"]: r.get("reason", r["status"]) for r in verdict_rows(verdicts, claims, "paper")}
    calibration = {r["claim"]: r["status"] for r in power_rows(load_record(), claims)}
    assert {k: s for k, s in small.items() if s != "recorded"} == {}
    assert {k: s for k, s in paper.items() if s not in ("recorded", "not run")} == {}
    assert {k: s for k, s in calibration.items() if s != "calibrated"} == {}
    paper_record = load_record(PAPER_RECORD)
    assert paper_record is None or paper_record["scale"] == "paper"
    paper_calibration = {r["claim"]: r["status"] for r in power_rows(paper_record, claims)}
    assert {k: s for k, s in paper_calibration.items() if s not in ("calibrated", "not calibrated")} == {}
