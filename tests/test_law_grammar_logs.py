"""Log factors in the ``--law`` grammar of ``flt verify --system``: ``n ~ d*log(d)``, ``t ~ sqrt(d*log(d))``.

Most sample-complexity laws of the field carry a log (online SGD at information exponent 2 needs
:math:`n \\asymp d \\log d` samples, Ben Arous, Gheissari and Jagannath 2021, arXiv 2003.10409). The restricted
grammar (:class:`flt_theory.laws_check.parse._PowerLawParser`) reads ``log(NAME)`` (alias ``ln``) and its numeric
powers wherever a power may stand, folds the log of a constant over 1 into the coefficient and refuses every other
log, naming the position; the parsed law carries ``log_powers`` beside its ``exponents``, evaluates itself
(``value_at``), renders the logs in its text and LaTeX, and moves each log power by ± 1 in its log controls
(``log_mutants``). A law without a log parses exactly as before.
"""

from __future__ import annotations

import math

import pytest

from flt_theory.errors import InvalidParameterError
from flt_theory.laws_check.parse import (
    MAX_EXPONENT,
    LevelSetLaw,
    parse_any,
    parse_level_set_law,
    parse_observable_law,
    parse_relation_law,
)

PARAMETERS = ["d", "n", "eta", "width"]


@pytest.mark.parametrize("text, exponents, log_powers, coefficient", [
    ("steps ~ d*log(d)", {"d": 1.0}, {"d": 1.0}, 1.0),
    ("steps ~ d*log(d)**2", {"d": 1.0}, {"d": 2.0}, 1.0),
    ("n ~ d/log(d)", {"d": 1.0}, {"d": -1.0}, 1.0),
    ("t ~ (d*log(d))**(1/2)", {"d": 0.5}, {"d": 0.5}, 1.0),
    ("t ~ sqrt(d*log(d))", {"d": 0.5}, {"d": 0.5}, 1.0),
    ("t ~ ln(d)*n", {"n": 1.0}, {"d": 1.0}, 1.0),
    ("t ~ log(d)", {}, {"d": 1.0}, 1.0),
    ("t ~ d**2*log(d)**(-3/2)/n", {"d": 2.0, "n": -1.0}, {"d": -1.5}, 1.0),
    ("t ~ log(d)*log(n)**2", {}, {"d": 1.0, "n": 2.0}, 1.0),
    ("t ~ d*log(d)/log(d)", {"d": 1.0}, {}, 1.0),  # the logs cancel
    ("t ~ 3*log(2)*d", {"d": 1.0}, {}, 3 * math.log(2)),  # the log of a constant is a constant
    ("t ~ log(pi)*d", {"d": 1.0}, {}, math.log(math.pi)),
    ("t ~ log(d)**64", {}, {"d": 64.0}, 1.0),  # the bound itself
    ("t ~ (d**2*log(d))**(1/3)", {"d": 2 / 3}, {"d": 1 / 3}, 1.0),
])
def test_accepted_logs_and_their_powers(text, exponents, log_powers, coefficient):
    law = parse_observable_law(text, PARAMETERS)
    assert law.exponents == pytest.approx(exponents) and set(law.exponents) == set(exponents)
    assert law.log_powers == pytest.approx(log_powers) and set(law.log_powers) == set(log_powers)
    assert law.coefficient == pytest.approx(coefficient, rel=1e-12)


def test_relation_and_level_set_laws_carry_log_powers():
    bound = parse_relation_law("t <= 2*d/log(d)", PARAMETERS)
    assert (bound.relation, bound.coefficient, bound.exponents, bound.log_powers) == ("<=", 2.0, {"d": 1.0},
                                                                                      {"d": -1.0})
    level = parse_level_set_law("eta* ~ (n/(d*log(d)))**(1/2)", "norm_growth = 1", PARAMETERS)
    assert isinstance(level, LevelSetLaw) and level.parameter == "eta"
    assert (level.exponents, level.log_powers) == ({"d": -0.5, "n": 0.5}, {"d": -0.5})
    assert parse_any("x ~ d*ln(d)", None, PARAMETERS).log_powers == {"d": 1.0}
    with pytest.raises(InvalidParameterError, match="the solved parameter 'eta' also appears"):
        parse_level_set_law("eta* ~ d*log(eta)", "norm_growth = 1", PARAMETERS)


