"""``flt verify --system SYSTEM --law "OBS ~ EXPR"``: a researcher's own power law, checked with its wrong laws.

The measurements use the giant-step norm-growth experiment (seconds); the law ||w^1||^2 - 1 ∝ d (Dandi et al. 2023's
norm law at fixed n, p, eta) passes with both wrong laws (exponent ± 1/2) rejected, d^2 fails, and a grid too narrow
to tell d from d^(1/2) is inconclusive with a seed count.
"""

import json

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.commands.verify import parse_assignment
from flt_theory.errors import InvalidParameterError
from flt_theory.report.verify_law import parse_observable_law, verify_law

GRID = {"d": [64, 128, 256, 512]}


def test_parse_reads_exponents_and_refuses_what_is_not_a_power_law():
    law = parse_observable_law("norm_growth ~ 3*d*eta**2/(n*p**2)", ["d", "n", "p", "eta"])
    assert law.observable == "norm_growth" and law.exponents == {"d": 1.0, "eta": 2.0, "n": -1.0, "p": -2.0}
    assert parse_observable_law("y ~ sqrt(d/n)", ["d", "n"]).exponents == {"d": 0.5, "n": -0.5}
    labels = [label for label, _ in law.wrong_laws(["d", "n"])]
    assert labels == ["exponent of d + 0.5", "exponent of d - 0.5", "exponent of n + 0.5", "exponent of n - 0.5"]
    assert parse_observable_law("y ~ 2*d**-0.5*(n**2)**(1/4)/pi", ["d", "n"]).exponents == {"d": -0.5, "n": 0.5}
    for text, match in [("y ~ exp(d)", "exp.* is not a power law"), ("y ~ d + n", "no sums"),
                        ("y ~ width", "unknown name 'width'"), ("y = d", "one 'OBS ~ EXPR'"),
                        ("f(x) ~ d", "observable's name"), ("y ~ -d", "expected a number"), ("y ~ 0*d", "positive"),
                        ("y ~ d**n", "exponent must be a number"), ("y ~ d**(1/0)", "division by zero"),
                        ("y ~ __import__('os')", "cannot read"), ("y ~ d ~ n", "one 'OBS ~ EXPR'"),
                        ("y ~ ", "empty")]:
        with pytest.raises(InvalidParameterError, match=match):
            parse_observable_law(text, ["d", "n"])


def test_a_true_law_passes_a_wrong_one_fails_and_a_narrow_grid_is_inconclusive():
    true = verify_law("giant-step", "norm_growth ~ d", over=GRID, fix={"n": 64}, seeds=8)
    assert true.passed and true["outcome"] == "pass" and all(w["rejected"] for w in true["wrong_laws"])
    lo, hi = true["ci"]["d"]
    assert lo <= 1 <= hi and not lo <= 0.5 <= hi and true["experiment"] == "giant-step/norm-growth"
    assert true["grid"] == GRID and true["points"] == 4 and true["not_tested"] == []
    wrong = verify_law("giant-step", "norm_growth ~ d**2", over=GRID, fix={"n": 64}, seeds=8)
    assert wrong["outcome"] == "fail" and wrong["measured"] == true["measured"]  # the same measurement
    narrow = verify_law("giant-step", "norm_growth ~ d", over={"d": [128, 160]}, fix={"n": 64}, seeds=3)
    assert narrow["outcome"] == "inconclusive" and "seeds would reject it" in narrow["reason"]
    held = verify_law("giant-step", "norm_growth ~ d/n", over=GRID, fix={"n": 64}, seeds=8)
    assert held["not_tested"] == ["n"] and "not tested (held fixed): n" in held["reason"]
    assert json.loads(json.dumps(held)) == dict(held)


def test_the_grid_is_designed_from_a_declared_point_when_over_is_not_given():
    result = verify_law("giant-step", "norm_growth ~ d*eta**2/(n*p**2)", fix={"n": 64}, seeds=4)
    assert set(result["grid"]) == {"d", "eta", "p"} and result["not_tested"] == ["n"]
    assert result["grid"]["d"] == [32, 64, 128, 256, 512] and result["points"] == 1 + 3 * 4  # a star design


def test_bad_input_names_the_option():
    for kwargs, match in [(dict(law="nope ~ d", over=GRID), "records"), (dict(law="norm_growth ~ d", over={"q": [1, 2]}),
                          "has no parameter 'q'"), (dict(law="norm_growth ~ d", over={"d": [64, -1]}), "positive values"),
                          (dict(law="norm_growth ~ d", over=GRID, seeds=1), "--seeds"),
                          (dict(law="norm_growth ~ d", over=GRID, budget=1e-9), "--budget")]:
        with pytest.raises(InvalidParameterError, match=match):
            verify_law("giant-step", **{"seeds": 2, **kwargs})


def test_cli_exit_codes_and_json():
    runner = CliRunner()
    args = ["verify", "--system", "giant-step", "--law", "norm_growth ~ d", "--over", "d=64,128,256,512", "--fix", "n=64"]
    ok = runner.invoke(cli, args + ["--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["outcome"] == "pass"
    bad = runner.invoke(cli, args[:4] + ["norm_growth ~ d**2"] + args[5:])
    assert bad.exit_code == 1 and "FAIL: the data exclude the law" in bad.stdout
    for extra, option in [(["--law", "x ~ d"], "--system"), (["--system", "giant-step", "--law", "y ~ d", "z1"], "TARGET"),
                          (["--system", "giant-step", "--law", "norm_growth ~ d", "--over", "d=1,x"], "--over"),
                          (["z1", "--fix", "n=3"], "--fix")]:
        result = runner.invoke(cli, ["verify", *extra])
        assert result.exit_code == 2 and option in result.output and "Traceback" not in result.output


def test_assignments():
    assert parse_assignment("eta=0.5,1", many=True) == ("eta", [0.5, 1])
    with pytest.raises(ValueError, match="expected one value"):
        parse_assignment("d=1,2", many=False)
