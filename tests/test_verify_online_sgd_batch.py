"""``flt verify TARGET --algorithm online-sgd --batch B --passes P``: the predicted law (symbolic), a small real run
of ``z --batch 8`` that passes with its wrong laws rejected, the refusal of a batch at saturation, the JSON fields,
the unchanged default document, and a stubbed measurement that follows the one-pass rate with ``--passes 2`` and is
not passed (the check can fail). Seconds in all; the real two-pass run is ``slow``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import sympy as sp
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.compare.verdict import FAIL, INCONCLUSIVE, PASS
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd import verify as online_verify
from flt_theory.systems.online_sgd.batch_laws import second_pass_equator_drift
from flt_theory.systems.online_sgd.laws import D
from flt_theory.systems.online_sgd.run_time import run_operations
from flt_theory.systems.online_sgd.verify import (
    crossover_dimension,
    estimated_seconds,
    predicted_law,
    sizes_for,
    verify_target,
)

#: The keys of the document before --batch / --passes existed.
DEFAULT_KEYS = {"algorithm", "target", "information_exponent", "scale", "ds", "seeds", "eta_tilde", "max_steps_factor",
                "predictions", "passed"}


def _no_nan(document) -> dict:
    return json.loads(json.dumps(document, allow_nan=False))


# --- the predicted laws (symbolic, no simulation) ------------------------------------------------------------------

def test_a_batch_predicts_the_one_pass_samples_over_the_batch_in_iterations():
    law, wrongs, rate, column = predicted_law("z", batch=8)
    assert (law.value, rate, column, law.lhs) == (D / 8, 1, "iterations", r"T_{\mathrm{wr}}")
    assert [w.value for w in wrongs] == [sp.Rational(1, 8), D**2 / 8]
    law, wrongs, rate, column = predicted_law("He2(z)", batch=8)
    assert law.value == D * sp.log(D) / 8 and column == "iterations"
    assert [w.text() for w in wrongs][2] == "no factor log(d): T ≍ d/8"


def test_repeated_passes_predict_the_generative_exponent_in_samples():
    law, wrongs, rate, column = predicted_law("He3(z)", passes=2)
    assert (law.value, rate, column) == (D, 1, "steps")
    # the one-pass information-exponent rate d² replaces the exponent +1 mutant (the same powers)
    assert [w.value for w in wrongs] == [1, D**2] and "one-pass rate of the information exponent" in wrongs[1].text()
    law, wrongs, rate, _ = predicted_law("He4(z)", passes=2)
    assert (law.value, rate) == (D * sp.log(D), 2) and wrongs[-1].value == D**3
    law, wrongs, rate, _ = predicted_law("He2(z)", passes=2)  # k* = k: nothing to gain, no extra control
    assert (law.value, rate, len(wrongs)) == (D * sp.log(D), 2, 3)
    assert second_pass_equator_drift("He3(z)", sp.Rational(1, 1000)) == sp.Rational(17496, 10**6)
    assert round(crossover_dimension("He3(z)", 0.003, 2.0)) == 914
    assert crossover_dimension("He4(z)", 0.003, 1.0) is None  # no drift at the equator (k* = 2)


def test_the_cost_counts_the_batch_and_the_passes():
    one = {**sizes_for(1), "seeds": 64}
    batch = {**one, "batch": 8, "max_steps": lambda d: one["max_steps"](d) / 8}
    # 8 times fewer gradient steps, each dearer by the batch's samples (run_time's model, per seed 50 ns a sample)
    per_step = [run_operations(1, 64, batch=b) - run_operations(0, 64, batch=b) for b in (1, 8)]
    assert per_step[1] == per_step[0] + 64 * 50 * 8
    start = run_operations(0, 64)  # per seed and run, whatever the steps
    steps = [(run_operations(1000, 64, batch=b, passes=p) - start) / 1000 for b, p in ((1, 1), (8, 1), (8, 2))]
    assert steps[0] < steps[1] < steps[2]
    fixed = estimated_seconds(1, {**one, "max_steps": lambda d: 0})  # the per-seed start of every run
    assert estimated_seconds(1, batch) - fixed == pytest.approx(
        (estimated_seconds(1, one) - fixed) / 8 * per_step[1] / per_step[0])


def test_a_batch_at_saturation_and_bad_counts_are_refused_naming_the_option():
    with pytest.raises(InvalidParameterError, match=r"^--batch: 256 is at or above the saturation batch d\^1 = 256"):
        verify_target("z", batch=256)
    with pytest.raises(InvalidParameterError, match="^--batch: .*saturation batch d\\^2"):
        verify_target("He3(z)", batch=4096)
    for option, value in (("batch", 0), ("passes", True), ("passes", 1.5)):
        with pytest.raises(InvalidParameterError, match=f"^--{option}: must be an int >= 1"):
            verify_target("z", **{option: value})
    with pytest.raises(InvalidParameterError, match="^--passes: .*polynomial link"):
        verify_target("tanh(z)", passes=2)
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", "z", "--algorithm", "online-sgd", "--batch", "256"])
    assert result.exit_code == 2 and "--batch" in result.output and "saturation" in result.output
    result = runner.invoke(cli, ["verify", "z", "--batch", "8"])  # giant-step
    assert result.exit_code == 2 and "--batch" in result.output and "online-sgd only" in result.output


def test_the_default_document_and_text_are_unchanged():
    """Without --batch / --passes (or with --batch 1) the document has its old keys and the text no batch line; a
    budget below the estimate runs nothing."""
    doc = verify_target("z", budget=0.01)
    assert set(doc) == DEFAULT_KEYS and "batches" not in doc.text()
    assert dict(verify_target("z", budget=0.01, batch=1, passes=1)) == dict(doc)
    runner = CliRunner()
    plain = runner.invoke(cli, ["verify", "He3(z)", "--algorithm", "online-sgd", "--budget", "1"])
    ones = runner.invoke(cli, ["verify", "He3(z)", "--algorithm", "online-sgd", "--budget", "1", "--batch", "1",
                               "--passes", "1"])
    assert plain.output == ones.output and plain.exit_code == ones.exit_code == 1
    assert "exceeds the budget" in plain.output


# --- a real run ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def z_batch():
    """z with batches of 8 at 16 seeds: the one-pass paper ladder d = 256 … 8192 (about 2 s)."""
    return verify_target("z", batch=8, seeds=16, budget=60)


def test_z_with_a_batch_of_8_passes_its_iterations_law_and_rejects_the_wrong_ones(z_batch):
    (p,) = _no_nan(z_batch)["predictions"]
    assert p["verdict"] == PASS and p["control"] == "rejected"
    assert [c["control"] for c in p["controls"]] == ["rejected", "rejected"]
    assert p["predicted"].endswith("below the saturation batch d^1)") and "T ≍ d/8" in p["predicted"]
    assert abs(p["limit"]["estimate"] - 1) < 0.1 and p["sizes"]["max_steps"][0] == 256 * 40 // 8


def test_the_json_states_the_batch_the_passes_and_what_is_measured(z_batch):
    doc = _no_nan(z_batch)
    assert (doc["batch"], doc["passes"], doc["measured"], doc["rate_exponent"]) == (8, 1, "iterations", 1)
    assert doc["prediction"] == doc["predictions"][0]["predicted"]
    (p,) = doc["predictions"]
    assert p["name"] == "weak-recovery iterations" and p["time_read"] == "iterations"
    assert [m["d"] for m in p["means"]] == doc["ds"] and all(m["fitted"] for m in p["means"])
    # the iterations of a batch of 8 are 1/8 of the samples: the mean per d is near 1/8 of the one-pass ~1
    assert all(0.05 < m["per_d"] < 0.5 for m in p["means"])
    text = z_batch.text()
    assert "batches of 8 fresh sample(s)" in text and "mean iterations / d" in text and "exponent of T" not in text


# --- the check can fail: a stubbed measurement -----------------------------------------------------------------------

def _stub(power: float):
    """A ``measure_ladder`` whose samples follow ``c d^power`` (lognormal scatter, 32 seeds, none censored)."""

    def measure(target, sizes, *, budget, spent=0.0, store=None):
        rng = np.random.default_rng(0)
        rows = [{"target": target, "eta_tilde": sizes["eta_tilde"], "d": d, "seed": s,
                 "steps": float(np.ceil(0.05 * d**power * rng.lognormal(0, 0.3))), "censored": 0.0,
                 "final_overlap": 0.5} for d in sizes["ds"] for s in range(32)]
        frame = pd.DataFrame(rows).assign(iterations=lambda f: 2 * f["steps"])
        rungs = [{"d": d, "max_steps": sizes["max_steps"](d), "raised": 0, "censored": 0, "seeds": 32,
                  "stalled": False, "overlap": None, "blocked": None} for d in sizes["ds"]]
        return frame, rungs, spent

    return measure


@pytest.mark.parametrize("scale", ["small", "paper"])
def test_data_on_the_one_pass_rate_are_not_passed_with_two_passes(monkeypatch, scale):
    """He3 with --passes 2 whose samples grow as d² (the one-pass rate): never a pass; on the paper ladder (up to
    d = 2048, above the crossover d_c ≈ 914) a fail, below it (small, d ≤ 512) inconclusive with the crossover."""
    monkeypatch.setattr(online_verify, "measure_ladder", _stub(2.0))
    (p,) = verify_target("He3(z)", passes=2, scale=scale, budget=1e6)["predictions"]
    assert p["verdict"] == (FAIL if scale == "paper" else INCONCLUSIVE)
    assert "d_c ≈ 914" in p["message"] and "17496*eta_tilde**2" in p["message"]
    assert all(abs(r["estimate"] - 2) < 0.3 for r in p["effective"])


def test_data_on_the_generative_rate_pass_with_two_passes(monkeypatch):
    """The same stub at the predicted rate d passes and rejects the one-pass rate d² (the check can pass too)."""
    monkeypatch.setattr(online_verify, "measure_ladder", _stub(1.0))
    doc = verify_target("He3(z)", passes=2, budget=1e6)
    (p,) = doc["predictions"]
    assert p["verdict"] == PASS and p["control"] == "rejected" and doc["measured"] == "samples"


@pytest.mark.slow
def test_he3_with_two_passes_is_not_passed_at_affordable_sizes():
    """The real measurement (about a minute on one core): the samples per d still grow on d ≤ 512."""
    doc = _no_nan(verify_target("He3(z)", passes=2, budget=300))
    (p,) = doc["predictions"]
    assert p["verdict"] != PASS and "d_c" in p["message"]
