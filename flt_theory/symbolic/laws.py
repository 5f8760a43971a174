r"""Predicted laws as objects: what they predict, their exponents, conditions, status and source.

A :class:`Law` is the unit the rest of flt_theory exchanges: systems attach measurements to it,
the comparator passes or fails it, reports print its LaTeX. :func:`giant_step_laws` assembles the
laws of seed ``004`` (DKLPS '23, arXiv 2305.18270) for one target and one student activation,
with every constant derived here (e.g. :math:`c_\sigma = \mu_\ell(\sigma)/(\ell-1)!`, see
:mod:`.one_step`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import sympy as sp

from ..errors import InvalidParameterError
from .hermite import hermite_coefficients
from .leap import leap_index
from .one_step import one_step_subspace, student_coefficient
from .projections import conditional_variance, random_feature_error
from .staircase import staircase

__all__ = ["Law", "giant_step_laws", "laws_latex_document", "SYMBOLS"]

#: Symbols shared by every law: dimension, samples per step, width, step size.
SYMBOLS = {name: sp.Symbol(name, positive=True) for name in ("d", "n", "p", "eta")}
_d, _n, _p, _eta = (SYMBOLS[k] for k in ("d", "n", "p", "eta"))

_RELATIONS = {"asymp": r"\asymp", "approx": r"\approx", "eq": "=", "geq": r"\geq", "in": r"\subseteq", "to": r"\to"}


@dataclass(frozen=True)
class Law:
    r"""A predicted law ``lhs relation rhs``.

    Attributes
    ----------
    name
        Short identifier, e.g. ``"one-step threshold"``.
    lhs, rhs
        LaTeX of the two sides (``rhs`` may also be given as a sympy expression in ``expression``).
    relation
        One of ``asymp``, ``approx``, ``eq``, ``geq``, ``in``, ``to``.
    expression
        The predicted quantity as a sympy expression of :data:`SYMBOLS` (or a number), if any.
    exponents
        Power-law exponents of ``expression`` in each symbol, where it is a power law.
    conditions
        LaTeX conditions under which the law holds.
    status
        ``"theorem"``, ``"conjecture"`` or ``"derived"`` (derived here from a theorem's proof).
    source
        Where it comes from (seed file, arXiv id).
    """

    name: str
    lhs: str
    relation: str
    rhs: str
    expression: sp.Expr | None = None
    exponents: Mapping[str, sp.Expr] = field(default_factory=dict)
    conditions: Sequence[str] = ()
    status: str = "theorem"
    source: str = "DKLPS '23, arXiv 2305.18270 (seed 004)"

    def __post_init__(self) -> None:
        if self.relation not in _RELATIONS:
            raise InvalidParameterError(
                f"The 'relation' parameter of Law must be one of {sorted(_RELATIONS)}. Got {self.relation!r} instead."
            )
        if self.status not in ("theorem", "conjecture", "derived"):
            raise InvalidParameterError(
                "The 'status' parameter of Law must be one of ['conjecture', 'derived', 'theorem']. "
                f"Got {self.status!r} instead."
            )

    def latex(self) -> str:
        r"""The law as display LaTeX, conditions after a comma.

        >>> Law("t", "n^*", "asymp", "d^{2}", conditions=(r"\ell = 2",)).latex()
        'n^* \\asymp d^{2} \\quad (\\ell = 2)'
        """
        body = f"{self.lhs} {_RELATIONS[self.relation]} {self.rhs}"
        return body + (r" \quad (" + r",\ ".join(self.conditions) + ")" if self.conditions else "")

    def _repr_latex_(self) -> str:
        return f"$${self.latex()}$$"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "latex": self.latex(),
            "status": self.status,
            "source": self.source,
            "exponents": {k: str(v) for k, v in self.exponents.items()},
            "expression": None if self.expression is None else str(self.expression),
        }


def giant_step_laws(target, activation: str = "relu", degree: int | None = None) -> list[Law]:
    r"""Every law of the giant-step system for ``target`` and a student with ``activation``.

    >>> from flt_theory.symbolic.target import Target
    >>> laws = giant_step_laws(Target.from_links(["He2(z)"]))
    >>> laws[0].latex()
    'n^{*} \\asymp d^{2} \\quad (\\ell = 2)'
    >>> laws[1].latex()
    '\\eta \\asymp p\\, d^{\\frac{1}{2}} \\quad (\\ell = 2,\\ n \\asymp d^{\\kappa},\\ \\kappa \\geq \\ell)'
    """
    ell = leap_index(target, degree)
    cond = rf"\ell = {ell}"
    c_sigma = student_coefficient(activation, ell)
    eta_theory = _p * _d ** sp.Rational(ell - 1, 2)
    norm = 1 + _d * _eta**2 / (_n * _p**2)
    laws = [
        Law("one-step threshold", "n^{*}", "asymp", sp.latex(_d**ell), _d**ell, {"d": sp.Integer(ell)}, (cond,)),
        Law(
            "theory step size",
            r"\eta",
            "asymp",
            "p" if ell == 1 else r"p\, d^{%s}" % sp.latex(sp.Rational(ell - 1, 2)),
            eta_theory,
            {"p": sp.Integer(1), "d": sp.Rational(ell - 1, 2)},
            (cond, r"n \asymp d^{\kappa}", r"\kappa \geq \ell"),
        ),
        _overlap_law(target, activation, ell, c_sigma, degree),
        Law(
            "norm law",
            r"\|w_i^1\|^2",
            "asymp",
            sp.latex(norm),
            norm,
            {"d": sp.Integer(1), "eta": sp.Integer(2), "n": sp.Integer(-1), "p": sp.Integer(-2)},
            ("t = 1",),
        ),
        Law(
            "no learning below threshold",
            r"\|P_{V^*} w_i^1\| / \|w_i^1\|",
            "to",
            "0",
            sp.Integer(0),
            {},
            (r"n = O(d^{\ell - \varepsilon})", cond, r"\text{any } \eta"),
        ),
        Law(
            "one-step subspace",
            r"P_{V^*} w_i^1",
            "in",
            one_step_subspace(target, ell, activation=activation, degree=degree).latex(),
            None,
            {},
            (r"n \asymp d^{\ell}", r"\eta = p\,d^{(\ell-1)/2}", cond),
            "theorem" if not sp.sympify(c_sigma).is_zero else "derived",
        ),
    ]
    if sp.sympify(c_sigma).is_zero:
        laws.append(
            Law(
                "vanishing student coefficient",
                r"\langle w_i^1, w^*_k\rangle",
                "to",
                "0",
                sp.Integer(0),
                {},
                (rf"c_\sigma = \mu_{ell}(\sigma)/({ell}-1)! = 0", r"\sigma = " + sp.latex(_activation_expr(activation))),
                "derived",
            )
        )
    for t, u in enumerate(staircase(target, 3, degree=degree), start=1):
        laws.append(
            Law(f"staircase U_{t}", rf"U_{{{t}}}", "eq", u.latex(), None, {}, (r"n = O(d)", rf"t = {t}"), "conjecture")
        )
    u_ell = one_step_subspace(target, ell, activation=activation, degree=degree)
    laws.append(
        Law(
            "conditional-variance lower bound",
            r"\mathbb{E}[(f^* - \hat f)^2]",
            "geq",
            sp.latex(conditional_variance(target, u_ell, degree)) + " + o(1)",
            conditional_variance(target, u_ell, degree),
            {},
            (r"p = O(1)", r"U^* = " + u_ell.latex()),
        )
    )
    for k in (1, 2):
        laws.append(
            Law(
                f"random-feature limit kappa={k}",
                r"\mathbb{E}[(f^* - \hat f_{RF})^2]",
                "to",
                sp.latex(random_feature_error(target, k, degree)),
                random_feature_error(target, k, degree),
                {},
                (rf"\min(\kappa_n, \kappa_p) = {k}", "T = 0"),
                source="Mei, Misiakiewicz, Montanari '22 (seed 004)",
            )
        )
    return laws


def _overlap_law(target, activation, ell: int, c_sigma, degree) -> Law:
    links = target.links()
    mu = None
    if links is not None:
        mu = [hermite_coefficients(link, ell, variable=sp.Symbol("z", real=True)) for link in links]
    w0 = sp.Symbol("overlap0")  # <w_i^0, w*_k>, of order d^{-1/2}
    power = {1: "", 2: r"\, \langle w_i^0, w^*_k\rangle"}.get(ell, r"\, \langle w_i^0, w^*_k\rangle^{%d}" % (ell - 1))
    rhs = r"\frac{\eta a_i}{p}\, c_\sigma\, \mu^*_{k,%d}%s" % (ell, power)
    conditions = [rf"c_\sigma = \mu_{{{ell}}}(\sigma)/({ell}-1)! = {sp.latex(sp.nsimplify(c_sigma) if not isinstance(c_sigma, sp.Float) else sp.Float(c_sigma, 6))}"]
    if mu is not None:
        values = ", ".join(sp.latex(m.exact[ell] if m.exact[ell] is not None else sp.Float(m.values[ell], 6)) for m in mu)
        conditions.append(rf"(\mu^*_{{k,{ell}}})_k = ({values})")
    return Law(
        "overlap law",
        r"\langle w_i^1, w^*_k\rangle",
        "approx",
        rhs,
        _eta / _p * c_sigma * w0 ** (ell - 1),
        {"eta": sp.Integer(1), "overlap0": sp.Integer(ell - 1)},
        tuple(conditions),
        "theorem",
    )


def _activation_expr(activation):
    from .target import parse_link

    return parse_link(activation) if isinstance(activation, str) else activation


_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "_": r"\_", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_text(text: str) -> str:
    """Escape LaTeX's special characters in running text (law names, sources).

    >>> print(_latex_text("staircase U_1 (50% & more)"))
    staircase U\\_1 (50\\% \\& more)
    """
    return "".join(_TEXT_ESCAPES.get(ch, ch) for ch in text)


def laws_latex_document(target, laws: Sequence[Law], title: str | None = None) -> str:
    r"""A standalone LaTeX document listing ``laws`` for ``target`` (one numbered equation each)."""
    lines = [
        r"\documentclass{article}",
        r"\usepackage{amsmath,amssymb}",
        r"\begin{document}",
        r"\section*{" + (title or "Predicted laws") + "}",
        r"Target: $f^*(x) = " + target.latex() + r"$, with $x_k = \langle x, w^*_k\rangle$; "
        r"Hermite convention: probabilists' $\mathrm{He}_j$, $\mathbb{E}[\mathrm{He}_j\mathrm{He}_k] = j!\,\delta_{jk}$.",
        r"\begin{enumerate}",
    ]
    for law in laws:
        lines.append(rf"\item \textbf{{{_latex_text(law.name)}}} ({law.status}; {_latex_text(law.source)}): \[ {law.latex()} \]")
    lines += [r"\end{enumerate}", r"\end{document}", ""]
    return "\n".join(lines)
