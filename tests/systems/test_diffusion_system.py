"""The diffusion system: closed-form loss, seeds, errors, CLI."""

import json

import pytest
import torch

from flt_theory.errors import FLTError, InvalidParameterError
from flt_theory.systems import get_system
from flt_theory.systems.diffusion import model
from flt_theory.systems.diffusion.declaration import simulate_document


def test_gradient_of_closed_form_is_autograd_consistent():
    gen = torch.Generator().manual_seed(1)
    w = torch.randn(2, 3, 6, generator=gen, dtype=torch.float64, requires_grad=True)
    x = torch.randn(2, 4, 6, generator=gen, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda w_: model.dsm_loss(w_, x, 0.7), (w,))


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
