"""Sparse-coding system: sets, closed-form gradient, transition record, symbolic laws, bad input, registration."""

import math

import numpy as np
import pytest
import sympy as sp
import torch
from scipy import stats

from flt_theory.compare import clopper_pearson
from flt_theory.errors import InvalidParameterError, InvalidParameterTypeError
from flt_theory.systems import registered_claims
from flt_theory.systems.good_sets import laws
from flt_theory.systems.good_sets.model import (
    TRANSITION_KINDS,
    coding_matrix,
    coordinate_scale,
    default_sparsity,
    good_sets,
    label_weights,
    sparse_coding_data,
    symmetric_relu,
    train_sparse_coding,
)

F64 = dict(device="cpu", dtype="float64")
SMALL = dict(d=16, m=24, steps=4, n=128, n_test=128, **F64)


# ---------------------------------------------------------------- data and network


def test_data_has_exact_sparsity_balanced_labels_and_noise():
    M, w = coding_matrix(3, 32, **F64), label_weights(3, 32, **F64)
    data = sparse_coding_data(3, 4000, M, w, sparsity=3, sigma0=0.2, stream="t")
    assert (data.z.abs().sum(-1) == 3).all() and set(data.z.unique().tolist()) == {-1.0, 0.0, 1.0}
    score = (data.z * w[:, None, :]).sum(-1)
    assert (score.abs() >= 1).all() and torch.equal(data.y, torch.sign(score))  # odd s: no tie
    noise = data.x - data.z @ M
    assert abs(noise.std().item() - 0.2) < 0.005
    assert abs(data.y.mean().item()) < 0.05
    assert torch.allclose(M @ M.transpose(-1, -2), torch.eye(32, dtype=M.dtype).expand(3, 32, 32), atol=1e-12)


def test_identity_basis_and_default_sparsity():
    assert torch.equal(coding_matrix(1, 4, basis="identity", **F64)[0], torch.eye(4, dtype=torch.float64))
    assert all(default_sparsity(d) % 2 == 1 for d in range(1, 300))
    assert default_sparsity(64) == 5 and default_sparsity(1) == 1


def test_symmetric_relu_and_smoothing():
    u, b = torch.linspace(-3, 3, 601, dtype=torch.float64), torch.tensor(1.0, dtype=torch.float64)
    plain, slope = symmetric_relu(u, b)
    assert torch.allclose(plain, torch.relu(u - b) - torch.relu(-u - b))
    smooth, sslope = symmetric_relu(u, b, smoothing=0.5)
    assert (smooth.abs() <= plain.abs() + 1e-12).all() and (plain - smooth).abs().max() <= 0.25 + 1e-12
    numeric = torch.gradient(smooth, spacing=(u,))[0]
    assert torch.allclose(numeric[1:-1], (torch.sign(u) * sslope * torch.sign(u))[1:-1], atol=2e-2)
    assert torch.equal(slope, (u.abs() > 1).double())


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_gd_step_is_the_gradient_of_the_logistic_loss(smoothing):
    kwargs = {**SMALL, "steps": 1}
    res = train_sparse_coding([4], lr=0.7, smoothing=smoothing, threshold=1.0, sigma1=0.3, **kwargs)
    M, w = coding_matrix([4], 16, **F64), label_weights([4], 16, **F64)
    train = sparse_coding_data([4], 128, M, w, sparsity=3, sigma0=0.1, stream="train")
    w0 = res.weights0.clone().requires_grad_()
    pre = train.x @ w0.transpose(-1, -2)
    b = (1.0 * pre.abs().mean(-2)).detach()  # thresholds are held fixed in the gradient
    out = symmetric_relu(pre, b[:, None, :], smoothing)[0].sum(-1)
    torch.nn.functional.softplus(-train.y * out).mean().backward()
    assert torch.allclose(res.weights, res.weights0 - 0.7 * w0.grad, atol=1e-12)
    assert torch.allclose(res.train_loss[0], torch.nn.functional.softplus(-train.y * out).mean(-1).detach())


def test_seed_reproducibility_and_batch_independence():
    a = train_sparse_coding([3, 8], **SMALL)
    b = train_sparse_coding([3, 8], **SMALL)
    c = train_sparse_coding([8], **SMALL)
    assert torch.equal(a.weights, b.weights) and torch.equal(a.transitions, b.transitions)
    assert torch.allclose(a.weights[1], c.weights[0], atol=1e-12)
    assert torch.equal(a.sure_sizes[:, 1], c.sure_sizes[:, 0])


