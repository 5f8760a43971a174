"""Issue 23, items 3 and 4: hostile input through the ``flt`` command exits 2 with one line naming the option.

Each input below once ran for minutes (the auditor's: ``flt staircase 'He16(He16(z1))'`` 86 s and 1.1 GB,
``flt laws 'He16(He16(z1))'`` 134 s, ``flt limits '(z1+...+z8)**8' --kappa-n 8 --kappa-p 8`` 90 s,
``flt laws '((z+1)**16)**16'`` 24 s) or ended in an internal error (an OverflowError, JSON's refusal of inf),
or blamed the wrong option. Now each is refused before the work starts — by a budget of
:mod:`flt_theory.symbolic.budget` (naming its environment variable) or by the floating-point range of
:mod:`flt_theory.symbolic.integrability` — so this file stays fast; the timeout of the subprocess test is only a
safety net (speeds are recorded by ``benchmarks/bench_symbolic.py --issue23``), never a timing assertion.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.symbolic.budget import LIMITS

SUM8 = "+".join(f"z{k}" for k in range(1, 9))

#: (arguments, the option the one-line error names, a fragment of the message)
REFUSED = [
    # item 3: the auditor's inputs, refused before any expansion of their full size
    (["staircase", "He16(He16(z1))"], "TARGET", "floating-point range"),
    (["laws", "He16(He16(z1))"], "TARGET", "floating-point range"),
    (["limits", f"({SUM8})**8", "--kappa-n", "8", "--kappa-p", "8"], "TARGET", "FLT_MAX_"),
    (["laws", "((z+1)**16)**16"], "TARGET", "floating-point range"),
    (["staircase", "(z1+z2+z3+z4+z5+z6)**12"], "TARGET", "FLT_MAX_"),
    (["limits", "He4(z1+z2+z3+z4+z5+z6+z7)**3", "--kappa-n", "2", "--kappa-p", "2"], "TARGET", "FLT_MAX_"),
    # item 4: overflow is bad input
    (["staircase", "z1", "--d", "16", "--n", "64", "--eta", "1e308"], "--eta", "floating-point range"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--activation", "1e300*z"], "--activation", "floating-point range"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--activation", "1e150*z"], "--activation", "floating-point range"),
    (["hermite", "1e300*z"], "EXPR", "floating-point range"),
    (["hermite", "exp(64*z)"], "EXPR", "floating-point range"),
    (["laws", "z", "--activation", "1e300*z"], "--activation", "floating-point range"),
    (["limits", "1e300*z", "--kappa-n", "1", "--kappa-p", "1", "--json"], "TARGET", "floating-point range"),
    (["limits", "z1 + He2(z2)", "--kappa-n", "100", "--kappa-p", "1"], "--kappa-n", "exceeds 64"),
    (["limits", "z1 + He2(z2)", "--kappa-n", "1e300", "--kappa-p", "1"], "--kappa-n", "exceeds 64"),
    # nan and inf: "a finite real number", naming the option
    (["staircase", "z1", "--d", "16", "--n", "64", "--eta", "nan"], "--eta", "a finite real number"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--eta", "inf"], "--eta", "a finite real number"),
    (["limits", "z1", "--kappa-n", "nan", "--kappa-p", "1"], "--kappa-n", "a finite real number"),
    (["limits", "z1", "--kappa-n", "1", "--kappa-p", "inf"], "--kappa-p", "a finite real number"),
    (["staircase", "z1", "--d", "16", "--n", "64", "--p", str(10**24)], "--p", "at most 1e15"),
]


def _one_line_error(result, option: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert lines[0].startswith("flt: error: ") and option in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("args, option, fragment", REFUSED, ids=[" ".join(a)[:60] for a, _, _ in REFUSED])
def test_hostile_input_exits_2_with_one_line_naming_the_option(args, option, fragment):
    line = _one_line_error(CliRunner().invoke(cli, args), option)
    assert fragment in line, line
    if "FLT_MAX_" in fragment:  # a budget names the environment variable that raises it
        assert any(variable in line for variable, _, _ in LIMITS.values()), line


@pytest.mark.parametrize(
    "args, option",
    [(["verify", "1e300*z"], "TARGET"), (["verify", "z1", "--activation", "1e300*z", "--steps", "1"], "--activation")],
)
def test_verify_refuses_a_target_or_activation_out_of_range_naming_it(args, option):
    """The cause is fixed in the symbolic layer: the target's Hermite expansion and the parsed activation refuse a
    second moment beyond the floating-point range, before any simulation."""
    line = _one_line_error(CliRunner().invoke(cli, args), option)
    assert "floating-point range" in line


def test_parser_errors_quote_a_bounded_excerpt():
    long_target = "z1 + " * 790 + "open(z1)"  # 3,958 characters, within MAX_LENGTH
    line = _one_line_error(CliRunner().invoke(cli, ["leap", long_target]), "TARGET")
    assert "open" in line and len(line) < 600, len(line)
    emoji = "\U0001F600" * 3999  # repr() would quote ~40,000 characters
    line = _one_line_error(CliRunner().invoke(cli, ["hermite", emoji]), "EXPR")
    assert len(line) < 600, len(line)
    line = _one_line_error(CliRunner().invoke(cli, ["leap", "z" * 16_000]), "TARGET")  # beyond MAX_LENGTH
    assert len(line) < 600 and "16000 characters" in line, line


def test_hermite_to_degree_200_is_finite_not_an_overflow():
    """``flt hermite tanh --degree 200`` overflowed computing float(200!) (an internal error); sqrt(j!) is now
    computed in log space, so the coefficients and their (large, honest) error bounds are finite numbers."""
    result = CliRunner().invoke(cli, ["hermite", "tanh", "--degree", "200", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert len(document["coefficients"]) == 201 and abs(document["coefficients"][1] - 0.6057055096) < 1e-9


def test_the_auditors_slowest_input_is_refused_within_seconds_in_a_fresh_process():
    """Safety net only (a generous timeout, no timing assertion): the refusal comes before the expansion."""
    code = "from flt_theory.cli import main; raise SystemExit(main(['staircase', 'He16(He16(z1))']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "TARGET" in done.stderr and "Traceback" not in done.stderr
