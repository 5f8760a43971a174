"""Signal-noise system: exact reduced dynamics vs the literal CNN, Bartlett draws, test error, seeds, bad input,
laws."""

import math

import pytest
import sympy as sp
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.numeric.signal_noise import (
    SignalNoiseConfig,
    activation_power,
    draw,
    literal_trajectory,
    reduced_trajectory,
    relu_power,
    run_records,
    train,
)
from flt_theory.systems.signal_noise import laws
from flt_theory.systems.signal_noise.model import measure_growth

CPU = dict(device="cpu")


def _rel(fast, lit):
    return float((fast - lit).abs().max() / lit.abs().max())


@pytest.mark.parametrize("q", [1, 2, 3])
@pytest.mark.parametrize("tau,project", [(0.0, True), (0.25, True), (0.0, False), (0.25, False)])
def test_fast_path_matches_literal_cnn(q, tau, project):
    dr = draw([3, 8], n=8, d=40, width=3, label_noise=tau, n_test=4, **CPU)
    cfg = SignalNoiseConfig(q=q, mu_norm=2.0, sigma_xi=0.3, sigma0=0.2, eta=1.0, project=project)
    fast, lit = reduced_trajectory(dr, cfg, 40), literal_trajectory(dr, cfg, 40)
    for key in ("gamma", "rho", "f"):
        assert _rel(fast[key], lit[key]) < 1e-10, key
    assert float(lit["rho"].abs().max()) > 0.5 and float(lit["gamma"].abs().max()) > 0.5  # the dynamics moved


def test_bartlett_gram_is_wishart():
    # E[R^T R] = (d-1) I, Var[(R^T R)_kk] = 2 (d-1), Var[(R^T R)_kl] = d-1: the Gram of 2m+n standard vectors in R^(d-1)
    dr = draw(400, n=3, d=9, width=1, n_test=1, **CPU)
    gram = dr.bartlett.transpose(-1, -2) @ dr.bartlett
    assert torch.allclose(gram.mean(0), 8 * torch.eye(5, dtype=gram.dtype), atol=0.9)
    assert abs(float(gram[:, 4, 4].var()) / 16 - 1) < 0.25 and abs(float(gram[:, 0, 4].var()) / 8 - 1) < 0.25


def test_frame_is_orthonormal_and_draw_independent_of_batch():
    dr = draw([0, 5], n=6, d=30, width=2, n_test=3, **CPU)
    frame = dr.frame()
    assert torch.allclose(frame.transpose(1, 2) @ frame, torch.eye(10, dtype=frame.dtype).expand(2, 10, 10), atol=1e-12)
    single = draw([5], n=6, d=30, width=2, n_test=3, **CPU)
    assert torch.equal(single.bartlett[0], dr.bartlett[1]) and torch.equal(single.y_obs[0], dr.y_obs[1])
    cfg = SignalNoiseConfig(q=1, mu_norm=1.0, sigma_xi=0.2, eta=0.5, max_steps=30)
    assert torch.equal(train(single, cfg).gamma[0], train(dr, cfg).gamma[1])


def test_labels_balanced_and_exact_flips():
    dr = draw(3, n=20, d=100, width=2, label_noise=0.2, n_test=2, **CPU)
    assert dr.y.sum(1).tolist() == [0.0] * 3 and dr.flipped.sum(1).tolist() == [4] * 3
    assert ((dr.y == 1) & dr.flipped).sum(1).tolist() == [2] * 3
    assert torch.equal(dr.y_obs, torch.where(dr.flipped, -dr.y, dr.y))


def test_d_costs_nothing():
    small = draw([1], n=10, d=1_000, width=3, n_test=2, **CPU)
    huge = draw([1], n=10, d=10**9, width=3, n_test=2, **CPU)
    assert small.bartlett.shape == huge.bartlett.shape == (1, 16, 16)
    assert abs(float(huge.bartlett[0, 0, 0]) ** 2 / (10**9 - 1) - 1) < 1e-3


