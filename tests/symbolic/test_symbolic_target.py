"""Targets f*(x) = g(<w*_1, x>, ..., <w*_r, x>) in w*-coordinates."""

from __future__ import annotations

import pytest
import sympy as sp
from _symbolic_helpers import Z, z

from flt_theory.errors import InvalidTargetError
from flt_theory.symbolic.functions import relu
from flt_theory.symbolic.target import Target, parse_link, polynomial_degree_bound, variables_of_rank

z1, z2, z3 = z(1), z(2), z(3)


def test_parse_infers_the_rank_from_the_largest_index():
    t = Target.parse("z1 + He2(z3)")
    assert t.rank == 3 and t.variables == (z1, z2, z3)
    assert t.expr == z1 + z3**2 - 1
    assert t.name == "z1 + He2(z3)"
    assert Target.parse("z", rank=4).rank == 4
    assert Target.parse("5").rank == 1


def test_equality_ignores_the_name():
    assert Target.parse("z1 + z2", name="a") == Target.parse("z2 + z1", name="b")
    assert Target.parse("z1", rank=2) != Target.parse("z1", rank=1)


def test_from_links_builds_the_separable_sum():
    t = Target.from_links(["z + He2(z)", "z - He2(z)"])
    assert t.rank == 2 and t.expr == z1**2 + z1 - z2**2 + z2
    assert Target.from_links(["relu", "tanh(z)"]).expr == relu(z1) + sp.tanh(z2)
    assert Target.from_links([Z**2, sp.Symbol("z") ** 3]).expr == z1**2 + z2**3  # plain Symbol('z') accepted


def test_links_recovers_separable_parts():
    assert Target.from_links(["z + He2(z)", "2*z"]).links() == [Z**2 + Z - 1, 2 * Z]
    assert Target.parse("3 + tanh(z2)").links() == [3, sp.tanh(Z)]  # constants go to the first link
    assert Target.parse("z1*z2").links() is None
    assert Target.parse("tanh(z1 + z2)").links() is None
    assert Target.parse("z1", rank=3).links() == [Z, 0, 0]


def test_polynomial_properties():
    assert Target.parse("z1**2*z3 + z2").is_polynomial
    assert Target.parse("z1**2*z3 + z2").polynomial_degree() == 3
    assert not Target.parse("relu(z1)").is_polynomial
    assert not Target.parse("z1**-1").is_polynomial
    with pytest.raises(InvalidTargetError, match="not a polynomial"):
        Target.parse("tanh(z)").polynomial_degree()


def test_latex_and_str():
    t = Target.parse("z1 + He2(z2)")
    assert t.latex() == "z_{1} + z_{2}^{2} - 1"  # coordinates z_k = <w*_k, x>, not x_k
    assert str(t) == "z1 + z2**2 - 1"
    assert Target.parse("relu(z1)*z2").latex() == r"z_{2} \operatorname{ReLU}\left(z_{1}\right)"
    assert Target.parse("sin(exp(40))*z1").latex() == "0.948085 z_{1}"  # a folded constant, rounded


def test_parse_link():
    assert parse_link("relu") == relu(Z)
    assert parse_link(" tanh ") == sp.tanh(Z)
    assert parse_link("tanh(z)**2") == sp.tanh(Z) ** 2
    assert parse_link(sp.Symbol("z") ** 2) == Z**2
    assert parse_link(Z + 1) == Z + 1


def test_variables_of_rank_and_degree_bound():
    assert variables_of_rank(2) == (z1, z2)
    assert polynomial_degree_bound((z1 + z2) ** 3 * z3) == 4
    assert polynomial_degree_bound(sp.Integer(7)) == 0
    assert polynomial_degree_bound(sp.tanh(z1)) is None
    assert polynomial_degree_bound(z1**-1) is None
    assert polynomial_degree_bound(((z1**2 + 1) ** 3) ** 2) == 12
