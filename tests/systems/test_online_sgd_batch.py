"""Mini-batches and data repetition in the online-SGD model (:mod:`flt_theory.systems.online_sgd.model`): the exact
reduced dynamics against the literal d-dimensional SGD in distribution, each with a wrong reduction that the same test
rejects; the seed contract of the new streams; iterations against samples; errors; the step size of ``run_rows``; the
``flt simulate online-sgd --batch --passes`` records."""

from __future__ import annotations

import json
import math

import pytest
import torch
from click.testing import CliRunner
from scipy import stats

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd import model, simulate
from flt_theory.systems.online_sgd.model import literal_online_sgd, online_sgd

#: Level of the two-sample Kolmogorov–Smirnov tests (fixed seeds: the outcome is deterministic).
KS_LEVEL = 1e-3
#: The reduced chains run on other seeds than the literal runs (independent samples for the KS test).
OFFSET = 10**6


def _ks(link, loss, d, eta, steps, batch, passes, seeds, statistic=lambda m: m):
    """``(p of reduced vs literal, reduced-chain runner)``: the overlap after ``steps`` gradient steps."""
    literal = literal_online_sgd(link, d, eta=eta, seeds=range(seeds), steps=steps, loss=loss, batch=batch,
                                 passes=passes, device="cpu")[:, -1]

    def reduced():
        return online_sgd(link, d, eta=eta, seeds=range(OFFSET, OFFSET + seeds), max_steps=steps, loss=loss,
                          batch=batch, passes=passes, stop_at_recovery=False, device="cpu").final_overlap

    def p(other):
        return stats.ks_2samp(statistic(literal).numpy(), statistic(other).numpy()).pvalue

    return p(reduced()), lambda: p(reduced())


@pytest.mark.parametrize("link,loss,eta,wrong", [
    ("He3(z)", "correlation", 0.16, lambda c, q: 0 * q),  # the remainder dropped (q = 0)
    ("He2(z)", "square", 0.16, lambda c, q: c.sum(-1) ** 2 * q),  # one remainder for the whole batch: (sum c)^2 q
])
def test_mini_batch_reduction_equals_literal_sgd_in_distribution(monkeypatch, link, loss, eta, wrong):
    """Batch of 4, one pass, d = 8: the reduced chain (one chi^2_{d-2} per step, weighted by sum c^2) against the
    literal SGD; the same test rejects the wrong aggregation of the remainders."""
    same, again = _ks(link, loss, 8, eta, 150, 4, 1, 300)
    assert same > KS_LEVEL, same
    monkeypatch.setattr(model, "_remainder_norm2", wrong)
    assert again() < KS_LEVEL


@pytest.mark.parametrize("link,loss,eta,steps,batch,seeds,statistic", [
    ("He3(z)", "correlation", 0.4, 100, 1, 300, lambda m: m),
    ("He2(z)", "square", 0.1, 150, 3, 300, torch.abs),  # an even link: |m| (the sign is a coin flip)
])
def test_repeated_passes_reduction_equals_literal_sgd_in_distribution(monkeypatch, link, loss, eta, steps, batch,
                                                                      seeds, statistic):
    """Two passes per batch, d = 5 (the Gram matrix of the remainders matters through its chi^2 fluctuations, of
    relative size sqrt(2/(d-2)): a small d gives the control its power): the reduced chain in the basis of the
    Bartlett factor against the literal SGD; the same test rejects the Gram matrix replaced by (d - 2) I (orthogonal
    remainders of the typical norm)."""
    d = 5
    same, again = _ks(link, loss, d, eta, steps, batch, 2, seeds, statistic)
    assert same > KS_LEVEL, same
    monkeypatch.setattr(model, "_bartlett_factor",
                        lambda root_chi2, below: torch.diag_embed(torch.full_like(root_chi2, math.sqrt(d - 2))))
    assert again() < KS_LEVEL


@pytest.mark.parametrize("batch,passes", [(64, 1), (12, 2)])
def test_seed_contract_and_prefix(batch, passes):
    """A seed's path does not depend on its batch-mates, and a shorter run reads a prefix of the same path, across
    random blocks (64 and 182 gradient steps per block here)."""
    kw = dict(eta=0.02 * batch, batch=batch, passes=passes, stop_at_recovery=False, trace_every=7, device="cpu")
    per_block = model.batches_per_block(batch, passes) * passes
    both = online_sgd("He3(z)", 16, seeds=[3, 9], max_steps=2 * per_block + 5, **kw)
    alone = online_sgd("He3(z)", 16, seeds=[9], max_steps=2 * per_block + 5, **kw)
    short = online_sgd("He3(z)", 16, seeds=[9], max_steps=per_block + 3, **kw)
    assert torch.equal(both.trace[:, 1], alone.trace[:, 0])
    assert both.iterations[1] == alone.iterations[0] and both.final_overlap[1] == alone.final_overlap[0]
    assert short.trace.shape[0] == (per_block + 3) // 7 and torch.equal(alone.trace[:short.trace.shape[0]], short.trace)
    assert not torch.equal(both.trace[:, 0], both.trace[:, 1])


