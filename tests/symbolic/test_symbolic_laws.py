"""Law objects and the giant-step laws: golden LaTeX, derived constants, validation, document."""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.errors import FLTError, InvalidParameterError
from flt_theory.symbolic.laws import SYMBOLS, Law, giant_step_laws, laws_latex_document
from flt_theory.symbolic.target import Target

d, n, p, eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))


@pytest.fixture(scope="module")
def he2_relu():
    return {law.name: law for law in giant_step_laws(Target.from_links(["He2(z)"]), activation="relu")}


@pytest.fixture(scope="module")
def he2_tanh():
    return {law.name: law for law in giant_step_laws(Target.from_links(["He2(z)"]), activation="tanh")}


# ---------------------------------------------------------------------------------------------
# golden LaTeX


def test_threshold_law(he2_relu):
    law = he2_relu["one-step threshold"]
    assert law.latex() == r"n^{*} \asymp d^{2} \quad (\ell = 2)"
    assert law.expression == d**2 and dict(law.exponents) == {"d": 2}
    assert law.status == "theorem" and "2305.18270" in law.source


def test_step_size_law(he2_relu):
    law = he2_relu["theory step size"]
    assert law.latex() == (
        r"\eta \asymp p\, d^{\frac{1}{2}} \quad (\ell = 2,\ n \asymp d^{\kappa},\ \kappa \geq \ell)"
    )
    assert law.expression == p * sp.sqrt(d)
    assert dict(law.exponents) == {"p": 1, "d": sp.Rational(1, 2)}


def test_step_size_and_threshold_at_leap_one():
    laws = {law.name: law for law in giant_step_laws(Target.from_links(["z + He2(z)", "2*z"]))}
    assert laws["one-step threshold"].latex() == r"n^{*} \asymp d \quad (\ell = 1)"
    assert laws["theory step size"].latex() == (
        r"\eta \asymp p \quad (\ell = 1,\ n \asymp d^{\kappa},\ \kappa \geq \ell)"
    )
    assert laws["one-step subspace"].latex().startswith(r"P_{V^*} w_i^1 \subseteq \mathrm{span}\{w^*_{1} + 2 w^*_{2}\}")
    assert laws["staircase U_1"].latex() == r"U_{1} = \mathrm{span}\{w^*_{1} + 2 w^*_{2}\} \quad (n = O(d),\ t = 1)"
    assert laws["staircase U_2"].latex() == r"U_{2} = \mathrm{span}\{w^*_{1}, w^*_{2}\} \quad (n = O(d),\ t = 2)"
    # E[Var(f | P_U x)] with U = span(w1 + 2 w2): 7 - 5 - 2/25
    assert laws["conditional-variance lower bound"].expression == sp.Rational(48, 25)


def test_norm_law(he2_relu):
    law = he2_relu["norm law"]
    assert law.latex() == r"\|w_i^1\|^2 \asymp \frac{d \eta^{2}}{n p^{2}} + 1 \quad (t = 1)"
    assert law.expression == 1 + d * eta**2 / (n * p**2)
    assert dict(law.exponents) == {"d": 1, "eta": 2, "n": -1, "p": -2}


def test_overlap_law_for_a_relu_student(he2_relu):
    """c_sigma = mu_2(relu)/1! = 1/sqrt(2 pi) = sqrt(2)/(2 sqrt(pi)); mu*_{1,2} = E[He2^2] = 2."""
    law = he2_relu["overlap law"]
    assert law.latex() == (
        r"\langle w_i^1, w^*_k\rangle \approx \frac{\eta a_i}{p}\, c_\sigma\, \mu^*_{k,2}\, "
        r"\langle w_i^0, w^*_k\rangle \quad (c_\sigma = \mu_{2}(\sigma)/(2-1)! = \frac{\sqrt{2}}{2 \sqrt{\pi}},\ "
        r"(\mu^*_{k,2})_k = (2))"
    )
    overlap0 = sp.Symbol("overlap0")
    assert sp.simplify(law.expression - eta / p * sp.sqrt(2) / (2 * sp.sqrt(sp.pi)) * overlap0) == 0


def test_subspace_and_second_layer_laws(he2_relu):
    assert he2_relu["one-step subspace"].latex() == (
        r"P_{V^*} w_i^1 \subseteq \mathrm{span}\{w^*_{1}\} \quad "
        r"(n \asymp d^{\ell},\ \eta = p\,d^{(\ell-1)/2},\ \ell = 2)"
    )
    assert he2_relu["staircase U_1"].latex() == r"U_{1} = \{0\} \quad (n = O(d),\ t = 1)"
    assert he2_relu["staircase U_1"].status == "conjecture"
    assert he2_relu["conditional-variance lower bound"].expression == 0
    assert he2_relu["random-feature limit kappa=1"].expression == 2  # ||He2||^2 = 2! survives kappa = 1
    assert he2_relu["random-feature limit kappa=2"].expression == 0
    assert "Mei, Misiakiewicz, Montanari" in he2_relu["random-feature limit kappa=1"].source
    assert "vanishing student coefficient" not in he2_relu


