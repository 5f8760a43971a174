r"""Laws of the giant-step system (sympy only) for one target and one student activation.

Source: Dandi, Krzakala, Loureiro, Pesce, Stephan 2023, "How two-layer neural networks learn, one
(giant) step at a time", arXiv 2305.18270; the random-feature limit is Mei, Misiakiewicz, Montanari
2022 (arXiv 2101.10588). Every constant is derived in the symbolic layer: the leap index
(:mod:`flt_theory.symbolic.leap`), the student coefficient :math:`c_\sigma = \mu_\ell(\sigma)/(\ell-1)!`
and the one-step subspace (:mod:`flt_theory.symbolic.one_step`), the staircase
(:mod:`flt_theory.symbolic.staircase`), the conditional variance and random-feature error
(:mod:`flt_theory.symbolic.projections`).

Every law's LaTeX is rendered from its sympy value (:class:`~flt_theory.symbolic.law.Law`), so the
machine form (``--json``) and the printed form cannot disagree. The overlap law, for instance, is
:math:`\langle w_i^1, w^*_k\rangle \approx \frac{\eta a_i}{p} c_\sigma \mu^*_{k,\ell}\langle w_i^0,
w^*_k\rangle^{\ell-1}` with :math:`a_i`, :math:`\mu^*_{k,\ell}` and the initial overlap as symbols in the expression.

Hypotheses (:class:`~flt_theory.symbolic.hypothesis.Hypothesis`). Every statement of Dandi et al. 2023 is
asymptotic: :math:`d \to \infty` with :math:`n = \Theta(d^\kappa)` samples per step, width :math:`p`, symmetric
initialisation :math:`w_i^0 \sim \mathrm{Unif}(\mathbb S^{d-1})`, :math:`a_i = \pm 1` (:math:`\hat f(W^0) = 0`).
What we established, and how. The full text was not readable here beyond its abstract; the statements below are
those of the authors' own presentation of the paper, whose theorems are unnumbered there, so each hypothesis
names the statement by its content ("one-step learning theorem, ℓ = 1"), not by a number:

* one-step theorems (proved): (i) :math:`n = O(d^{\ell-\varepsilon})`: no learning for ANY :math:`\eta`;
  (ii) :math:`\ell = 1`, :math:`n = \Omega(d)`, :math:`\eta = p`: :math:`\|P_{V^*}w_i\| = \Omega(\|w_i\|)` and
  :math:`P_{V^*}w_i \in \mathrm{span}(v^*)` (rank-one update); (iii) :math:`\ell > 1`, :math:`n = \Omega(d^\ell)`,
  :math:`\eta = p\,d^{(\ell-1)/2}`: learning, inside :math:`U^*_\ell`. The overlap and norm laws are the two
  estimates these proofs rest on ("we show that ..."), stated with them;
* staircase (Conjecture 1): :math:`n = O(d)` per step; the authors also state it proved in expectation for
  :math:`T = 2` — the finite-sample, finite-width statement checked here is the conjecture;
* second layer (proved): :math:`p = O(1)` and the first layer learned only :math:`U^*`: test error
  :math:`\ge \mathbb E[\mathrm{Var}(f^*\mid P_{U^*}x)] + o(1)`;
* random features (Mei, Misiakiewicz, Montanari 2022, proved): :math:`n \asymp d^{\kappa_n}`,
  :math:`p \asymp d^{\kappa_p}`.

Reading (stated in each law's ``hypotheses_reading``): :math:`d \to \infty` is read as :math:`d \ge 64`
(:data:`LARGE_D`: a reading, not a constant of the source); the step size of a learning theorem is read exactly
(within 1%); :math:`n = \Omega(d^\ell)` with constant 1; :math:`p = O(1)` as :math:`p \le \sqrt d`; the
staircase's :math:`n = O(d)` as :math:`n \le 64\,d` (:data:`LINEAR_BATCH`), the ratio the staircase ladders hold
fixed as :math:`d` grows — at one :math:`d` a bounded ratio cannot be told from a growing one, so the reading
names its constant. The symmetric initialisation is the setting of every measurement (:mod:`.model`), not a
per-point condition. Because :math:`\hat f(W^0) = 0`, each neuron's first step is independent of the others:
the one-step statements need no condition on :math:`p`.
"""

