r"""Student activation :math:`\sigma` and its derivative :math:`\sigma'`, from one parsed expression.

The activation is parsed with the restricted grammar of the symbolic layer
(:func:`flt_theory.symbolic.target.parse_link`, a function of ``z``); :math:`\sigma'` is
``sympy.diff`` of the same expression (``relu' = Heaviside`` with :math:`H(0) = 1/2`), and both are
evaluated through :data:`~flt_theory.numeric.backend.TORCH` — no hand-written activation code.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch

from ..errors import FLTError, InvalidParameterError, InvalidParameterTypeError
from ..symbolic.evaluate import evaluate
from ..symbolic.target import parse_link
from .backend import TORCH

__all__ = ["SHORTHANDS", "Activation", "as_activation"]

#: Bare names accepted as shorthand for ``name(z)``.
SHORTHANDS = ("relu", "tanh", "erf", "sigmoid")

_Z = sp.Symbol("z", real=True)


@dataclass(frozen=True)
class Activation:
    r"""An activation :math:`\sigma(z)` with its derivative :math:`\sigma'(z)`, both sympy.

    Examples
    --------
    >>> act = Activation.parse("relu")
    >>> act.derivative
    Heaviside(z)
    >>> act.grad(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """

    expr: sp.Expr
    derivative: sp.Expr
    name: str

    @classmethod
    def parse(cls, activation: str | sp.Expr) -> Activation:
        """Parse a string (``"relu"``, ``"tanh(z)"``, ``"relu(z)**3"``, ``"z**2"``…) or take a
        sympy expression in ``z``; raise ``InvalidParameterError`` if it cannot be parsed or
        differentiated into something evaluable."""
        if not isinstance(activation, (str, sp.Expr)):
            raise InvalidParameterTypeError(
                f"The 'activation' parameter must be a string or a sympy expression in z. Got "
                f"{activation!r} of type {type(activation).__name__} instead."
            )
        text = activation.strip() if isinstance(activation, str) else activation
        if isinstance(text, str) and text in SHORTHANDS:
            text = f"{text}(z)"
        try:
            expr = parse_link(text)
            act = cls(expr=expr, derivative=sp.diff(expr, _Z), name=str(activation))
            probe = torch.tensor([-1.5, 0.0, 0.7], dtype=torch.float64)
            act(probe), act.grad(probe)
        except FLTError as err:
            raise InvalidParameterError(
                f"The 'activation' parameter must be a function of z in the expression grammar, or one of "
                f"{', '.join(SHORTHANDS)}. Got {activation!r}: {err}"
            ) from None
        return act

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`\sigma(x)`, elementwise, same shape as ``x``."""
        return evaluate(self.expr, [_Z], [x], TORCH)

    def grad(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`\sigma'(x)`, elementwise, same shape as ``x``."""
        return evaluate(self.derivative, [_Z], [x], TORCH)

    def __str__(self) -> str:
        return self.name


def as_activation(activation: str | sp.Expr | Activation) -> Activation:
    """``activation`` itself if already an :class:`Activation`, else :meth:`Activation.parse`."""
    return activation if isinstance(activation, Activation) else Activation.parse(activation)
