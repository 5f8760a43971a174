"""Activation functions that sympy lacks, as symbolic objects with derivatives and LaTeX.

``relu(z) = max(0, z)``; ``sigmoid(z) = 1 / (1 + e^{-z})``. Both evaluate on numbers, differentiate,
and print as ``\\operatorname{ReLU}`` / ``\\operatorname{sigmoid}``.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["relu", "sigmoid"]


class relu(sp.Function):  # noqa: N801 - sympy functions are lower case
    r"""Rectified linear unit :math:`\operatorname{ReLU}(z) = \max(0, z)`.

    >>> import sympy as sp
    >>> relu(sp.Integer(-2)), relu(sp.Rational(3, 2))
    (0, 3/2)
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
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

    def fdiff(self, argindex=1):
        return sp.Heaviside(self.args[0])

    def _eval_rewrite_as_Max(self, arg, **kwargs):
        return sp.Max(0, arg)

    def _latex(self, printer, exp=None):
        inner = r"\operatorname{ReLU}\left(%s\right)" % printer._print(self.args[0])
        return inner if exp is None else r"%s^{%s}" % (inner, exp)


class sigmoid(sp.Function):  # noqa: N801
    r"""Logistic sigmoid :math:`1/(1+e^{-z})`.

    >>> import sympy as sp
    >>> sigmoid(sp.Integer(0))
    1/2
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return sp.Rational(1, 2)
        return None

    def fdiff(self, argindex=1):
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_rewrite_as_exp(self, arg, **kwargs):
        return 1 / (1 + sp.exp(-arg))

    def _latex(self, printer, exp=None):
        inner = r"\operatorname{sigmoid}\left(%s\right)" % printer._print(self.args[0])
        return inner if exp is None else r"%s^{%s}" % (inner, exp)
