"""The training-choice system: explicit gradient vs autograd, support reduction vs the literal sparse network,
GD here vs the signal-noise system's exact reduced dynamics, seed contract, bad input, the simulate command."""

import math

import pytest
import torch

from flt_theory.errors import FLTError, InvalidParameterError
from flt_theory.numeric import signal_noise as sn
from flt_theory.systems.optimizers import model
from flt_theory.systems.optimizers.simulate import simulate_document


def _autograd(data, w):
    w = w.clone().requires_grad_(True)
    _, _, f = model._outputs(data, w, data.xi)
    (grad,) = torch.autograd.grad(model._loss(f, data.y).sum(), w)
    return grad


@pytest.mark.parametrize("sparsity,alpha,q", [(None, 0.0, 1), (None, 0.3, 2), (5, 0.0, 3), (5, 0.2, 2)])
def test_explicit_gradient_is_autograd(sparsity, alpha, q):
    data = model.make_data([0, 3], n=8, d=60, width=3, activation=q, sparsity=sparsity, mu_norm=1.5, sigma0=0.3,
                           feature_noise=alpha, n_test=10, device="cpu")
    w = data.w0 + 0.2 * torch.randn(data.w0.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    grad, _ = model._gradient(data, w, data.xi, data.y)
    assert torch.allclose(grad, _autograd(data, w), rtol=1e-10, atol=1e-11)


def test_gd_here_is_the_signal_noise_reduced_dynamics():
    data = model.make_data([0, 1], n=6, d=40, width=3, activation=2, mu_norm=2.0, sigma0=0.1, n_test=10, device="cpu")
    run = model.train(data, model.OptimizerConfig(optimizer="gd", eta=0.5, max_steps=20))
    dr = sn.draw([0, 1], n=6, d=40, width=3, n_test=1, device="cpu")
    fast = sn.reduced_trajectory(dr, sn.SignalNoiseConfig(q=2, mu_norm=2.0, sigma0=0.1, eta=0.5), 20)
    assert torch.allclose(run.gamma, fast["gamma"][-1], rtol=1e-9, atol=1e-12)
    assert torch.allclose(run.rho, fast["rho"][-1], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("optimizer", ["adam", "sign-gd", "sam"])
def test_support_reduction_is_exact(optimizer):
    """Sparse data stored on the supports vs the same data embedded densely in R^d: identical training."""
    data = model.make_data([2], n=6, d=50, width=2, activation=3, sparsity=4, mu_norm=1.0, sigma0=0.2,
                           feature_noise=0.2, n_test=10, device="cpu")
    D = data.zeta.shape[-1]
    extra = torch.randn(1, 4, 50 - D, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 0.2
    zeta = torch.cat([data.zeta, torch.zeros(1, 6, 50 - D, dtype=torch.float64)], -1)
    dense = model.OptimizerData(**{**data.__dict__, "zeta": zeta, "w0": torch.cat([data.w0, extra], -1),
                                   "support": None, "values": None})
    cfg = model.OptimizerConfig(optimizer=optimizer, eta=0.02, max_steps=15)
    a, b = model.train(data, cfg), model.train(dense, cfg)
    assert torch.allclose(a.w, b.w[..., :D], rtol=1e-12, atol=1e-14)
    assert torch.equal(b.w[..., D:], extra)  # the untouched coordinates never move


def test_seed_contract_and_label_noise_flips():
    kw = dict(n=10, d=80, width=2, activation=2, mu_norm=1.0, n_test=20, device="cpu")
    cfg = model.OptimizerConfig(optimizer="label-noise-gd", eta=0.3, max_steps=10, flip_prob=0.3)
    both = model.train(model.make_data([4, 5], **kw), cfg)
    one = model.train(model.make_data([5], **kw), cfg)
    # same data bit for bit; the batched matmuls may round differently with the batch size on some CPUs
    # (AMD EPYC: 3e-17), so the training is compared to rounding
    assert torch.equal(model.make_data([4, 5], **kw).zeta[1], model.make_data([5], **kw).zeta[0])
    assert torch.allclose(both.w[1], one.w[0], rtol=1e-12, atol=1e-15)


def test_bad_input_names_the_parameter():
    with pytest.raises(InvalidParameterError, match="'sam_radius'"):
        model.OptimizerConfig(optimizer="sam", eta=0.1, max_steps=1, sam_radius=0.0)
    with pytest.raises(InvalidParameterError, match="'beta2'"):
        model.OptimizerConfig(optimizer="adam", eta=0.1, max_steps=1, beta2=1.0)
    with pytest.raises(InvalidParameterError, match="'sparsity'"):
        model.make_data(1, n=4, d=10, width=1, sparsity=10, mu_norm=1.0)


@pytest.mark.parametrize("option,kwargs", [("--flip-prob", {"flip_prob": 0.5}), ("--beta1", {"beta1": 1.0}),
                                           ("--sparsity", {"sparsity": 0}), ("--optimizer", {"optimizer": "sgd"}),
                                           ("--d", {"d": 10**6})])
def test_simulate_errors_start_with_the_option(option, kwargs):
    with pytest.raises(FLTError) as info:
        simulate_document(**kwargs)
    assert str(info.value).startswith(option + ":")


def test_simulate_records_carry_the_optimizer():
    doc = simulate_document(optimizer="label-noise-gd", activation="relu(z)**2", n=10, d=100, width=2, flip_prob=0.2,
                            max_steps=20, eps=0.0, seeds=2, trajectory=True, record_every=5, n_test=50, device="cpu")
    rec = doc["records"][0]
    assert rec["optimizer"] == "label-noise-gd" and rec["flip_prob"] == 0.2
    assert [t["step"] for t in rec["trajectory"]] == [0, 5, 10, 15, 20]
    assert math.isfinite(rec["test_error"])


def test_the_run_stores_zero_for_the_derived_defaults():
    """``optimizers/run`` reads the model's declarations but stores 0 for sparsity (dense noise), sigma0 and eta (their
    derived defaults); the model refuses a 0 step, and both refuse a negative one naming the parameter."""
    from flt_theory.runner.registry import get_experiment

    exp = get_experiment("optimizers/run")
    point = dict(optimizer="gd", activation="relu", n=20, d=1000, width=10, sparsity=0, mu_norm=2.0, sigma0=0.0,
                 eta=0.0, max_steps=10)
    normalized = exp.normalize(point)
    assert {k: normalized[k] for k in ("sparsity", "sigma0", "eta")} == {"sparsity": 0, "sigma0": 0.0, "eta": 0.0}
    with pytest.raises(InvalidParameterError, match="The 'eta' parameter of experiment 'optimizers/run'"):
        exp.normalize({**point, "eta": -1.0})
    with pytest.raises(InvalidParameterError,
                       match="The 'eta' parameter of OptimizerConfig must be a finite real number > 0"):
        model.OptimizerConfig(optimizer="gd", eta=0.0, max_steps=1)
    with pytest.raises(InvalidParameterError, match="The 'flip_prob' parameter of OptimizerConfig must be < 0.5"):
        model.OptimizerConfig(optimizer="label-noise-gd", eta=0.1, max_steps=1, flip_prob=0.5)


def test_the_declared_cost_counts_the_stored_coordinates():
    """Sparse noise is stored on 1 + n s coordinates whatever d (model docstring): the declared memory and work at Zou
    et al.'s paper point (n = 200, s = 20, 64 seeds) do not grow with d and the memory stays at a few GB (a 16-seed
    run peaked at 565 MB over the imported modules); dense noise grows with d."""
    from flt_theory.runner.registry import get_experiment
    from flt_theory.systems.optimizers.declaration import ZOU

    exp = get_experiment("optimizers/run")
    point = {**ZOU, "n": 200, "optimizer": "adam", "eta": 0.01, "max_steps": 80}
    near, far = (exp.estimate({**point, "d": d}, 64) for d in (10**5, 10**9))
    assert (near.bytes, near.operations) == (far.bytes, far.operations) and near.bytes < 4e9
    dense = [exp.estimate({**point, "d": d, "sparsity": 0}, 64).bytes for d in (1000, 4000)]
    assert dense[1] > 3 * dense[0]
