"""The ``flt`` command: JSON contract, LaTeX fragments, one-line errors with exit code 2.

Expected values are computed by hand in the comments (probabilists' He_j, E[He_j He_k] = j! δ_jk),
not copied from the output.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from flt_theory._text import as_float
from flt_theory.cli import LAZY_COMMANDS, cli, main, system_commands
from flt_theory.errors import UnsupportedError
from flt_theory.systems.giant_step.commands import TOUR_TARGET

FIVE = TOUR_TARGET  # z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3 + He2(z2)*He2(z3)
INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def run_ok(runner: CliRunner, *args: str) -> str:
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    assert result.stderr == ""
    return result.stdout


def run_json(runner: CliRunner, *args: str):
    return json.loads(run_ok(runner, *args, "--json"))  # fails unless stdout is exactly one JSON document


def orthonormal(basis) -> bool:
    b = np.asarray(basis, dtype=float)
    return b.size == 0 or np.allclose(b @ b.T, np.eye(len(b)), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# flt hermite


def test_hermite_relu_json(runner):
    # mu_j = E[relu(z) He_j(z)]: mu_0 = E[z; z>0] = 1/sqrt(2pi), mu_1 = E[z^2; z>0] = 1/2,
    # mu_2 = E[z^3 - z; z>0] = (2 - 1)/sqrt(2pi), mu_3 = E[z^4 - 3z^2; z>0] = 3/2 - 3/2 = 0,
    # mu_4 = E[z^5 - 6z^3 + 3z; z>0] = (8 - 12 + 3)/sqrt(2pi).
    doc = run_json(runner, "hermite", "relu", "--degree", "4")
    expected = [INV_SQRT_2PI, 0.5, INV_SQRT_2PI, 0.0, -INV_SQRT_2PI]
    assert doc["coefficients"] == pytest.approx(expected, abs=1e-12)
    assert doc["coefficients"][0] == pytest.approx(0.39894, abs=1e-5)
    assert doc["exact"] == ["sqrt(2)/(2*sqrt(pi))", "1/2", "sqrt(2)/(2*sqrt(pi))", "0", "-sqrt(2)/(2*sqrt(pi))"]
    assert doc["method"] == "exact" and doc["accuracy"] == 0.0
    assert all(math.copysign(1.0, c) > 0 for c in doc["coefficients"] if c == 0)  # no -0.0


def test_hermite_default_degree_and_polynomial(runner):
    # z^3 = He_3 + 3 He_1, so mu_1 = 3 * 1! = 3, mu_3 = 1 * 3! = 6, others 0; default degree 6.
    doc = run_json(runner, "hermite", "z**3")
    assert doc["coefficients"] == [0.0, 3.0, 0.0, 6.0, 0.0, 0.0, 0.0]


def test_hermite_quadrature_reports_method_and_accuracy(runner):
    doc = run_json(runner, "hermite", "tanh(z)", "--degree", "3")
    assert doc["method"] == "gauss-hermite"
    assert doc["exact"] == [None] * 4
    assert 0 <= doc["accuracy"] < 1e-10
    assert doc["coefficients"][1] == pytest.approx(0.6057055, abs=1e-6)  # E[tanh'(z)] (Stein)
    assert abs(doc["coefficients"][0]) < 1e-12  # odd function


def test_hermite_text_and_latex(runner):
    text = run_ok(runner, "hermite", "relu", "--degree", "2")
    assert "sqrt(2)/(2*sqrt(pi))" in text and "0.3989422804" in text and "method: exact" in text
    latex = run_ok(runner, "hermite", "relu(z)**2", "--degree", "2", "--latex")
    # mu_1 = E[z^3; z>0] = 2/sqrt(2pi) = sqrt(2)/sqrt(pi), mu_2 = E[z^4 - z^2; z>0] = (3 - 1)/2 = 1
    assert r"\operatorname{ReLU}" in latex
    assert r"\mu_{0} &= \frac{1}{2}" in latex
    assert r"\mu_{1} &= \frac{\sqrt{2}}{\sqrt{\pi}}" in latex
    assert r"\mu_{2} &= 1" in latex
    assert latex.lstrip("%").count(r"\begin{aligned}") == 1


# ---------------------------------------------------------------------------------------------
# flt leap


@pytest.mark.parametrize(
    "args, expected",
    [
        # C_1 = (1, 0) != 0 -> leap index 1; r = 2 -> no information exponent;
        # order z1 (cost 1) then He2(z2) (z2 untouched, cost 2) -> leap complexity 2.
        (["z1 + He2(z2)"], (1, None, 2)),
        # single index: first nonzero mu_j is j = 3.
        (["He3(z)"], (3, 3, 3)),
        # lowest Hermite order 2 (He2(z1)); any ordering pays 3 for He3(z2) -> leap 3.
        (["He2(z1) + He3(z2)"], (2, None, 3)),
        # z1 (cost 1), z1*z2 (1), z1*z2*z3 (1) -> 1; without the middle term z1*z2*z3 costs 2.
        (["z1 + z1*z2 + z1*z2*z3"], (1, None, 1)),
        (["z1 + z1*z2*z3"], (1, None, 2)),
        # example (a): z1 + He2(z1) + z2 - He2(z2): z1, z2 cost 1 each, the He2 terms are then free.
        (["--links", "z + He2(z); z - He2(z)"], (1, None, 1)),
    ],
)
def test_leap_json(runner, args, expected):
    doc = run_json(runner, "leap", *args)
    assert (doc["leap_index"], doc["information_exponent"], doc["leap_complexity"]) == expected


def test_leap_text_and_latex(runner):
    text = run_ok(runner, "leap", "z1 + He2(z2)")
    assert "leap index            1" in text and "leap complexity       2" in text
    latex = run_ok(runner, "leap", "z1 + He2(z2)", "--latex")
    assert r"\ell = 1" in latex and r"\mathrm{Leap}(f^*) = 2" in latex
    assert r"z_{1} + \mathrm{He}_{2}(z_{2})" in latex and "k^*" not in latex
    assert r"k^* = 3" in run_ok(runner, "leap", "He3(z)", "--latex")


# ---------------------------------------------------------------------------------------------
# flt staircase


def test_staircase_example_a(runner):
    # g = z1 + He2(z1) + z2 - He2(z2): U_1 = span E[grad g] = span(1, 1); conditioning on
    # x = s (1,1)/sqrt2 with u along (1,-1)/sqrt2 gives g = sqrt2 s + 2 s u, E_u[dg/du] = 2 s != 0,
    # so U_2 = R^2 and U_3 = U_2.
    doc = run_json(runner, "staircase", "--links", "z + He2(z); z - He2(z)")
    subspaces = doc["subspaces"]
    assert [u["step"] for u in subspaces] == [1, 2, 3]
    assert [u["dim"] for u in subspaces] == [1, 2, 2]
    (v,) = subspaces[0]["basis"]
    assert np.abs(v) == pytest.approx([0.7071068, 0.7071068], abs=1e-6) and v[0] * v[1] > 0
    assert all(orthonormal(u["basis"]) and len(u["basis"]) == u["dim"] for u in subspaces)
    assert doc["rank"] == 2


@pytest.mark.parametrize(
    "args, dims",
    [
        (["--links", "z + He2(z); z + He2(z)"], [1, 1, 1]),  # (b): E_u[d/du (s^2 + u^2)] = 0, stuck
        (["z1 + z1*z2 + z1*z3"], [1, 2, 2]),  # (c): mu = (s, s) adds w2 + w3 only
        (["z1 + z1*z2 + He3(z1)*z3"], [1, 3, 3]),  # (d): mu = (s, He3(s)) independent
        ([FIVE], [1, 2, 3]),  # U_2 from He2(z1)*z2, U_3 from He4(z1)*He2(z2)*z3
    ],
)
def test_staircase_examples(runner, args, dims):
    doc = run_json(runner, "staircase", *args)
    assert [u["dim"] for u in doc["subspaces"]] == dims
    assert all(orthonormal(u["basis"]) for u in doc["subspaces"])


def test_staircase_example_c_direction_and_steps(runner):
    doc = run_json(runner, "staircase", "z1 + z1*z2 + z1*z3", "--steps", "2")
    assert len(doc["subspaces"]) == 2
    basis = np.asarray(doc["subspaces"][1]["basis"])
    projector = basis.T @ basis
    for v in ([1, 0, 0], [0, 1 / math.sqrt(2), 1 / math.sqrt(2)]):
        assert projector @ np.asarray(v) == pytest.approx(v, abs=1e-12)


def test_staircase_text_and_latex(runner):
    text = run_ok(runner, "staircase", "--links", "z + He2(z); z - He2(z)")
    assert "span{w1 + w2}" in text and "[0.7071, 0.7071]" in text
    latex = run_ok(runner, "staircase", "--links", "z + He2(z); z - He2(z)", "--latex")
    assert r"U_{1} &= \mathrm{span}\{w^*_{1} + w^*_{2}\}" in latex
    assert r"U_{2} &= \mathrm{span}\{w^*_{1}, w^*_{2}\}" in latex


# ---------------------------------------------------------------------------------------------
# flt limits


# ||f*||^2 = 1 + 2! + 2!*1 + 4!*2!*1 + 2!*2! = 1 + 2 + 2 + 48 + 4 = 57. One step learns span(w1) at
# kappa_n = 1 (C_1 = e1) and span(w1, w2) at kappa_n = 2 (C_2 adds He2(z2) and He2(z1)*z2's e2).
# P_{U,<=kappa} keeps the terms of degree <= kappa in the coordinates orthogonal to U.
@pytest.mark.parametrize(
    "kappa_n, kappa_p, dim, fitted, residual",
    [
        (1, 0, 1, "z1", 56),
        (1, 1, 1, "z1 + He2(z1)*z2", 57 - 1 - 2),
        (2, 0, 2, "z1 + He2(z2) + He2(z1)*z2", 57 - 1 - 2 - 2),
        (2, 1, 2, "z1 + He2(z2) + He2(z1)*z2 + He4(z1)*He2(z2)*z3", 4),  # only He2(z2)*He2(z3) is lost
        (2, 2, 2, "z1 + He2(z2) + He2(z1)*z2 + He2(z2)*He2(z3) + He4(z1)*He2(z2)*z3", 0),
    ],
)
def test_limits_five_regimes(runner, kappa_n, kappa_p, dim, fitted, residual):
    doc = run_json(runner, "limits", FIVE, "--kappa-n", str(kappa_n), "--kappa-p", str(kappa_p))
    assert doc["learned_dim"] == dim
    assert doc["kappa"] == min(kappa_n, kappa_p)
    assert doc["fitted"] == fitted
    assert doc["residual_norm2"] == pytest.approx(residual) and doc["norm2"] == pytest.approx(57)
    assert np.asarray(doc["learned_basis"]) == pytest.approx(np.eye(3)[:dim])


def test_limits_fractional_kappa_and_staircase(runner):
    # kappa = min(2, 1.5) keeps degrees <= floor(1.5) = 1: same as (2, 1).
    doc = run_json(runner, "limits", FIVE, "--kappa-n", "2", "--kappa-p", "1.5")
    assert doc["kappa"] == 1.5 and doc["residual_norm2"] == pytest.approx(4)
    # three steps at n = O(d) learn U_3 = R^3: nothing is orthogonal to U, so the residual is 0.
    doc = run_json(runner, "limits", FIVE, "--kappa-n", "1", "--kappa-p", "1", "--steps", "3")
    assert doc["learned_dim"] == 3 and doc["residual_norm2"] == 0.0 and doc["steps"] == 3


def test_limits_text_and_latex(runner):
    text = run_ok(runner, "limits", FIVE, "--kappa-n", "2", "--kappa-p", "1")
    assert "span{w1, w2}" in text and "= 4   (of ||f*||^2 = 57)" in text
    latex = run_ok(runner, "limits", FIVE, "--kappa-n", "2", "--kappa-p", "1", "--latex")
    assert r"U &= \mathrm{span}\{w^*_{1}, w^*_{2}\}" in latex
    assert r"\kappa = \min(\kappa_n, \kappa_p) = 1" in latex
    assert r"\mathrm{He}_{4}(z_{1})\, \mathrm{He}_{2}(z_{2})\, z_{3}" in latex
    assert r"\|P_{U,>\kappa} f^*\|_\gamma^2 &= 4" in latex and r"\|f^*\|_\gamma^2 = 57" in latex


# ---------------------------------------------------------------------------------------------
# flt laws


def test_laws_json_text_latex(runner):
    laws = run_json(runner, "laws", "He2(z)")
    assert isinstance(laws, list) and {"name", "latex", "status", "source"} <= set(laws[0])
    by_name = {law["name"]: law for law in laws}
    assert by_name["one-step threshold"]["latex"] == r"n^{*} \asymp d^{2} \quad (\ell = 2)"  # leap index 2
    assert by_name["one-step threshold"]["exponents"] == {"d": "2"}
    assert by_name["staircase U_1"]["status"] == "conjecture"
    text = run_ok(runner, "laws", "He2(z)")
    assert "one-step threshold" in text and "theorem" in text and r"n^{*} \asymp d^{2}" in text
    document = run_ok(runner, "laws", "He2(z)", "--latex")
    assert document.startswith(r"\documentclass") and document.rstrip().endswith(r"\end{document}")
    assert r"n^{*} \asymp d^{2}" in document
    assert "``" in document and '"' not in document  # titles in LaTeX quotes (a straight " prints as a closing one)


def test_laws_activation_changes_student_coefficient(runner):
    # tanh is odd: mu_2(tanh) = 0, so c_sigma = 0 at leap index 2 and a vanishing-coefficient law appears.
    names = [law["name"] for law in run_json(runner, "laws", "He2(z)", "--activation", "tanh")]
    assert "vanishing student coefficient" in names
    assert "vanishing student coefficient" not in [law["name"] for law in run_json(runner, "laws", "He2(z)")]


# ---------------------------------------------------------------------------------------------
# flt tour


def test_tour_text(runner):
    text = run_ok(runner, "tour")
    assert "z1 + He2(z1) + z2 - He2(z2)" in text and "span{w1, w2 + w3}" in text
    assert FIVE in text and "||f*||^2 = 57" in text
    row = r"^\s+2\s+1\s+span\{w1, w2\}\s+z1 \+ He2\(z2\) \+ He2\(z1\)\*z2 \+ He4\(z1\)\*He2\(z2\)\*z3\s+4$"
    assert re.search(row, text, re.MULTILINE), text


def test_tour_json(runner):
    doc = run_json(runner, "tour")
    dims = {s["example"]: [u["dim"] for u in s["subspaces"]] for s in doc["staircases"]}
    assert dims == {"(a)": [1, 2, 2], "(b)": [1, 1, 1], "(c)": [1, 2, 2], "(d)": [1, 3, 3]}
    rows = doc["regimes"]["rows"]
    assert [(r["kappa_n"], r["kappa_p"]) for r in rows] == [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]
    assert [r["residual_norm2"] for r in rows] == [56, 54, 52, 4, 0]
    assert doc["regimes"]["norm2"] == 57


# ---------------------------------------------------------------------------------------------
# errors: exit 2, exactly one line on stderr naming the argument, no traceback


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["leap", "foo"], "TARGET: unknown name 'foo' at position 0"),
        (["leap", "__import__('os')"], "TARGET:"),
        (["staircase", "z1.__class__"], "TARGET: unexpected character '.'"),
        (["limits", "lambda: 0", "--kappa-n", "1", "--kappa-p", "1"], "TARGET:"),
        (["leap", "z**99999"], "99999"),
        (["leap", ""], "TARGET: empty expression"),
        (["leap", "3"], "TARGET: "),
        (["staircase", "(z1+z2+z3+z4+z5+z6)**64"], "TARGET: polynomial of degree up to 64"),
        (["hermite", "relu", "--degree", "-1"], "'--degree'"),
        (["hermite", "z1"], "EXPR: unknown variable 'z1'"),
        (["hermite", "exp(exp(z))"], "EXPR:"),
        (["hermite"], "Missing argument 'EXPR'"),
        (["limits", "z1", "--kappa-n", "-1", "--kappa-p", "1"], "'--kappa-n'"),
        (["limits", "z1", "--kappa-n", "1", "--kappa-p", "nan"], "'--kappa-p'"),
        (["limits", "z1", "--kappa-p", "1"], "'--kappa-n'"),
        (["limits", "z1", "--kappa-n", "2", "--kappa-p", "1", "--steps", "2"], "--kappa-n: --steps 2"),
        (["staircase", "z1", "--steps", "0"], "'--steps'"),
        (["staircase", "z1", "--json", "--latex"], "--json and --latex"),
        (["staircase"], "TARGET"),
        (["staircase", "z1", "--links", "z; z"], "either TARGET or --links"),
        (["leap", "--links", "z;;z"], "--links: empty link"),
        (["leap", "--links", "relu; z2"], "--links: unknown variable 'z2'"),
        (["laws", "z1", "--activation", "foo"], "--activation: unknown name 'foo'"),
        (["frobnicate"], "No such command"),
        (["leap", "z1", "--bogus"], "No such option"),
    ],
)
def test_errors_are_one_line_exit_2(runner, args, fragment):
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, (args, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("flt: error: "), result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args,param", [
    (["check", "giant-step/nope"], "PATHS"),  # flt check had an InputError class of its own (issue 39)
    (["sweep", "giant-step/norm-growth", "-p", "kappa"], "--param"),
    (["verify"], "TARGET"),
    (["limits", "z1", "--kappa-n", "2", "--kappa-p", "0", "--steps", "2"], "--kappa-n"),
])
def test_one_input_error_handled_one_way(runner, args, param):
    """Every command raises the one :class:`~flt_theory.commands.base.InputError`, printed one way: ``flt: error:
    PARAM: message``, naming its parameter, without click's pointer to ``--help`` (which its usage errors keep)."""
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith(f"flt: error: {param}: ") and "--help')" not in result.stderr, result.stderr
    usage = runner.invoke(cli, ["staircase", "z1", "--d", "3"])
    assert usage.exit_code == 2 and usage.stderr.rstrip().endswith("(see 'flt staircase --help')")


