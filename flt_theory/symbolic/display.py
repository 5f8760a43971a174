r"""Results of the symbolic layer that display themselves in a notebook (IPython's rich-display protocol).

:func:`~flt_theory.symbolic.staircase` returns a :class:`Staircase` and
:func:`~flt_theory.symbolic.regime_table` a :class:`RegimeTable`: plain lists (of
:class:`~flt_theory.symbolic.Subspace`, of :class:`~flt_theory.symbolic.projections.RegimeRow`) that a notebook
shows as LaTeX — :math:`U_1 \subseteq U_2 \subseteq \dots` for the staircase of Dandi, Krzakala, Loureiro, Pesce,
Stephan 2023 (arXiv 2305.18270, Conjecture 1), and the table of its Conjecture 3 (learned subspace :math:`U`, fitted
:math:`P_{U,\le\kappa} f^*`, residual :math:`\|P_{U,>\kappa} f^*\|^2` per :math:`(\kappa_n, \kappa_p)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from .._display import html_table, math_html

if TYPE_CHECKING:
    from .projections import RegimeRow
    from .subspace import Subspace

__all__ = ["RegimeTable", "Staircase"]


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