from __future__ import annotations

import sympy as sp

from ..._text import subspace_text
from ...symbolic import Subspace, conditional_variance, leap_index, one_step_subspace, random_feature_error, staircase
from ...symbolic.hermite import hermite_coefficients
from ...symbolic.hypothesis import Hypothesis
from ...symbolic.law import SYMBOLS, Law, Source, number_latex, rounded
from ...symbolic.one_step import student_coefficient
from ...symbolic.target import parse_link

__all__ = ["DKLPS", "HYPOTHESES", "LARGE_D", "LINEAR_BATCH", "MMM", "STAIRCASE_READING", "giant_step_laws",
           "second_layer_floors"]

DKLPS = Source(authors="Dandi, Krzakala, Loureiro, Pesce, Stephan", year=2023,
               title="How two-layer neural networks learn, one (giant) step at a time", arxiv="2305.18270")
MMM = Source(authors="Mei, Misiakiewicz, Montanari", year=2022,
             title="Generalization error of random feature and kernel ridge regression", arxiv="2101.10588")

_d, _n, _p, _eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))
_a = sp.Symbol("a_i", real=True)
_w0 = sp.Symbol("overlap0", real=True)
_c_sigma = sp.Symbol("c_sigma", real=True)
_OVERLAP_LATEX = {"overlap0": r"\langle w_i^0, w^*_k\rangle", "c_sigma": r"c_\sigma", "a_i": "a_i"}
_ell = sp.Symbol("ell", positive=True)

#: :math:`d \to \infty` read as :math:`d \ge` LARGE_D (module docstring).
LARGE_D = 64
#: The staircase's :math:`n = O(d)` read as :math:`n \le` LINEAR_BATCH :math:`\cdot d` (module docstring).
LINEAR_BATCH = 64
_ONE_STEP = "one-step theorems (d → ∞, n = Θ(d^κ))"

#: The hypotheses of the source's statements, by name (module docstring).
HYPOTHESES: dict[str, Hypothesis] = {
    "high dimension": Hypothesis(text=f"high dimension d → ∞ (read as d ≥ {LARGE_D})", condition=_d >= LARGE_D,
                                 where=_ONE_STEP),
    "theory step": Hypothesis(
        text="the learning theorems' step size η = p d^((ℓ−1)/2) (η = p at ℓ = 1), read within 1%",
        condition=sp.Abs(_eta / (_p * _d ** ((_ell - 1) / 2)) - 1) <= sp.Rational(1, 100),
        where="one-step learning theorems (ℓ = 1: η = p; ℓ > 1: η = p d^((ℓ−1)/2))"),
    "above threshold": Hypothesis(text="n = Ω(d^ℓ) samples (constant 1)", condition=_n >= _d**_ell,
                                  where="one-step learning theorems (n = Ω(d^ℓ))"),
    "linear batch": Hypothesis(text=f"n = O(d) per step (read as n ≤ {LINEAR_BATCH} d)",
                               condition=_n <= LINEAR_BATCH * _d,
                               where="Conjecture 1 (staircase, n = O(d))"),
    "fixed width": Hypothesis(text="p = O(1): width fixed as d grows (read as p ≤ √d)", condition=_p <= sp.sqrt(_d),
                              where="second-layer lower-bound theorem (p = O(1))"),
}
_READING = (f"d → ∞ read as d ≥ {LARGE_D} (a reading: the source gives no constant); the learning theorems' step size "
            "read exactly (within 1%); n = Ω(d^ℓ) with constant 1; polylog factors dropped")
_EXACT = ("derived here: an exact Hermite coefficient of the student activation, true at every size; its one "
          "condition, read exactly, is that the target's leap index is the ℓ it is taken at (it holds by "
          "construction for a law built from the measured target: a classification, not evidence)")


