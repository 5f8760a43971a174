"""``flt laws`` prints what a researcher can paste (issue 37): numbers exact where the law is exact, a numerically
computed number to a stated number of significant digits (``--digits``) in the text and the LaTeX, and the LaTeX
target with the ``He_k`` the user wrote (``--expanded`` for the polynomial)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from flt_theory.commands.giant_step import laws_command
from flt_theory.errors import InvalidParameterError
from flt_theory.symbolic import Target, staircase
from flt_theory.symbolic.display import written_latex
from flt_theory.symbolic.law import DIGITS, rounded, significant_digits
from flt_theory.systems.giant_step.laws import second_layer_floors

C_TANH = "0.605705509602159"  # mu_1(tanh) by Gauss-Hermite quadrature (flt hermite tanh)
LONG_DECIMAL = re.compile(r"\d\.\d{7,}")  # a float printed at full precision


def _laws(*args: str) -> str:
    result = CliRunner().invoke(laws_command, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_quadrature_value_is_rounded_to_the_stated_digits_in_text_and_latex():
    text = _laws("relu(z1)", "--activation", "tanh")
    assert f"rounded to {DIGITS} significant digits (--digits)" in text
    assert "= 0.6057" in text and C_TANH[:8] not in text and not LONG_DECIMAL.search(text)
    seven = _laws("relu(z1)", "--activation", "tanh", "--digits", "7")
    assert "= 0.6057055" in seven and "rounded to 7 significant digits" in seven
    latex = _laws("relu(z1)", "--activation", "tanh", "--latex")
    assert "= 0.6057" in latex and not LONG_DECIMAL.search(latex) and "rounded to 4 significant digits" in latex


def test_exact_laws_stay_exact():
    """relu's Hermite coefficients are exact: no decimal number anywhere in the laws of a polynomial target."""
    text = _laws("He2(z1) + z1*z2")
    assert r"\frac{\sqrt{2}}{2 \sqrt{\pi}}" in text  # c_sigma = mu_2(relu)/1! = 1/sqrt(2 pi)
    assert not re.search(r"\d\.\d", text), text
    assert "significant digits" not in text  # the precision is said only where a decimal number is shown


def test_the_json_keeps_the_constants_at_full_precision():
    import json

    (overlap,) = [law for law in json.loads(_laws("relu(z1)", "--activation", "tanh", "--json"))
                  if law["name"] == "overlap law"]
    assert overlap["constants"]["c_sigma"] == C_TANH  # the machine form: full precision
    assert "= 0.6057," in overlap["latex"] and C_TANH[:8] not in overlap["latex"]  # the printed form: rounded


def test_digits_out_of_range_is_refused_naming_the_option():
    for bad in ("0", "16", "x"):
        result = CliRunner().invoke(laws_command, ["z1", "--digits", bad])
        assert result.exit_code == 2 and "--digits" in result.output, result.output
    with pytest.raises(InvalidParameterError, match="'digits'"):
        with significant_digits(0):
            pass


def test_latex_keeps_the_hermite_polynomials_the_user_wrote():
    latex = _laws("He3(z3) + z1*z2", "--latex")
    target = next(line for line in latex.splitlines() if line.startswith("Target:"))
    assert r"\mathrm{He}_{3}\left(z_{3}\right)" in target and "z_{3}^{3}" not in target
    expanded = _laws("He3(z3) + z1*z2", "--latex", "--expanded")
    assert r"z_{3}^{3} - 3 z_{3}" in expanded and r"\mathrm{He}_{3}\left(z_{3}\right)" not in expanded
    refused = CliRunner().invoke(laws_command, ["z1", "--expanded"])
    assert refused.exit_code == 2 and "--expanded" in refused.output


@pytest.mark.parametrize("text, shown", [
    ("He(2, z1 + z2)*z3", r"z_{3} \mathrm{He}_{2}\left(z_{1} + z_{2}\right)"),
    ("He2(He2(z1))", r"\mathrm{He}_{2}\left(\mathrm{He}_{2}\left(z_{1}\right)\right)"),
    ("z1**3 - 3*z1", r"z_{1}^{3} - 3 z_{1}"),  # no He written, none shown
])
def test_the_written_form_is_the_target_itself(text, shown):
    target = Target.parse(text)
    assert written_latex(target) == shown


def test_a_target_not_given_as_one_text_falls_back_to_its_expansion():
    assert written_latex(Target.from_links(["He2(z)", "z"], name="sum of links He2(z); z")) is None
    assert written_latex(Target.parse("z1", name="my target")) is None


def test_the_second_layer_floors_words_round_their_floats():
    """The law's words printed ``1.39363...`` in full; now as many digits as its LaTeX."""
    f = Target.parse("tanh(z1) + z1*z2")
    law = second_layer_floors(f, staircase(f, 2), "tanh")
    assert not LONG_DECIMAL.search(law.words) and "1.394 - 0.1707*p/d" in law.words
    with significant_digits(2):
        assert str(rounded(law.value[0])) == "1.4 - 0.17*p/d"