def test_odd_student_at_an_even_leap_gets_the_vanishing_law(he2_tanh):
    law = he2_tanh["vanishing student coefficient"]
    assert law.status == "derived"
    assert law.latex() == (
        r"\langle w_i^1, w^*_k\rangle \to 0 \quad (c_\sigma = \mu_2(\sigma)/(2-1)! = 0,\ "
        r"\sigma = \tanh{\left(z \right)})"
    )
    assert he2_tanh["one-step subspace"].status == "derived"
    assert he2_tanh["one-step subspace"].latex().startswith(r"P_{V^*} w_i^1 \subseteq \{0\}")
    assert he2_tanh["conditional-variance lower bound"].expression == 2


def test_numeric_student_coefficient_is_printed_to_six_digits():
    """mu_1(tanh) = 0.60570550960...; sp.Float(c, 6) rounds in binary and prints 0.605705 (the last
    digit is not decimal-rounded), so only five digits are pinned here."""
    laws = {law.name: law for law in giant_step_laws(Target.from_links(["z"]), activation="tanh")}
    assert r"c_\sigma = \mu_{1}(\sigma)/(1-1)! = 0.60570" in laws["overlap law"].latex()


def test_laws_for_a_numeric_target():
    """tanh target and tanh student (CLAIMS §2 setting): every law is produced; the one-step
    subspace is a float subspace, which projections now accept (used to raise UnsupportedError)."""
    laws = {law.name: law for law in giant_step_laws(Target.from_links(["tanh(z)"]), activation="tanh")}
    assert laws["one-step threshold"].latex() == r"n^{*} \asymp d \quad (\ell = 1)"
    assert float(laws["conditional-variance lower bound"].expression) == pytest.approx(0.0, abs=1e-12)
    e_tanh2 = 0.39429449497700  # E[tanh(z)^2]
    assert float(laws["random-feature limit kappa=1"].expression) == pytest.approx(e_tanh2 - 0.6057055096021591**2, abs=1e-3)


# ---------------------------------------------------------------------------------------------
# the Law object


def test_law_latex_and_repr_latex():
    law = Law("t", "n^*", "asymp", "d^{2}", conditions=(r"\ell = 2", "t = 1"))
    assert law.latex() == r"n^* \asymp d^{2} \quad (\ell = 2,\ t = 1)"
    assert law._repr_latex_() == "$$" + law.latex() + "$$"
    assert Law("u", "a", "geq", "b").latex() == r"a \geq b"
    assert Law("u", "U", "in", "V").latex() == r"U \subseteq V"


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"relation": "approximately"}, "relation"), ({"relation": "asymp", "status": "guess"}, "status")],
)
def test_law_validation(kwargs, parameter):
    base = {"name": "x", "lhs": "a", "relation": "eq", "rhs": "b"}
    with pytest.raises(InvalidParameterError) as info:
        Law(**{**base, **kwargs})
    assert f"'{parameter}'" in str(info.value)
    assert repr(kwargs[parameter]) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, FLTError)


def test_law_to_dict():
    law = Law("thr", "n^*", "asymp", "d^{2}", d**2, {"d": sp.Integer(2)}, status="derived")
    assert law.to_dict() == {
        "name": "thr",
        "latex": r"n^* \asymp d^{2}",
        "status": "derived",
        "source": "DKLPS '23, arXiv 2305.18270 (seed 004)",
        "exponents": {"d": "2"},
        "expression": "d**2",
    }
    assert Law("x", "a", "eq", "b").to_dict()["expression"] is None


def test_laws_latex_document():
    target = Target.from_links(["He2(z)"])
    laws = giant_step_laws(target)
    doc = laws_latex_document(target, laws, title="He2 target")
    assert doc.startswith(r"\documentclass{article}")
    assert r"\begin{document}" in doc and doc.rstrip().endswith(r"\end{document}")
    assert r"\section*{He2 target}" in doc
    assert r"$f^*(x) = x_{1}^{2} - 1$" in doc
    for law in laws:
        assert law.latex() in doc and rf"\textbf{{{law.name.replace('_', chr(92) + '_')}}}" in doc
    assert doc.count(r"\item") == len(laws)
    assert r"\section*{Predicted laws}" in laws_latex_document(target, [])
