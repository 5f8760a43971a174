"""The per-experiment calibration factors of the cost plan (flt_theory/runner/cost_factors.json)."""

import json

import pytest

import flt_theory.systems  # noqa: F401 - registers the systems' experiments
from flt_theory.errors import InvalidParameterError
from flt_theory.runner import cost
from flt_theory.runner.cost import (
    FACTORS_FILE,
    OPS_PER_SECOND,
    Cost,
    calibration_factor,
    calibration_factors,
    check_cost,
)
from flt_theory.runner.registry import get_experiment, registered_experiments
from flt_theory.systems import registered_claims
from flt_theory.systems.declaration import plan


def test_file_covers_every_registered_experiment():
    factors = calibration_factors()
    assert FACTORS_FILE.is_file()
    builtin = [e for e in registered_experiments() if e.module.startswith("flt_theory.systems.")]  # not tests' own
    assert len(builtin) >= 25
    missing = sorted(e.name for e in builtin if e.name not in factors)
    assert not missing, f"no calibration factor for {missing}: run benchmarks/bench_cost_plan.py --write"
    assert all(value > 0 for value in factors.values())


def test_estimate_is_declared_work_times_factor():
    exp = next(e for e in registered_experiments() if e.cost is not None and calibration_factor(e.name) != 1.0)
    claim = next(c for c in registered_claims() if c.measurement.experiment == exp.name)
    point, seeds = claim.measurement.points["small"][0], claim.measurement.seeds["small"]
    estimate = exp.estimate(point, seeds)
    assert estimate.seconds == pytest.approx(estimate.operations / OPS_PER_SECOND * calibration_factor(exp.name))


def test_plan_reads_the_factors(monkeypatch):
    """Doubling one experiment's factor doubles the plan of its claims (the runner's per-row work included)."""
    claim = next(c for c in registered_claims() if get_experiment(c.measurement.experiment).cost is not None)
    before = plan([claim], "small")["claims"][0]["seconds"]
    original = cost.calibration_factor
    monkeypatch.setattr(cost, "calibration_factor",
                        lambda name: 2 * original(name) if name == claim.measurement.experiment else original(name))
    assert plan([claim], "small")["claims"][0]["seconds"] == pytest.approx(2 * before, rel=1e-12)
    assert check_cost(Cost(memory="1", work="1e9"), {}, what="not an experiment").seconds == 1.0  # factor 1


@pytest.mark.parametrize("text", ["not json", json.dumps({"factors": {"a/b": -1}}), json.dumps({"factors": [1]})])
def test_bad_file_is_one_clear_error(tmp_path, text):
    path = tmp_path / "factors.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidParameterError, match="cost calibration file"):
        calibration_factors(path)


def test_missing_file_means_factor_one(tmp_path):
    assert calibration_factors(tmp_path / "absent.json") == {}
