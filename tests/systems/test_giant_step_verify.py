"""``flt verify``: bad input exits 2 with one line; an impossible budget is 'inconclusive' with its reason."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.systems.giant_step.verify import verify


@pytest.mark.parametrize("args, fragment", [
    (["z1*z2*z3*z4*z5"], "rank 5 > 4"),
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
    assert result.exit_code == 1 and json.loads(result.output)["predictions"][0]["verdict"] in ("inconclusive", "pass")


def test_scale_is_validated():
    with pytest.raises(InvalidParameterError, match="'scale'"):
        verify("z1", scale="huge")
