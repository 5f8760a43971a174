"""Gradient flow of the signal-noise CNN: GD at every admissible step converges to it at first order, and a flow run
is read as inside the step-size hypothesis.

GD with :math:`\\eta = c/(\\sigma_\\xi^2 d)` is the Euler scheme of the flow with step :math:`c` in the natural time
:math:`\\tau` (:mod:`flt_theory.numeric.signal_noise_flow`). Measured at ReLU^3, n = 8, m = 3, d = 2000, seed 0,
||mu|| = 30, sigma0 sqrt(d) = 0.3 (radial test error): relative state gap at GD's stopping time 0.0217, 0.0118,
0.0060, 0.0030 at c = 1, 1/2, 1/4, 1/8; test-error gap at the stop 0.0044, 0.0022, 0.0011, 0.0006.
"""

import dataclasses
import math

import pytest
import torch
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import FLTError, InvalidParameterError
from flt_theory.numeric.signal_noise import SignalNoiseConfig, draw, reduced_trajectory, train
from flt_theory.numeric.signal_noise_flow import gd_flow_gap, projected_flow
from flt_theory.runner import get_experiment
from flt_theory.symbolic.hypothesis import point_inside
from flt_theory.systems.registry import get_claim
from flt_theory.systems.signal_noise import laws
from flt_theory.systems.signal_noise.declaration import (
    RELU_INIT_FRACTION,
    SIZES,
    boundary,
    boundary_hypothesis_values,
    cubic_inside_point,
    relu_inside_point,
)
from flt_theory.systems.signal_noise.model import final_test_error

D = 2000
STEPS = (1.0, 0.5, 0.25)  # c of eta = c / (sigma_xi^2 d): the step bound and two halvings


@pytest.fixture(scope="module")
def setup():
    dr = draw([0], n=8, d=D, width=3, n_test=2000, device="cpu")
    cfg = SignalNoiseConfig(q=3, mu_norm=30.0, sigma0=0.3 / math.sqrt(D), eps=0.05, max_steps=10**5,
                            test_estimator="radial")
    return dr, cfg


def test_gd_converges_to_the_flow_at_first_order(setup):
    dr, cfg = setup
    gaps = [gd_flow_gap(dr, cfg, c / D) for c in STEPS]
    state = [float(g["state"][0]) for g in gaps]
    # first order: each halving of eta halves the gap (a limit other than the flow would leave a floor)
    for big, small in zip(state, state[1:], strict=False):
        assert 1.7 < big / small < 2.3
    for c, gap in zip(STEPS, gaps, strict=True):
        # GD's first step with L <= eps lies within a few GD steps (c in tau) of the flow's crossing time
        assert 0 <= float(gap["time"][0]) <= 3 * c
        # the test error at the stop agrees to 0.006 c (stated tolerance, shrinking with eta)
        assert abs(float(gap["test_error"][0])) <= 0.006 * c


def test_flow_in_the_boundary_bisection_matches_gd_at_a_small_step(setup):
    dr, cfg = setup
    mu = torch.tensor([30.0], dtype=torch.float64)
    gd = final_test_error(dr, dataclasses.replace(cfg, eta=0.25 / D, test_estimator="indicator"), mu)
    flow = final_test_error(dr, dataclasses.replace(cfg, test_estimator="indicator"), mu, dynamics="flow", max_time=1e6)
    assert abs(float(gd[0] - flow[0])) <= 0.006 * 0.25 + 2 / 2000  # + the indicator's resolution
    with pytest.raises(InvalidParameterError, match="'dynamics'"):
        final_test_error(dr, cfg, mu, dynamics="euler")


def test_a_flow_point_is_read_inside_the_step_size_hypothesis():
    step = laws.cao_hypotheses(3)[1]
    point = cubic_inside_point(16, 10)
    values = boundary_hypothesis_values(point)
    assert values["eta"] == 0.0 and point_inside(laws.cao_hypotheses(3), values)
    gd_values = boundary_hypothesis_values({**point, "dynamics": "gd", "eta_scale": 0.3})
    assert not step.holds(gd_values)  # the same point trained by GD at eta = 0.3 n m / d is outside (3)
    with pytest.raises(InvalidParameterError, match="'eta_scale'"):
        boundary({**point, "eta_scale": 0.3}, [0])


# ------------------------------------------------------------------ ReLU: the switch-aware projected flow


def _relu(d: int, snr: float, **kw) -> SignalNoiseConfig:
    return SignalNoiseConfig(q=1, mu_norm=snr * math.sqrt(d), sigma0=1e-3 / math.sqrt(d), eta=1.0 / d, eps=0.05, **kw)


