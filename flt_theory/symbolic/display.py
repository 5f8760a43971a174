r"""Results of the symbolic layer that display themselves in a notebook (IPython's rich-display protocol).

:func:`~flt_theory.symbolic.staircase` returns a :class:`Staircase` and
:func:`~flt_theory.symbolic.regime_table` a :class:`RegimeTable`: plain lists (of
:class:`~flt_theory.symbolic.Subspace`, of :class:`~flt_theory.symbolic.projections.RegimeRow`) that a notebook
shows as LaTeX — :math:`U_1 \subseteq U_2 \subseteq \dots` for the staircase of Dandi, Krzakala, Loureiro, Pesce,
Stephan 2023 (arXiv 2305.18270, Conjecture 1), and the table of its Conjecture 3 (learned subspace :math:`U`, fitted
:math:`P_{U,\le\kappa} f^*`, residual :math:`\|P_{U,>\kappa} f^*\|^2` per :math:`(\kappa_n, \kappa_p)`).

:func:`written_latex` is a target's LaTeX as its text was written: each :math:`\mathrm{He}_k` the user wrote stays
:math:`\mathrm{He}_k(\cdot)` (probabilists' Hermite polynomials, :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] =
j!\,\delta_{jk}`), where :meth:`~flt_theory.symbolic.Target.latex` shows the expanded polynomial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import sympy as sp

from .._display import html_table, math_html

if TYPE_CHECKING:
    from .projections import RegimeRow
    from .subspace import Subspace
    from .target import Target

__all__ = ["RegimeTable", "Staircase", "WrittenHermite", "written_latex"]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"


class Staircase(list["Subspace"]):
    r"""The subspaces :math:`U_1, \dots, U_T` of a staircase (a list of :class:`~flt_theory.symbolic.Subspace`).

    >>> from flt_theory.symbolic import Target, staircase
    >>> print(staircase(Target.parse("z1 + z1*z2"), 2)._repr_latex_())
    $$\begin{aligned} U_{1} &= \mathrm{span}\{w^*_{1}\} \\ U_{2} &= \mathrm{span}\{w^*_{1}, w^*_{2}\}\end{aligned}$$
    """

    def _repr_latex_(self) -> str:
        lines = [rf"U_{{{t}}} &= {u.latex()}" for t, u in enumerate(self, start=1)]
        return r"$$\begin{aligned} " + r" \\ ".join(lines) + r"\end{aligned}$$"


class RegimeTable(list["RegimeRow"]):
    r"""The regime table of :func:`~flt_theory.symbolic.regime_table`: a list of ``RegimeRow``, one per
    :math:`(\kappa_n, \kappa_p)`; shown as an HTML table (one row per regime, formulas typeset) or LaTeX.

    >>> from flt_theory.symbolic import Target, regime_table
    >>> table = regime_table(Target.parse("z1 + He2(z1)*z2"), [(1, 1), (2, 2)])
    >>> table._repr_html_().count("<tr>")  # header + one per regime
    3
    """

    _HEADER = ("κ_n", "κ_p", "κ", "learned U", "fitted P_{U,≤κ} f*", "residual ‖P_{U,>κ} f*‖²")

    def _cells(self, row: RegimeRow) -> tuple[str, ...]:
        return (_number(row.kappa_n), _number(row.kappa_p), _number(row.kappa), row.subspace.latex(),
                sp.latex(row.projection.fitted), sp.latex(row.projection.residual_norm2))

    def _repr_html_(self) -> str:
        rows = [[*c[:3], *(math_html(x) for x in c[3:])] for c in map(self._cells, self)]
        norm = sp.latex(self[0].projection.norm2) if self else ""
        return html_table(self._HEADER, rows, escaped=True, caption=f"one giant step, n ~ d^κ_n, p ~ d^κ_p; "
                                                                   f"‖f*‖² = {norm}" if self else "")

    def _repr_latex_(self) -> str:
        head = r"\kappa_n & \kappa_p & \kappa & U & P_{U,\le\kappa} f^* & \|P_{U,>\kappa} f^*\|^2"
        body = r" \\ ".join(" & ".join(self._cells(row)) for row in self)
        return rf"$$\begin{{array}}{{cccccc}} {head} \\ \hline {body} \end{{array}}$$"


class WrittenHermite(sp.Function):  # type: ignore[misc]  # sympy is untyped
    r"""``WrittenHermite(k, u)``: the probabilists' Hermite polynomial :math:`\mathrm{He}_k(u)` kept as written, for
    display (:func:`written_latex`); :meth:`doit` expands it (``sympy.hermite_prob``)."""

    nargs = 2

    def doit(self, **hints: object) -> sp.Expr:
        degree, arg = (a.doit(**hints) if hints.get("deep", True) else a for a in self.args)
        return sp.hermite_prob(degree, arg)

    def _latex(self, printer: object) -> str:
        degree, arg = self.args
        return rf"\mathrm{{He}}_{{{degree}}}\left({printer._print(arg)}\right)"  # type: ignore[attr-defined]

    def _sympystr(self, printer: object) -> str:
        degree, arg = self.args
        return f"He{degree}({printer._print(arg)})"  # type: ignore[attr-defined]


def _written(text: str) -> sp.Expr:
    """``text`` parsed by the target grammar (:func:`~flt_theory.symbolic.parser.parse_expression`, every check of
    it) with each ``Hek(u)`` / ``He(k, u)`` of a non-constant ``u`` kept as :class:`WrittenHermite`."""
    from .parser import _Parser

    class Parser(_Parser):
        capture = False
        arguments: list[sp.Expr]

        def expr(self) -> sp.Expr:
            capture, self.capture = self.capture, False
            value = super().expr()
            if capture:
                self.arguments.append(value)
            return value

        def hermite(self, tok, digits: str) -> sp.Expr:  # type: ignore[no-untyped-def]
            start, self.capture = self.i, True
            value = super().hermite(tok, digits)  # the grammar's checks, on the expanded polynomial
            arg = self.arguments.pop()
            degree = int(digits or self.tokens[start + 1].text)  # Hek(u), or He(k, u): k after '('
            return WrittenHermite(degree, arg) if arg.free_symbols else value

    parser = Parser(text, None)
    parser.arguments = []
    return parser.parse()


def written_latex(target: Target) -> str | None:
    r"""LaTeX of ``target`` (a :class:`~flt_theory.symbolic.Target`) as its text was written, each
    :math:`\mathrm{He}_k` kept (module docstring); None when the target was not given as one text (``--links``, an
    expression) or the written form does not expand to the target exactly.

    >>> from flt_theory.symbolic import Target
    >>> written_latex(Target.parse("He3(z3) + z1*z2"))
    'z_{1} z_{2} + \\mathrm{He}_{3}\\left(z_{3}\\right)'
    >>> Target.parse("He3(z3) + z1*z2").latex()
    'z_{1} z_{2} + z_{3}^{3} - 3 z_{3}'
    """
    from ..errors import FLTError

    text = target.name
    if not isinstance(text, str):
        return None
    try:
        written = _written(text)
    except FLTError:  # a name that is not the target's text
        return None
    if written.has(sp.Float) or sp.expand(written.doit() - target.expr) != 0:
        return None
    variables = sorted(written.free_symbols, key=lambda v: v.name)
    names = {v: sp.Symbol(f"z_{{{v.name[1:]}}}", real=True) for v in variables}
    return cast(str, sp.latex(written.xreplace(names)))
