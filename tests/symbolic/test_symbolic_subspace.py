"""Subspaces of the teacher space in w*-coordinates: exact and floating-point bases."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from flt_theory.symbolic.subspace import Subspace

R2 = sp.sqrt(2) / 2


def test_span_is_orthonormalised_exactly():
    u = Subspace.span([[1, 1]], 2)
    assert u.dim == 1 and u.ambient == 2 and u.is_exact
    assert u.basis.tolist() == [[R2, R2]]
    assert u.complement().basis.tolist() == [[R2, -R2]]
    assert Subspace.span([[1, 2]], 2).basis.tolist() == [[sp.sqrt(5) / 5, 2 * sp.sqrt(5) / 5]]


def test_dependent_and_zero_vectors_are_dropped():
    assert Subspace.span([[1, 1], [2, 2]], 2).dim == 1
    assert Subspace.span([[0, 0]], 2) == Subspace.zero(2)
    assert Subspace.span([], 3) == Subspace.zero(3)
    assert Subspace.span([[1, 0, 0], [0, 1, 0], [1, 1, 0]], 3).dim == 2


def test_zero_and_full():
    assert Subspace.zero(3).dim == 0 and Subspace.zero(3).basis.shape == (0, 3)
    assert Subspace.full(3).dim == 3 and Subspace.full(3).basis == sp.eye(3)
    assert Subspace.zero(3).complement() == Subspace.full(3)
    assert Subspace.full(3).complement() == Subspace.zero(3)
    assert Subspace.zero(2).latex() == r"\{0\}"


def test_equality_is_by_span_not_by_basis():
    a = Subspace.span([[1, 0, 0], [0, 1, 1]], 3)
    b = Subspace.span([[1, 1, 1], [1, -1, -1]], 3)
    assert a == b and hash(a) == hash(b)
    assert a != Subspace.span([[1, 0, 0], [0, 1, 0]], 3)
    assert Subspace.span([[1, 1]], 2) != Subspace.span([[1, 1, 0]], 3)  # different ambient spaces
    assert (Subspace.span([[1, 1]], 2) == "span") is False


def test_sum_and_containment():
    a = Subspace.span([[1, 0, 0]], 3)
    b = Subspace.span([[0, 1, 1]], 3)
    assert (a + b) == Subspace.span([[1, 0, 0], [0, 1, 1]], 3)
    assert (a + b).contains(a) and (a + b).contains(b) and not a.contains(b)
    assert a.contains(Subspace.zero(3))


def test_float_subspaces():
    u = Subspace.span([[0.5, 1.0]], 2)
    assert not u.is_exact and u.dim == 1
    assert u == Subspace.span([[1, 2]], 2)  # mixed exact/float comparison uses the rank tolerance
    np.testing.assert_allclose(np.abs(u.numpy()), [[1 / np.sqrt(5), 2 / np.sqrt(5)]], atol=1e-15)
    assert u.complement().dim == 1
    np.testing.assert_allclose(u.numpy() @ u.complement().numpy().T, [[0.0]], atol=1e-15)


def test_complement_of_a_full_float_subspace_is_zero():
    """Regression: this used to build a 0x0 matrix and fail with a ShapeError downstream."""
    u = Subspace.span([[1.0, 0.25], [0.0, 1.0]], 2)
    c = u.complement()
    assert c.dim == 0 and c.basis.shape == (0, 2) and c == Subspace.zero(2)
    assert Subspace.span([[0.6057]], 1).complement().basis.shape == (0, 1)


def test_latex_shows_unnormalised_exact_vectors():
    assert Subspace.span([[1, 2]], 2).latex() == r"\mathrm{span}\{w^*_{1} + 2 w^*_{2}\}"
    assert Subspace.span([[1, -1]], 2).latex() == r"\mathrm{span}\{w^*_{1} - w^*_{2}\}"
    assert Subspace.full(2).latex() == r"\mathrm{span}\{w^*_{1}, w^*_{2}\}"
    assert Subspace.span([[1, 1, 0]], 3).latex(["a", "b", "c"]) == r"\mathrm{span}\{a + b\}"


def test_to_json():
    assert Subspace.span([[1, 0], [0, 1]], 2).to_json() == [[1.0, 0.0], [0.0, 1.0]]
    assert Subspace.zero(2).to_json() == []


@settings(max_examples=15, deadline=None, database=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=0, max_size=4))
def test_exact_span_properties(vectors):
    u = Subspace.span(vectors, 3)
    assert u.dim == sp.Matrix(vectors).rank() if vectors else u.dim == 0
    if u.dim:
        gram = sp.simplify(u.basis * u.basis.T)
        assert gram == sp.eye(u.dim)
    c = u.complement()
    assert c.dim + u.dim == 3
    assert u + c == Subspace.full(3)
    for v in vectors:
        assert u.contains(Subspace.span([v], 3))


def test_numpy_shape_of_the_zero_subspace():
    assert Subspace.zero(4).numpy().shape == (0, 4)


@pytest.mark.parametrize("ambient", [1, 2, 5])
def test_full_is_its_own_span(ambient):
    assert Subspace.span(np.eye(ambient, dtype=int).tolist(), ambient) == Subspace.full(ambient)


def test_float_span_latex_is_rounded_and_shows_integers_as_integers():
    assert Subspace.span([[0.5, 0.6055]], 2).latex() == r"\mathrm{span}\{w^*_{1} + 1.211 w^*_{2}\}"
