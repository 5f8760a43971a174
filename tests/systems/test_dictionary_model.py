"""Dictionary system: data model, closed-form gradient, first-step emergence, solver, bad input, registration."""

import math

import pytest
import sympy as sp
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.numeric.data import teacher_directions
from flt_theory.systems import registered_claims
from flt_theory.systems.dictionary import laws as system
from flt_theory.systems.dictionary.model import (
    _hinge_grad_w,
    dictionary_data,
    relevant_sets,
    second_layer_optimum,
    train_dictionary,
    truncated_relu,
)

F64 = dict(device="cpu", dtype="float64")


def _data(structured=True, n=20_000, D=32, k=4, seeds=2):
    M = teacher_directions(seeds, D, D, **F64)
    A = relevant_sets(seeds, D, k, device="cpu")
    return M, A, dictionary_data(seeds, n, M, A, p0=0.25, structured=structured, stream="t")


def test_structured_data_counts_labels_and_gamma():
    M, A, data = _data()
    assert ((data.count >= 1) & (data.count <= 4)).all()
    for c in (1, 2, 3, 4):
        assert abs((data.count == c).double().mean().item() - 0.25) < 0.02
    assert torch.equal(data.y, torch.where(data.count % 2 == 0, 1.0, -1.0).double())
    irrelevant = data.phi[:, :, ~A[0]][0]
    assert abs(irrelevant.mean().item() - 0.25) < 0.01
    assert torch.allclose(data.x, data.phi @ M)
    cov = ((data.y[..., None] * data.phi).mean(1) - data.y.mean(1, keepdim=True) * data.phi.mean(1))[A].reshape(2, 4)
    assert abs(cov.mean().item() - float(system.dictionary_gamma(4))) < 0.01


def test_unstructured_data_has_no_first_order_signal():
    _, A, data = _data(structured=False)
    assert abs(data.phi.mean().item() - 0.5) < 0.01 and abs(data.y.mean().item()) < 0.03
    cov = ((data.y[..., None] * data.phi).mean(1) - data.y.mean(1, keepdim=True) * data.phi.mean(1))
    assert cov.abs().max().item() < 0.03


def test_gamma_law_from_its_definition():
    assert system.dictionary_gamma(4) == sp.Rational(1, 8)
    assert system.dictionary_gamma(2, structured=False) == 0
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        system.dictionary_gamma(3)


def test_hinge_gradient_matches_autograd():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 30, 5, generator=gen, dtype=torch.float64)
    y = torch.sign(torch.randn(2, 30, generator=gen, dtype=torch.float64))
    w = 0.4 * torch.randn(2, 6, 5, generator=gen, dtype=torch.float64)
    b = 0.5 + 0.2 * torch.randn(2, 6, generator=gen, dtype=torch.float64)
    a = torch.randn(2, 6, generator=gen, dtype=torch.float64)
    ours = _hinge_grad_w(x, y, w, b, a, 30)
    wg = w.clone().requires_grad_()
    out = (truncated_relu(x @ wg.transpose(-1, -2) + b[:, None, :]) @ a[..., None]).squeeze(-1)
    torch.relu(1 - y * out).mean(-1).sum().backward()
    assert torch.allclose(ours, wg.grad, atol=1e-12)


def test_first_step_forgets_the_initialisation_and_points_to_the_relevant_sum():
    res = train_dictionary(1, D=32, k=4, width=16, n=20_000, n_test=256, sigma_b=0.1, solver_iterations=20, **F64)
    assert res.cosines.shape == (2, 1, 16)
    assert res.cosines[0].max() < 0.9 and res.cosines[1].min() > 0.9
    # the symmetric pairs get opposite directions: w_{i+m} = -w_i since a_{i+m} = -a_i
    assert torch.allclose(res.weights[:, 8:], -res.weights[:, :8], atol=1e-10)


def test_second_layer_optimum_separates_a_separable_toy():
    h = torch.tensor([[[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1]]], dtype=torch.float64)
    y = torch.tensor([[1.0, -1.0, 1.0, -1.0]], dtype=torch.float64)
    theta = second_layer_optimum(h, y, 1e-4, 100)
    assert torch.equal(torch.sign(h[0] @ theta[0, :2] + theta[0, 2]), y[0])


def test_reproducible_and_batch_independent():
    kw = dict(D=16, k=2, width=8, n=200, n_test=100, solver_iterations=10, **F64)
    a, b = train_dictionary([1, 4], **kw), train_dictionary([1, 4], **kw)
    c = train_dictionary([4], **kw)
    assert torch.equal(a.weights, b.weights) and torch.equal(a.test_error, b.test_error)
    assert torch.allclose(a.weights[1], c.weights[0], atol=1e-12)
    # the second layer too: one solver run per seed (a joint run would couple the seeds through its line search)
    assert torch.allclose(a.a[1], c.a[0], atol=1e-10) and a.test_error[1] == c.test_error[0]
    assert torch.allclose(a.fixed_norm[1], c.fixed_norm[0], atol=1e-10)


def test_later_feature_steps_are_recorded():
    res = train_dictionary(1, D=16, k=2, width=8, n=200, n_test=100, feature_steps=3, feature_lr_later=0.5,
                           solver_iterations=5, **F64)
    assert res.cosines.shape == (4, 1, 8) and res.cluster_fraction().shape == (4, 1)


@pytest.mark.parametrize("kwargs", [dict(width=7), dict(width=0), dict(k=3), dict(k=40), dict(D=1), dict(d=8),
                                    dict(p0=1.5), dict(sigma_b=-1.0), dict(feature_lr=0.0), dict(l2=0.0), dict(n=0)])
def test_bad_input_names_the_parameter(kwargs):
    """The error names the parameter given the bad value (the first key of ``kwargs``)."""
    base = dict(D=16, k=2, width=8, n=32, n_test=32, solver_iterations=2, device="cpu")
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(kwargs))}' parameter"):
        train_dictionary(1, **{**base, **kwargs})


def test_bad_types():
    with pytest.raises(InvalidParameterTypeError, match="'width' parameter"):
        train_dictionary(1, D=16, k=2, width=8.0)


def test_claims_are_registered_with_controls():
    claims = {c.name: c for c in registered_claims("dictionary")}
    assert set(claims) == {"gamma", "emergence", "advantage", "no-structure"}
    for claim in claims.values():
        assert claim.the_law.latex() and claim.the_wrong_law.latex() != claim.the_law.latex()
    assert math.isclose(claims["gamma"].the_law.number(), 0.125)
