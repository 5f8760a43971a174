"""The online-SGD system's model: the reduced dynamics equals the literal d-dimensional SGD in distribution, its seed
contract, censoring, and its errors; the ``flt simulate online-sgd`` command."""

from __future__ import annotations

import json

import pytest
import torch
from click.testing import CliRunner
from scipy import stats

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd.model import (
    PolynomialLink,
    literal_online_sgd,
    online_sgd,
)
from flt_theory.systems.online_sgd.simulate import simulate_document

#: Level of the two-sample Kolmogorov–Smirnov tests (fixed seeds: the outcome is deterministic).
KS_LEVEL = 1e-3


@pytest.mark.parametrize("link,loss", [("He3(z)", "correlation"), ("He2(z)", "square")])
def test_reduced_dynamics_equals_literal_sgd_in_distribution(link, loss):
    """The overlap after T steps: reduced chain vs literal d-dimensional SGD (independent seeds), KS test. The same
    test rejects the reduction that drops the remainder r (its chi^2_{d-2} norm): the check has power."""
    d, eta, steps, seeds = 8, 0.04, 150, 800
    literal = literal_online_sgd(link, d, eta=eta, seeds=range(seeds), steps=steps, loss=loss, device="cpu")[:, -1]
    reduced = online_sgd(link, d, eta=eta, seeds=range(10**6, 10**6 + seeds), max_steps=steps, loss=loss,
                         stop_at_recovery=False, device="cpu").final_overlap
    no_rest = literal_online_sgd(link, d, eta=eta, seeds=range(seeds), steps=steps, loss=loss, remainder=False,
                                 device="cpu")[:, -1]
    same = stats.ks_2samp(literal.numpy(), reduced.numpy())
    wrong = stats.ks_2samp(no_rest.numpy(), reduced.numpy())
    assert same.pvalue > KS_LEVEL, same
    assert wrong.pvalue < KS_LEVEL, wrong


def test_polynomial_link_matches_the_parsed_activation():
    from flt_theory.numeric.activation import as_activation

    z = torch.linspace(-3, 3, 13, dtype=torch.float64)
    fast, slow = PolynomialLink((3.0, 0.0, -6.0, 0.0, 1.0)), as_activation("He4(z)")
    assert torch.allclose(fast(z), slow(z)) and torch.allclose(fast.grad(z), slow.grad(z))


def test_seed_contract_and_prefix():
    """A seed's run does not depend on its batch-mates, and a shorter run reads a prefix of the same path."""
    kw = dict(eta=0.2 / 64, overlap0=1.0, symmetric=True, device="cpu")
    both = online_sgd("He2(z)", 64, seeds=[3, 9], max_steps=3000, **kw)
    alone = online_sgd("He2(z)", 64, seeds=[9], max_steps=3000, **kw)
    assert int(both.steps[1]) == int(alone.steps[0]) and float(both.final_overlap[1]) == float(alone.final_overlap[0])
    long = online_sgd("He2(z)", 64, seeds=[9], max_steps=2500, stop_at_recovery=False, **kw)
    short = online_sgd("He2(z)", 64, seeds=[9], max_steps=1500, stop_at_recovery=False, **kw)
    assert int(long.steps[0]) == int(short.steps[0]) < 1500  # recovered before either end: the same first time


def test_censoring():
    res = online_sgd("He3(z)", 256, eta=0.05 * 256**-1.5, seeds=3, max_steps=50, device="cpu")
    assert bool(res.censored.all()) and res.steps.tolist() == [50, 50, 50]
    assert bool((res.final_overlap.abs() < 0.5).all())


@pytest.mark.parametrize("kwargs,match", [
    (dict(d=2), "'d' parameter"), (dict(loss="hinge"), "'loss' parameter"), (dict(overlap0=9.0), "'overlap0'"),
    (dict(eta=-1.0), "'eta' parameter"), (dict(max_steps=0), "'max_steps' parameter"),
])
def test_bad_input(kwargs, match):
    args = dict(d=64, eta=1e-3, seeds=2, max_steps=10, device="cpu") | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        online_sgd("He2(z)", **args)


