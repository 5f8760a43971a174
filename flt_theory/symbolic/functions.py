"""Activation functions that sympy lacks, as symbolic objects with derivatives and LaTeX.

``relu(z) = max(0, z)``; ``sigmoid(z) = 1 / (1 + e^{-z})``. Both evaluate on numbers, differentiate,
and print as ``\\operatorname{ReLU}`` / ``\\operatorname{sigmoid}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp

if TYPE_CHECKING:
    from sympy.printing.latex import LatexPrinter

__all__ = ["relu", "sigmoid"]


class relu(sp.Function):  # type: ignore[misc]  # noqa: N801 - sympy is untyped (Function reads as Any); sympy functions are lower case
    r"""Rectified linear unit :math:`\operatorname{ReLU}(z) = \max(0, z)`.

    >>> import sympy as sp
    >>> relu(sp.Integer(-2)), relu(sp.Rational(3, 2))
    (0, 3/2)
    """

    nargs = 1

    @classmethod
    def eval(cls, arg: sp.Expr) -> sp.Expr | None:
        if arg.is_number and arg.is_real:
            try:
                return sp.Max(0, arg)
            except ValueError:  # a constant whose sign sympy cannot decide stays relu(c)
                return None
        if arg.is_nonnegative:
            return arg
        if arg.is_nonpositive:
            return sp.Integer(0)
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.Heaviside(self.args[0])

    def _eval_rewrite_as_Max(self, arg: sp.Expr, **kwargs: Any) -> sp.Expr:
        return sp.Max(0, arg)

    def _latex(self, printer: LatexPrinter, exp: str | None = None) -> str:
        inner = r"\operatorname{ReLU}\left(%s\right)" % printer._print(self.args[0])
        return inner if exp is None else r"%s^{%s}" % (inner, exp)


class sigmoid(sp.Function):  # type: ignore[misc]  # noqa: N801 - sympy is untyped (Function reads as Any)
    r"""Logistic sigmoid :math:`1/(1+e^{-z})`.

    >>> import sympy as sp
    >>> sigmoid(sp.Integer(0))
    1/2
    """

    nargs = 1

    @classmethod
    def eval(cls, arg: sp.Expr) -> sp.Expr | None:
        if arg.is_zero:
            return sp.Rational(1, 2)
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_rewrite_as_exp(self, arg: sp.Expr, **kwargs: Any) -> sp.Expr:
        return 1 / (1 + sp.exp(-arg))

    def _latex(self, printer: LatexPrinter, exp: str | None = None) -> str:
        inner = r"\operatorname{sigmoid}\left(%s\right)" % printer._print(self.args[0])
        return inner if exp is None else r"%s^{%s}" % (inner, exp)