def _leap_hypothesis(ell: int) -> Hypothesis:
    r"""The one condition of the exact student-coefficient laws: the measured target's leap index is the law's ℓ
    (:math:`c_\sigma = \mu_\ell(\sigma)/(\ell-1)!` is the coefficient of the first step only at that ℓ)."""
    return Hypothesis(text=f"the target's leap index is ℓ = {ell}, the ℓ at which c_σ = μ_ℓ(σ)/(ℓ−1)! is taken",
                      condition=sp.Eq(_ell, ell),
                      where="derived here, flt_theory.symbolic.one_step (the student coefficient c_σ of the first "
                            "giant step at the target's leap index, flt_theory.symbolic.leap)")


def _hyp(*names: str) -> tuple[Hypothesis, ...]:
    return tuple(HYPOTHESES[name] for name in names)


def giant_step_laws(target, activation: str = "relu", degree: int | None = None) -> list[Law]:
    r"""Every law of the giant-step system for ``target`` and a student with ``activation``.

    >>> from flt_theory.symbolic.target import Target
    >>> laws = giant_step_laws(Target.from_links(["He2(z)"]))
    >>> laws[0].latex()
    'n^{*} \\asymp d^{2} \\quad (\\ell = 2)'
    >>> laws[1].latex()
    '\\eta \\asymp \\sqrt{d} p \\quad (\\ell = 2,\\ n \\asymp d^{\\kappa},\\ \\kappa \\geq \\ell)'
    >>> laws[0].exponent("d")
    2
    """
    ell = leap_index(target, degree)
    cond = rf"\ell = {ell}"
    c_sigma = student_coefficient(activation, ell)
    vanishing = bool(sp.sympify(c_sigma).is_zero)
    subspace = one_step_subspace(target, ell, activation=activation, degree=degree)
    laws = [
        Law(name="one-step threshold", lhs="n^{*}", relation="asymp", value=_d**ell, conditions=(cond,), source=DKLPS,
            words=f"one giant step learns once n ≳ d^{ell} (leap index ℓ = {ell})",
            hypotheses=_hyp("high dimension", "theory step"),
            hypotheses_reading=_READING + "; the no-learning half (n = O(d^(ℓ−ε))) holds for any η, the step size is "
                               "the learning half's hypothesis; κ = log n / log d at each point"),
        Law(name="theory step size", lhs=r"\eta", relation="asymp", value=_p * _d ** sp.Rational(ell - 1, 2),
            conditions=(cond, r"n \asymp d^{\kappa}", r"\kappa \geq \ell"), source=DKLPS,
            words=f"step size η = p·d^((ℓ−1)/2) with ℓ = {ell}",
            hypotheses_reading="the learning theorems' choice of step size (a definition, not a measured statement)"),
        _overlap_law(target, activation, ell, c_sigma, degree),
        Law(name="norm law", lhs=r"\|w_i^1\|^2 - 1", relation="asymp", value=_d * _eta**2 / (_n * _p**2),
            conditions=("t = 1",), source=DKLPS,
            words="‖w¹‖² − 1 ≍ d η²/(n p²) (the norm estimate of the one-step proofs)",
            hypotheses=_hyp("high dimension"),
            hypotheses_reading=_READING + "; the estimate is the sample-noise part of the update, for any η: it "
                               "holds where n ≪ d (n = Θ(d^κ), κ < 1); the Θ(1) signal part is a correction "
                               "1 + O(n/d) that dominates once n ≳ d"),
        Law(name="no learning below threshold", lhs=r"\|P_{V^*} w_i^1\| / \|w_i^1\|", relation="to", value=0,
            conditions=(r"n = O(d^{\ell - \varepsilon})", cond, r"\text{any } \eta"), source=DKLPS,
            words="below n ≍ d^ℓ one step learns nothing, for any η",
            hypotheses=_hyp("high dimension"), hypotheses_reading=_READING + "; for any η"),
        Law(name="one-step subspace", lhs=r"P_{V^*} w_i^1", relation="in", value=subspace,
            conditions=(r"n \asymp d^{\ell}", r"\eta = p\,d^{(\ell-1)/2}", cond),
            status="derived" if vanishing else "theorem", source=DKLPS,
            words=f"one step learns {subspace_text(subspace) if subspace.dim else 'nothing'} (ℓ = {ell})",
            hypotheses=(_leap_hypothesis(ell),) if vanishing else _hyp("high dimension", "theory step",
                                                                        "above threshold"),
            hypotheses_reading=_EXACT if vanishing else _READING),
        Law(name="student coefficient", lhs=rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}!", relation="eq",
            value=sp.nsimplify(c_sigma) if not isinstance(c_sigma, sp.Float) else c_sigma,
            conditions=(r"\sigma = " + sp.latex(parse_link(activation)),), status="derived", source=DKLPS,
            words=f"c_σ = μ_{ell}(σ)/({ell}−1)! for σ = {activation}; c_σ = 0 means one step learns nothing",
            hypotheses=(_leap_hypothesis(ell),), hypotheses_reading=_EXACT),
    ]
    if vanishing:
        laws.append(Law(name="vanishing student coefficient", lhs=r"\langle w_i^1, w^*_k\rangle", relation="to",
                        value=0,
                        conditions=(rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}! = 0",
                                    r"\sigma = " + sp.latex(parse_link(activation))),
                        status="derived", source=DKLPS, words="c_σ = 0: one step learns nothing along V* at any κ",
                        hypotheses=(_leap_hypothesis(ell),), hypotheses_reading=_EXACT))
    for t, u in enumerate(staircase(target, 3, degree=degree), start=1):
        laws.append(Law(name=f"staircase U_{t}", lhs=rf"U_{{{t}}}", relation="eq", value=u,
                        conditions=(r"n = O(d)", rf"t = {t}"), status="conjecture", source=DKLPS,
                        words=f"after {t} giant step(s) with n = O(d) the first layer learns U_{t}",
                        hypotheses=_hyp("high dimension", "linear batch"), hypotheses_reading=STAIRCASE_READING))
    laws.append(Law(name="conditional-variance lower bound", lhs=r"\mathbb{E}[(f^* - \hat f)^2] - o(1)", relation="geq",
                    value=conditional_variance(target, subspace, degree),
                    conditions=(r"p = O(1)", r"U^* = " + subspace.latex()), source=DKLPS,
                    words="test error ≥ E[Var(f*|P_U x)] + o(1) when the first layer learned only U",
                    hypotheses=_hyp("high dimension", "fixed width"),
                    hypotheses_reading=_READING + "; p = O(1) as p ≤ √d"))
    for k in (1, 2):
        laws.append(Law(name=f"random-feature limit kappa={k}", lhs=r"\mathbb{E}[(f^* - \hat f_{RF})^2]", relation="to",
                        value=random_feature_error(target, k, degree),
                        conditions=(rf"\min(\kappa_n, \kappa_p) = {k}", "T = 0"),
                        source=MMM, words=f"random features (T = 0) with min(κn, κp) = {k} reach ‖P_(>{k}) f*‖²",
                        hypotheses=_hyp("high dimension"), hypotheses_reading=_READING))
    return laws


