"""One-step (Ba et al.) system: exact P_>1 norms, the closed-form gradient, ridge, bad input, the command."""

import math

import pytest
import sympy as sp
import torch

from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.systems.one_step_ba.laws import one_step_laws, p_gt1_norm2, step_size_relation
from flt_theory.systems.one_step_ba.model import one_step_ba, ridge_solutions
from flt_theory.systems.one_step_ba.simulate import simulate_document

SMALL = dict(d=16, psi=2, seeds=2, n_test=256, n_validation=128, device="cpu")


def test_exact_norms_table():
    assert p_gt1_norm2("He3(z)") == 6 and p_gt1_norm2("z + He2(z)") == 2
    assert p_gt1_norm2("relu(z)**2") == sp.Rational(3, 2) - sp.Rational(1, 4) - 2 / sp.pi
    laws = one_step_laws("relu", "relu")
    assert laws["random-feature lower bound"].number() == pytest.approx(0.25 - 1 / (2 * math.pi))
    assert laws["spike alignment"].number(psi=4, sigma_epsilon=0) == pytest.approx(math.sqrt(2 / 3))
    assert str(step_size_relation().rhs) == "eta_GS/p"


def test_points_of_a_step_size_grid_share_the_step_without_changing_a_number():
    """The step-size-free part is kept from one call to the next (the runner calls one step size per point): the
    call after another step size equals the same call computed afresh, bit for bit, and a changed option is a
    fresh computation."""
    from flt_theory.systems.one_step_ba.model import _step_and_baseline

    _step_and_baseline.cache_clear()
    fresh = one_step_ba("tanh", eta_tilde=(2.0,), **SMALL)
    one_step_ba("tanh", eta_tilde=(1.0,), **SMALL)
    assert _step_and_baseline.cache_info().hits == 1
    shared = one_step_ba("tanh", eta_tilde=(2.0,), **SMALL)
    for name in ("risk", "linear_risk", "spike_alignment", "ridge", "update_norm"):
        assert torch.equal(getattr(fresh, name), getattr(shared, name)), name
    noisy = one_step_ba("tanh", eta_tilde=(2.0,), noise=0.5, **SMALL)
    assert _step_and_baseline.cache_info().hits == 2 and not torch.equal(noisy.linear_risk, fresh.linear_risk)


def test_ridge_solutions_match_a_direct_solve():
    a = torch.randn(2, 5, 5, dtype=torch.float64)
    gram, rhs = a @ a.transpose(-1, -2), torch.randn(2, 5, dtype=torch.float64)
    pens = torch.tensor([0.1, 2.0], dtype=torch.float64)
    sols = ridge_solutions(gram, rhs, pens)
    for j, c in enumerate(pens):
        direct = torch.linalg.solve(gram + c * torch.eye(5, dtype=torch.float64), rhs.unsqueeze(-1)).squeeze(-1)
        assert torch.allclose(sols[:, j], direct)


def test_risks_are_reproducible_per_seed_and_step_size_moves_w():
    both = one_step_ba("tanh", eta_tilde=(0.0, 2.0), **SMALL)
    alone = one_step_ba("tanh", eta_tilde=(2.0,), **{**SMALL, "seeds": [1]})
    assert float(alone.risk[0, 0]) == pytest.approx(float(both.risk[1, 1]), rel=1e-12)
    assert torch.all(both.update_norm[:, 1] > 0.3) and torch.all(both.update_norm[:, 0] == 0)
    fixed = one_step_ba("relu", activation="relu", eta_tilde=1.0, ridge=0.1, **SMALL)
    assert torch.all(fixed.ridge == 0.1)


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'psi'"):
        one_step_ba("tanh", **{**SMALL, "psi": 0})
    with pytest.raises(InvalidParameterError, match="'eta_tilde'"):
        one_step_ba("tanh", eta_tilde=(-1.0,), **SMALL)
    with pytest.raises(InvalidParameterError, match="'ridge'"):
        one_step_ba("tanh", ridge="best", **SMALL)
    with pytest.raises(InvalidParameterTypeError, match="'target'"):
        one_step_ba(3, **SMALL)
    with pytest.raises(InvalidParameterError, match="^--ridge"):
        simulate_document(ridge="-1", device="cpu")


def test_simulate_records():
    doc = simulate_document(d=16, psi=2, eta_tilde=(0.0, 1.0), seeds=2, n_test=256, device="cpu")
    keys = {"d", "width", "n", "psi", "eta_tilde", "seed", "risk", "linear_risk", "spike_alignment", "p_gt1_norm2"}
    assert all(keys <= set(r) for r in doc["records"]) and len(doc["records"]) == 4
    assert doc["records"][0]["n"] == 32 and doc["p_gt1_norm2"] == pytest.approx(0.027415, abs=1e-6)
