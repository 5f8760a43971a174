"""The restricted grammar of flt_theory.symbolic.parser: what it accepts, what it refuses, and that it
never hands user text to an evaluator."""

from __future__ import annotations

import builtins
import re
import sys
import time

import pytest
import sympy as sp
import sympy.parsing.sympy_parser
from _symbolic_helpers import Z, z
from hypothesis import given, settings, strategies as st

from flt_theory.errors import FLTError, InvalidTargetError
from flt_theory.symbolic.functions import relu, sigmoid
from flt_theory.symbolic.parser import (
    FUNCTIONS,
    MAX_CONSTANT_BITS,
    MAX_EXPONENT,
    MAX_HERMITE_DEGREE,
    MAX_LENGTH,
    parse_expression,
    variable,
)

z1, z2, z3 = z(1), z(2), z(3)


# ---------------------------------------------------------------------------------------------
# valid grammar


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e-3", sp.Rational(1, 1000)),
        ("2.5e2", sp.Integer(250)),
        ("0.1", sp.Rational(1, 10)),
        (".5", sp.Rational(1, 2)),
        ("1.", sp.Integer(1)),
        ("3E+2", sp.Integer(300)),
        ("-z", -z1),
        ("--z", z1),
        ("+z", z1),
        ("-z**2", -(z1**2)),  # unary minus binds looser than **
        ("2**3**2", sp.Integer(512)),  # right associative: 2**(3**2)
        ("(2**3)**2", sp.Integer(64)),
        ("-2**2", sp.Integer(-4)),
        ("2**-1", sp.Rational(1, 2)),
        ("z**-2", z1**-2),
        ("z1 - z2 - z3", z1 - z2 - z3),  # left associative
        ("z1 / z2 / z3", z1 / (z2 * z3)),
        ("2*z1 + 3*z2/4", 2 * z1 + sp.Rational(3, 4) * z2),
        ("z", z1),
        ("z + z1", 2 * z1),
        ("pi", sp.pi),
        ("He(3, z)", z1**3 - 3 * z1),
        ("He3(z)", z1**3 - 3 * z1),
        ("He0(z2)", sp.Integer(1)),
        ("He1(z2)", z2),
        ("He(2, z1 + z2)", (z1 + z2) ** 2 - 1),
        ("He2(z1)*z2", (z1**2 - 1) * z2),
        ("  z1 \t+\n z2  ", z1 + z2),
        ("relu(z)", relu(z1)),
        ("tanh(z)", sp.tanh(z1)),
        ("sigmoid(z)", sigmoid(z1)),
        ("erf(z)", sp.erf(z1)),
        ("exp(z)", sp.exp(z1)),
        ("sin(z)", sp.sin(z1)),
        ("cos(z)", sp.cos(z1)),
        ("abs(z)", sp.Abs(z1)),
        ("sign(z)", sp.sign(z1)),
        ("relu(z1)**2 + He2(z2)", relu(z1) ** 2 + z2**2 - 1),
        ("z**64", z1**64),
        ("2**(1/2)", sp.sqrt(2)),
        ("(-2)**(-3)", sp.Rational(-1, 8)),
        ("1e600 / 1e600", sp.Integer(1)),
    ],
)
def test_valid_expressions_parse_to_the_expected_tree(text, expected):
    assert parse_expression(text) == expected


def test_numbers_are_exact_rationals_never_floats():
    expr = parse_expression("1e-3*z + 0.1")
    assert expr == sp.Rational(1, 1000) * z1 + sp.Rational(1, 10)
    assert not expr.has(sp.Float)


def test_every_whitelisted_function_is_reachable_and_nothing_else_is():
    assert set(FUNCTIONS) == {"relu", "tanh", "sigmoid", "erf", "exp", "sin", "cos", "abs", "sign", "sqrt"}
    for name, func in FUNCTIONS.items():
        if name == "sqrt":  # real only on a non-negative argument
            assert parse_expression("sqrt(abs(z2))") == sp.sqrt(sp.Abs(z2))
            with pytest.raises(InvalidTargetError, match="negative values"):
                parse_expression("sqrt(z2)")
        else:
            assert parse_expression(f"{name}(z2)") == func(z2)


def test_variables_are_the_library_symbols():
    assert parse_expression("z7") == variable(7) == sp.Symbol("z7", real=True)
    assert parse_expression("z7") != sp.Symbol("z7")  # assumptions are part of a symbol's identity
    assert parse_expression("z7").is_real


def test_single_variable_mode_uses_the_given_name_only():
    assert parse_expression("He2(z) + relu(z)", single_variable="z") == Z**2 - 1 + relu(Z)
    with pytest.raises(InvalidTargetError, match=r"'z1'"):
        parse_expression("z1", single_variable="z")


