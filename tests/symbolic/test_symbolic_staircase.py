"""The staircase U_0 = {0}, U_{t+1} = U_t + span{mu_{U_t,x}(f*) : x in U_t} (Dandi et al. 2023, examples (a)-(d))."""

from __future__ import annotations

import pytest
import sympy as sp
from _symbolic_helpers import gaussian_expectation, z

from flt_theory.symbolic.staircase import conditional_mean_gradient, staircase, staircase_step
from flt_theory.symbolic.subspace import Subspace
from flt_theory.symbolic.target import Target

R2 = sp.sqrt(2) / 2
z1, z2, z3 = z(1), z(2), z(3)


def span(vectors, r):
    return Subspace.span(vectors, r)


# ---------------------------------------------------------------------------------------------
# Dandi et al. 2023's worked examples, exactly


def test_example_a():
    u1, u2, u3 = staircase(Target.from_links(["z + He2(z)", "z - He2(z)"]), 3)
    assert u1 == span([[1, 1]], 2) and u1.basis.tolist() == [[R2, R2]]
    assert u2 == Subspace.full(2) and u2.basis.tolist() == [[1, 0], [0, 1]]
    assert u3 == u2
    assert u1 != span([[1, 0]], 2) and u1 != span([[1, -1]], 2)  # negative controls


def test_example_b_all_links_equal_never_grows():
    u = staircase(Target.from_links(["z + He2(z)", "z + He2(z)"]), 4)
    for ut in u:
        assert ut == span([[1, 1]], 2) and ut.basis.tolist() == [[R2, R2]]
    assert u[1] != Subspace.full(2)  # the wrong staircase U_2 = V* is not what is computed


def test_example_b_holds_for_any_number_of_equal_links():
    u = staircase(Target.from_links(["z + He2(z) + He3(z)"] * 3), 3)
    assert all(ut == span([[1, 1, 1]], 3) for ut in u)


def test_example_c():
    u1, u2, u3 = staircase(Target.parse("z1 + z1*z2 + z1*z3"), 3)
    assert u1 == span([[1, 0, 0]], 3) and u1.basis.tolist() == [[1, 0, 0]]
    assert u2 == span([[1, 0, 0], [0, 1, 1]], 3)
    assert u2.basis.tolist() == [[1, 0, 0], [0, R2, R2]]
    assert u3 == u2  # w2 - w3 is never learned
    assert u2 != Subspace.full(3)


def test_example_d():
    u1, u2 = staircase(Target.parse("z1 + z1*z2 + He3(z1)*z3"), 2)
    assert u1 == span([[1, 0, 0]], 3)
    assert u2 == Subspace.full(3) and u2.basis.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert u2 != span([[1, 0, 0], [0, 1, 1]], 3)  # unlike (c): z1 and He3(z1) are independent in s


def test_staircase_climbs_one_step_at_a_time():
    u = staircase(Target.parse("z1 + z1*z2 + z1*z2*z3 + z1*z2*z3*z4"), 5)
    expected = [span([[1, 0, 0, 0]][:1], 4)]
    for t in range(1, 4):
        expected.append(span([[int(k == i) for k in range(4)] for i in range(t + 1)], 4))
    expected.append(Subspace.full(4))
    assert u == expected


def test_a_target_with_no_linear_part_is_never_started():
    assert staircase(Target.parse("He2(z1) + z1*z2"), 3) == [Subspace.zero(2)] * 3


def test_non_polynomial_targets_use_the_hermite_truncation():
    u1, u2 = staircase(Target.parse("tanh(z1) + tanh(z1)*z2"), 2)
    assert not u1.is_exact
    assert u1 == span([[1, 0]], 2) and u2 == Subspace.full(2)


# ---------------------------------------------------------------------------------------------
# conditional mean gradient mu_{U,x}(f) = E_{x_perp}[grad_{x_perp} f(x + x_perp)]


def test_conditional_mean_gradient_on_a_coordinate_subspace():
    mu, s = conditional_mean_gradient(z1 + z1 * z2 + z1 * z3, [z1, z2, z3], span([[1, 0, 0]], 3))
    (s1,) = s
    assert list(mu) == [0, s1, s1]


def test_conditional_mean_gradient_on_a_rotated_subspace_by_hand():
    """(a): f = z1 + z2 + z1^2 - z2^2. With s = (z1 + z2)/sqrt(2), u = (z1 - z2)/sqrt(2): f =
    sqrt(2) s + 2 s u, so E_u[d f / d u] = 2 s and mu = 2 s (w1 - w2)/sqrt(2) = (sqrt(2) s, -sqrt(2) s)."""
    f = z1 + z2 + z1**2 - z2**2
    mu, (s1,) = conditional_mean_gradient(f, [z1, z2], span([[1, 1]], 2))
    assert [sp.simplify(m) for m in mu] == [sp.sqrt(2) * s1, -sp.sqrt(2) * s1]


def test_conditional_mean_gradient_against_direct_differentiation():
    """Brute force: f(B^T s + x_perp), differentiate along each basis vector q of U^perp at x_perp =
    sum_q u_q q, average over u ~ N(0, I)."""
    f = z1 * z2 * z3 + (z1**2 - 1) * z3 + z2**3 + z1 * z2
    u_space = span([[1, 1, 0]], 3)
    mu, (s1,) = conditional_mean_gradient(f, [z1, z2, z3], u_space)
    b = sp.Matrix([[R2, R2, 0]])
    q = [sp.Matrix([[R2, -R2, 0]]), sp.Matrix([[0, 0, 1]])]
    u = sp.symbols("a b", real=True)
    point = b.T * s1 + sum((qi.T * ui for qi, ui in zip(q, u)), sp.zeros(3, 1))
    g = sp.expand(f.subs(dict(zip([z1, z2, z3], point)), simultaneous=True))
    expected = sp.zeros(3, 1)
    for qi, ui in zip(q, u):
        expected += qi.T * gaussian_expectation(sp.diff(g, ui), u)
    assert sp.simplify(mu - expected) == sp.zeros(3, 1)
    assert sp.simplify((b * mu)[0]) == 0  # mu lies in U^perp


def test_conditional_mean_gradient_at_the_origin_is_the_mean_gradient():
    f = 2 * z1 + z1 * z2 + z2**3
    mu, s = conditional_mean_gradient(f, [z1, z2], Subspace.zero(2))
    assert s == () and list(mu) == [2, 3]


def test_conditional_mean_gradient_of_the_full_space_is_zero():
    mu, s = conditional_mean_gradient(z1 * z2, [z1, z2], Subspace.full(2))
    assert len(s) == 2 and mu == sp.zeros(2, 1)


def test_staircase_step_is_monotone():
    f = z1 + z1 * z2
    u0 = Subspace.zero(2)
    u1 = staircase_step(f, [z1, z2], u0)
    u2 = staircase_step(f, [z1, z2], u1)
    assert u1 == span([[1, 0]], 2) and u2 == Subspace.full(2) and u2.contains(u1)
    assert staircase_step(f, [z1, z2], u2) == u2


@pytest.mark.parametrize("steps", [1, 2, 5])
def test_staircase_returns_one_subspace_per_step(steps):
    assert len(staircase(Target.parse("z1 + z1*z2"), steps)) == steps
