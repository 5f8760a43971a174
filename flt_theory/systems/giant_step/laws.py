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
:math:`\langle w_i^1, w^*_k\rangle \approx \frac{\eta a_i}{p} c_\sigma \mu^*_{k,\ell}\langle w_i^0, w^*_k\rangle^{\ell-1}`
with :math:`a_i`, :math:`\mu^*_{k,\ell}` and the initial overlap as symbols in the expression.
"""

from __future__ import annotations

import sympy as sp

from ..._text import subspace_text
from ...symbolic import Subspace, conditional_variance, leap_index, one_step_subspace, random_feature_error, staircase
from ...symbolic.hermite import hermite_coefficients
from ...symbolic.law import SYMBOLS, Law, Source
from ...symbolic.one_step import student_coefficient
from ...symbolic.target import parse_link

__all__ = ["DKLPS", "MMM", "giant_step_laws", "second_layer_floors"]

DKLPS = Source(authors="Dandi, Krzakala, Loureiro, Pesce, Stephan", year=2023,
               title="How two-layer neural networks learn, one (giant) step at a time", arxiv="2305.18270")
MMM = Source(authors="Mei, Misiakiewicz, Montanari", year=2022,
             title="Generalization error of random feature and kernel ridge regression", arxiv="2101.10588")

_d, _n, _p, _eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))
_a = sp.Symbol("a_i", real=True)
_w0 = sp.Symbol("overlap0", real=True)
_c_sigma = sp.Symbol("c_sigma", real=True)
_OVERLAP_LATEX = {"overlap0": r"\langle w_i^0, w^*_k\rangle", "c_sigma": r"c_\sigma", "a_i": "a_i"}


def _number_latex(value) -> str:
    value = sp.nsimplify(value) if not isinstance(value, sp.Float) else value
    return sp.latex(value.xreplace({f: sp.Float(f, 4) for f in value.atoms(sp.Float)}) if isinstance(value, sp.Basic) else value)


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
            words=f"one giant step learns once n ≳ d^{ell} (leap index ℓ = {ell})"),
        Law(name="theory step size", lhs=r"\eta", relation="asymp", value=_p * _d ** sp.Rational(ell - 1, 2),
            conditions=(cond, r"n \asymp d^{\kappa}", r"\kappa \geq \ell"), source=DKLPS,
            words=f"step size η = p·d^((ℓ−1)/2) with ℓ = {ell}"),
        _overlap_law(target, activation, ell, c_sigma, degree),
        Law(name="norm law", lhs=r"\|w_i^1\|^2 - 1", relation="asymp", value=_d * _eta**2 / (_n * _p**2),
            conditions=("t = 1",), source=DKLPS, words="‖w¹‖² − 1 ≍ d η²/(n p²)"),
        Law(name="no learning below threshold", lhs=r"\|P_{V^*} w_i^1\| / \|w_i^1\|", relation="to", value=0,
            conditions=(r"n = O(d^{\ell - \varepsilon})", cond, r"\text{any } \eta"), source=DKLPS,
            words="below n ≍ d^ℓ one step learns nothing, for any η"),
        Law(name="one-step subspace", lhs=r"P_{V^*} w_i^1", relation="in", value=subspace,
            conditions=(r"n \asymp d^{\ell}", r"\eta = p\,d^{(\ell-1)/2}", cond),
            status="derived" if vanishing else "theorem", source=DKLPS,
            words=f"one step learns {subspace_text(subspace) if subspace.dim else 'nothing'} (ℓ = {ell})"),
        Law(name="student coefficient", lhs=rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}!", relation="eq",
            value=sp.nsimplify(c_sigma) if not isinstance(c_sigma, sp.Float) else c_sigma,
            conditions=(r"\sigma = " + sp.latex(parse_link(activation)),), status="derived", source=DKLPS,
            words=f"c_σ = μ_{ell}(σ)/({ell}−1)! for σ = {activation}; c_σ = 0 means one step learns nothing"),
    ]
    if vanishing:
        laws.append(Law(name="vanishing student coefficient", lhs=r"\langle w_i^1, w^*_k\rangle", relation="to", value=0,
                        conditions=(rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}! = 0",
                                    r"\sigma = " + sp.latex(parse_link(activation))),
                        status="derived", source=DKLPS, words="c_σ = 0: one step learns nothing along V* at any κ"))
    for t, u in enumerate(staircase(target, 3, degree=degree), start=1):
        laws.append(Law(name=f"staircase U_{t}", lhs=rf"U_{{{t}}}", relation="eq", value=u,
                        conditions=(r"n = O(d)", rf"t = {t}"), status="conjecture", source=DKLPS,
                        words=f"after {t} giant step(s) with n = O(d) the first layer learns U_{t}"))
    laws.append(Law(name="conditional-variance lower bound", lhs=r"\mathbb{E}[(f^* - \hat f)^2] - o(1)", relation="geq",
                    value=conditional_variance(target, subspace, degree),
                    conditions=(r"p = O(1)", r"U^* = " + subspace.latex()), source=DKLPS,
                    words="test error ≥ E[Var(f*|P_U x)] + o(1) when the first layer learned only U"))
    for k in (1, 2):
        laws.append(Law(name=f"random-feature limit kappa={k}", lhs=r"\mathbb{E}[(f^* - \hat f_{RF})^2]", relation="to",
                        value=random_feature_error(target, k, degree), conditions=(rf"\min(\kappa_n, \kappa_p) = {k}", "T = 0"),
                        source=MMM, words=f"random features (T = 0) with min(κn, κp) = {k} reach ‖P_(>{k}) f*‖²"))
    return laws


def _overlap_law(target, activation, ell: int, c_sigma, degree) -> Law:
    mu = sp.Symbol("mu_star", real=True)
    conditions = [rf"c_\sigma = \mu_{{{ell}}}(\sigma)/{ell - 1}! = {_number_latex(c_sigma)}"]
    links = target.links()
    if links is not None:
        coefficients = [hermite_coefficients(link, ell, variable=sp.Symbol("z", real=True)) for link in links]
        values = ", ".join(_number_latex(m.exact[ell] if m.exact[ell] is not None else sp.Float(m.values[ell], 6))
                           for m in coefficients)
        conditions.append(rf"(\mu^*_{{k,{ell}}})_k = ({values})")
    return Law(name="overlap law", lhs=r"\langle w_i^1, w^*_k\rangle", relation="approx",
               value=_eta * _a / _p * _c_sigma * mu * _w0 ** (ell - 1), conditions=tuple(conditions), source=DKLPS,
               symbol_latex={**_OVERLAP_LATEX, "mu_star": rf"\mu^*_{{k,{ell}}}"},
               words="⟨w¹_i, w*_k⟩ ≈ (η a_i/p) c_σ μ*_{k,ℓ} ⟨w⁰_i, w*_k⟩^(ℓ−1)")


def subspace_law(name: str, value: Subspace | tuple[Subspace, ...], *, words: str) -> Law:
    """A staircase law with the given subspaces (for the claims and their wrong laws)."""
    return Law(name=name, lhs=r"(U_1, U_2)", relation="eq", value=value, conditions=(r"n = O(d)",), status="conjecture",
               source=DKLPS, words=words)


def second_layer_floors(target, ladder, activation: str = "relu", *, stalled: int | None = None) -> Law:
    r"""The second layer's test error after :math:`T = 0, 1, \dots` giant steps (width :math:`p = O(1)`, symmetric
    initialisation) is at least: at :math:`T = 0` the random-feature floor of its :math:`p/2` distinct features with
    the derived finite-width term (:func:`flt_theory.symbolic.projections.random_feature_floor`); after step
    :math:`T`, :math:`\mathbb E[\mathrm{Var}(f^*\mid P_{U_T}x)]` for the staircase ``ladder`` :math:`U_1, U_2, \dots`
    (Dandi et al. 2023). ``stalled = T``: the wrong law in which step :math:`T` learns nothing (:math:`U_T = U_{T-1}`).

    >>> from flt_theory.symbolic.target import Target
    >>> f = Target.parse("z1 + z1*z2")
    >>> second_layer_floors(f, staircase(f, 2)).numbers(p=8, d=128)[1:], second_layer_floors(f, staircase(f, 2), stalled=2).numbers(p=8, d=128)[1:]
    ((1.0, 0.0), (1.0, 1.0))
    """
    from ...symbolic.projections import random_feature_floor

    p = SYMBOLS["p"]
    spans = list(ladder)
    if stalled is not None:
        spans[stalled - 1] = spans[stalled - 2] if stalled >= 2 else Subspace.zero(target.rank)
    floors = (random_feature_floor(target, activation).subs(p, p / 2),) + tuple(conditional_variance(target, u) for u in spans)
    words = ("" if stalled is None else f"wrong: step {stalled} learns nothing: ") + (
        "second-layer error after T = 0.. steps ≥ " + ", ".join(str(b) for b in floors)
        + " (at T = 0 the random-feature floor of p/2 features, then E[Var(f*|P_(U_T) x)])")
    return Law(name="second-layer floors" + ("" if stalled is None else f" (wrong: U_{stalled} = U_{stalled - 1})"),
               lhs=r"\mathbb{E}[(f^* - \hat f_T)^2],\ T = 0, 1, \dots", relation="geq", value=floors,
               conditions=(r"p = O(1)", rf"f^* = {target.latex()}", r"U_T \text{ of the staircase}"),
               status="theorem", source=DKLPS, words=words)
