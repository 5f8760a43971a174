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
