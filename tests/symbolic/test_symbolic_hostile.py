"""Hostile and degenerate input: bounded work, the project's errors only, honest integrability.

Each reproducer below once ran for minutes or raised an internal error (OverflowError, TypeError)
in the functions behind ``flt leap/hermite/staircase/limits``; each must now return a result or an
:class:`~flt_theory.errors.FLTError` within the 2 s budget of :mod:`flt_theory.symbolic.budget`.
"""

from __future__ import annotations

import math
import time

import mpmath
import pytest
import sympy as sp

from flt_theory.errors import BudgetExceededError, FLTError, InvalidTargetError, NotSquareIntegrableError
from flt_theory.symbolic.budget import predict_size
from flt_theory.symbolic.hermite import hermite_coefficients
from flt_theory.symbolic.leap import leap_complexity, leap_index
from flt_theory.symbolic.parser import parse_expression
from flt_theory.symbolic.projections import learned_subspace, project
from flt_theory.symbolic.staircase import staircase
from flt_theory.symbolic.target import Target, parse_link

SUM60 = "+".join(f"z{k}" for k in range(1, 61))


def _leap(text):
    t = Target.parse(text)
    return leap_index(t), leap_complexity(t)


def _limits(text, kappa_n=2, kappa_p=1):
    t = Target.parse(text)
    return project(t, learned_subspace(t, kappa_n), min(kappa_n, kappa_p))


REPRODUCERS = [
    (lambda: _leap("1/sin(exp(1e12))"), BudgetExceededError, "exp"),
    (lambda: hermite_coefficients("He64(He64(He64(z)))", 6), BudgetExceededError, "FLT_MAX_DEGREE"),
    (lambda: hermite_coefficients("He3(" * 20 + "z" + ")" * 20, 6), BudgetExceededError, "FLT_MAX_DEGREE"),
    (lambda: _limits("(z1+z2+z3+z4+z5+z6)**12"), BudgetExceededError, "FLT_MAX_"),
    (lambda: staircase(Target.parse(SUM60), 3), BudgetExceededError, "FLT_MAX_RANK"),
    (lambda: _leap("((sigmoid(exp(9999999999999999999999999999999999999999)))**-64)**-1"), BudgetExceededError, "exp"),
    (lambda: hermite_coefficients("z/(sin(1)**2+cos(1)**2-1)", 4), InvalidTargetError, "divisor"),
    (lambda: _leap("sin(exp(1234567890123456789012345678901234567890))"), BudgetExceededError, "exp"),
    (lambda: _leap("((z1+z2)**64)**64"), BudgetExceededError, "FLT_MAX_DEGREE"),
    (lambda: Target.parse("z\u0661 + z1"), InvalidTargetError, "\u0661"),
    (lambda: Target.parse("\u0663 * z1"), InvalidTargetError, "\u0663"),
    (lambda: hermite_coefficients("1/z", 4), NotSquareIntegrableError, "pole"),
    (lambda: hermite_coefficients("exp(z**2/2)", 4), NotSquareIntegrableError, "1/4"),
    (lambda: hermite_coefficients("exp(z**3)", 4), NotSquareIntegrableError, "faster"),
    (lambda: hermite_coefficients("exp(64*z)", 4), InvalidTargetError, "floating-point range"),  # E[f^2] = e^8192
    (lambda: Target.parse("(-8)**(1/3)*z"), InvalidTargetError, "non-real"),
    (lambda: Target.parse("z*sign(sin(1)**2+cos(1)**2-1)"), InvalidTargetError, "sign"),
    (lambda: Target.parse("sin(exp(1e5))*z"), BudgetExceededError, "FLT_MAX_PRECISION_BITS"),
]


@pytest.mark.parametrize("call, error, fragment", REPRODUCERS, ids=[str(i) for i in range(len(REPRODUCERS))])
def test_reproducers_give_the_projects_error_quickly(call, error, fragment):
    start = time.perf_counter()
    with pytest.raises(error) as info:
        call()
    assert time.perf_counter() - start < 2.0
    assert fragment in str(info.value), str(info.value)
    assert isinstance(info.value, FLTError)


def test_harmless_constants_simply_work():
    t = Target.parse("z + cos(2)")
    assert t.expr == sp.Symbol("z1", real=True) + sp.cos(2)  # small constants stay exact
    assert leap_index(t) == 1
    assert Target.parse("sqrt(2)*z").expr == sp.sqrt(2) * sp.Symbol("z1", real=True)
    folded = Target.parse("sin(exp(40))*z").expr.as_coeff_Mul()[0]  # certified, folded to 30 digits
    with mpmath.workdps(60):  # not math.sin(math.exp(40)): exp(40) ~ 2e17 carries an absolute float error ~ 30
        error = abs(mpmath.mpf(folded._mpf_) - mpmath.sin(mpmath.exp(40)))
    assert isinstance(folded, sp.Float) and error < 1e-28
    assert float(Target.parse("sigmoid(exp(1e5))*z").expr.as_coeff_Mul()[0]) == 1.0


def test_budgets_are_raised_by_their_environment_variable(monkeypatch):
    with pytest.raises(BudgetExceededError, match="FLT_MAX_DEGREE"):
        parse_link("He20(He20(z))")  # degree 400
    monkeypatch.setenv("FLT_MAX_DEGREE", "400")
    assert predict_size(parse_expression("He20(He20(z))", single_variable="z"))[0] == 400


@pytest.mark.parametrize(
    "text, certified",
    [
        ("exp(z**2/8)*tanh(z)", True),
        ("1/(2 + sin(z))", True),
        ("1/(1 + z**2)", True),
        ("abs(z)**0.5", True),
        ("exp(-exp(z))", True),
        ("1/sigmoid(z)", True),  # = 1 + exp(-z)
        ("exp(z**2/4)", False),  # E[f^2] = E[exp(z^2/2)] diverges (the boundary case)
        ("1/z", False),
        ("1/(sin(z))", False),
        ("exp(z**2/2)", False),
    ],
)
def test_square_integrability_is_certified_or_refused(text, certified):
    if certified:
        c = hermite_coefficients(text, 3)
        assert all(math.isfinite(v) for v in c.values)
    else:
        with pytest.raises(NotSquareIntegrableError):
            hermite_coefficients(text, 3)


def test_a_large_but_cheap_projection_is_computed_exactly():
    """``(z1+z2)**64`` was refused by the old term budget; in integer frames it is 2^32 s^64, all of it in
    U = span(w1 + w2), computed exactly (no residual) within the budgets."""
    result = _limits("(z1+z2)**64")
    assert result.residual_norm2 == 0 and result.subspace.dim == 1
