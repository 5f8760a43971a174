"""One tree walker evaluates every parsed expression on arrays (numpy here; torch in numeric)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import sympy as sp
from _symbolic_helpers import z

from flt_theory.errors import UnsupportedError
from flt_theory.symbolic.evaluate import NUMPY, Backend, evaluate
from flt_theory.symbolic.parser import FUNCTIONS, parse_expression

z1, z2 = z(1), z(2)
POINTS = np.array([-2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.2])


@pytest.mark.parametrize(
    "text",
    [
        "z1 + He3(z2)*z1 - 2*z2**2/3",
        "relu(z1)**2 + sigmoid(z2)",
        "tanh(z1) + erf(z2) + exp(-z1**2) + sin(z1)*cos(z2)",
        "abs(z1) + sign(z2) + z1**-2 + pi",
        "He(5, z1 - z2) + 2**(1/2)*z1",
        "(z1**2 + 1)**(1/3)",
    ],
)
def test_evaluation_matches_sympy_pointwise(text):
    expr = parse_expression(text)
    x1, x2 = np.meshgrid(POINTS, POINTS[::-1])
    x1, x2 = x1.ravel(), x2.ravel()
    keep = x1 != 0  # z1**-2
    x1, x2 = x1[keep], x2[keep]
    values = evaluate(expr, [z1, z2], [x1, x2])
    assert values.shape == x1.shape and values.dtype == np.float64
    expected = [float(expr.subs({z1: sp.Float(a), z2: sp.Float(b)}).evalf(30)) for a, b in zip(x1, x2)]
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)


def test_every_parser_function_has_a_numpy_implementation():
    for name in FUNCTIONS:
        expr = parse_expression(f"{name}(abs(z1))" if name == "sqrt" else f"{name}(z1)")
        assert evaluate(expr, [z1], [POINTS]).shape == POINTS.shape


def test_constants_are_broadcast_to_the_sample_shape():
    out = evaluate(sp.Integer(3), [z1], [POINTS])
    assert out.shape == POINTS.shape and np.all(out == 3.0)


def test_heaviside_from_differentiation():
    expr = sp.diff(parse_expression("relu(z1)"), z1)
    np.testing.assert_array_equal(evaluate(expr, [z1], [np.array([-1.0, 0.0, 2.0])]), [0.0, 0.5, 1.0])


def test_integer_powers_are_exact_repeated_products():
    x = np.array([3.0])
    assert evaluate(z1**5, [z1], [x])[0] == 243.0
    assert evaluate(z1**0, [z1], [x])[0] == 1.0


def test_a_custom_backend_is_used_for_every_function():
    calls = []

    def tracked(name):
        def f(x):
            calls.append(name)
            return NUMPY.functions[name](x)

        return f

    backend = Backend("tracked", {name: tracked(name) for name in NUMPY.functions})
    evaluate(parse_expression("tanh(z1) + relu(z2)"), [z1, z2], [POINTS, POINTS], backend)
    assert sorted(calls) == ["relu", "tanh"]


def test_unsupported_nodes_and_missing_variables():
    with pytest.raises(UnsupportedError, match="log"):
        evaluate(sp.log(z1), [z1], [POINTS])
    with pytest.raises(UnsupportedError, match="z2"):
        evaluate(z1 + z2, [z1], [POINTS])


def test_integer_powers_of_one_base_come_from_one_chain_with_the_same_floats(monkeypatch):
    """Issue 38: the powers of He_64's argument are taken from one chain of products, each bit for bit the value the
    repeated multiplication of ``_integer_power`` gives (the same products in the same order)."""
    module = importlib.import_module("flt_theory.symbolic.evaluate")
    values = np.random.default_rng(3).normal(size=1000) * 1.3
    chain = module._power_chain(values, {1, 2, 5, 31, 64})
    assert sorted(chain) == [1, 2, 5, 31, 64]
    for k, power in chain.items():
        assert np.array_equal(power, module._integer_power(values, k))
    expr = parse_expression("He(64, sin(z1)/3) + z1**-3 + (z1 + z2)**7 - 2*(z1 + z2)**2")
    arrays = [values, values[::-1].copy()]
    got = evaluate(expr, [z1, z2], arrays)
    # as before the chain: every power by its own repeated multiplication
    monkeypatch.setattr(module, "_power_chain", lambda base, ks: {k: module._integer_power(base, k) for k in ks})
    assert np.array_equal(got, evaluate(expr, [z1, z2], arrays))
