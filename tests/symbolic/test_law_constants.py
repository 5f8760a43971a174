"""Issue 23, item 6: a law's machine form can be evaluated. ``flt laws TARGET --json`` gives each law's
``expression``, the values of its named ``constants`` and the remaining ``variables``; substituting the constants
gives what the LaTeX shows."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from click.testing import CliRunner

from flt_theory.cli import cli
from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic.law import THIS_PROJECT, Law


def _laws(target: str, *options: str) -> list[dict]:
    result = CliRunner().invoke(cli, ["laws", target, "--json", *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "target, activation, separable",
    [
        ("He3(z1) + z1*z2", "relu", False),
        ("z1 + He2(z2)", "tanh", True),
        ("He2(z)", "relu", True),
        ("z1*z2", "relu", False),
    ],
)
def test_every_expression_evaluates_with_its_constants(target, activation, separable):
    """Where the target is a sum of one-variable links, mu*_{k,l} is known per direction k (a constant);
    otherwise it is not defined by the target alone and stays a variable."""
    laws = _laws(target, "--activation", activation)
    student = next(law for law in laws if law["name"] == "student coefficient")
    for law in laws:
        if law["expression"] is None:
            assert law["constants"] == {} and law["variables"] == []
            continue
        expression = sp.sympify(law["expression"])  # our own JSON, not user text
        names = {s.name for s in expression.free_symbols}
        assert set(law["constants"]) | set(law["variables"]) == names, law["name"]
        assert not set(law["constants"]) & set(law["variables"])
        lengths = [len(v) for v in law["constants"].values() if isinstance(v, list)]
        for direction in range(1, max(lengths, default=1) + 1):
            subs = {}
            for s in expression.free_symbols:
                value = law["constants"].get(s.name)
                if isinstance(value, list):
                    value = value[direction - 1]
                if value is not None:
                    subs[s] = sp.sympify(value)
            evaluated = expression.xreplace(subs)
            assert {s.name for s in evaluated.free_symbols} <= set(law["variables"]), law["name"]
    overlap = next(law for law in laws if law["name"] == "overlap law")
    assert {"a_i", "eta", "p"} <= set(overlap["variables"]) <= {"a_i", "eta", "p", "overlap0", "mu_star"}
    assert ("mu_star" in overlap["constants"]) is separable
    # the constant is the number the student-coefficient law states and the overlap law's LaTeX shows
    assert sp.simplify(sp.sympify(overlap["constants"]["c_sigma"]) - sp.sympify(student["expression"])) == 0
    c_sigma = sp.sympify(overlap["constants"]["c_sigma"])
    shown = f"{float(c_sigma):.4g}" if isinstance(c_sigma, sp.Float) else sp.latex(c_sigma)  # LaTeX rounds floats
    assert shown in overlap["latex"], (shown, overlap["latex"])


def test_indexed_constant_per_teacher_direction():
    overlap = next(law for law in _laws("He3(z1) + 2*He3(z2)") if law["name"] == "overlap law")
    # l = 3 (no lower Hermite order), mu*_{k,3} = 3! times the coefficient of He3: (6, 12)
    assert [sp.sympify(v) for v in overlap["constants"]["mu_star"]] == [6, 12]


def test_a_constant_must_be_a_symbol_of_the_value():
    c, x = sp.symbols("c x")
    with pytest.raises(InvalidParameterError, match="not symbols of its value"):
        Law(name="t", lhs="y", relation="approx", value=c * x, source=THIS_PROJECT, constants={"b": 1})
    law = Law(name="t", lhs="y", relation="approx", value=c * x, source=THIS_PROJECT, constants={"c": (2, 3)})
    assert law.to_dict()["constants"] == {"c": ["2", "3"]} and law.to_dict()["variables"] == ["x"]
    with pytest.raises(InvalidParameterError, match="direction"):
        law.evaluate_constants(direction=3)
