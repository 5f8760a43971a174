"""Issue 38, failure 5: ``exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**59)))`` ran for minutes in ``flt staircase``.

sympy cannot tell that ``relu`` and ``sigmoid`` are real, so deciding whether ``tanh(u)`` is real (``exp(tanh(u))``,
``abs(tanh(u))``, ``1/(2 + tanh(u))`` ask it) splits ``u`` into real and imaginary parts and expands them. Telling
sympy that relu is real would be fast but would change the trees of targets accepted today (``abs(relu(z))**2`` would
become ``relu(z)**2``, and their numbers in the last bits), so the work is predicted instead
(:func:`flt_theory.symbolic.budget.predict_realness`) and a ``tanh`` beyond ``FLT_MAX_WORK`` is refused before it is
built; and the target's LaTeX renames its variables without evaluating the tree again (it asked the same question a
second time). Outcomes only: the speed of the accepted side is recorded in the budget's docstring.
"""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.errors import BudgetExceededError
from flt_theory.symbolic.budget import predict_realness
from flt_theory.symbolic.functions import relu
from flt_theory.symbolic.parser import parse_expression
from flt_theory.symbolic.target import Target

ISSUE = "exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**59)))"


@pytest.mark.parametrize("text", [
    ISSUE,
    "abs(tanh((relu(z1) + z2)**40))",
    "exp(tanh((relu(z1)+z2)*(relu(z2)+z3)*(relu(z3)+z4)*(relu(z4)+z5)*(relu(z5)+z6)*(relu(z6)+z1)))",  # > 20 s
    "exp(tanh((relu(z1)**64)**4))",
    "tanh((sigmoid(z1) + z2 + relu(z3))**12)",
    "tanh((relu(z1) + z2)**20) + tanh((relu(z2) + z3)**20) + tanh((relu(z3) + z1)**20)",  # the work adds up
])
def test_a_tanh_whose_realness_sympy_would_expand_beyond_the_budget_is_refused(text):
    with pytest.raises(BudgetExceededError, match="tanh at position .*cannot tell that relu and sigmoid are real.*"
                                                  "FLT_MAX_WORK"):
        parse_expression(text)


@pytest.mark.parametrize("text", [
    "exp(tanh(relu(z1)))", "tanh(relu(z1) + z2)*z3", "exp(tanh((relu(z1) + z2)**12))", "relu(z1)**64",
    "exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**3)))", "tanh(z1*z2)**2 + tanh(He8(z3))",
    "exp(tanh(z4*((5 + z4*abs(-z3 + 571.207))**59)))",  # abs is real to sympy: nothing to expand
])
def test_tanh_of_a_small_or_provably_real_argument_is_accepted(text):
    assert parse_expression(text).has(sp.tanh) or "tanh" not in text


def test_the_budget_raises_the_limit(monkeypatch):
    monkeypatch.setenv("FLT_MAX_WORK", "4000000")
    assert parse_expression("exp(tanh((relu(z1) + z2)**30))").has(sp.tanh)


def test_the_prediction_counts_the_expansion_of_the_real_and_imaginary_parts():
    z1, z2, z3, z4 = (sp.Symbol(f"z{k}", real=True) for k in range(1, 5))
    assert predict_realness(sp.tanh(z1) * z2 + z3**9) == (1, 0, 0, 0.0)  # provably real: free
    terms, generators, degree, _ = predict_realness(z4 * (5 + z4 * relu(sp.Float("571.207") - z3)) ** 59)
    assert (terms, generators, degree) == (1830, 3, 119)  # C(61, 2) monomials in z4, re and im of the relu
    assert predict_realness((relu(z1) + z2) * (relu(z2) + z3))[:3] == (9, 6, 2)


def test_latex_does_not_evaluate_the_target_again():
    """Renamed without evaluation: the same text as a renaming with evaluation (a fuzz corpus of 7,258 targets gave
    identical LaTeX), without asking sympy again whether each tanh is real."""
    target = Target.parse("exp(tanh(z4*((5 + z4*relu(-z3 + 571.207))**3)))")
    assert target.latex() == (r"e^{\tanh{\left(z_{4} \left(z_{4} \operatorname{ReLU}\left(\frac{571207}{1000} - z_{3}"
                              r"\right) + 5\right)^{3} \right)}}")
    for text in ["z12*z1 + sin(exp(40))*z10**2 + z2", "He3(z11) - relu(z2)*z10 + exp(-sin(exp(40))*z1**2)"]:
        target = Target.parse(text)  # 12 variables: z_{12} sorts before z_{1}; a folded constant shown to 6 digits
        names = {v: sp.Symbol(f"z_{{{k}}}", real=True) for k, v in enumerate(target.variables, start=1)}
        renamed = target.expr.xreplace(names)  # evaluated again, as before
        assert target.latex() == sp.latex(renamed.xreplace({f: sp.Float(f, 6) for f in renamed.atoms(sp.Float)}))
    assert Target.parse("sin(exp(40))*z1").latex() == "0.948085 z_{1}"
