"""Bad input everywhere: one error hierarchy, messages that name the parameter and the value.

InvalidParameterError (ValueError) for a bad value, InvalidParameterTypeError (TypeError) for the
wrong kind, InvalidTargetError (ValueError) for a target that is not one.
"""

from __future__ import annotations

import pytest
import sympy as sp
from _symbolic_helpers import z

from flt_theory.errors import (
    FLTError,
    InvalidParameterError,
    InvalidParameterTypeError,
    InvalidTargetError,
)
from flt_theory.symbolic.expansion import expand_target
from flt_theory.symbolic.hermite import hermite_coefficients, hermite_expansion, hermite_tensor, monomial_to_hermite
from flt_theory.symbolic.law import THIS_PROJECT, Law
from flt_theory.symbolic.one_step import one_step_subspace, student_coefficient
from flt_theory.symbolic.projections import learned_subspace, project, random_feature_error, regime_table
from flt_theory.symbolic.staircase import staircase
from flt_theory.symbolic.subspace import Subspace
from flt_theory.symbolic.target import Target

z1 = z(1)
T = Target.parse("z1 + z1*z2")
NONPOLY = Target.from_links(["tanh(z)"])
EXPANSION = hermite_expansion(z1, [z1])


BAD_VALUES = [
    # (call, parameter name, shown value)
    (lambda: hermite_coefficients("relu", -1), "degree", "-1"),
    (lambda: hermite_coefficients("relu", 201), "degree", "201"),
    (lambda: monomial_to_hermite(-3), "m", "-3"),
    (lambda: expand_target(NONPOLY, -1), "degree", "-1"),
    (lambda: expand_target(NONPOLY, 41), "degree", "41"),
    (lambda: hermite_tensor(EXPANSION, -1), "order", "-1"),
    (lambda: student_coefficient("relu", 0), "order", "0"),
    (lambda: one_step_subspace(T, -1), "kappa", "-1"),
    (lambda: one_step_subspace(T, float("nan")), "kappa", "nan"),
    (lambda: one_step_subspace(T, float("inf")), "kappa", "inf"),
    (lambda: project(T, Subspace.zero(2), -0.5), "kappa", "-0.5"),
    (lambda: random_feature_error(T, -1), "kappa", "-1"),
    (lambda: learned_subspace(T, -2), "kappa", "-2"),
    (lambda: regime_table(T, [(-1, 0)]), "kappa_n", "-1"),
    (lambda: regime_table(T, [(1, -1)]), "kappa_p", "-1"),
    (lambda: staircase(T, 0), "steps", "0"),
    (lambda: staircase(T, 65), "steps", "65"),
    (lambda: learned_subspace(T, 1, steps=0), "steps", "0"),
    (lambda: Target.parse("z1", rank=0), "rank", "0"),
    (lambda: Target(z1, -1), "rank", "-1"),
    (lambda: project(T, Subspace.zero(3), 1), "subspace", "R^3"),
    (
        lambda: Law(name="x", lhs="a", relation="approximately", value=1, source=THIS_PROJECT),
        "relation",
        "'approximately'",
    ),
    (lambda: Law(name="x", lhs="a", relation="eq", value=1, status="guess", source=THIS_PROJECT), "status", "'guess'"),
]


@pytest.mark.parametrize("call, name, shown", BAD_VALUES, ids=[f"{b[1]}={b[2]}" for b in BAD_VALUES])
def test_bad_values_raise_invalid_parameter_error_naming_the_parameter(call, name, shown):
    _assert_refused(call, InvalidParameterError, ValueError, name, shown)


def _assert_refused(call, error: type[FLTError], base: type[Exception], name: str, shown: str) -> None:
    """``call()`` raises ``error`` (also a ``base`` and an FLTError) whose message quotes ``name`` and ``shown``."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert f"'{name}'" in message and shown in message, message
    assert isinstance(info.value, base) and isinstance(info.value, FLTError)


BAD_TYPES = [
    (lambda: hermite_coefficients("relu", 2.5), "degree", "float"),
    (lambda: hermite_coefficients("relu", True), "degree", "bool"),
    (lambda: hermite_coefficients("relu", "3"), "degree", "str"),
    (lambda: expand_target(NONPOLY, 2.0), "degree", "float"),
    (lambda: monomial_to_hermite(2.0), "m", "float"),
    (lambda: hermite_tensor(EXPANSION, 1.0), "order", "float"),
    (lambda: student_coefficient("relu", 1.5), "order", "float"),
    (lambda: one_step_subspace(T, "1"), "kappa", "str"),
    (lambda: one_step_subspace(T, True), "kappa", "bool"),
    (lambda: project(T, Subspace.zero(2), None), "kappa", "NoneType"),
    (lambda: staircase(T, 1.5), "steps", "float"),
    (lambda: Target.parse("z1", rank=1.0), "rank", "float"),
    (lambda: project(T, [[1, 0]], 1), "subspace", "list"),
]


@pytest.mark.parametrize("call, name, kind", BAD_TYPES, ids=[f"{b[1]}:{b[2]}" for b in BAD_TYPES])
def test_wrong_types_raise_invalid_parameter_type_error(call, name, kind):
    _assert_refused(call, InvalidParameterTypeError, TypeError, name, kind)


BAD_TARGETS = [
    (lambda: Target.parse("z1 + z3", rank=2), ["z3", "rank=2"]),
    (lambda: Target(z1 + z(3), 2), ["z3", "rank-2"]),
    (lambda: Target.from_expression(sp.Symbol("x") + z1), ["x"]),
    (lambda: Target.from_expression(sp.Symbol("z1")), ["z1", "real"]),  # a non-real z1 is not the coordinate
    (lambda: Target(sp.Symbol("z1"), 1), ["z1", "real"]),
    (lambda: Target("z1", 1), ["str"]),
    (lambda: Target.from_expression("z1"), ["str"]),
    (lambda: Target.from_links([]), ["non-empty"]),
    (lambda: Target.from_links("z"), ["non-empty"]),
    (lambda: Target.from_links(["z1"]), ["'z1'"]),
    (lambda: Target.from_links([sp.Symbol("y")]), ["y"]),
    (lambda: Target.from_links([3]), ["int"]),
    (lambda: Target.parse("x"), ["'x'"]),
    (lambda: hermite_coefficients(sp.Symbol("a") * sp.Symbol("b"), 2), ["variable="]),
    (lambda: hermite_coefficients(sp.Symbol("a") * sp.Symbol("b"), 2, variable=sp.Symbol("a")), ["'b'"]),
    (lambda: hermite_coefficients(3, 2), ["int"]),
    (lambda: hermite_coefficients("exp(z**2)", 2), ["square integrable"]),
    (lambda: Target.parse("tanh(z)").polynomial_degree(), ["not a polynomial"]),
    (lambda: hermite_expansion(sp.tanh(z1), [z1]), ["not a polynomial"]),
]


@pytest.mark.parametrize("call, quoted", BAD_TARGETS, ids=[str(i) for i in range(len(BAD_TARGETS))])
def test_bad_targets_raise_invalid_target_error(call, quoted):
    with pytest.raises(InvalidTargetError) as info:
        call()
    for fragment in quoted:
        assert fragment in str(info.value), str(info.value)
