"""relu and sigmoid as sympy functions: evaluation, derivatives, rewriting, LaTeX."""

from __future__ import annotations

import pytest
import sympy as sp
from _symbolic_helpers import Z

from flt_theory.symbolic.functions import relu, sigmoid


def test_relu_evaluates_on_numbers_and_signed_symbols():
    assert relu(sp.Integer(-2)) == 0
    assert relu(sp.Rational(3, 2)) == sp.Rational(3, 2)
    assert relu(sp.pi - 4) == 0 and relu(sp.pi - 3) == sp.pi - 3
    assert relu(sp.Symbol("p", positive=True)) == sp.Symbol("p", positive=True)
    assert relu(sp.Symbol("q", nonpositive=True)) == 0
    assert isinstance(relu(Z), relu)  # unknown sign: stays symbolic


def test_relu_derivative_and_rewrite():
    assert sp.diff(relu(Z), Z) == sp.Heaviside(Z)
    assert sp.diff(relu(Z) ** 2, Z) == 2 * relu(Z) * sp.Heaviside(Z)
    assert relu(Z).rewrite(sp.Max) == sp.Max(0, Z)


def test_sigmoid():
    assert sigmoid(sp.Integer(0)) == sp.Rational(1, 2)
    assert sp.diff(sigmoid(Z), Z) == sigmoid(Z) * (1 - sigmoid(Z))
    assert sigmoid(Z).rewrite(sp.exp) == 1 / (1 + sp.exp(-Z))
    assert float(sigmoid(Z).rewrite(sp.exp).subs(Z, 2)) == pytest.approx(1 / (1 + float(sp.exp(-2))), rel=1e-15)


def test_latex():
    assert sp.latex(relu(Z)) == r"\operatorname{ReLU}\left(z\right)"
    assert sp.latex(relu(Z) ** 2) == r"\operatorname{ReLU}\left(z\right)^{2}"
    assert sp.latex(sigmoid(Z)) == r"\operatorname{sigmoid}\left(z\right)"
    assert sp.latex(sigmoid(Z) ** 3) == r"\operatorname{sigmoid}\left(z\right)^{3}"


def test_a_float_enters_the_real_field_as_sympy_converts_it():
    """``to_domain`` takes a Python float straight into ``RR`` (sympy's ``convert`` builds a new ``RealField`` for each
    one, 0.4 ms): the same element, bit for bit."""
    import random

    from flt_theory.symbolic.hermite import to_domain

    rng = random.Random(5)
    floats = [rng.uniform(-1, 1) * 10.0 ** rng.randint(-300, 300) for _ in range(2000)] + [0.0, -0.0, 5e-324, 1.7e308]
    for value in floats:
        fast, slow = to_domain(sp.RR, value), sp.RR.convert(value)
        assert fast._mpf_ == slow._mpf_ and type(fast) is type(slow)
    assert to_domain(sp.ZZ, 3) == sp.ZZ.convert(3) and to_domain(sp.RR, 2) == sp.RR.convert(2)