# ---------------------------------------------------------------- sets and record


def test_good_sets_by_hand():
    d = 4
    unit = math.sqrt(math.log(d))  # sigma3 = 1: levels sqrt(c log d)
    coords = torch.tensor([[[2.0 * unit, 0.5 * unit, 0.0, 0.0],    # sure for j = 0 (c1 + c2 = 3, c1 - c2 = 1)
                            [2.0 * unit, 1.5 * unit, 0.0, 0.0],    # second coordinate at the pot level: pot only
                            [-2.0 * unit, 0.0, 0.0, 0.0],          # wrong sign: pot only
                            [1.2 * unit, 0.0, 0.0, 0.0]]], dtype=torch.float64)  # between levels: pot only
    sure, pot = good_sets(coords, torch.ones(1, d, dtype=torch.float64), 1.0, c1=2.0, c2=1.0)
    assert sure[0].nonzero().tolist() == [[0, 0]]
    assert pot[0].nonzero().tolist() == [[0, 0], [1, 0], [1, 1], [2, 0], [3, 0]]


def test_coordinate_scales_are_sigma1_at_init_and_scale_invariant():
    c0 = torch.randn(2, 6, 5, dtype=torch.float64)
    for rule in ("global", "neuron"):
        assert torch.allclose(coordinate_scale(c0, c0, 0.3, rule), torch.tensor(0.3, dtype=torch.float64))
        s_a, s_b = coordinate_scale(4 * c0, c0, 0.3, rule), coordinate_scale(c0, c0, 0.3, rule)
        assert torch.allclose(s_a, 4 * s_b)


def test_transition_record_accounts_for_every_size_change():
    res = train_sparse_coding(2, d=16, m=64, steps=25, n=256, n_test=64, lr=2.0, sigma1=0.01, **F64)
    assert res.transitions.shape[1] == 5 and len(TRANSITION_KINDS) == 8
    counts = res.transition_counts()
    for name, sizes, up, down in (("sure", res.sure_sizes, ["enter-sure"],
                                   ["exit-sure-lost", "exit-sure-second", "exit-sure-demoted"]),
                                  ("pot", res.pot_sizes, ["enter-pot"], ["exit-pot"])):
        change = (sizes[-1] - sizes[0]).sum(-1)
        assert torch.equal(change, sum(counts[k] for k in up) - sum(counts[k] for k in down)), name
    assert torch.equal(counts["enter-sure"], counts["pot-to-sure"] + counts["enter-sure-from-outside"])
    assert (res.outside_pot == 0).all()
    t = res.transitions[:, 0]
    assert t.min() >= 1 and t.max() <= 25
    assert torch.equal(res.sure0, good_sets(res.coordinates(final=False), res.w_star, res.config.sigma1, 2.5, 0.5)[0])


def test_steps_zero_and_smoothing_run():
    res = train_sparse_coding(1, d=8, m=4, steps=0, n=16, n_test=16, **F64)
    assert res.sure_sizes.shape == (1, 1, 8) and res.train_loss.shape == (0, 1)
    smooth = train_sparse_coding(1, d=8, m=4, steps=2, n=16, n_test=16, smoothing=0.2, threshold_rule="norm", **F64)
    assert torch.isfinite(smooth.weights).all()


@pytest.mark.parametrize("kwargs", [dict(d=0), dict(d=1), dict(m=0), dict(sigma0=-0.1), dict(sigma1=0.0), dict(lr=0.0),
                                    dict(sparsity=20), dict(c1=0.5, c2=0.5), dict(c2=-1.0), dict(scale="median"),
                                    dict(threshold_rule="learned"), dict(spread=1.5), dict(n=0), dict(basis="haar")])
def test_bad_input_names_the_parameter(kwargs):
    """The error names the parameter given the bad value (the first key of ``kwargs``)."""
    base = dict(d=16, m=4, steps=1, n=8, n_test=8, device="cpu")
    with pytest.raises(InvalidParameterError, match=f"'{next(iter(kwargs))}' parameter"):
        train_sparse_coding(1, **{**base, **kwargs})


def test_bad_types():
    with pytest.raises(InvalidParameterTypeError, match="'d' parameter"):
        train_sparse_coding(1, d=16.5, m=4)
    with pytest.raises(InvalidParameterTypeError, match="'s' parameter"):
        laws.tie_probability(3.0)