def test_simulate_document_records_and_fit():
    doc = simulate_document(target="z", d=(64, 128, 256), seeds=6, device="cpu")
    assert {r["d"] for r in doc["records"]} == {64, 128, 256} and len(doc["records"]) == 18
    assert not any(r["censored"] for r in doc["records"])
    assert doc["information_exponent"] == 1 and doc["fit"]["ci"][0] < doc["fit"]["exponent"] < doc["fit"]["ci"][1]


def test_cli_json_and_errors():
    runner = CliRunner()
    out = runner.invoke(cli, ["simulate", "online-sgd", "--target", "He2(z)", "--d", "64,128", "--seeds", "3",
                              "--device", "cpu", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert set(doc["records"][0]) == {"d", "seed", "steps_to_weak_recovery", "final_overlap", "censored"}
    assert doc["config"]["weak_recovery"] == "|overlap| >= 1/2"
    for args, needle in ((["--target", "exp(z"], "--target"), (["--d", "2"], "--d"), (["--lr", "-1"], "--lr"),
                         (["--overlap0", "20", "--d", "64"], "--overlap0")):
        bad = runner.invoke(cli, ["simulate", "online-sgd", "--seeds", "2", "--device", "cpu", *args])
        assert bad.exit_code == 2 and needle in bad.output and "Traceback" not in bad.output, (args, bad.output)


@pytest.mark.parametrize("coefficients,loss,eta", [((0.0, -3.0, 0.0, 1.0), "correlation", 0.1),
                                                   ((-1.0, 0.0, 1.0), "square", 0.04)])
def test_smoothed_reduced_dynamics_equals_literal_sgd_in_distribution(coefficients, loss, eta):
    """Online SGD on the smoothed loss (Damian et al. 2023), lambda = 1, d = 8: the reduced chain (closed-form
    coefficient, which needs ||x||^2 = z1^2 + z2^2 + q) against the literal d-dimensional SGD that differentiates the
    smoothed loss's definition by autograd (Gauss quadrature over the smoothing direction). Both controls are
    rejected by the same test: the literal run without the remainder r, and the reduced chain without smoothing."""
    link, d, steps, seeds = PolynomialLink(coefficients), 8, 150, 800
    kw = dict(eta=eta, max_steps=steps, loss=loss, stop_at_recovery=False, device="cpu")
    literal = literal_online_sgd(link, d, eta=eta, seeds=range(seeds), steps=steps, loss=loss, smoothing=1.0,
                                 device="cpu")[:, -1]
    reduced = online_sgd(link, d, seeds=range(10**6, 10**6 + seeds), smoothing=1.0, **kw).final_overlap
    no_rest = literal_online_sgd(link, d, eta=eta, seeds=range(seeds), steps=steps, loss=loss, smoothing=1.0,
                                 remainder=False, device="cpu")[:, -1]
    plain = online_sgd(link, d, seeds=range(10**6, 10**6 + seeds), **kw).final_overlap
    same = stats.ks_2samp(literal.numpy(), reduced.numpy())
    assert same.pvalue > KS_LEVEL, same
    for wrong in (no_rest, plain):
        assert stats.ks_2samp(literal.numpy(), wrong.numpy()).pvalue < KS_LEVEL


def test_smoothed_loss_is_the_sphere_average():
    """The closed form S_lambda[He4](u, rho^2) against its definition, the average of He4(<(w + lam z)/||.||, x>)
    over z uniform on the unit sphere of w^perp drawn in R^d (Monte Carlo, 4 standard errors), and its
    coefficient against autograd of the quadrature form (exact)."""
    from flt_theory.systems.online_sgd.smoothing import SmoothedLoss, smoothed_loss_by_quadrature, smoothing_nodes

    gen = torch.Generator().manual_seed(7)
    d, lam, coefficients = 9, 1.7, (3.0, 0.0, -6.0, 0.0, 1.0)
    w = torch.randn(d, generator=gen, dtype=torch.float64)
    w, x = w / w.norm(), 1.2 * torch.randn(d, generator=gen, dtype=torch.float64)
    z = torch.randn(200_000, d, generator=gen, dtype=torch.float64)
    z = z - (z @ w)[:, None] * w
    z = z / z.norm(dim=1, keepdim=True)
    v = (w + lam * z) / (w + lam * z).norm(dim=1, keepdim=True)
    sample = PolynomialLink(coefficients)(v @ x)
    u, rho2 = (w @ x).reshape(1), (x @ x - (w @ x) ** 2).reshape(1)
    for loss in ("correlation", "square"):
        sm = SmoothedLoss(coefficients, lam=lam, d=d, loss=loss)
        assert abs(float(sm.value(u, rho2)) - float(sample.mean())) < 4 * float(sample.std()) / len(sample) ** 0.5
        leaf = w.reshape(1, -1).clone().requires_grad_(True)
        y = torch.tensor([0.7], dtype=torch.float64)
        value = smoothed_loss_by_quadrature(leaf, x.reshape(1, -1), y, PolynomialLink(coefficients), lam, loss,
                                            smoothing_nodes(d, 6))
        grad = torch.autograd.grad(value.sum(), leaf)[0][0]
        assert torch.allclose(grad, sm.coefficient(u, rho2, y) * (x - u * w), atol=1e-12, rtol=1e-10)


def test_smoothing_errors():
    with pytest.raises(InvalidParameterError, match="'smoothing' parameter"):
        online_sgd("tanh", 16, eta=1e-3, seeds=2, max_steps=5, smoothing=1.0, device="cpu")
    with pytest.raises(InvalidParameterError, match="'smoothing' parameter"):
        online_sgd("He2(z)", 16, eta=1e-3, seeds=2, max_steps=5, smoothing=-1.0, device="cpu")
    runner = CliRunner()
    bad = runner.invoke(cli, ["simulate", "online-sgd", "--target", "tanh(z)", "--smoothing", "1", "--seeds", "2",
                              "--max-steps", "10", "--device", "cpu"])
    assert bad.exit_code == 2 and "--smoothing" in bad.output and "Traceback" not in bad.output, bad.output


def test_cli_smoothing_and_label_transform():
    """The two options reach the run: the smoothed He3 run and the transformed He4 run record their settings and
    predicted rates (d^(3/2); d log d with the student He2)."""
    runner = CliRunner()
    base = ["simulate", "online-sgd", "--d", "32,64", "--seeds", "2", "--device", "cpu", "--json"]
    smoothed = json.loads(runner.invoke(cli, [*base, "--target", "He3(z)", "--smoothing", "1"]).output)
    assert smoothed["config"]["smoothing"] == 1.0 and smoothed["predicted_exponent"] == 1.5
    transformed = json.loads(runner.invoke(cli, [*base, "--target", "He4(z)", "--label-transform"]).output)
    assert transformed["information_exponent"] == 2 and transformed["predicted_rate"] == "d*log(d)"
    assert "y**2 - 24" in transformed["config"]["label_transform"]
    bad = runner.invoke(cli, [*base, "--target", "He3(z)", "--smoothing", "11"])
    assert bad.exit_code == 2 and "--smoothing" in bad.output


def test_trace_is_the_path():
    """The trace's last point is the final overlap, and a shorter run's trace is a prefix (the seed contract)."""
    kw = dict(eta=0.2 / 64, seeds=[4, 5], stop_at_recovery=False, trace_every=8, device="cpu")
    long = online_sgd("He2(z)", 64, max_steps=2048, **kw)
    short = online_sgd("He2(z)", 64, max_steps=512, **kw)
    assert long.trace.shape == (256, 2) and torch.equal(long.trace[-1], long.final_overlap)
    assert torch.equal(long.trace[:64], short.trace)
    with pytest.raises(InvalidParameterError, match="'trace_every' parameter"):
        online_sgd("He2(z)", 64, max_steps=8, **(kw | {"trace_every": 3}))
