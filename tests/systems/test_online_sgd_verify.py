"""``verify_target`` (``flt verify TARGET --algorithm online-sgd``): the exponent derived from the information
exponent, checked by simulation against the wrong exponents ±1; He3 and He4 pass on their own exponents (slow)."""

from __future__ import annotations

import json

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.systems.online_sgd.verify import estimated_seconds, sizes_for, verify_target


def test_k1_passes_and_rejects_both_wrong_exponents():
    doc = verify_target("z", seeds=16, budget=120)
    (p,) = doc["predictions"]
    assert doc.passed and doc["information_exponent"] == 1 and p["predicted_exponent"] == 1
    assert [c["exponent"] for c in p["controls"]] == [0, 2] and all(c["control"] == "rejected" for c in p["controls"])
    assert json.loads(json.dumps(doc))["passed"] is True
    assert "weak-recovery time" in doc.text() and "rejected" in doc.text()


def test_over_budget_is_inconclusive_with_the_budget_it_needs():
    doc = verify_target("He4(z)", budget=1)
    (p,) = doc["predictions"]
    assert not doc.passed and p["verdict"] == "inconclusive" and "--budget" in p["message"]
    assert p["measured"] is None and estimated_seconds(4, sizes_for(4)) > 1


@pytest.mark.parametrize("bad,match", [("z1 + z2", "TARGET"), ("3", "TARGET"), ("He3(x)", "TARGET")])
def test_bad_targets_are_named(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        verify_target(bad, budget=1)


def test_bad_options_are_named():
    with pytest.raises(InvalidParameterError, match="--seeds"):
        verify_target("z", seeds=1)
    with pytest.raises(InvalidParameterError, match="--budget"):
        verify_target("z", budget=float("nan"))
    with pytest.raises(InvalidParameterError, match="--scale"):
        verify_target("z", scale="huge")


@pytest.mark.slow
@pytest.mark.parametrize("target,exponent", [("He3(z)", 2), ("He4(z)", 3)])
def test_he3_and_he4_pass_on_their_predicted_exponents(target, exponent):
    doc = verify_target(target, budget=3600)
    (p,) = doc["predictions"]
    assert p["predicted_exponent"] == exponent
    assert p["verdict"] == "pass", p["message"]
    assert [c["control"] for c in p["controls"]] == ["rejected", "rejected"]


def test_the_command_runs_it_and_refuses_the_giant_step_options():
    """``flt verify TARGET --algorithm online-sgd``: exit 1 on an inconclusive prediction (over its budget), 2 on an
    option that belongs to the giant steps or to ``--system``, with the option named."""
    from click.testing import CliRunner

    from flt_theory.cli import cli

    result = CliRunner().invoke(cli, ["verify", "He4(z)", "--algorithm", "online-sgd", "--budget", "1", "--json"])
    assert result.exit_code == 1 and json.loads(result.output)["predictions"][0]["verdict"] == "inconclusive"
    for extra, option in ((["--steps", "3"], "--steps"), (["--latex", "t.tex"], "--latex"),
                          (["--system", "lazy-rich", "--law", "rel_change ~ width"], "--algorithm")):
        result = CliRunner().invoke(cli, ["verify", "z", "--algorithm", "online-sgd", *extra])
        assert result.exit_code == 2 and option in result.output, result.output
