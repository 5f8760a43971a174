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

from flt_theory.errors import InvalidParameterError
from flt_theory.numeric.signal_noise import SignalNoiseConfig, draw
from flt_theory.numeric.signal_noise_flow import gd_flow_gap
from flt_theory.symbolic.hypothesis import point_inside
from flt_theory.systems.signal_noise import laws
from flt_theory.systems.signal_noise.declaration import boundary, boundary_hypothesis_values, cubic_inside_point
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
    for big, small in zip(state, state[1:]):
        assert 1.7 < big / small < 2.3
    for c, gap in zip(STEPS, gaps):
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