# ---------------------------------------------------------------- symbolic laws and counts


def test_initial_law_matches_a_direct_monte_carlo():
    rng = np.random.default_rng(0)
    d, c1, c2 = 8, 2.0, 0.5
    g = rng.standard_normal((400_000, d))
    w_sign = np.where(rng.standard_normal(d) > 0, 1.0, -1.0)
    log_d = math.log(d)
    hi, lo = g**2 >= (c1 + c2) * log_d, g**2 >= (c1 - c2) * log_d
    sure = hi & (lo.sum(1, keepdims=True) == 1) & (g * w_sign > 0)
    k, trials = int(sure.sum()), g.shape[0]
    low, high = clopper_pearson(k, trials, 0.999)
    assert low <= d * float(laws.sure_probability(d, c1, c2)) <= high
    low, high = clopper_pearson(int(lo.sum()), lo.size, 0.999)
    assert low <= float(laws.pot_probability(d, c1, c2)) <= high


def test_clopper_pearson_matches_scipy_exact_interval():
    for k, n in ((0, 20), (3, 20), (20, 20), (1234, 131072)):
        ours = clopper_pearson(k, n, 0.95)
        ref = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert np.allclose(ours, (ref.low, ref.high), rtol=1e-9, atol=1e-12)
    with pytest.raises(InvalidParameterError):
        clopper_pearson(5, 3)


def test_symbolic_laws_bad_input_and_symbols():
    with pytest.raises(InvalidParameterError, match="'c1' parameter"):
        laws.sure_probability(32, 1.0, 2.0)
    with pytest.raises(InvalidParameterError, match="'d' parameter"):
        laws.sure_probability(1, 2.0, 1.0)
    with pytest.raises(InvalidParameterError, match="'m' parameter"):
        laws.expected_sure_size(0, 32, 2.0, 1.0)
    with pytest.raises(InvalidParameterError, match="'s' parameter"):
        laws.tie_probability(4)
    with pytest.raises(InvalidParameterError, match="'sigma0' parameter"):
        laws.linear_accuracy(3, 32, -0.1)
    d = sp.Symbol("d", positive=True)
    assert laws.sure_probability(d, 2, 1).free_symbols == {d}
    assert laws.growth_rate(1, 5, 64) == sp.Rational(5 * 3, 8 * 2 * 64)


def test_linear_accuracy_law_matches_simulation():
    M, w = coding_matrix(1, 32, **F64), label_weights(1, 32, **F64)
    data = sparse_coding_data(1, 200_000, M, w, sparsity=3, sigma0=0.15, stream="lin")
    acc = (torch.sign((data.x * (w[:, None, :] @ M)).sum(-1)) == data.y).double().mean().item()
    assert abs(acc - float(laws.linear_accuracy(3, 32, 0.15))) < 0.004


def test_claims_are_registered_with_controls():
    claims = {c.name: c for c in registered_claims("good-sets")}
    assert set(claims) == {"initial-sizes", "inclusion", "no-exit", "no-exit-breaks", "entry-from-pot", "growth-rate",
                           "net-beats-linear"}
    for claim in claims.values():
        assert claim.the_law.latex() and claim.the_wrong_law.latex() != claim.the_law.latex()
    assert {law.name for law in laws.good_set_laws()} >= {"initial set sizes", "inclusion",
                                                          "no exit from the highest set",
                                                      "good-set growth"}


def test_one_declaration_serves_the_config_the_runner_and_the_command():
    """:data:`PARAMS` validates the config (with its joint conditions), converts the runner's points and bounds the
    options of ``flt simulate good-sets``: each refusal names the parameter."""
    from flt_theory.runner.registry import get_experiment
    from flt_theory.systems.good_sets.declaration import SYSTEM
    from flt_theory.systems.good_sets.model import PARAMS, SparseCodingConfig

    with pytest.raises(InvalidParameterError, match="The 'sparsity' parameter of SparseCodingConfig must be <= d = 16"):
        SparseCodingConfig(d=16, m=4, sparsity=17)
    with pytest.raises(InvalidParameterError, match="The 'c2' parameter of experiment 'good-sets/initial-counts'"):
        get_experiment("good-sets/initial-counts").normalize({"d": 32, "m": 8, "c2": -1.0})
    options = {o.dest: o for o in SYSTEM.simulate.options}
    assert all(options[k].param is PARAMS[k] for k in ("d", "m", "n", "steps", "sparsity", "sigma0", "lr"))