@pytest.mark.parametrize("text, message", [
    ("x ~ log(d+1)", r"a log of an expression is refused: log\(...\) takes one parameter's name.* at 'd' \(position "
                     r"4\)"),
    ("x ~ log(log(d))", r"a log of log\(...\) is refused.* at 'log' \(position 4\)"),
    ("x ~ log(-d)", r"a log of a signed argument is refused.* at '-' \(position 4\)"),
    ("x ~ log(2*d)", r"a log of an expression is refused.* at '2' \(position 4\)"),
    ("x ~ log(d**2)", r"a log of an expression is refused.*write log\(d\*\*2\) as 2\*log\(d\)"),
    ("x ~ d*log(sqrt(d))", r"a log of sqrt\(...\) is refused.* \(position 6\)"),
    ("x ~ log(exp(d))", r"a log of exp\(...\) is refused"),
    ("x ~ ln((d))", r"a ln of an expression is refused.* at '\(' \(position 3\)"),
    ("x ~ log()", r"a log of nothing is refused.* at '\)' \(position 4\)"),
    ("x ~ log(w)", r"a log of the unknown name 'w' \(the parameters: d, eta, n, width\)"),
    ("x ~ log d", r"log takes its argument in parentheses, as in log\(d\) at 'd' \(position 4\)"),
    ("x ~ log(d", r"expected '\)' at the end"),
    ("x ~ log(", r"a log of nothing is refused.* at the end \(position 4\)"),
    ("x ~ d*log", r"log takes its argument in parentheses.* at the end \(position 5\)"),
    ("x ~ log(1)*d", r"the log of a constant at most 1 is not positive \(log\(1\) <= 0\).* \(position 4\)"),
    ("x ~ log(0.5)**2*d", r"the log of a constant at most 1 is not positive \(log\(0.5\) <= 0\)"),
    ("x ~ log(1e400)*d", r"the number '1e400' is out of range"),
    ("x ~ log(d)**65", rf"an exponent that is not finite or of absolute value over {MAX_EXPONENT} at '65'"),
    ("x ~ (d*log(d)**40)**2", rf"absolute value over {MAX_EXPONENT}"),
    ("x ~ log(d)**60*log(d)**10", rf"the power of log\(d\) is 70, an absolute value over {MAX_EXPONENT}"),
    ("x ~ d**(log(d))", "an exponent must be a number"),
    ("x ~ log(d) + d", "no sums"),
    ("x ~ exp(d)", r"exp\(...\) of a parameter is not a power law"),  # unchanged
])
def test_refused_logs_name_the_problem_and_its_position(text, message):
    with pytest.raises(InvalidParameterError, match=message) as info:
        parse_any(text, None, PARAMETERS)
    assert str(info.value).startswith("--law: ")


def test_value_at_multiplies_the_powers_and_the_logs():
    e = math.e
    assert parse_observable_law("s ~ d*log(d)", PARAMETERS).value_at({"d": e}) == pytest.approx(e)
    assert parse_observable_law("s ~ d*log(d)**2", PARAMETERS).value_at({"d": e**2}) == pytest.approx(4 * e**2)
    assert parse_observable_law("s ~ d/log(d)", PARAMETERS).value_at({"d": 100}) == pytest.approx(100 / math.log(100))
    assert parse_observable_law("s ~ sqrt(d*log(d))", PARAMETERS).value_at({"d": 64}) == pytest.approx(
        math.sqrt(64 * math.log(64)))
    relation = parse_relation_law("s <= 0.5*n*log(d)/d**2", PARAMETERS)
    point = {"d": 10.0, "n": 3, "width": 0.25}  # a parameter EXPR lacks may lie anywhere
    assert relation.value_at(point) == pytest.approx(0.5 * 3 * math.log(10) / 100)
    assert relation.value_at(point, exponents={"d": -2.0, "n": 1.0}, log_powers={}) == pytest.approx(0.5 * 3 / 100)
    assert relation.value_at(point, log_powers={"d": 1.0, "n": 1.0}) == pytest.approx(
        0.5 * 3 * math.log(10) * math.log(3) / 100)
    assert parse_observable_law("s ~ 1e300*d**64", PARAMETERS).value_at({"d": 1e10}) == math.inf
    assert parse_observable_law("s ~ d**2", PARAMETERS).value_at({"d": 3}) == 9.0  # exactly as before


