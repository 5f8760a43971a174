"""Where the theorem speaks, in the report: the hypotheses of a claim's law, where its points lie, its size ladder.

A toy claim (a mean that tends to 1 as n grows) whose law assumes ``d >= n**2``: one point inside, one outside.
The verdict table, ``results.json``, ``report.md`` and ``report.html`` say which points are inside, name the
failing hypothesis, mark an all-outside verdict as an EXTRAPOLATION, and draw the ladder.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from flt_theory.checking.check import run_claims, verdict_frame, write_check_report
from flt_theory.compare import check_at_least, ladder_trend, mean_ci
from flt_theory.runner import experiment
from flt_theory.symbolic.hypothesis import Hypothesis
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.systems.declaration import Claim, Measurement

pytestmark = pytest.mark.xdist_group("report_hypotheses")  # one worker writes the module's report once


@experiment("test-hypotheses/mean", types={"n": int, "d": int})
def _mean(params, seed):
    rng = np.random.default_rng(seed)
    return {"y": 1.0 - 1.0 / params["n"] + 0.01 * rng.standard_normal()}


d, n = sp.symbols("d n", positive=True)
LAW = Law(name="mean", lhs=r"\bar y", relation="geq", value=sp.Rational(1, 2), source=THIS_PROJECT, status="theorem",
          hypotheses=(Hypothesis(text="d at least n^2", condition=d >= n**2, where="Theorem 1"),),
          hypotheses_reading="constants 1")


def _compare(frame, law):
    return check_at_least(frame.y.to_numpy(), law.number(), mode="demonstrated", name="mean of y")


def _ladder(frame):
    rungs = []
    for size, group in frame.groupby("n"):
        est = mean_ci(group.y.to_numpy())
        rungs.append({"size": {"n": int(size)}, "estimate": est.value, "ci": [est.low, est.high], "predicted": 1.0,
                      "literal": 1.0})
    return rungs


def _claim(name, points, note=""):
    return Claim(name=name, system="test", words="the mean is at least 1/2", law=LAW,
                 wrong_law=LAW.replace(value=sp.Integer(2)), compare=_compare, extrapolation_note=note,
                 measurement=Measurement(experiment="test-hypotheses/mean", points={"small": points, "paper": points},
                                         seeds={"small": 6, "paper": 6}),
                 ladder=_ladder)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    claims = [_claim("toy", [{"n": 4, "d": 100}, {"n": 20, "d": 100}, {"n": 64, "d": 100}]),
              _claim("toy-out", [{"n": 20, "d": 100}], note="d >= n^2 needs d = 400; not run here")]
    runs = run_claims(claims, "small")
    frame = verdict_frame(claims, runs)
    write_check_report(directory, claims, runs, frame, "small")
    return frame, directory, json.loads((directory / "results.json").read_text(encoding="utf-8"))


def test_verdict_table_says_where_the_points_lie(report):
    frame, _, _ = report
    assert frame["in_hypotheses"].tolist() == ["some", "none"]
    assert frame["scope"].tolist() == ["partly inside", "extrapolation"]


def test_results_json_names_hypotheses_and_failing_points(report):
    _, _, results = report
    inside, outside = results["claims"]
    assert inside["hypotheses"] == [{"text": "d at least n^2", "latex": "d \\geq n^{2}", "condition": "d >= n**2",
                                     "where": "Theorem 1"}]
    assert [p["inside"] for p in inside["hypothesis_points"]] == [True, False, False]
    assert inside["hypothesis_points"][1]["failed"] == ["Theorem 1: d at least n^2"]
    assert outside["scope"] == "extrapolation" and outside["extrapolation_note"].startswith("d >= n^2 needs")


def test_ladder_in_results_and_drawn(report):
    _, directory, results = report
    rungs = results["claims"][0]["ladder"]
    assert [r["size"]["n"] for r in rungs] == [4, 20, 64]
    assert all(r["ci"][0] <= r["estimate"] <= r["ci"][1] for r in rungs)
    trend = ladder_trend(rungs, size="n", literal=1.0)
    assert trend["shrinking"] and not trend["persisting"]  # 1 - 1/n: a finite-size deviation
    assert (directory / "figures" / "test--toy-ladder.png").is_file()
    assert len(results["claims"][1]["ladder"]) == 1  # one size: a ladder of one rung, no trend
    with pytest.raises(ValueError, match="at least 3 distinct sizes"):
        ladder_trend(results["claims"][1]["ladder"], size="n", literal=1.0)


def test_report_pages_show_hypotheses(report):
    _, directory, _ = report
    md = (directory / "report.md").read_text(encoding="utf-8")
    html = (directory / "report.html").read_text(encoding="utf-8")
    for page in (md, html):
        assert "EXTRAPOLATION" in page and "partly inside" in page
        assert "Points inside the hypotheses: 1 of 3" in page
        assert "This verdict is an extrapolation, not a check of the theorem: d &gt;= n^2 needs" in page \
            or "This verdict is an extrapolation, not a check of the theorem: d >= n^2 needs" in page