def test_a_projected_step_is_gd_with_each_own_move_stopped_at_its_switch_surface():
    """One step from W^0: rho^1 = max(GD's rho^1, -max(b^0, 0)) exactly (same arithmetic), and the bound binds only
    for moves towards the surface (the wrong-class neurons j = -y_i whose GD step would carry b past 0)."""
    dr = draw([0, 1], n=8, d=10**5, width=4, n_test=10, device="cpu")
    cfg = _relu(10**5, 0.05, max_steps=1)
    big = dataclasses.replace(cfg, eta=8 * 4 / 10**5, eps=0.0)  # the outside step n m / d
    gd, proj = train(dr, big), projected_flow(dr, big)
    b0 = reduced_trajectory(dr, big, 0)["b"][0]
    assert torch.equal(proj.rho, torch.maximum(gd.rho, -b0.clamp_min(0))) and torch.equal(proj.gamma, gd.gamma)
    bound = gd.rho < -b0.clamp_min(0)
    wrong_class = (dr.sign[None, :, None] * dr.y_obs[:, None, :]) < 0
    assert bool(bound.any()) and bool((wrong_class | ~bound).all())


def test_the_relu_boundary_dynamics_is_a_declared_choice_with_a_one_line_error(tmp_path):
    exp = get_experiment("signal-noise/boundary")
    point = relu_inside_point(16, 10**5)
    assert exp.normalize(point)["dynamics"] == "flow-projected"
    for key, value in (("dynamics", "euler"), ("dynamics", 3), ("max_time", -1.0)):
        with pytest.raises(FLTError, match=f"^The '{key}' parameter"):
            exp.normalize({**point, key: value})
    for bad, key in (({"dynamics": "flow", "eta_scale": 0.0, "max_time": 0.0}, "max_time"),
                     ({"eta_scale": 2.0}, "eta_scale"), ({"dynamics": "gd", "eta_scale": 0.0}, "eta_scale")):
        with pytest.raises(InvalidParameterError, match=f"^The '{key}' parameter"):
            exp.check_budget({**point, **bad}, 2)
    result = CliRunner().invoke(cli, ["sweep", "signal-noise/boundary", *[x for k, v in point.items() if k != "dynamics"
                                                                            for x in ("-p", f"{k}={v}")],
                                      "-p", "dynamics=euler", "--seeds", "1", "--store", str(tmp_path / "s.sqlite")])
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and "'dynamics'" in lines[0], result.output


def test_the_paper_relu_boundary_points_are_inside_kou_condition_4_1_and_the_small_ones_are_not():
    paper = SIZES["paper"]
    exp = get_experiment("signal-noise/boundary")
    claim_points = [exp.normalize(p) for key in ("relu-boundary-slope", "relu-boundary-d")
                    for p in get_claim(f"signal-noise/{key}").measurement.points["paper"]]
    assert len(claim_points) == len(paper["relu_ns"]) + len(paper["relu_ds"])
    assert all(point_inside(laws.kou_hypotheses(), boundary_hypothesis_values(p)) for p in claim_points)
    # the initialisation at the same fraction of its bound sigma0 <= sqrt(n)/d at every point (RELU_INIT_FRACTION)
    assert all(math.isclose(p["sigma0_sqrt_d"], RELU_INIT_FRACTION * math.sqrt(p["n"] / p["d"])) for p in claim_points)
    outside = {**claim_points[0], "dynamics": "gd", "eta_scale": 1.0}  # the small scale's GD step n m / d
    assert not point_inside(laws.kou_hypotheses(), boundary_hypothesis_values(outside))
    assert max(SIZES["paper"]["relu_ns"]) / min(SIZES["paper"]["relu_ns"]) >= 10  # at least a decade of n


@pytest.mark.slow
def test_projected_flow_agrees_with_gd_at_the_step_bound_where_gd_at_n_m_times_it_does_not():
    """Paper-like point (n = 16, m = 10, d = 1e6, sigma0 sqrt(d) = 1e-3, SNR = 0.0125 near the boundary, 8 seeds):
    measured mean gap of the final test error to GD at the bound -3e-5 (largest 0.0016) for h = n m/16, +0.024 for
    GD at the outside runs' step n m/d."""
    d, n, m = 10**6, 16, 10
    dr = draw(list(range(8)), n=n, d=d, width=m, n_test=4000, device="cpu")
    cfg = _relu(d, 0.0125, max_steps=10**5)
    at_bound = train(dr, cfg).test_error
    proj = projected_flow(dr, dataclasses.replace(cfg, eta=n * m / (16 * d))).test_error
    outside = train(dr, dataclasses.replace(cfg, eta=n * m / d)).test_error
    assert abs(float((proj - at_bound).mean())) <= 0.002 and float((proj - at_bound).abs().max()) <= 0.005
    assert float((outside - at_bound).mean()) >= 0.01
