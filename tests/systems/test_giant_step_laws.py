"""The giant-step laws: golden LaTeX (rendered from each law's sympy value), derived constants."""

from __future__ import annotations

import pytest
import sympy as sp

from flt_theory.symbolic.law import SYMBOLS, laws_latex_document
from flt_theory.symbolic.target import Target
from flt_theory.systems.giant_step.laws import giant_step_laws

d, n, p, eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))


@pytest.fixture(scope="module")
def he2_relu():
    return {law.name: law for law in giant_step_laws(Target.from_links(["He2(z)"]), activation="relu")}


@pytest.fixture(scope="module")
def he2_tanh():
    return {law.name: law for law in giant_step_laws(Target.from_links(["He2(z)"]), activation="tanh")}


def test_threshold_and_step_size(he2_relu):
    law = he2_relu["one-step threshold"]
    assert law.latex() == r"n^{*} \asymp d^{2} \quad (\ell = 2)"
    assert law.value == d**2 and law.exponent("d") == 2
    assert law.status == "theorem" and law.source.arxiv == "2305.18270"
    step = he2_relu["theory step size"]
    assert step.value == p * sp.sqrt(d) and step.exponent("d") == 0.5 and step.exponent("p") == 1


def test_leap_one_laws():
    laws = {law.name: law for law in giant_step_laws(Target.from_links(["z + He2(z)", "2*z"]))}
    assert laws["one-step threshold"].latex() == r"n^{*} \asymp d \quad (\ell = 1)"
    assert laws["theory step size"].latex() == (r"\eta \asymp p \quad "
                                                r"(\ell = 1,\ n \asymp d^{\kappa},\ \kappa \geq \ell)")
    assert laws["one-step subspace"].latex().startswith(r"P_{V^*} w_i^1 \subseteq \mathrm{span}\{w^*_{1} + 2 w^*_{2}\}")
    assert laws["staircase U_2"].latex() == r"U_{2} = \mathrm{span}\{w^*_{1}, w^*_{2}\} \quad (n = O(d),\ t = 2)"
    # E[Var(f | P_U x)] with U = span(w1 + 2 w2): 7 - 5 - 2/25
    assert laws["conditional-variance lower bound"].value == sp.Rational(48, 25)


def test_norm_law(he2_relu):
    law = he2_relu["norm law"]
    assert law.latex() == r"\|w_i^1\|^2 - 1 \asymp \frac{d \eta^{2}}{n p^{2}} \quad (t = 1)"
    assert [law.exponent(x) for x in ("d", "eta", "n", "p")] == [1, 2, -1, -2]


def test_overlap_law_machine_form_matches_its_latex(he2_relu):
    """c_sigma = mu_2(relu)/1! = 1/sqrt(2 pi); the expression holds a_i, c_sigma and mu*_{k,2}, as the LaTeX does."""
    law = he2_relu["overlap law"]
    assert law.latex() == (
        r"\langle w_i^1, w^*_k\rangle \approx \frac{a_i c_\sigma \eta \mu^*_{k,2} \langle w_i^0, w^*_k\rangle}{p} "
        r"\quad (c_\sigma = \mu_{2}(\sigma)/1! = \frac{\sqrt{2}}{2 \sqrt{\pi}},\ (\mu^*_{k,2})_k = (2))"
    )
    assert {s.name for s in law.value.free_symbols} == {"a_i", "c_sigma", "eta", "mu_star", "overlap0", "p"}
    # at mu* = 2, c_sigma = 1/sqrt(2 pi), a_i = 1: the prediction the simulation is compared with
    value = law.number(a_i=1, c_sigma=float(1 / sp.sqrt(2 * sp.pi)), eta=1, mu_star=2, overlap0=1, p=1)
    assert value == pytest.approx(0.7979, abs=1e-4)


