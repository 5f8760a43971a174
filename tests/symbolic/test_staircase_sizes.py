"""Predicted staircase sizes (flt_theory.symbolic.staircase_sizes) against the giant-step simulation."""

import pandas as pd
import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import FLTError
from flt_theory.symbolic import Subspace, staircase
from flt_theory.symbolic.staircase_sizes import RESOLVABLE_FACTOR, staircase_sizes
from flt_theory.symbolic.target import Target
from flt_theory.systems.giant_step.model import staircase_rows
from flt_theory.systems.giant_step.readouts import _masses, new_part, second_moments


def _measured(text, *, d, n, p, eta, steps, activation="relu", seeds=4):
    target = Target.parse(text)
    rows = staircase_rows(target, d=d, n=n, p=p, eta=eta, steps=steps, activation=activation, seeds=list(range(seeds)))
    frame = pd.DataFrame([{**row, "seed": s} for s, row in enumerate(rows)])
    previous, out = Subspace.zero(target.rank), []
    for t, u in enumerate(staircase(target, steps), start=1):
        new = new_part(previous, u)
        out.append(float(_masses(second_moments(frame, t, target.rank), new)[1].mean() * d) if len(new) else None)
        previous = u
    return out


@pytest.mark.parametrize("text,d,n,eta,steps,activation", [
    ("z1 + z1*z2", 128, 64 * 128, 512.0, 2, "relu"),
    ("z1*z2 + z1", 512, 8 * 512, 256.0, 2, "relu"),
    ("0.5*(4*z1 + z1**2) + 0.5*z2", 256, 64 * 256, 512.0, 2, "relu"),
    ("z1 + z1*z2 + z1*z2*z3", 128, 64 * 128, 512.0, 3, "relu"),
    ("z1 + z1*z2", 128, 16 * 128, 256.0, 2, "tanh(z)"),
])
def test_predicted_sizes_match_the_simulation(text, d, n, eta, steps, activation):
    predicted = staircase_sizes(Target.parse(text), d=d, n=n, p=64, eta=eta, steps=steps, activation=activation)
    measured = _measured(text, d=d, n=n, p=64, eta=eta, steps=steps, activation=activation)
    for size, value in zip(predicted, measured):
        if value is None:
            assert size.new_dim == 0
            continue
        ratio = size.ratio
        # measured (16 seeds): step 1 within 3%; a later step the population term drives is overestimated by
        # 13-24% (the closure neglects the correlation of the neurons' sample noise); below 2x the random level
        # both are the fluctuation and agree within a factor 2.5 (docs/guide/conjecture.md, "within")
        if ratio >= 2:
            assert 0.95 * value <= ratio <= (1.05 if size.step == 1 else 1.30) * value, (size.step, ratio, value)
        else:
            assert value < 2 and ratio < 2, (size.step, ratio, value)
        assert size.resolvable == (ratio >= RESOLVABLE_FACTOR)


def test_the_issue_example_is_not_resolvable_at_step_two_until_large_d():
    target = Target.parse("0.5*(4*z1 + z1**2) + 0.5*z2")
    for d in (128, 256, 1024):
        first, second = staircase_sizes(target, d=d, n=64 * d, p=64, eta=256.0, steps=2)
        assert first.resolvable and not second.resolvable and second.new_dim == 1
    assert staircase_sizes(target, d=4096, n=64 * 4096, p=64, eta=256.0, steps=2)[1].resolvable


def test_an_even_activation_derivative_blocks_the_second_step():
    # tanh' is even: the step-2 push E[z1 tanh'(m z1 + rho g)] along w*_2 vanishes; only the fluctuation is left
    sizes = staircase_sizes(Target.parse("z1 + z1*z2"), d=512, n=64 * 512, p=64, eta=256.0, steps=2,
                            activation="tanh(z)")
    assert sizes[0].resolvable and not sizes[1].resolvable
    assert sizes[1].new_least == pytest.approx(sizes[1].fluctuation_mass, rel=1e-2)


def test_bad_input_names_the_parameter():
    target = Target.parse("z1 + z1*z2")
    for kwargs, name in [(dict(d=1), "d"), (dict(n=0), "n"), (dict(eta=-1.0), "eta"), (dict(steps=0), "steps")]:
        args = {**dict(d=64, n=100, p=8, eta=1.0, steps=1), **kwargs}
        with pytest.raises(FLTError, match=name):
            staircase_sizes(target, **args)
    with pytest.raises(FLTError, match="rank"):
        staircase_sizes(target, d=2, n=100, p=8, eta=1.0)


def test_cli_prints_sizes_next_to_the_spans():
    result = CliRunner().invoke(cli, ["staircase", "0.5*(4*z1 + z1**2) + 0.5*z2", "--steps", "2", "--d", "256",
                                      "--n", "16384"])
    assert result.exit_code == 0, result.output
    assert "learned at this size" in result.output and "no (< 15x random)" in result.output
    result = CliRunner().invoke(cli, ["staircase", "z1 + z1*z2", "--steps", "2", "--d", "128", "--n", "8192", "--json"])
    import json

    doc = json.loads(result.output)
    assert [s["resolvable"] for s in doc["sizes"]] == [True, True] and {"rank", "subspaces"} <= set(doc)
    result = CliRunner().invoke(cli, ["staircase", "z1 + z1*z2", "--d", "128"])
    assert result.exit_code == 2 and "--d and --n go together" in result.output


def test_the_complement_of_a_later_leap_is_predicted_with_its_linear_response():
    """z1 + He2(z2), d = 128, n = 64d, eta = 4p: w2 is never pushed by the population term, yet carries 2.2x then
    7.3x its random mass (16 seeds): its own O(d^-1/2) overlap is amplified by 1 + kappa a J per step; the closure
    predicts 2.3x and 8.3x (within the factor 1.6 docs/guide/conjecture.md states for not-learned directions)."""
    from flt_theory.symbolic.staircase_sizes import predicted_moments

    text, d = "z1 + He2(z2)", 128
    target = Target.parse(text)
    rows = staircase_rows(target, d=d, n=64 * d, p=64, eta=256.0, steps=2, seeds=list(range(8)))
    frame = pd.DataFrame([{**row, "seed": s} for s, row in enumerate(rows)])
    for t, (_, noise) in enumerate(predicted_moments(target, d=d, n=64 * d, p=64, eta=256.0, steps=2), start=1):
        measured = float(second_moments(frame, t, 2)[:, 1, 1].mean() * d)
        assert measured / 1.6 <= noise[1, 1] * d <= 1.6 * measured, (t, noise[1, 1] * d, measured)