@pytest.mark.parametrize("point, message", [
    ({"d": 1}, r"has the factor log\(d\), so d must be over 1 \(log\(d\) > 0\) at every point; got d=1\."),
    ({"d": 0.5}, r"has the factor log\(d\), so d must be over 1 .*got d=0.5\."),
    ({"d": float("nan")}, r"has the factor log\(d\), so d must be over 1 .*got d=nan\."),
    ({"n": 4}, r"needs a value of d; the point gives n\."),
    ({"d": True}, r"has the factor log\(d\), so d must be over 1 .*got d=True\."),
])
def test_a_log_parameter_at_most_1_cannot_be_evaluated(point, message):
    law = parse_observable_law("n ~ d*log(d)", PARAMETERS)
    for call in (law.check_point, law.value_at):
        with pytest.raises(InvalidParameterError, match="--law: the law 'n ~ d\\*log\\(d\\)' " + message):
            call(point)
    with pytest.raises(InvalidParameterError, match="^--over: "):
        law.check_point(point, option="--over")
    law.check_point({"d": 1.0001})  # the negative control: just over 1 is fine
    with pytest.raises(InvalidParameterError, match="needs a finite positive d; got d=0"):
        parse_observable_law("n ~ d", PARAMETERS).check_point({"d": 0})
    parse_observable_law("n ~ d", PARAMETERS).check_point({"d": 0.5})  # no log: below 1 is fine


@pytest.mark.parametrize("text", ["steps ~ d*log(d)", "steps ~ d*log(d)**2", "n ~ d/log(d)", "t ~ sqrt(d*log(d))",
                                  "t ~ ln(d)*n**(-1/3)", "t ~ log(d)*log(n)**(2/3)", "x ~ (d/n)**(1/2)"])
def test_text_round_trip(text):
    law = parse_observable_law(text, PARAMETERS)
    assert parse_observable_law(law.text, PARAMETERS) == law
    rendered = law.mutant_text(law.exponents)  # the canonical text, what the controls show
    again = parse_observable_law(rendered, PARAMETERS)
    assert (again.exponents, again.log_powers) == (law.exponents, law.log_powers)
    assert ("log(" in rendered) == bool(law.log_powers)
    for label, exponents, log_powers, goal in law.log_mutants(["d", "n"]):
        mutant = parse_observable_law(law.mutant_text(exponents, log_powers), PARAMETERS)
        assert mutant.exponents == {k: b for k, b in exponents.items() if b}
        assert mutant.log_powers == pytest.approx(log_powers) and set(mutant.log_powers) == set(log_powers)
        assert not goal and label.startswith("log power")
    bound = parse_relation_law(text.replace("~", "<=", 1), PARAMETERS)
    assert parse_relation_law(bound.text, PARAMETERS) == bound and bound.log_powers == law.log_powers


def test_text_and_latex_show_the_logs():
    law = parse_observable_law("steps ~ d*log(d)", PARAMETERS)
    assert law.text == "steps ~ d*log(d)"
    assert law.mutant_text(law.exponents) == "steps ~ d**(1) * log(d)"
    assert law.latex() == r"\mathrm{steps} \sim d \log d"
    assert parse_observable_law("t ~ n*ln(d)**2", PARAMETERS).latex() == r"\mathrm{t} \sim n \log^{2} d"
    assert parse_observable_law("t ~ sqrt(d*log(d))", PARAMETERS).latex() == r"\mathrm{t} \sim d^{1/2} (\log d)^{1/2}"
    assert parse_observable_law("n ~ d/log(d)", PARAMETERS).latex() == r"\mathrm{n} \sim \frac{d}{\log d}"
    assert parse_relation_law("t <= 1e-7*d**2/log(d)", PARAMETERS).latex() == \
        r"\mathrm{t} \le \frac{1 \times 10^{-7} d^{2}}{\log d}"
    level = parse_level_set_law("eta* ~ (n/(d*log(d)))**(1/2)", "norm_growth = 1", PARAMETERS)
    assert level.latex() == r"\eta^{*} \sim \frac{n^{1/2}}{d^{1/2} (\log d)^{1/2}}"
    assert level.mutant_text({"d": -1.0, "n": 0.5}) == "eta* ~ d**(-1) * n**(1/2) * log(d)**(-1/2)"
    assert law.latex({"d": 1.5}, {}) == r"\mathrm{steps} \sim d^{3/2}"  # a mutant's
    assert parse_observable_law("x ~ 2", PARAMETERS).latex() == r"\mathrm{x} \sim 1"


