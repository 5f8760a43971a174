"""``flt verify``: bad input exits 2 with one line; an impossible budget is 'inconclusive' with its reason."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.giant_step.verify import verify


@pytest.mark.parametrize("args, fragment", [
    (["z1*z2*z3*z4*z5"], "TARGET: uses z5; flt verify takes targets of z1..z4"),
    (["foo(z1)"], "TARGET: "),
    (["z1", "--activation", "bar"], "--activation: "),
    (["z1", "--steps", "9"], "'--steps'"),
    (["z1", "--budget", "0"], "'--budget'"),
])
def test_bad_input_is_one_line_exit_2(args, fragment):
    result = CliRunner().invoke(cli, ["verify", *args])
    assert result.exit_code == 2 and fragment in result.output and len(result.output.strip().splitlines()) == 1


def test_a_budget_too_small_is_inconclusive_with_the_budget_it_needs():
    document = verify("He2(z)", steps=1, budget=1e-6)
    assert document["passed"] is False and document["leap_index"] == 2
    for prediction in document["predictions"]:
        assert prediction["verdict"] == "inconclusive" and prediction["control"] is None
        assert "exceeds the remaining budget" in prediction["message"] and "--budget" in prediction["message"]
    result = CliRunner().invoke(cli, ["verify", "He2(z)", "--steps", "1", "--budget", "1", "--json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["predictions"][0]["verdict"] in ("inconclusive", "pass")


def test_scale_is_validated():
    with pytest.raises(InvalidParameterError, match="'scale'"):
        verify("z1", scale="huge")


# ---------------------------------------------------------------------------------------------------------------
# sizes inside each prediction's regime: later leaps, heavy tails, straddled bounds

import functools  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from flt_theory.compare import check_at_least  # noqa: E402
from flt_theory.symbolic import Target, staircase  # noqa: E402
from flt_theory.symbolic.staircase_sizes import predicted_moments  # noqa: E402
from flt_theory.systems.giant_step.laws import subspace_law  # noqa: E402
from flt_theory.systems.giant_step.model import staircase_rows  # noqa: E402
from flt_theory.systems.giant_step.verify import compare_predicted_staircase, second_layer_test_samples  # noqa: E402


def test_a_later_leap_keeps_a_predicted_multiple_of_its_random_mass_and_the_staircase_passes():
    """z1 + He2(z2), n = 64d, eta = 4p: w2 is not learned (mass Θ(1/d)) but carries ~7x its random mass at step 2
    (the leap-2 linear response): the complement is compared with its predicted level, the wrong law still fails."""
    f, d, steps = Target.parse("z1 + He2(z2)"), 128, 2
    rows = staircase_rows(f, d=d, n=64 * d, p=64, eta=256.0, steps=steps, seeds=list(range(8)))
    frame = pd.DataFrame([{**row, "seed": s, "d": d} for s, row in enumerate(rows)])
    noise = tuple(m for _, m in predicted_moments(f, d=d, n=64 * d, p=64, eta=256.0, steps=steps))
    assert noise[1][1, 1] * d > 3.0  # predicted above the old fixed "3x random" ceiling
    compare = functools.partial(compare_predicted_staircase, resolvable=(True, True), fluctuations=noise)
    ladder = tuple(staircase(f, steps))
    assert compare(frame, subspace_law("staircase", ladder, words="staircase")).passed
    full = tuple(ladder[0].full(2) for _ in ladder)
    assert not compare(frame, subspace_law("wrong", full, words="all at once")).passed
    flat = tuple(np.zeros((2, 2)) for _ in ladder)  # the old reading: complement <= 3x random
    assert not compare_predicted_staircase(frame, subspace_law("staircase", ladder, words="s"), resolvable=(True, True),
                                           fluctuations=flat).passed


def test_test_samples_follow_the_tail_of_the_target():
    assert second_layer_test_samples(Target.parse("z1")) == 8192
    assert second_layer_test_samples(Target.parse("z1 + He3(z2)")) == 8192  # kurtosis 69
    assert second_layer_test_samples(Target.parse("He3(z1)")) == 16384  # kurtosis 93
    assert second_layer_test_samples(Target.parse("He4(z1) + z2")) == 65536


def _false_rejections(target: str, n_test: int, repeats: int, seeds: int = 8) -> int:
    """How often the floor check (consistent, log scale, as compare_floors) rejects a TRUE floor E[g^2] when each
    seed's test error is the mean of g^2 over n_test Gaussian points (g = f* minus its mean: the error left after
    the second layer fits nothing of it, the worst tail)."""
    f = Target.parse(target)
    from flt_theory.symbolic.evaluate import evaluate

    rng = np.random.default_rng(11)
    big = rng.standard_normal((400_000, f.rank))
    g = np.asarray(evaluate(f.expr, f.variables, list(big.T)), dtype=float)
    floor = float(np.var(g))
    rejected = 0
    for _ in range(repeats):
        errors = []
        for _ in range(seeds):
            z = rng.standard_normal((n_test, f.rank))
            y = np.asarray(evaluate(f.expr, f.variables, list(z.T)), dtype=float)
            errors.append(float(np.mean((y - y.mean()) ** 2)) * n_test / (n_test - 1))
        rejected += not check_at_least(np.array(errors), floor, bounds=(0, np.inf), n_resamples=400).passed
    return rejected


def test_the_test_error_interval_covers_a_heavy_tailed_floor():
    """He3: at verify's n_test the 95% interval rejects the true floor about as often as it should (one side: 2.5%)."""
    rejected = _false_rejections("He3(z1)", second_layer_test_samples(Target.parse("He3(z1)")), repeats=150)
    assert rejected <= 9, rejected  # <= 6% of 150


@pytest.mark.slow
def test_the_test_error_interval_covers_he4():
    rejected = _false_rejections("He4(z1)", second_layer_test_samples(Target.parse("He4(z1) + z2")), repeats=200)
    assert rejected <= 12, rejected  # <= 6% of 200


@pytest.mark.slow
@pytest.mark.parametrize("target", ["z1 + He2(z2)", "He4(z1) + z2", "z1 + He3(z2)", "z1 + z1*z2 + He2(z3)",
                                    "He3(z1) + z2", "z1 + He2(z1)*z2 + He2(z3)"])
def test_mixed_leap_and_heavy_tailed_targets_fail_no_true_prediction(target):
    document = verify(target, budget=600)
    for prediction in document["predictions"]:
        assert prediction["verdict"] in ("pass", "inconclusive"), prediction
        if prediction["verdict"] == "inconclusive":
            assert any(word in prediction["message"] for word in ("seeds", "d =", "--budget")), prediction