@pytest.mark.parametrize("k", [0, 1, 2, 5, MAX_HERMITE_DEGREE])
def test_hermite_spellings_agree_with_sympy_probabilists_hermite(k):
    expected = sp.hermite_prob(k, z2)
    assert parse_expression(f"He({k}, z2)") == expected
    assert parse_expression(f"He{k}(z2)") == expected


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=4),
    st.lists(st.integers(0, 4), min_size=1, max_size=4),
)
def test_round_trip_of_printed_polynomials(coefficients, powers):
    """str() of a rational polynomial in z1..z3 is in the grammar (with ** and no ^) and parses back."""
    expr = sum((c * z((i % 3) + 1) ** p for i, (c, p) in enumerate(zip(coefficients, powers))), sp.Integer(0))
    assert parse_expression(str(expr)) == expr


@settings(max_examples=30, deadline=None, database=None)
@given(st.fractions(min_value=-1000, max_value=1000, max_denominator=1000))
def test_rational_literals_are_exact(value):
    text = f"({value.numerator})/({value.denominator})"
    assert parse_expression(text) == sp.Rational(value.numerator, value.denominator)


# ---------------------------------------------------------------------------------------------
# hostile and malformed input


HOSTILE = [
    # (text, tokens any of which the message must quote)
    ("__import__('os')", ["__import__", "'"]), ("z1.__class__", ["."]), ("lambda: 0", ["lambda", ":"]),
    ("().__class__.__bases__", [")", "."]), ('eval("1")', ["eval", '"']), ("open(z)", ["open"]),
    ("z**99999", ["99999"]), ("z**(10**10)", ["10000000000"]), ("z**(-65)", ["-65"]), ("He(100, z)", ["100"]),
    ("He100(z)", ["100"]), ("He(2.5, z)", ["2.5"]), ("He(-1, z)", ["-"]), ("He(k, z)", ["k"]), ("z0", ["z0"]),
    ("z01", ["z01"]), ("z65", ["z65"]), ("z1 z2", ["z2"]), ("2 z", ["z"]), ("1/0", ["1/0"]), ("z/(z - z)", ["/"]),
    ("0**(-1)", ["0**(-1)", "position"]), ("z^2", ["^"]), ("x", ["x"]), ("Abs(z)", ["Abs"]), ("sqrt(z)", ["sqrt"]),
    ("relu()", [")"]), ("relu(z, z)", [","]), ("relu", ["end of input"]), ("(z", ["end of input"]), ("z)", [")"]),
    ("z +", ["end of input"]), ("z ** z", ["z1"]), ("z @ z", ["@"]), ("z; z", [";"]), ("z[0]", ["["]),
    ("z1 if z2 else z3", ["if"]), ("1" * 41, ["1111"]), ("(-1)**(1/2)", ["sqrt(-1)", "non-real"]),
    ("(-8)**(1/3)", ["non-real"]), ("(-1)**pi", ["non-real"]), ("1e99999999", ["1e99999999"]), ("1e700", ["1e700"]),
    ("(2**64)**64", ["**64"]), ("((((((2**64)**64)**64)**64)**64)**64)", ["**64"]), ("z**((2**64)**64)", ["**64"]),
    ("He64(2**40*z)", ["He64"]),
]


@pytest.mark.parametrize("text, quoted", HOSTILE, ids=[h[0][:30] for h in HOSTILE])
def test_hostile_or_malformed_input_is_refused_quoting_the_offending_token(text, quoted):
    start = time.perf_counter()
    with pytest.raises(InvalidTargetError) as info:
        parse_expression(text)
    assert time.perf_counter() - start < 2.0, "refusal must be immediate"
    message = str(info.value)
    assert any(token in message for token in quoted), message
    assert isinstance(info.value, FLTError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_input_is_refused(text):
    with pytest.raises(InvalidTargetError, match="empty"):
        parse_expression(text)


def test_overlong_input_is_refused_before_tokenising():
    text = "z+" * 5000 + "z"  # 10 001 characters
    with pytest.raises(InvalidTargetError, match=rf"{len(text)} characters exceeds the limit of {MAX_LENGTH}"):
        parse_expression(text)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 500 + "z" + ")" * 500,
        "-" * 500 + "z",
        "tanh(" * 500 + "z" + ")" * 500,
        "z" + "**(z" * 300 + ")" * 300,
    ],
    ids=["parentheses", "unary-minus", "calls", "powers"],
)
def test_deep_nesting_is_refused_without_recursion_error(text):
    with pytest.raises(InvalidTargetError, match="nested deeper|numeric constant|exponent"):
        parse_expression(text)