def _overlap_law(target, activation, ell: int, c_sigma, degree) -> Law:
    mu = sp.Symbol("mu_star", real=True)
    conditions = [rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}! = {number_latex(c_sigma)}"]
    links = target.links()
    # as LaTeX shows it
    constants = {"c_sigma": sp.nsimplify(c_sigma) if not isinstance(c_sigma, sp.Float) else c_sigma}
    if links is not None:
        coefficients = [hermite_coefficients(link, ell, variable=sp.Symbol("z", real=True)) for link in links]
        mu_values = tuple(m.exact[ell] if m.exact[ell] is not None else sp.Float(m.values[ell], 6)
                          for m in coefficients)
        conditions.append(rf"(\mu^*_{{k,{ell}}})_k = ({', '.join(number_latex(v) for v in mu_values)})")
        constants["mu_star"] = mu_values
    return Law(name="overlap law", lhs=r"\langle w_i^1, w^*_k\rangle", relation="approx",
               value=_eta * _a / _p * _c_sigma * mu * _w0 ** (ell - 1), conditions=tuple(conditions), source=DKLPS,
               symbol_latex={**_OVERLAP_LATEX, "mu_star": rf"\mu^*_{{k,{ell}}}"},
               words="⟨w¹_i, w*_k⟩ ≈ (η a_i/p) c_σ μ*_{k,ℓ} ⟨w⁰_i, w*_k⟩^(ℓ−1)", constants=constants,
               hypotheses=_hyp("high dimension"), hypotheses_reading=_READING)