def test_subspace_and_second_layer_laws(he2_relu, he2_tanh):
    assert he2_relu["staircase U_1"].latex() == r"U_{1} = \{0\} \quad (n = O(d),\ t = 1)"
    assert he2_relu["conditional-variance lower bound"].value == 0
    assert he2_relu["random-feature limit kappa=1"].value == 2
    assert he2_relu["random-feature limit kappa=1"].source.authors.startswith("Mei, Misiakiewicz, Montanari")
    assert he2_tanh["student coefficient"].value == 0 and he2_tanh["student coefficient"].status == "derived"
    assert he2_tanh["one-step subspace"].latex().startswith(r"P_{V^*} w_i^1 \subseteq \{0\}")


def test_numeric_student_coefficient_is_rounded():
    laws = {law.name: law for law in giant_step_laws(Target.from_links(["z"]), activation="tanh")}
    assert r"c_\sigma = \mu_{1}(\sigma)/0! = 0.6057" in laws["overlap law"].latex()
    assert "0.605705509" not in laws["student coefficient"].latex()


def test_laws_latex_document():
    target = Target.from_links(["He2(z)"])
    laws = giant_step_laws(target)
    doc = laws_latex_document(target, laws, title="He2 target")
    assert doc.startswith(r"\documentclass{article}") and doc.rstrip().endswith(r"\end{document}")
    assert r"\section*{He2 target}" in doc and r"$f^*(z) = " in doc
    for law in laws:
        assert law.latex() in doc
    assert doc.count(r"\item") == len(laws)


def test_laws_latex_document_quotes_source_titles_the_latex_way():
    """A straight ``"`` prints as a closing quote on both sides of a title in the PDF: the document opens a title
    with two backticks and closes it with two apostrophes (the control: plain-text ``cite()`` keeps ``"``)."""
    target = Target.from_links(["He2(z)"])
    laws = giant_step_laws(target)
    doc = laws_latex_document(target, laws)
    titled = [law.source for law in laws if law.source.title]
    assert titled
    for source in titled:
        assert f'"{source.title}"' in source.cite()  # the control: the check below can fail
        assert f"``{source.title}''" in doc and f'"{source.title}"' not in doc
    assert '"' not in doc


# -- a catalogue that does not contradict itself (example (d) of the staircase) -------------------------------


def _both_passing(claims, frame):
    """Pairs (key, other key) of ``claims`` declared contradicting (``Claim.contradicts``) whose checks both pass on
    ``frame``."""
    passed = {c.key: bool(c.evaluate(frame).passed) for c in claims}
    return [(c.key, other) for c in claims for other in c.contradicts if passed.get(c.key) and passed.get(other)]


def test_staircase_d_claims_do_not_contradict_each_other_on_one_frame():
    """On ONE measured frame (d = 128, n = 64d, two steps): the restated (d) (at least one new direction of
    span(w2, w3)) and the finding (exactly one) both pass; the conjecture's literal statement (every direction of the
    plane: the control of the restated claim) contradicts the finding, so the two must not both pass."""
    import dataclasses

    from flt_theory.systems import get_claim, measure

    restated, finding = get_claim("giant-step/staircase-d"), get_claim("giant-step/staircase-d-one-new-direction")
    assert restated.the_law.relation == "in" and restated.the_wrong_law.relation == "eq"
    one = measure(restated, "small")  # the d = 128 rung of the finding's ladder: the same stored point
    assert one["d"].nunique() == 1
    literal = dataclasses.replace(restated, name="staircase-d-literal", law=restated.the_wrong_law,
                                  wrong_law=restated.the_law, contradicts=(finding.key,))
    claims = [restated, finding, literal]
    assert _both_passing(claims, one) == []
    assert restated.verdict(one).passed and finding.evaluate(one).passed
    assert not literal.evaluate(one).passed
    # the declared pairs of the system, each on its claims' shared frame
    from flt_theory.systems import registry

    system = {c.key: c for s in registry.systems() if s.name == "giant-step" for c in s.claims}
    for claim in system.values():
        for other in claim.contradicts:
            assert claim.measurement == system[other].measurement, (claim.key, other)
            assert _both_passing([claim, system[other]], measure(claim, "small")) == []
