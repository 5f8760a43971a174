"""The diffusion system: closed-form loss, seeds, errors, CLI."""

import json

import pytest
import torch

from flt_theory.errors import FLTError, InvalidParameterError
from flt_theory.runner.registry import get_experiment
from flt_theory.systems import get_system
from flt_theory.systems.diffusion import model
from flt_theory.systems.diffusion.declaration import simulate_document


def test_gradient_of_closed_form_is_autograd_consistent():
    gen = torch.Generator().manual_seed(1)
    w = torch.randn(2, 3, 6, generator=gen, dtype=torch.float64, requires_grad=True)
    x = torch.randn(2, 4, 6, generator=gen, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda w_: model.dsm_loss(w_, x, 0.7), (w,))


@pytest.mark.parametrize("seeds, m, patches, d, time", [(2, 3, 4, 6, 0.7), (3, 8, 10, 20, 0.1), (1, 5, 32, 9, 2.0)])
def test_closed_form_gradient_equals_autograd(seeds, m, patches, d, time):
    gen = torch.Generator().manual_seed(m * d)
    w = torch.randn(seeds, m, d, generator=gen, dtype=torch.float64, requires_grad=True)
    x = torch.randn(seeds, patches, d, generator=gen, dtype=torch.float64)
    (auto,) = torch.autograd.grad(model.dsm_loss(w, x, time).sum(), w)
    closed = model.dsm_gradient(w.detach(), x, time)
    assert float((closed - auto).norm() / auto.norm()) < 1e-12


@pytest.mark.parametrize("d", [40, 12])  # reduced coordinates (m + P < d) and the plain steps
def test_descent_equals_step_by_step_update(d):
    gen = torch.Generator().manual_seed(d)
    w0 = 0.1 * torch.randn(2, 4, d, generator=gen, dtype=torch.float64)
    x = torch.randn(2, 10, d, generator=gen, dtype=torch.float64) / d**0.5
    w = w0
    for steps in range(1, 8):
        w = w - 0.2 * model.dsm_gradient(w, x, 0.5)
        reduced = model.dsm_descent(w0, x, 0.5, eta=0.2, steps=steps)
        assert float((reduced - w).norm() / w.norm()) < 1e-12
    assert float((w - w0).norm()) > 0.1 * float(w0.norm())  # the steps moved the weights


def test_denoiser_switch():
    exp = get_experiment("diffusion/features")
    point = {"n": 8, "d": 60, "mu_norm": 0.3, "steps": 5}
    with_denoiser, without = exp.run_seeds(point, [0])[0], exp.run_seeds({**point, "denoiser": 0}, [0])[0]
    assert "ratio" in with_denoiser and "ratio" not in without
    assert {k: with_denoiser[k] for k in without} == without  # the CNN's fields do not depend on the switch
    with pytest.raises(FLTError, match="'denoiser'"):
        exp.normalize({**point, "denoiser": 2})


def test_seed_does_not_depend_on_batch():
    cfg = model.DiffusionConfig(n=8, d=100, steps=50)
    both = model.diffusion_rows([5, 6], 0.3, cfg, device="cpu")
    alone = model.diffusion_rows([6], 0.3, cfg, device="cpu")
    assert both[1]["ratio"] == pytest.approx(alone[0]["ratio"], rel=1e-10)


@pytest.mark.parametrize("kwargs, name", [({"n": 1, "d": 10}, "n"), ({"n": 4, "d": 2}, "d"),
                                          ({"n": 4, "d": 10, "time": 0.0}, "time")])
def test_bad_config_names_the_parameter(kwargs, name):
    with pytest.raises(FLTError, match=f"'{name}'"):
        model.DiffusionConfig(**kwargs)


def test_simulate():
    with pytest.raises(InvalidParameterError, match="^--n"):
        simulate_document(n=[1], mu_norm=[0.3])
    doc = simulate_document(n=[8], mu_norm=[0.3], d=100, steps=20, seeds=2, device="cpu")
    json.dumps(doc)
    assert doc["system"] == "diffusion" and {"ratio", "signal_fraction", "grad_rel"} <= set(doc["records"][0])


def test_declared_claims():
    assert [c.name for c in get_system("diffusion").claims] == ["balanced-features", "classification-dominant"]
