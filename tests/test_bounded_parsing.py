"""Issue 38, failures 2, 3 (last), 4 (first) and 5: bounded parsing, and the symbolic inputs that took minutes.

* ``flt verify --system giant-step --law "norm_growth ~ 1e99999999*d"`` (and ``d**(1e9999999)``) built an exact
  ``Fraction`` of :math:`10^{99999999}` before any plan or budget check: a number of a law is now bounded by its
  decimal order, read from its digits, before it is built (:func:`flt_theory.laws_check.parse.check_magnitude`);
* ``--over d=<4000-digit integer>`` reached ``float()`` (an ``OverflowError``, an internal error): an option value
  beyond the floating-point range is refused naming the option;
* ``OBS <= 1e308*1e308*d`` was checked as ``inf * d``: an infinite constant is refused;
* the symbolic inputs measured at over 10 s: ``He(64, sin(...))`` of rank 4 (its quadrature evaluated each power of
  He_64 afresh and contracted every multi-index from the full grid; a staircase converted each float through a new
  ``RealField``: answered), ``exp(tanh(z4*(5 + z4*relu(...))**59))`` (sympy cannot tell that ``relu`` is real and
  expanded the 59th power to find out, in the parser and again in the LaTeX of the target: refused by the work
  budget, :func:`flt_theory.symbolic.budget.predict_realness`), ``He64`` nested 8 deep (refused by the degree
  budget) and a product of 17 ``pi`` (answered).

Each case runs through the ``flt`` command in a subprocess, all of them in one process (the imports are paid once);
the subprocess timeout is a hang guard only, never the assertion: the assertion is the outcome, refused with the
right message or answered with the right result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.xdist_group("bounded_parsing")  # one worker computes the batch once

BIG_INT = "9" * 4000
HE1 = "He(64, sin((relu(z4) - (pi - z2))**1/3))"
HE64_NESTED = "He64(" * 8 + "z1" + ")" * 8
PI17 = "*".join(["pi"] * 17) + "*z1"
RELU59 = "exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**59)))"
VERIFY = ["verify", "--system", "giant-step"]

#: name -> the arguments of ``flt`` (the issue's commands; none of them may run a simulation).
LAW_CASES = {
    "law-huge-literal": VERIFY + ["--law", "norm_growth ~ 1e99999999*d", "--over", "d=64,128", "--fix", "n=64"],
    "law-huge-exponent": VERIFY + ["--law", "norm_growth ~ d**(1e9999999)", "--over", "d=64,128", "--fix", "n=64"],
    "law-tiny-exponent": VERIFY + ["--law", "norm_growth ~ d**(1e-9999999)", "--over", "d=64,128", "--fix", "n=64"],
    "law-infinite-constant": VERIFY + ["--law", "norm_growth <= 1e308*1e308*d", "--over", "d=64,128", "--fix",
                                       "n=64"],
    "over-4000-digits": VERIFY + ["--law", "norm_growth ~ d", "--over", f"d=64,{BIG_INT}", "--fix", "n=64"],
    "fix-4000-digits": VERIFY + ["--law", "norm_growth ~ d", "--over", "d=64,128", "--fix", f"n={BIG_INT}"],
    "over-1e400": VERIFY + ["--law", "norm_growth ~ d", "--over", "d=64,1e400", "--fix", "n=64"],
    "where-huge-level": VERIFY + ["--law", "eta* ~ d**(-1/2)", "--where", "norm_growth = 1e99999999", "--over",
                                  "d=64,128"],
}

#: name -> the arguments of ``flt`` (failure 5).
SYMBOLIC_CASES = {
    "he64-sin-leap": ["leap", HE1, "--json"],
    "he64-sin-staircase": ["staircase", HE1, "--json"],
    "he64-sin-limits": ["limits", HE1, "--kappa-n", "1", "--kappa-p", "1", "--json"],
    "he64-sin-laws": ["laws", HE1, "--json"],
    "he64-nested-staircase": ["staircase", HE64_NESTED],
    "he64-nested-limits": ["limits", HE64_NESTED, "--kappa-n", "1", "--kappa-p", "1"],
    "he64-nested-laws": ["laws", HE64_NESTED],
    "pi17-laws": ["laws", PI17, "--json"],
    "relu59-staircase": ["staircase", RELU59, "--json"],
    "relu59-laws": ["laws", RELU59],
    "relu3-staircase": ["staircase", RELU59.replace("**59", "**3"), "--json"],
}

_DRIVER = """
import json, sys
from click.testing import CliRunner
from flt_theory.cli import cli
for name, args in json.loads(sys.argv[1]).items():
    result = CliRunner().invoke(cli, args)
    print(json.dumps({"name": name, "code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}),
          flush=True)
"""
#: Hang guard per case (seconds, on top of the imports); each case takes well under 2 s of CPU on a quiet core.
GUARD = 30


def _run_batch(cases: dict[str, list[str]]) -> dict[str, dict]:
    """Each case's exit code and output, run one after the other in one fresh process; a case still running at the
    hang guard is missing from the result (its test fails naming it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLT_MAX_")}  # the default budgets
    try:
        done = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(cases)], capture_output=True, text=True,
                              timeout=GUARD * (len(cases) + 1), env=env)
        out = done.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            results[row["name"]] = row
    return results


@pytest.fixture(scope="module")
def results():
    """Every case of both kinds, run in one process."""
    return _run_batch({**LAW_CASES, **SYMBOLIC_CASES})


@pytest.fixture(scope="module")
def law_results(results):
    return {name: row for name, row in results.items() if name in LAW_CASES}


@pytest.fixture(scope="module")
def symbolic_results(results):
    return {name: row for name, row in results.items() if name in SYMBOLIC_CASES}


def _refused(row: dict | None, option: str, *fragments: str) -> str:
    assert row is not None, "no answer within the hang guard"
    assert row["code"] == 2, (row["code"], row["stderr"][-600:])
    lines = [line for line in row["stderr"].splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"flt: error: {option}"), row["stderr"][-600:]
    assert "internal error" not in row["stderr"] and "Traceback" not in row["stderr"]
    assert "plan:" not in row["stderr"], "refused before any plan"
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert len(lines[0]) < 2000, "the 4,000-digit number is not quoted whole"
    return lines[0]


def _answered(row: dict | None):
    assert row is not None, "no answer within the hang guard"
    assert row["code"] == 0, (row["code"], row["stderr"][-600:])
    return row["stdout"]


# -- failures 2, 3 (last) and 4 (first): numbers of a law and of --over/--fix/--where ----------------------------------

@pytest.mark.parametrize("name, literal", [("law-huge-literal", "'1e99999999'"), ("law-huge-exponent", "'1e9999999'"),
                                           ("law-tiny-exponent", "'1e-9999999'")])
def test_a_huge_number_in_a_law_is_refused_naming_it_and_the_bound(law_results, name, literal):
    _refused(law_results.get(name), "--law", literal, "out of range", "1e-308", "1.8e+308")


def test_an_infinite_constant_in_a_law_is_refused(law_results):
    _refused(law_results.get("law-infinite-constant"), "--law", "1e308*1e308*d", "infinite")


@pytest.mark.parametrize("name, option", [("over-4000-digits", "--over"), ("fix-4000-digits", "--fix"),
                                          ("over-1e400", "--over")])
def test_an_option_value_beyond_the_floating_point_range_is_refused_naming_the_option(law_results, name, option):
    _refused(law_results.get(name), option, "floating-point range", "1.8e+308")


def test_a_huge_level_of_where_is_refused_naming_it(law_results):
    _refused(law_results.get("where-huge-level"), "--where", "'1e99999999'", "out of range")


# -- failure 5: the slow symbolic inputs, answered or refused with their budget ----------------------------------------

def test_he64_of_a_sine_of_rank_4_is_answered_in_leap_staircase_limits_and_laws(symbolic_results):
    leap = json.loads(_answered(symbolic_results.get("he64-sin-leap")))
    assert (leap["leap_index"], leap["leap_complexity"], leap["rank"]) == (1, 1, 4)
    staircase = json.loads(_answered(symbolic_results.get("he64-sin-staircase")))
    assert staircase["rank"] == 4 and [s["dim"] for s in staircase["subspaces"]] == [1, 1, 1]
    assert staircase["subspaces"][0]["basis"][0] == pytest.approx([0.0, 0.6176212, 0.0, 0.7864757], abs=1e-6)
    limits = json.loads(_answered(symbolic_results.get("he64-sin-limits")))
    assert limits["learned_dim"] == 1
    assert limits["learned_basis"][0] == pytest.approx([0.0, 0.6176212, 0.0, 0.7864757], abs=1e-6)
    laws = json.loads(_answered(symbolic_results.get("he64-sin-laws")))
    assert laws[0]["name"] == "one-step threshold" and laws[0]["value"] == "d"


@pytest.mark.parametrize("name", ["he64-nested-staircase", "he64-nested-limits", "he64-nested-laws"])
def test_he64_nested_8_deep_is_refused_by_the_degree_budget(symbolic_results, name):
    _refused(symbolic_results.get(name), "TARGET", "He64", "4096", "FLT_MAX_DEGREE")


def test_a_product_of_17_pi_is_answered_in_laws(symbolic_results):
    laws = json.loads(_answered(symbolic_results.get("pi17-laws")))
    assert laws[0]["name"] == "one-step threshold" and laws[0]["value"] == "d"


@pytest.mark.parametrize("name", ["relu59-staircase", "relu59-laws"])
def test_a_59th_power_of_a_relu_under_tanh_is_refused_by_the_work_budget(symbolic_results, name):
    _refused(symbolic_results.get(name), "TARGET", "tanh at position 4", "1830 terms", "relu", "FLT_MAX_WORK")


def test_its_cube_is_answered(symbolic_results):
    staircase = json.loads(_answered(symbolic_results.get("relu3-staircase")))
    assert staircase["rank"] == 4 and len(staircase["subspaces"]) == 3