def test_iterations_and_samples():
    """Recovery is checked after every gradient step (between the two passes over a batch too); the samples are
    ceil(iterations / passes) * batch, and a censored run reports max_steps iterations."""
    kw = dict(eta=0.1, seeds=range(12), batch=3, passes=2, device="cpu")
    traced = online_sgd("He2(z)", 16, max_steps=400, symmetric=True, stop_at_recovery=False, trace_every=1, **kw)
    first = (traced.trace.abs() >= 0.5).to(torch.int8).argmax(0) + 1
    assert not bool(traced.censored.any()) and torch.equal(traced.iterations, first)
    assert bool((traced.iterations % 2 == 1).any()) and bool((traced.iterations % 2 == 0).any())
    assert torch.equal(traced.steps, 3 * ((traced.iterations + 1) // 2))
    stopped = online_sgd("He2(z)", 16, max_steps=400, symmetric=True, **kw)
    assert torch.equal(stopped.iterations, traced.iterations) and bool((stopped.final_overlap.abs() >= 0.5).all())
    censored = online_sgd("He3(z)", 16, max_steps=7, eta=1e-3, seeds=2, batch=3, passes=2, device="cpu")
    assert bool(censored.censored.all()) and censored.iterations.tolist() == [7, 7]
    assert censored.steps.tolist() == [12, 12]  # ceil(7/2) batches of 3


@pytest.mark.parametrize("kwargs,match", [
    (dict(batch=15, passes=2), r"'batch' parameter of online_sgd must be <= d - 2 = 14 with 'passes' = 2"),
    (dict(batch=2, smoothing=1.0), r"'smoothing' parameter of online_sgd is implemented for batch = passes = 1"),
    (dict(passes=2, smoothing=1.0), r"'smoothing' parameter"),
    (dict(batch=0), r"'batch' parameter"),
    (dict(passes=0), r"'passes' parameter"),
])
def test_bad_input(kwargs, match):
    args = dict(eta=1e-3, seeds=2, max_steps=5, device="cpu") | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        online_sgd(model.PolynomialLink((0.0, -3.0, 0.0, 1.0)), 16, **args)
    with pytest.raises(InvalidParameterError, match=match.replace("online_sgd", "literal_online_sgd")):
        literal_online_sgd(model.PolynomialLink((0.0, -3.0, 0.0, 1.0)), 16, eta=1e-3, seeds=2, steps=5,
                           **{k: v for k, v in kwargs.items()})


@pytest.mark.parametrize("kwargs,option", [(dict(batch=0), "--batch:"), (dict(passes=0), "--passes:"),
                                           (dict(batch=15, passes=2), "--batch:"),
                                           (dict(batch=4, smoothing=1.0), "--smoothing:")])
def test_run_rows_names_the_option(kwargs, option):
    with pytest.raises(InvalidParameterError, match=option):
        simulate.run_rows([0, 1], target="He3(z)", d=16, eta_tilde=0.05, max_steps=5, device="cpu", **kwargs)


@pytest.mark.parametrize("target,k", [("He3(z)", 3), ("He4(z)", 4), ("z", 1)])
def test_run_rows_step_size(monkeypatch, target, k):
    """eta = eta_tilde batch d^(-max(1, k/2)) with one pass (Arnaboldi et al. 2024a) and eta_tilde batch / d with
    two passes or more (Arnaboldi et al. 2024b), read from the call run_rows makes."""
    seen = []

    def fake(link, d, **kw):
        seen.append(kw)
        n = len(kw["seeds"])
        ones = torch.ones(n, dtype=torch.int64)
        return model.OnlineSGDResult(iterations=ones, steps=ones, censored=ones == 0, final_overlap=torch.ones(n))

    monkeypatch.setattr(simulate, "online_sgd", fake)
    d, eta_tilde = 64, 0.05
    for batch, passes, expected in ((8, 1, eta_tilde * 8 * d ** -max(1, k / 2)), (8, 2, eta_tilde * 8 / d),
                                    (1, 3, eta_tilde / d), (1, 1, eta_tilde * d ** -max(1, k / 2))):
        rows = simulate.run_rows([0, 1], target=target, d=d, eta_tilde=eta_tilde, max_steps=10, batch=batch,
                                 passes=passes, device="cpu")
        assert seen[-1]["eta"] == pytest.approx(expected, rel=1e-12)
        assert (seen[-1]["batch"], seen[-1]["passes"]) == (batch, passes) and set(rows[0]) >= {"iterations", "steps"}


def test_cli_batch_and_passes_records():
    runner = CliRunner()
    out = runner.invoke(cli, ["simulate", "online-sgd", "--target", "He3(z)", "--d", "16", "--lr", "0.01",
                              "--max-steps", "300", "--batch", "4", "--passes", "2", "--seeds", "2", "--device",
                              "cpu", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert set(doc["records"][0]) == {"d", "seed", "steps_to_weak_recovery", "iterations_to_weak_recovery",
                                      "final_overlap", "censored"}
    assert doc["config"]["batch"] == 4 and doc["config"]["passes"] == 2 and doc["config"]["eta"] == "eta_tilde * 4 / d"
    assert doc["generative_exponent"] == 1 and doc["predicted_rate"] == "d"
    for r in doc["records"]:
        assert r["steps_to_weak_recovery"] == 4 * math.ceil(r["iterations_to_weak_recovery"] / 2)
    bad = runner.invoke(cli, ["simulate", "online-sgd", "--d", "16", "--batch", "0", "--seeds", "2", "--device",
                              "cpu"])
    assert bad.exit_code == 2 and "--batch" in bad.output and "Traceback" not in bad.output, bad.output
    bad = runner.invoke(cli, ["simulate", "online-sgd", "--d", "16", "--batch", "20", "--passes", "2", "--seeds", "2",
                              "--device", "cpu"])
    assert bad.exit_code == 2 and "--batch" in bad.output and "Traceback" not in bad.output, bad.output