@pytest.mark.parametrize("value", [None, 3, 2.5, b"z1", ["z1"], z1])
def test_non_string_input_is_refused(value):
    with pytest.raises(InvalidTargetError, match=type(value).__name__):
        parse_expression(value)


def test_limits_are_enforced_exactly_at_the_boundary():
    assert parse_expression(f"z**{MAX_EXPONENT}") == z1**MAX_EXPONENT
    with pytest.raises(InvalidTargetError, match=str(MAX_EXPONENT + 1)):
        parse_expression(f"z**{MAX_EXPONENT + 1}")
    assert parse_expression(f"He{MAX_HERMITE_DEGREE}(z)") == sp.hermite_prob(MAX_HERMITE_DEGREE, z1)
    with pytest.raises(InvalidTargetError, match=str(MAX_HERMITE_DEGREE + 1)):
        parse_expression(f"He{MAX_HERMITE_DEGREE + 1}(z)")
    assert parse_expression("z" * 1 + " " * (MAX_LENGTH - 1)) == z1
    big = parse_expression("(2**64)**31")  # 1985 bits
    assert big == sp.Integer(2) ** (64 * 31) and (64 * 31) < MAX_CONSTANT_BITS


def test_accepted_output_can_always_be_printed():
    """Every accepted expression prints (no constant beyond Python's int-to-str limit)."""
    for text in ["(2**64)**31 * (2**64)**31 / 3", "1e600 * 1e600 * 1e600", "He64(2**30*z)"]:
        try:
            expr = parse_expression(text)
        except InvalidTargetError as err:
            assert "bits" in str(err)
        else:
            str(expr)


def test_error_positions_point_at_the_token():
    with pytest.raises(InvalidTargetError) as info:
        parse_expression("z1 + foo(z2)")
    assert "position 5" in str(info.value)
    match = re.search(r"position (\d+)", str(info.value))
    assert "z1 + foo(z2)"[int(match.group(1)) :].startswith("foo")


# ---------------------------------------------------------------------------------------------
# the parser never evaluates code


_TEXT = "z1 + He2(z2)*relu(z3)**2 - 1e-3*tanh(z1)/3 + He(3, z2) + sigmoid(z1) + 2**-1"
_FRAGMENTS = ("He2(z2)", "relu(z3)", "tanh(z1)", "He(3, z2)", "sigmoid(z1)", "1e-3", "2**-1")


def _spy_on_evaluators(monkeypatch) -> list:
    """Wrap eval/exec/compile, sympify and parse_expr to record every call that receives (part of)
    the user text; sympy may call sympify internally on numbers and trees, never on the text."""
    calls = []

    def spy(name, original):
        def wrapper(*args, **kwargs):
            strings = [a for a in (*args, *kwargs.values()) if isinstance(a, str)]
            if any(f in s for s in strings for f in _FRAGMENTS):
                calls.append((name, strings))
            return original(*args, **kwargs)

        return wrapper

    for owner, name in [
        (builtins, "eval"),
        (builtins, "exec"),
        (builtins, "compile"),
        (sp, "sympify"),
        (sp, "parse_expr"),
        (sympy.parsing.sympy_parser, "parse_expr"),
        (sympy.parsing.sympy_parser, "eval_expr"),
        (sympy.parsing.sympy_parser, "stringify_expr"),
        (sys.modules["sympy.core.sympify"], "sympify"),
    ]:
        monkeypatch.setattr(owner, name, spy(f"{owner.__name__}.{name}", getattr(owner, name)))
    return calls


def test_parser_never_calls_an_evaluator(monkeypatch):
    calls = _spy_on_evaluators(monkeypatch)
    try:
        expr = parse_expression(_TEXT)
        refused = None
        try:
            parse_expression("__import__('os').system('true') + He2(z2)")
        except InvalidTargetError as err:
            refused = err
    finally:
        monkeypatch.undo()  # before any assertion: pytest itself compiles source when reporting
    assert calls == []
    assert refused is not None
    expected = (
        z1
        + (z2**2 - 1) * relu(z3) ** 2
        - sp.Rational(1, 3000) * sp.tanh(z1)
        + z2**3
        - 3 * z2
        + sigmoid(z1)
        + sp.Rational(1, 2)
    )
    assert sp.expand(expr - expected) == 0


def test_the_spy_catches_an_evaluator(monkeypatch):
    """Negative control for the test above: sympy's own string route is recorded by the same spy."""
    calls = _spy_on_evaluators(monkeypatch)
    try:
        sp.sympify("z1 + He2(z2)")
    finally:
        monkeypatch.undo()
    assert {name for name, _ in calls} >= {"sympy.sympify", "sympy.parsing.sympy_parser.parse_expr"}