@pytest.mark.parametrize("project", [True, False])
def test_test_error_matches_monte_carlo_on_the_literal_network(project):
    dr = draw([2], n=10, d=60, width=3, n_test=40_000, **CPU)
    cfg = SignalNoiseConfig(q=2, mu_norm=0.4, sigma_xi=0.15, sigma0=0.05, eta=2.0, eps=0.0, max_steps=25,
                            project=project)
    exact = float(train(dr, cfg).test_error[0])
    # literal: rebuild W from the literal path's decomposition and evaluate on fresh Gaussian test points
    lit = literal_trajectory(dr, cfg, 25)
    m2 = 6
    z = dr.frame()[0] @ dr.bartlett[0]
    w0 = cfg.sigma0 * torch.cat([dr.init_e1[0][:, None], z[:, :m2].T], 1)
    h = torch.zeros_like(dr.noise_e1[0]) if project else dr.noise_e1[0]
    xi = cfg.sigma_xi * torch.cat([h[:, None], z[:, m2:].T], 1)
    mu = torch.zeros(60, dtype=xi.dtype)
    mu[0] = cfg.mu_norm
    w = w0 + (dr.sign * lit["gamma"][-1, 0])[:, None] * mu / cfg.mu_norm**2 + (lit["rho"][-1, 0] / (xi**2).sum(1)) @ xi
    gen = torch.Generator().manual_seed(0)
    xt = cfg.sigma_xi * torch.randn(40_000, 60, generator=gen, dtype=torch.float64)
    if project:
        xt[:, 0] = 0
    y = torch.where(torch.rand(40_000, generator=gen) < 0.5, 1.0, -1.0).double()
    f = ((relu_power((y[:, None] * mu) @ w.T, 2) + relu_power(xt @ w.T, 2)) * dr.sign).sum(1) / 3
    mc = float((y * f <= 0).double().mean())
    assert 0.05 < exact < 0.45 and abs(exact - mc) < 4 * math.sqrt(0.25 / 40_000) * 2


def test_relu_growth_slopes_match_the_derived_laws():
    d, n, m, tau = 10**5, 40, 10, 0.2
    eta, mu = 0.002 * n * m / d, 0.05 * d**0.5
    res = measure_growth(dict(activation="relu", n=n, d=d, width=m, mu_norm=mu, sigma0=1e-3 / d**0.5, eta=eta,
                              label_noise=tau, n_test=2, device="cpu"), 0)
    s = laws.SYMBOLS
    subs = {s["eta"]: eta, s["mu"]: mu, s["m"]: m, s["tau"]: tau, s["sigma_xi"]: 1, s["d"]: d, s["n"]: n}
    assert abs(res["gamma_slope"] / float(laws.signal_slope().subs(subs)) - 1) < 0.02
    assert abs(res["rho_slope"] / float(laws.noise_slope().subs(subs)) - 1) < 0.02
    # the wrong label-noise factor (no 1 - 2 tau) is rejected by the same tolerance
    assert abs(res["gamma_slope"] / float(laws.signal_slope().subs(subs | {s["tau"]: 0})) - 1) > 0.2


def test_tensor_power_exponent_holds_for_the_overlap_not_for_gamma():
    d, n, m = 10**5, 40, 10
    res = measure_growth(dict(activation="relu(z)**3", n=n, d=d, width=m, mu_norm=0.05 * d**0.5, sigma0=0.01 / d**0.5,
                              eta=0.2 * n * m / d, n_test=2, device="cpu"), 0, max_steps=400)
    law = laws.growth_exponent(3)
    assert abs(res["noise_exponent"] - law.exponent("A")) < 0.05
    assert abs(res["signal_exponent"] - law.exponent("A")) < 0.1
    assert abs(res["gamma_exponent"] - law.exponent("A")) > 1.5  # the literal recursion for gamma alone fails


