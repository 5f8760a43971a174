r"""Teacher :math:`f^*(x) = g(\langle w^*_1, x\rangle, \dots, \langle w^*_r, x\rangle)` in torch.

The link :math:`g` is the symbolic :class:`~flt_theory.symbolic.target.Target` itself, evaluated on
the projections :math:`z = W^* x` through :data:`~flt_theory.numeric.backend.TORCH`, so the
simulated labels are those of the object the symbolic laws are derived from. Source: Dandi,
Krzakala, Loureiro, Pesce, Stephan 2023 (arXiv 2305.18270).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..errors import InvalidParameterError, InvalidParameterTypeError
from ..symbolic.evaluate import evaluate
from ..symbolic.target import Target
from .backend import TORCH

__all__ = ["Teacher"]


@dataclass(frozen=True, eq=False)  # holds tensors: compare their fields explicitly
class Teacher:
    r"""A target together with its teacher directions.

    Attributes
    ----------
    target
        The link :math:`g(z_1, \dots, z_r)`.
    w_star
        Orthonormal rows :math:`w^*_k`, shape ``(seeds, r, d)``.

    Examples
    --------
    >>> t = Teacher(Target.parse("z1 + He2(z2)"), torch.eye(2, 3)[None])
    >>> t(torch.tensor([[[1.0, 2.0, 5.0]]]))
    tensor([[4.]])
    """

    target: Target
    w_star: torch.Tensor

    def __post_init__(self) -> None:
        if not isinstance(self.target, Target):
            raise InvalidParameterTypeError(
                f"The 'target' parameter must be a Target (e.g. Target.parse('z1 + He2(z2)')). Got "
                f"{type(self.target).__name__} instead."
            )
        if (
            not isinstance(self.w_star, torch.Tensor)
            or self.w_star.ndim != 3
            or self.w_star.shape[1] != self.target.rank
        ):
            shape = tuple(self.w_star.shape) if isinstance(self.w_star, torch.Tensor) else type(self.w_star).__name__
            raise InvalidParameterError(
                f"The 'w_star' parameter must be a tensor of shape (seeds, r={self.target.rank}, d). Got {shape} "
                "instead."
            )

    def project(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`z = W^* x`: ``(seeds, n, d)`` → ``(seeds, n, r)``."""
        if x.ndim != 3 or x.shape[0] != self.w_star.shape[0] or x.shape[-1] != self.w_star.shape[-1]:
            raise InvalidParameterError(
                f"The inputs must have shape (seeds={self.w_star.shape[0]}, n, d={self.w_star.shape[-1]}). "
                f"Got {tuple(x.shape)} instead."
            )
        return x @ self.w_star.transpose(-1, -2)

    def link(self, z: torch.Tensor) -> torch.Tensor:
        r""":math:`g(z)` from projections :math:`z = W^* x`: ``(seeds, n, r)`` → ``(seeds, n)``."""
        return evaluate(self.target.expr, self.target.variables, list(z.unbind(-1)), TORCH)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        r""":math:`f^*(x) = g(W^* x)`: ``(seeds, n, d)`` → ``(seeds, n)``."""
        return self.link(self.project(x))