def test_every_command_lives_under_commands():
    """Every command ``flt`` loads, the systems' included, is a click command of :mod:`flt_theory.commands`; a system
    only declares its commands (its ``commands.py`` imports nothing: no arrow from the systems up to the commands)."""
    table = {**LAZY_COMMANDS, **system_commands()}
    assert {"staircase", "limits", "laws", "tour", "claims", "check", "verify"} <= set(table)
    assert all(target.startswith("flt_theory.commands.") for target, _ in table.values()), table
    import ast

    declared = Path(__file__).resolve().parent.parent / "flt_theory" / "systems" / "giant_step" / "commands.py"
    tree = ast.parse(declared.read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and n.module != "__future__"]


def test_internal_error_is_one_line_exit_1(runner, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    import flt_theory.symbolic

    monkeypatch.setattr(flt_theory.symbolic, "leap_index", broken)  # read by flt leap when it runs
    monkeypatch.delenv("FLT_DEBUG", raising=False)
    result = runner.invoke(cli, ["leap", "z1"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "flt: internal error: RuntimeError: boom second line (set FLT_DEBUG=1 for the traceback and please report it)"
    ]


def test_help_version_and_main(runner, capsys):
    assert "flt tour" in run_ok(runner)  # no command: the group's help
    assert "--kappa-n" in run_ok(runner, "limits", "--help")
    assert "0.1.0" in run_ok(runner, "--version")
    assert main(["leap", "z1 + He2(z2)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["leap_complexity"] == 2
    assert main(["leap", "foo"]) == 2
    assert capsys.readouterr().err.startswith("flt: error: TARGET:")


def test_version_is_the_installed_distribution_s():
    """``flt --version`` prints ``flt_theory.__version__`` (read without importlib.metadata, for start-up time): it
    must be the version of the installed distribution."""
    from importlib.metadata import version

    assert CliRunner().invoke(cli, ["--version"]).output == f"flt, version {version('flt-theory')}\n"


def test_float_normalises_negative_zero():
    assert math.copysign(1.0, as_float(-0.0)) == 1.0


def test_console_script_subprocess():
    ok = subprocess.run(
        [sys.executable, "-m", "flt_theory.cli", "leap", "z1 + He2(z2)", "--json"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    document = json.loads(ok.stdout)
    assert {k: document[k] for k in ("leap_index", "information_exponent", "leap_complexity", "rank",
                                     "generative_exponent", "generative_exponent_method")} == {
        "leap_index": 1, "information_exponent": None, "leap_complexity": 2, "rank": 2, "generative_exponent": None,
        "generative_exponent_method": "refused"}
    assert "single-index" in document["generative_exponent_reason"]
    bad = subprocess.run(
        [sys.executable, "-m", "flt_theory.cli", "leap", "__import__('os').system('true')"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr


def test_leap_json_has_the_generative_exponent(runner):
    """Damian et al. 2024: for a polynomial link, 1 when it is not even, 2 when even and non-constant (He4 has
    information exponent 4 but generative exponent 2); |z|/2 written as relu(z) - z/2 is even (2, not 1); null with
    the reason for multi-index targets; the old keys are unchanged."""
    he4 = run_json(runner, "leap", "He4(z)")
    assert {k: he4[k] for k in ("leap_index", "information_exponent", "leap_complexity", "rank", "generative_exponent",
                                "generative_exponent_method")} == {
        "leap_index": 4, "information_exponent": 4, "leap_complexity": 4, "rank": 1, "generative_exponent": 2,
        "generative_exponent_method": "exact"}
    assert run_json(runner, "leap", "He3(z)")["generative_exponent"] == 1
    assert run_json(runner, "leap", "relu(z) - z/2")["generative_exponent"] == 2
    multi = run_json(runner, "leap", "z1 + He2(z2)")
    assert multi["generative_exponent"] is None and multi["generative_exponent_reason"]


def test_lazy_commands_declare_their_own_short_help():
    """Every command loaded on first use (``LAZY_COMMANDS`` and the systems' ``commands.py`` tables) names a command
    whose name and short help are the stored ones, so ``flt --help`` lists them without importing them; naming one
    loads it."""
    import importlib

    table = {**LAZY_COMMANDS, **system_commands()}
    assert {"hermite", "leap", "simulate", "check", "staircase", "limits", "laws", "tour", "verify"} <= set(table)
    for name, (target, short_help) in table.items():
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert (command.name, command.short_help) == (name, short_help)
    listed = " ".join(CliRunner().invoke(cli, ["--help"]).output.split())
    assert all(f"{name} {' '.join(short_help.split())}" in listed for name, (_, short_help) in table.items())
    result = CliRunner().invoke(cli, ["check", "--help"])
    assert result.exit_code == 0 and "--scale" in result.output


#: Modules that ``flt --version``, ``flt --help`` and ``import flt_theory`` must not import (issues 24, 28 item 4).
HEAVY = ("sympy", "numpy", "torch", "scipy", "pandas", "matplotlib")
#: What ``flt leap`` (sympy only) must not import: the numeric libraries, and the symbolic modules it does not use.
NOT_FOR_LEAP = (*HEAVY[1:], "flt_theory.symbolic.law", "flt_theory.symbolic.projections")


def fresh_flt(args: list[str], modules: tuple[str, ...]) -> str:
    """``"CODE [names]"``: the exit code of ``flt ARGS`` run in a fresh process and which of ``modules`` it imported
    (asserting first that ``import flt_theory.cli`` registers only the eager commands)."""
    code = ("import sys\nfrom flt_theory.cli import _EAGER, cli, main\nassert sorted(cli.commands) == list(_EAGER)\n"
            f"code = main({args!r})\n"
            f"print(code, sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    result = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 0 and (done.stdout or not result.startswith("0 ")), done.stderr  # a success prints
    return result


#: Runs each case of ``sys.argv[1]`` (a JSON list of argument lists) as ``flt ARGS`` in its own child, forked from one
#: process that has only imported ``flt_theory.cli`` (what a fresh ``flt`` process has imported when ``main`` starts),
#: and prints ``"CODE [names]"`` per case: its exit code and which of ``sys.argv[2]`` (JSON) the child imported.
_FORKED_FLT = """
import json, os, sys
from flt_theory.cli import _EAGER, cli, main
assert sorted(cli.commands) == list(_EAGER)
modules = json.loads(sys.argv[2])
for args in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            code = main(args)
            line = f"{code} {sorted(m for m in modules if m in sys.modules)}"
        except BaseException as exc:
            line = f"raised {exc!r}"
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(write, line.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        line = pipe.read()
    os.waitpid(pid, 0)
    print(json.dumps(line), flush=True)
"""


def fresh_flt_each(cases: list[list[str]], modules: tuple[str, ...]) -> list[str]:
    """``"CODE [names]"`` per case, as :func:`fresh_flt` gives it, each case run in a process of its own that has
    imported nothing but ``flt_theory.cli`` (a fork of one that did; the start-up is paid once). As in
    :func:`fresh_flt`, a case that exits 0 must have printed something (a child writes its output before its result
    line); no case can wait on standard input."""
    done = subprocess.run([sys.executable, "-c", _FORKED_FLT, json.dumps(cases), json.dumps(list(modules))],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    results, printed = [], False
    for line in done.stdout.splitlines():
        if line.startswith('"'):
            results.append(json.loads(line))
            assert printed or not results[-1].startswith("0 "), (cases[len(results) - 1], "exit 0, printed nothing")
            printed = False
        elif line.strip():
            printed = True
    assert len(results) == len(cases), (done.stdout, done.stderr)
    return results


@pytest.fixture(scope="module")
def leap_imports():
    """``fresh_flt(["leap", "z1"], HEAVY)``: the control of the light commands, run once."""
    return fresh_flt(["leap", "z1"], HEAVY)


@pytest.mark.parametrize("args", [["--version"], ["--help"], []], ids=["version", "help", "no-command"])
def test_version_and_help_import_nothing_heavy(args, leap_imports):
    """``flt --version`` and ``flt --help`` (and the bare ``flt``, which prints the help) run in a fresh process
    without importing sympy, numpy, torch, scipy, pandas or matplotlib; the control is ``flt leap``, which must."""
    assert fresh_flt(args, HEAVY) == "0 []"
    assert "'sympy'" in leap_imports


def test_leap_imports_sympy_only():
    """``flt leap TARGET --json`` (the start-up benchmark's command) runs in a fresh process without importing numpy,
    torch, scipy, pandas or matplotlib, or the laws and projections of the symbolic layer (numpy is
    imported where it is used, the package's names on first use); the control is ``flt hermite "tanh(z)"``, whose
    Gauss-Hermite quadrature must import numpy."""
    assert fresh_flt(["leap", "z1 + He2(z2)", "--json"], NOT_FOR_LEAP) == "0 []"
    assert "'numpy'" in fresh_flt(["hermite", "tanh(z)", "--json"], NOT_FOR_LEAP)


def test_a_system_command_name_taken_twice_is_refused(tmp_path):
    """Two systems' ``commands.py`` (or a system and a built-in command) may not declare the same name."""
    for folder, names in (("a", ("mine",)), ("b", ("leap",)), ("c", ("mine",))):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "commands.py").write_text(
            "COMMANDS = {" + ", ".join(f"{n!r}: ('cmd', 'help')" for n in names) + "}\n", encoding="utf-8")
    with pytest.raises(UnsupportedError, match=r"systems\.b\.commands: the command name 'leap' is already taken"):
        system_commands(tmp_path)
    (tmp_path / "b" / "commands.py").unlink()
    with pytest.raises(UnsupportedError, match=r"systems\.c\.commands: the command name 'mine' is already taken by "
                                               r"flt_theory\.commands\.a:cmd"):
        system_commands(tmp_path)
    (tmp_path / "c" / "commands.py").unlink()
    system_commands.cache_clear()
    assert system_commands(tmp_path) == {"mine": ("flt_theory.commands.a:cmd", "help")}


def test_the_scales_restated_for_the_options_are_the_declared_ones():
    """``flt check --scale`` and ``flt calibrate --scale`` are parsed before the systems are imported, from the scales
    restated in :mod:`flt_theory.commands.base`."""
    from flt_theory.commands.base import SCALES
    from flt_theory.systems.declaration import SCALES as DECLARED

    assert SCALES == DECLARED


def test_conflicting_over_and_fix_are_refused(runner):
    """Issue 38 failure 4: ``--over X=...`` with ``--fix X=...`` was accepted silently (the grid's values won)."""
    result = runner.invoke(cli, ["verify", "--system", "giant-step", "--law", "norm_growth ~ d", "--over",
                                 "d=64,128", "--fix", "n=64", "--fix", "d=32"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["flt: error: --fix: d is given both by --over (d=64,128) and by --fix "
                                          "(d=32); vary it with --over or hold it with --fix, not both"]


def _bad_options(folder: Path) -> list[list[str]]:
    """A bad option or argument for every command: each is refused with exit code 2 from the options alone."""
    store = folder / "s.sqlite"
    store.write_bytes(b"SQLite format 3\x00")
    law = ["verify", "--system", "giant-step", "--law", "norm_growth ~ d"]
    return [
        ["simulate", "attention", "--n", "1e9"],  # issue 38 failure 6: 28 s under load, torch imported to say it
        ["simulate", "attention", "--n", "4", "--mu-norm", "0"],  # refused by the declared Param (mu_norm > 0)
        ["simulate", "giant-step", "z1", "--d", "x"],
        ["simulate", "contrastive", "--no-such-option", "1"],
        [*law, "--over", "d=64,128", "--fix", "d=64"],  # --over and --fix of one parameter
        [*law, "--over", "d=64,x"],
        ["verify", "z1", "--budget", "0"],
        ["verify", "z1", "--latex", str(store)],  # an unrelated file
        ["check", "--alpha", "2"],
        ["check", "giant-step/rank-one-update", "--store", str(store), "--latex", str(store)],  # issue 38 failure 1
        ["calibrate", "--repeats", "0"],
        ["calibrate", "--record", str(folder)],  # a folder for a file
        ["sweep", "giant-step/spike", "--seeds", "0"],
        ["sweep", "giant-step/spike", "-p", "no-equals-sign"],
        ["staircase", "z1", "--steps", "0"],
        ["staircase", "z1", "--d", "64"],  # --d without --n
        ["limits", "z1", "--kappa-n", "2", "--kappa-p", "1", "--steps", "2"],
        ["laws", "z1", "--json", "--latex"],
        ["hermite", "z", "--degree", "500"],
        ["leap", "z1", "--json", "--latex"],
        ["claims", "--json", "--markdown"],
    ]


def test_bad_options_are_refused_before_torch_or_sympy_is_imported(tmp_path, monkeypatch):
    """Issue 38 failure 6: every command parses and checks its options before it imports torch, sympy, numpy,
    scipy, pandas or matplotlib; ``flt simulate SYSTEM`` from the options the first run kept
    (:mod:`flt_theory.commands.declared`; kept here first, in this process). Each command runs in a process of its
    own, forked from one that imported only ``flt_theory.cli`` (:func:`fresh_flt_each`)."""
    from flt_theory.commands.declared import cached_entries, source_fingerprint, store_entries
    from flt_theory.systems import discover

    monkeypatch.setenv("FLT_CACHE_DIR", str(tmp_path / "cache"))
    fingerprint = source_fingerprint()
    store_entries(discover(), fingerprint=fingerprint)
    assert {"attention", "giant-step", "contrastive"} <= set(cached_entries(fingerprint))
    cases = _bad_options(tmp_path)
    for args, result in zip(cases, fresh_flt_each(cases, HEAVY)):
        assert result == "2 []", (args, result)
    leap, version = fresh_flt_each([["leap", "z1"], ["--version"]], HEAVY)  # the check can fail, case by case
    assert "'sympy'" in leap and version == "0 []"


def test_a_bad_option_with_nothing_kept_is_refused_the_same_way(tmp_path, monkeypatch):
    """The first ``flt simulate`` run (nothing kept, or code edited since) imports the systems, refuses the option with
    the same line and keeps the declarations; the next run refuses it without importing torch."""
    monkeypatch.setenv("FLT_CACHE_DIR", str(tmp_path / "cache"))
    expected = ("flt: error: --mu-norm: The 'mu_norm' parameter must be a finite real number > 0 and <= 1e+100. Got "
                "0.0 instead.")
    args = ["simulate", "attention", "--n", "4", "--mu-norm", "0"]
    code = ("import sys\nfrom flt_theory.cli import main\n"
            f"code = main({args!r})\nprint(code, 'torch' in sys.modules, file=sys.stderr)")
    for torch_imported in ("True", "False"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stderr.splitlines() == [expected, f"2 {torch_imported}"], done.stderr
        assert len(list((tmp_path / "cache").glob("simulate-options-*.json"))) == 1


def test_verify_jobs_reach_the_law_and_are_refused_for_a_target(runner, monkeypatch):
    """``flt verify --system ... --jobs N`` hands N workers to :func:`verify_law` (it had no ``--jobs``: only the
    Python API took them); with TARGET the option is refused, naming it."""
    import flt_theory.laws_check.verify as law_verify
    from flt_theory.errors import InvalidParameterError

    seen = {}

    def fake_verify_law(system, law, **kwargs):
        seen.update(kwargs)
        raise InvalidParameterError("--over: stop here")

    monkeypatch.setattr(law_verify, "verify_law", fake_verify_law)
    result = runner.invoke(cli, ["verify", "--system", "giant-step", "--law", "norm_growth ~ d", "--jobs", "3"])
    assert result.exit_code == 2 and seen["jobs"] == 3
    for jobs in ("2", "1"):  # given at all, even at its default value
        result = runner.invoke(cli, ["verify", "z1", "--jobs", jobs])
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.strip() == "flt: error: --jobs: applies to --system SYSTEM --law 'OBS ~ EXPR' only"