def test_records_contract():
    recs = run_records(activation="relu(z)**3", n=10, d=10**6, width=3, mu_norm=400.0, sigma0=1e-5, eta=6e-6,
                       eps=0.05, max_steps=300, label_noise=0.2, seeds=[4, 9], n_test=200, trajectory=True,
                       device="cpu")
    keys = {"n", "d", "width", "q", "mu_norm", "snr", "eta", "label_noise", "seed", "steps", "train_loss", "test_error",
            "gamma_max", "rho_max", "flipped_fitted", "trajectory"}
    assert keys <= set(recs[0]) and [r["seed"] for r in recs] == [4, 9] and recs[0]["q"] == 3
    traj = recs[0]["trajectory"]
    assert traj[0]["step"] == 0 and traj[-1]["step"] == recs[0]["steps"] and len(traj) == recs[0]["steps"] + 1
    assert traj[-1]["train_loss"] == recs[0]["train_loss"] and abs(recs[0]["snr"] - 0.4) < 1e-12


def test_activation_parsing_and_bad_input():
    assert [activation_power(a) for a in ("relu", "relu(z)", "relu(z)**3", "relu^2", 4)] == [1, 1, 3, 2, 4]
    with pytest.raises(InvalidParameterError, match="'activation'"):
        activation_power("tanh")
    with pytest.raises(InvalidParameterTypeError, match="'activation'"):
        activation_power(2.5)
    with pytest.raises(InvalidParameterError, match="'label_noise'"):
        draw(1, n=10, d=50, width=2, label_noise=0.5)
    with pytest.raises(InvalidParameterError, match="'d'"):
        draw(1, n=10, d=1, width=2)
    with pytest.raises(InvalidParameterError, match="'eta'"):
        SignalNoiseConfig(q=1, mu_norm=1.0, eta=-1.0)
    with pytest.raises(InvalidParameterTypeError, match="'n'"):
        draw(1, n=10.5, d=50, width=2)


def test_laws_render_and_read_exponents():
    assert laws.cao_boundary(3).exponent("n") == pytest.approx(-1 / 3)
    assert laws.kou_boundary().exponent("n") == -0.25 and laws.kou_boundary().exponent("d") == -0.25
    assert laws.cao_boundary(3).source.arxiv == "2202.06526" and laws.kou_boundary().source.arxiv == "2303.04145"
    assert laws.logistic_slope_at_zero() == sp.Rational(-1, 2)
    assert "SNR" in laws.cao_boundary(3).latex() and laws.label_noise_rise().number(tau=0.3) == pytest.approx(0.15)


@pytest.mark.parametrize("q,project,deep", [(1, True, 12.0), (2, False, 24.0), (3, True, None)])
def test_radial_test_error_agrees_with_the_indicator_and_resolves_the_tail(q, project, deep):
    import dataclasses

    dr = draw([0, 1], n=16, d=4000, width=4, n_test=200_000, **CPU)
    cfg = SignalNoiseConfig(q=q, mu_norm=1.0, sigma0=1e-4, eta=0.04, eps=0.05, max_steps=3000, project=project)
    radial = dataclasses.replace(cfg, test_estimator="radial")
    # moderate errors: the two estimators of the same probability agree within the indicator's noise
    for mu in (4.0, 8.0):
        mus = torch.full((2,), mu, dtype=torch.float64)
        ind, rad = train(dr, cfg, mu_norm=mus).test_error, train(dr, radial, mu_norm=mus).test_error
        noise = 4 * (ind.clamp_min(1e-3) * (1 - ind) / 200_000).sqrt()
        assert ((ind - rad).abs() <= noise + 1e-3 * (q > 1)).all(), (q, mu, ind.tolist(), rad.tolist())
    if deep is not None:  # far in the tail: the indicator reads 0, the radial estimate a positive probability
        mus = torch.full((2,), deep, dtype=torch.float64)
        assert (train(dr, cfg, mu_norm=mus).test_error == 0).all()
        tail = train(dr, radial, mu_norm=mus).test_error
        assert ((tail > 0) & (tail < 1e-8)).all()


def test_test_estimator_is_validated():
    with pytest.raises(InvalidParameterError, match="test_estimator"):
        SignalNoiseConfig(q=1, mu_norm=1.0, test_estimator="exact")
