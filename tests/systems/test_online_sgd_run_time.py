"""The run-time model of online SGD (:mod:`flt_theory.systems.online_sgd.run_time`): one model for the experiment's
declared cost and for ``flt verify TARGET``'s budget."""

from __future__ import annotations

import pytest

import flt_theory.systems  # noqa: F401 - registers the experiments
from flt_theory.errors import InvalidParameterError
from flt_theory.runner.cost import OPS_PER_SECOND, calibration_factor
from flt_theory.runner.registry import get_experiment
from flt_theory.systems.online_sgd.run_time import (
    SLOWEST,
    declared_run_steps,
    mean_iterations,
    run_operations,
    slowest_iterations,
)
from flt_theory.systems.online_sgd.verify import estimated_seconds, sizes_for

EXPERIMENT = "online-sgd/recovery"


def _params(**changes):
    base = {"target": "He3(z)", "d": 64, "eta_tilde": 0.05, "overlap0": 2.0, "loss": "correlation",
            "max_steps": 10**7, "smoothing": 0.0, "transform": 0, "batch": 1, "passes": 1}
    return get_experiment(EXPERIMENT).normalize({**base, **changes})


def test_the_declared_cost_is_the_model_at_the_slowest_seeds_predicted_steps():
    params = _params()
    steps = declared_run_steps(params)
    assert steps == SLOWEST[3] * mean_iterations(3, 64, eta_tilde=0.05, overlap0=2.0) < params["max_steps"]
    estimate = get_experiment(EXPERIMENT).estimate(params, 32)
    assert estimate.operations == pytest.approx(run_operations(steps, 32))
    assert estimate.seconds == pytest.approx(estimate.operations / OPS_PER_SECOND * calibration_factor(EXPERIMENT))


def test_a_run_takes_at_most_its_cap_and_a_step_costs_the_same_at_every_d():
    capped = [_params(d=d, max_steps=1000) for d in (64, 4096)]  # both predicted past 1000 steps
    assert [declared_run_steps(p) for p in capped] == [1000, 1000]
    costs = [get_experiment(EXPERIMENT).estimate(p, 16).operations for p in capped]
    assert costs[0] == costs[1]  # reduced coordinates: no term in d (the old declared cost had N·S·d)


def test_batches_passes_and_smoothing_change_the_steps_and_their_cost():
    one, batch = declared_run_steps(_params(target="z", eta_tilde=0.5)), declared_run_steps(
        _params(target="z", eta_tilde=0.5, batch=8))
    assert batch == pytest.approx(one / 8)
    # with a batch the exponent-3 tail is lighter (SLOWEST_AVERAGED), and two passes follow the generative exponent
    assert declared_run_steps(_params(batch=8)) < declared_run_steps(_params()) / 8
    assert declared_run_steps(_params(batch=8, passes=2, eta_tilde=0.003)) == pytest.approx(
        slowest_iterations(1, mean_iterations(1, 64, eta_tilde=0.003, overlap0=2.0, batch=8, passes=2),
                           averaged=True))
    assert run_operations(100, 16, smoothing=1.0) > run_operations(100, 16)


def test_a_link_without_a_prediction_costs_its_cap():
    # two passes follow the generative exponent, which is not computed for a non-polynomial link: the cap is the
    # estimate (the run itself names what it refuses)
    params = _params(target="cos(z)", batch=8, passes=2, max_steps=5000)
    assert declared_run_steps(params) == 5000


def test_verify_targets_budget_reads_the_same_model():
    sizes = sizes_for(1)
    total = sum(run_operations(min(slowest_iterations(1, mean_iterations(1, d, eta_tilde=sizes["eta_tilde"],
                                                                          overlap0=sizes["overlap0"])),
                                   sizes["max_steps"](d)), sizes["seeds"]) for d in sizes["ds"])
    assert estimated_seconds(1, sizes) == pytest.approx(total / OPS_PER_SECOND * calibration_factor(EXPERIMENT))


def test_a_refused_request_names_the_option_that_makes_it_long(monkeypatch):
    monkeypatch.setenv("FLT_MAX_SIM_SECONDS", "1")
    with pytest.raises(InvalidParameterError, match="'max_steps'"):
        get_experiment(EXPERIMENT).check_budget(_params(max_steps=10**9, eta_tilde=1e-6), 64)