STAIRCASE_READING = (f"d → ∞ read as d ≥ {LARGE_D}; n = O(d) read as n ≤ {LINEAR_BATCH} d, the ratio held fixed "
                      "along d (the conjecture names no constant; at one d a bounded ratio cannot be told from a "
                      "growing one); no step-size condition is encoded (the measurements use η = 4p per step)")


def subspace_law(name: str, value: Subspace | tuple[Subspace, ...], *, words: str, relation: str = "eq") -> Law:
    r"""A staircase law with the given subspaces (for the claims and their wrong laws), under Conjecture 1's
    hypotheses. ``relation="eq"``: :math:`U_t` exactly (every new direction learned); ``"in"``:
    :math:`U_{t-1} \subsetneq U_t \subseteq` the given subspace (at least one new direction, none outside it)."""
    return Law(name=name, lhs=r"(U_1, U_2)", relation=relation, value=value, conditions=(r"n = O(d)",),
               status="conjecture", source=DKLPS, words=words, hypotheses=_hyp("high dimension", "linear batch"),
               hypotheses_reading=STAIRCASE_READING)


def second_layer_floors(target, ladder, activation: str = "relu", *, stalled: int | None = None) -> Law:
    r"""The second layer's test error after :math:`T = 0, 1, \dots` giant steps (width :math:`p = O(1)`, symmetric
    initialisation) is at least: at :math:`T = 0` the random-feature floor of its :math:`p/2` distinct features with
    the derived finite-width term (:func:`flt_theory.symbolic.projections.random_feature_floor`); after step
    :math:`T`, :math:`\mathbb E[\mathrm{Var}(f^*\mid P_{U_T}x)]` for the staircase ``ladder`` :math:`U_1, U_2, \dots`
    (Dandi et al. 2023). ``stalled = T``: the wrong law in which step :math:`T` learns nothing (:math:`U_T = U_{T-1}`).

    >>> from flt_theory.symbolic.target import Target
    >>> f = Target.parse("z1 + z1*z2")
    >>> right, stalled = second_layer_floors(f, staircase(f, 2)), second_layer_floors(f, staircase(f, 2), stalled=2)
    >>> right.numbers(p=8, d=128)[1:], stalled.numbers(p=8, d=128)[1:]
    ((1.0, 0.0), (1.0, 1.0))
    """
    from ...symbolic.projections import random_feature_floor

    p = SYMBOLS["p"]
    spans = list(ladder)
    if stalled is not None:
        spans[stalled - 1] = spans[stalled - 2] if stalled >= 2 else Subspace.zero(target.rank)
    floors = ((random_feature_floor(target, activation).subs(p, p / 2),)
              + tuple(conditional_variance(target, u) for u in spans))
    words = ("" if stalled is None else f"wrong: step {stalled} learns nothing: ") + (
        "second-layer error after T = 0.. steps ≥ " + ", ".join(sp.sstr(rounded(b)) for b in floors)
        + " (at T = 0 the random-feature floor of p/2 features, then E[Var(f*|P_(U_T) x)])")
    return Law(name="second-layer floors" + ("" if stalled is None else f" (wrong: U_{stalled} = U_{stalled - 1})"),
               lhs=r"\mathbb{E}[(f^* - \hat f_T)^2],\ T = 0, 1, \dots", relation="geq", value=floors,
               conditions=(r"p = O(1)", rf"f^* = {target.latex()}", r"U_T \text{ of the staircase}"),
               status="theorem", source=DKLPS, words=words,
               hypotheses=_hyp("high dimension", "fixed width", "linear batch"),
               hypotheses_reading=(_READING + "; p = O(1) as p ≤ √d; the bound is the second-layer theorem's given the "
                                   f"learned U_T, which are Conjecture 1's (n = O(d) read as n ≤ {LINEAR_BATCH} d); "
                                   "the T = 0 floor is derived here (finite-width random features)"))
