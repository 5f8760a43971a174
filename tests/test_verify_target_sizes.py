"""``flt verify TARGET`` says what it simulated and against what: per prediction the sizes (d, n, p, eta, steps,
seeds), per measured value its bound, a progress line per prediction on stderr (also when it is not a terminal), and
``--json`` keeps stdout one JSON document. Every designed point lies inside the experiments' declared bounds."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.compare.result import CheckResult, all_of
from flt_theory.errors import FLTError
from flt_theory.runner.registry import get_experiment
from flt_theory.symbolic import Target
from flt_theory.symbolic.leap import leap_index
from flt_theory.systems.giant_step.verify import _bounds, _predictions, _simulation, verify_text

SIZE_KEYS = {"d", "n", "p", "eta", "steps"}


@pytest.fixture(scope="module")
def run():
    """``flt verify He2(z1) + 1 --steps 1 --budget 1 --json``: the threshold runs, the subspace is over the budget.
    CliRunner's stderr is not a terminal."""
    return CliRunner().invoke(cli, ["verify", "He2(z1) + 1", "--steps", "1", "--budget", "1", "--json"])


def test_json_is_one_document_with_the_sizes_of_every_prediction(run):
    assert run.exit_code == 1, run.output  # the subspace is inconclusive (over the budget)
    document = json.loads(run.stdout)  # stdout alone: exactly one JSON document
    threshold, subspace = document["predictions"]
    for entry, ran in ((threshold, True), (subspace, False)):
        simulation = entry["simulation"]
        assert simulation["ran"] is ran and simulation["seeds"] == 8 and simulation["points"]
        for point in simulation["points"]:
            assert SIZE_KEYS <= set(point) and all(isinstance(point[k], (int, float)) for k in SIZE_KEYS)
    assert threshold["elapsed_seconds"] > 0 and subspace["elapsed_seconds"] is None
    assert sorted((x["d"], x["n"]) for x in threshold["simulation"]["points"])[:3] == [(32, 32), (32, 182), (32, 1024)]
    assert {x["eta"] for x in threshold["simulation"]["points"] if x["d"] == 64} == {32 * 64 ** 0.5}  # p d^((l-1)/2)
    assert subspace["simulation"]["points"] == [{"d": 128, "n": 185364, "p": 32, "eta": 32 * 128 ** 0.5,
                                                 "steps": 1}]
    assert threshold["bounds"] == ["-1 ± 0.2", "-0.5 ± 0.2", "0 ± 0.2"]


def test_progress_goes_to_stderr_when_it_is_not_a_terminal(run):
    lines = run.stderr.splitlines()
    assert lines[0].startswith("flt verify: target centred: subtracted E f* = 1")
    assert any(line.startswith("flt verify: [1/2] one-step threshold: simulating d = 32, 64, 128") for line in lines)
    assert any(line.startswith("flt verify: [1/2] one-step threshold: pass in ") and line.endswith(" s elapsed)")
               for line in lines)
    assert "flt verify: [2/2] one-step subspace: not run (estimated 3 s exceeds the remaining budget)" in lines


def test_the_text_shows_the_sizes_and_every_measured_value_with_its_bound(run):
    text = verify_text(json.loads(run.stdout))
    assert "  simulated          d = 32, 64, 128, n = 32..16384 (9 values) (kappa = 1, 1.5, 2), p = 32" in text
    assert "  would simulate     d = 128, n = 185364, p = 32, eta = 362, steps = 1, 8 seeds" in text
    measured = [line for line in text.splitlines() if "excess mass ∝" in line]
    assert len(measured) == 3 and all(" vs " in line and line.endswith("± 0.2") for line in measured)


def test_a_bound_follows_each_part_of_a_conjunction():
    ratio = CheckResult("c_σ = 0: mass at random level", True, "<= 8 x baseline", 3.629, (2.1, 5.0), 8, "m")
    slope = CheckResult("slope", True, 0.0, 0.1, (-0.1, 0.3), 8, "m", {"tolerance": 0.2})
    gaps = CheckResult("gaps", True, "strictly decreasing", (0.3, 0.9), ((0.2, 0.4), (0.8, 1.0)), 8, "m",
                       {"labels": ["1-2", "2-3"]})
    learned = CheckResult("U learned", True, "mass on U >= 0.04, complement <= 3 x baseline", 0.09, (0.07, 0.11), 8,
                          "m", {"complement_ratio": 1.1, "complement_ratio_ci": (0.8, 1.4)})
    assert _bounds(ratio) == ["<= 8 x baseline"]
    assert _bounds(all_of("claim", "law", [slope, gaps, all_of("inner", "x", [learned])])) == [
        "0 ± 0.2", "strictly decreasing", "strictly decreasing",
        "mass on U >= 0.04, complement <= 3 x baseline (complement/baseline measured 1.1 [0.8, 1.4])"]
    entry = {"name": "x", "verdict": "pass", "control": "rejected", "predicted": "law", "wrong_law": "w",
             "measured": 3.629, "ci": [2.1, 5.0], "labels": ["at random level 1/d"], "bounds": _bounds(ratio)}
    document = {"target": "He2(z)", "activation": "tanh", "leap_index": 2, "predictions": [entry]}
    assert "at random level 1/d: 3.629 [2.1, 5] vs <= 8 x baseline" in verify_text(document)


@pytest.mark.parametrize("target, activation, steps, scale", [
    ("z1", "relu", 1, "small"), ("He3(z1) + z2", "relu", 2, "paper"), ("z1 + z1*z2 + He2(z3)", "relu", 3, "small"),
    ("He2(z1)", "tanh", 1, "paper"), ("He4(z1) + z2", "relu", 2, "small"),
])
def test_every_designed_point_is_inside_the_declared_bounds(target, activation, steps, scale):
    """``_simulation`` normalises every point through its experiment (declared ranges), before anything runs."""
    f = Target.parse(target)
    predictions = _predictions(f, target, activation, steps, scale)
    ell = leap_index(f)
    assert predictions
    for prediction in predictions:
        simulation = _simulation(prediction, scale, ell)
        assert len(simulation["points"]) == len(prediction.claim.measurement.points[scale])
        for point in simulation["points"]:  # the theory's step size, where the point uses it: p d^((l-1)/2)
            declared = [q for q in prediction.claim.measurement.points[scale] if q.get("d") == point["d"]]
            if declared and declared[0].get("eta", "theory") == "theory" and "p" in point:
                assert point["eta"] == pytest.approx(point["p"] * point["d"] ** ((ell - 1) / 2))


def test_a_point_outside_the_declared_bounds_is_refused():
    """The control: the normalisation the sizes go through does refuse a kappa beyond its declared maximum."""
    with pytest.raises(FLTError, match="kappa"):
        get_experiment("giant-step/one-step-mass").normalize({"target": "z1", "d": 32, "kappa": 17.0, "p": 32})
