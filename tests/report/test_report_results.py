"""The report folder's numbers: every entry keeps its own estimate and interval (table, JSON,
figure), no estimate outside its CI, bounded quantities inside their range, plain text where read."""

import json

import pytest

from flt_theory.checking import check
from flt_theory.systems.registry import session_store

#: Cheap claims (seconds together) covering a conjunction with an ordering (second-layer-bounds), a
#: conjunction of a bound and a subspace (rank-one-update), a 2-exponent fit (norm-law), exact
#: counts (initial-sizes), LaTeX in part names (staircase-a) and a control in another unit
#: (staircase-d-one-new-direction).
CLAIMS = [
    "giant-step/norm-law",
    "giant-step/rank-one-update",
    "giant-step/second-layer-bounds",
    "giant-step/staircase-a",
    "giant-step/staircase-d-one-new-direction",
    "good-sets/initial-sizes",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    table = check(CLAIMS, report_dir=directory, store=session_store())  # the measurements the session holds
    return table, directory, json.loads((directory / "results.json").read_text(encoding="utf-8"))


def _walk(result):
    yield result
    for part in (result.get("details") or {}).get("parts") or []:
        yield from _walk(part)


def test_every_entry_keeps_its_own_estimate_and_interval(report):
    _, _, results = report
    for claim in results["claims"]:
        check_ = claim["check"]
        measured = check_["measured"] if isinstance(check_["measured"], list) else [check_["measured"]]
        assert len(claim["entries"]) == len(measured), claim["claim"]
        for entry, value in zip(claim["entries"], measured):
            assert entry["estimate"] == pytest.approx(float(value))
            assert entry["label"] and not entry["label"].startswith("[")


def test_no_estimate_outside_its_ci(report):
    _, _, results = report
    checked = 0
    for claim in results["claims"]:
        for entry in claim["entries"]:
            low, high = entry["ci"]
            if entry["estimate"] is None or low is None or high is None:
                continue
            slack = 1e-12 * max(1.0, abs(entry["estimate"]))
            assert low - slack <= entry["estimate"] <= high + slack, (claim["claim"], entry)
            checked += 1
    assert checked >= 12


def test_bounded_quantities_have_intervals_in_their_range(report):
    _, _, results = report
    seen = 0
    for claim in results["claims"]:
        for result in _walk(claim["check"]):
            details = result.get("details") or {}
            bounds = details.get("ratio_bounds") or details.get("bounds")
            if not bounds or isinstance(result["measured"], list):
                continue
            low, high = (float(b) for b in bounds)
            ci_low, ci_high = (float(x) for x in result["ci"])
            assert low - 1e-12 <= ci_low <= ci_high <= high + 1e-12, (claim["claim"], result["name"], result["ci"])
            seen += 1
    assert seen >= 3


def test_plain_text_where_it_is_read(report):
    table, directory, results = report
    for claim in results["claims"]:
        for key in ("law", "predicted", "message", "control_message", "wrong_law"):
            assert "\\" not in str(claim[key]), (claim["claim"], key, claim[key])
        for entry in claim["entries"]:
            assert "\\" not in entry["label"]
        for result in (claim["check"], claim["control"]):
            for part in _walk(result):
                assert "\\" not in part["name"] and "\\" not in part["message"], part["name"]
                assert all("\\" not in label for label in (part.get("details") or {}).get("labels") or [])
        assert claim["law_latex"].count("\\") >= 0  # the LaTeX itself is kept, under its own key
    staircase = next(c for c in results["claims"] if c["claim"] == "giant-step/staircase-a")
    assert [e["label"] for e in staircase["entries"]] == ["step 1: U_1 = span{w1 + w2}", "step 2: U_2 = span{w1, w2}"]


def test_tables_show_each_entry_with_its_label(report):
    _, directory, results = report
    md = (directory / "report.md").read_text(encoding="utf-8")
    html = (directory / "report.html").read_text(encoding="utf-8")
    second = next(c for c in results["claims"] if c["claim"] == "giant-step/second-layer-bounds")
    assert len(second["entries"]) == 5
    for entry in second["entries"]:
        assert entry["label"] in md and entry["label"].replace(">", "&gt;") in html
    assert "[1]" not in md and "\\mathrm" not in md.split("## Plain-text table")[1]


def test_figures_drawn_where_they_carry_something(report):
    _, directory, _ = report
    names = sorted(p.name for p in (directory / "figures").glob("*.png"))
    assert "giant-step--second-layer-bounds.png" in names and "giant-step--norm-law.png" in names
    md = (directory / "report.md").read_text(encoding="utf-8")
    # the caption promises the wrong law only where the figure draws it
    assert md.count("the negative control's wrong law in grey") + md.count("has no value on these axes") == sum(
        1
        for n in names
        if n.count("-") and not any(n.endswith(f"-{s}.png") for s in ("staircase", "order-parameter", "ladder"))
    )