def test_the_mutation_panel_keeps_the_logs_and_the_log_mutants_move_them():
    law = parse_observable_law("steps ~ d*log(d)", PARAMETERS)
    panel = law.wrong_laws(["d", "n"])
    assert [(label, exponents, goal) for label, exponents, goal in panel][:2] == [
        ("exponent of d + 0.5", {"d": 1.5, "n": 0.0}, True), ("exponent of d - 0.5", {"d": 0.5, "n": 0.0}, True)]
    assert [law.mutant_text(exponents) for _, exponents, _ in panel[:3]] == [
        "steps ~ d**(3/2) * log(d)", "steps ~ d**(1/2) * log(d)", "steps ~ d**(2) * log(d)"]
    assert panel == parse_observable_law("steps ~ d", PARAMETERS).wrong_laws(["d", "n"])  # exponent shifts only
    mutants = law.log_mutants(["d", "n"])
    assert mutants == [
        ("log power of d + 1", {"d": 1.0, "n": 0.0}, {"d": 2.0}, False),
        ("log power of d - 1", {"d": 1.0, "n": 0.0}, {}, False),
        ("log power of n + 1", {"d": 1.0, "n": 0.0}, {"d": 1.0, "n": 1.0}, False),
        ("log power of n - 1", {"d": 1.0, "n": 0.0}, {"d": 1.0, "n": -1.0}, False)]
    assert [law.mutant_text(e, q) for _, e, q, _ in mutants[:2]] == ["steps ~ d**(1) * log(d)**(2)",
                                                                     "steps ~ d**(1)"]
    # each log mutant is another law: its ratio to the law is log(x)^(+-1), not constant along x's axis
    for label, exponents, log_powers, _ in mutants:
        k = label.split()[3]
        ends = [{"d": 64, "n": 8, k: value} for value in (64, 512)]
        ratios = [law.value_at(p, exponents, log_powers) / law.value_at(p) for p in ends]
        assert not ratios[0] == pytest.approx(ratios[1], rel=0.05)
    ends = [{"d": 64, "n": 8}, {"d": 512, "n": 8}]  # the negative control: the law against itself, ratio 1
    assert [law.value_at(p, law.exponents, law.log_powers) / law.value_at(p) for p in ends] == [1.0, 1.0]
    pure = parse_observable_law("steps ~ d", PARAMETERS)
    assert [q for _, _, q, _ in pure.log_mutants(["d"])] == [{"d": 1.0}, {"d": -1.0}]  # the missing log's control


@pytest.mark.parametrize("text, exponents", [
    ("norm_growth ~ 3*d*eta**2/(n*width**2)", {"d": 1.0, "eta": 2.0, "n": -1.0, "width": -2.0}),
    ("y ~ sqrt(d/n)", {"d": 0.5, "n": -0.5}),
    ("y ~ 2*d**-0.5*(n**2)**(1/4)/pi", {"d": -0.5, "n": 0.5}),
    ("y ~ 2", {}),
])
def test_laws_without_logs_parse_as_before(text, exponents):
    import sympy as sp

    law = parse_observable_law(text, PARAMETERS)
    assert law.exponents == exponents and law.log_powers == {}
    assert not law.expression.has(sp.log)
    assert law.log_mutants([]) == [] and law.mutant_text(law.exponents).count("log") == 0


def test_an_unsettled_failure_of_the_law_is_inconclusive_at_the_front_door():
    """A law the extrapolation excludes while the largest rungs alone hold it (y = x (1 + x^-1/2/2 + 2/x), one noisy
    draw) is INCONCLUSIVE, never PASS: the limit decision's unsettled rule reaches flt verify --law's verdict."""
    import numpy as np

    from flt_theory.compare import check_limit_power_law
    from flt_theory.laws_check import parse_observable_law
    from flt_theory.laws_check.verdict import decide_limit_law

    x = 16.0 * 2.0 ** np.arange(6)
    y = x * (1 + 0.5 * x**-0.5 + 2.0 / x) * np.exp(0.05 * np.random.default_rng(357).standard_normal((8, 6)))
    check = check_limit_power_law(x, y, 1.0)
    assert not check.passed and check.details["p_largest"] >= 0.05  # the case: unsettled
    decided = decide_limit_law(parse_observable_law("y ~ x", ["x"]), {"x": x}, y, "x", 0.95)
    assert decided["verdict"] == "inconclusive" and "larger sizes would settle it" in decided["reason"]
