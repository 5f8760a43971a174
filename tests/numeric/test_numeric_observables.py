"""Observables on hand-built first layers."""

import math

import numpy as np
import pytest
import torch

from flt_theory.errors import InvalidParameterError
from flt_theory.numeric import observables
from flt_theory.symbolic.subspace import Subspace

D, R = 10, 3
W_STAR = torch.eye(D, dtype=torch.float64)[[2, 5, 7]].expand(2, R, D)  # seeds=2, w*_k = e_{2,5,7}


def test_neuron_on_a_teacher_direction_has_mass_one():
    w = 3.0 * W_STAR[:, :1].expand(2, 4, D)  # every neuron = 3 w*_1
    assert torch.allclose(observables.subspace_mass(w, W_STAR), torch.ones(2, dtype=torch.float64))
    assert torch.allclose(observables.subspace_mass(w, W_STAR, [[1.0, 0.0, 0.0]]), torch.ones(2, dtype=torch.float64))
    assert torch.allclose(observables.subspace_mass(w, W_STAR, [[0.0, 1.0, 1.0]]), torch.zeros(2, dtype=torch.float64))
    assert torch.allclose(observables.overlaps(w, W_STAR)[..., 0], torch.ones(2, 4, dtype=torch.float64))


def test_mass_of_mixed_neurons_subspaces_and_complements():
    w = torch.zeros(2, 2, D, dtype=torch.float64)
    w[:, 0, 2], w[:, 0, 5] = 1.0, 1.0  # (w*_1 + w*_2)
    w[:, 1, 0], w[:, 1, 7] = 1.0, 1.0  # e_0 + w*_3
    u = [[1.0, 1.0, 0.0]]  # unnormalised rows are orthonormalised
    per = observables.subspace_mass(w, W_STAR, u, per_neuron=True)
    assert torch.allclose(per, torch.tensor([[1.0, 0.0]] * 2, dtype=torch.float64))
    comp = observables.complement_basis(u, R)
    assert comp.shape == (2, R) and np.allclose(comp @ comp.T, np.eye(2)) and np.allclose(comp @ [1, 1, 0], 0)
    v_star = observables.subspace_mass(w, W_STAR, per_neuron=True)
    assert torch.allclose(per + observables.subspace_mass(w, W_STAR, comp, per_neuron=True), v_star)
    assert torch.allclose(
        observables.subspace_mass(w, W_STAR, Subspace.span([[1, 1, 0]], 3)), observables.subspace_mass(w, W_STAR, u)
    )
    assert torch.allclose(observables.subspace_mass(w, W_STAR, np.zeros((0, R))), torch.zeros(2, dtype=torch.float64))


def test_broadcasts_over_a_trajectory():
    w = torch.randn(4, 2, 6, D, dtype=torch.float64)
    assert observables.subspace_mass(w, W_STAR).shape == (4, 2) and observables.overlaps(w, W_STAR).shape == (
        4,
        2,
        6,
        R,
    )
    assert observables.principal_angles(w, w[0], W_STAR, m=2).shape == (4, 2, 2)


def test_rank_one_update_along_a_teacher_direction():
    gen = torch.Generator().manual_seed(0)
    w0 = torch.randn(2, 6, D, generator=gen, dtype=torch.float64)
    v = (W_STAR[:, 0] + W_STAR[:, 1]) / math.sqrt(2)  # (seeds, d)
    c = torch.randn(2, 6, 1, generator=gen, dtype=torch.float64)
    w1 = w0 + c * v[:, None, :]
    sv = observables.update_singular_values(w1, w0)
    assert sv.shape == (2, 6) and torch.allclose(sv[:, 0], c.norm(dim=1).squeeze(-1)) and float(sv[:, 1:].max()) < 1e-12
    assert torch.allclose(
        observables.top_direction_overlap(w1, w0, W_STAR, [1.0, 1.0, 0.0]), torch.ones(2, dtype=torch.float64)
    )
    assert torch.allclose(
        observables.top_direction_overlap(w1, w0, W_STAR, [0.0, 0.0, 1.0]), torch.zeros(2, dtype=torch.float64)
    )
    angles = observables.principal_angles(w1, w0, W_STAR, [[1.0, 1.0, 0.0]])
    assert angles.shape == (2, 1) and float(angles.abs().max()) < 1e-6
    angles = observables.principal_angles(w1, w0, W_STAR, [[1.0, -1.0, 0.0]])
    assert torch.allclose(angles, torch.full((2, 1), math.pi / 2, dtype=torch.float64))


def test_norm_growth_and_baseline():
    w = torch.tensor([[[3.0, 4.0], [1.0, 0.0]]])
    assert observables.norm_growth(w).tolist() == [[24.0, 0.0]]
    assert observables.random_mass_baseline(3, 12) == 0.25


def test_random_neurons_have_baseline_mass():
    w = torch.randn(2, 20_000, D, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    assert torch.allclose(observables.subspace_mass(w, W_STAR), torch.full((2,), R / D, dtype=torch.float64), atol=0.01)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: observables.subspace_mass(torch.zeros(2, 3, D), W_STAR, [[1.0, 0.0]]), r"\(m, r=3\)"),
        (
            lambda: observables.subspace_mass(torch.ones(2, 3, D), W_STAR, [[1.0, 0, 0], [2.0, 0, 0]]),
            "linearly independent",
        ),
        (lambda: observables.subspace_mass(torch.ones(3, 3, D), W_STAR), "matching seeds and d"),
        (
            lambda: observables.top_direction_overlap(torch.ones(2, 3, D), torch.zeros(2, 3, D), W_STAR, np.eye(3)),
            "one vector",
        ),
        (lambda: observables.random_mass_baseline(5, 3), "'d' parameter of random_mass_baseline"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
